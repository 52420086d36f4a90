"""`fito check --format html`: one standalone page (no script, no external resource) with
each file's diagnostics, a table of verdicts, and every counterexample or witness as an SVG
message-sequence chart with its steps; also the notebook views (`_repr_html_`)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from fito import display
from fito.check.result import FAILS, HOLDS, Verdict
from fito.check.traces.records import LOOP, Trace, TraceStep
from fito.diagnostics import render_text
from fito.expect import Mismatch
from fito.outcome import FileReport
from fito.render.runs import Collapsed, domain_name, rows, step_changes, waiting_text
from fito.render.svg import render_chart

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1d2125; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table.fito { border-collapse: collapse; margin: 8px 0; }
table.fito td, table.fito th { border: 1px solid #d0d4d9; padding: 3px 8px; text-align: left;
  vertical-align: top; font-family: ui-monospace, monospace; font-size: 12px; }
table.fito th { background: #f3f5f7; font-family: system-ui, sans-serif; }
.holds { color: #1a7f37; font-weight: 600; } .fails { color: #cf222e; font-weight: 600; }
.unknown { color: #9a6700; font-weight: 600; }
pre.diag { background: #fff8f0; border-left: 3px solid #d97706; padding: 6px 10px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
details { margin: 10px 0 18px; } summary { cursor: pointer; font-weight: 600; }
.reason { font-family: ui-monospace, monospace; font-size: 12px; color: #57606a; }
svg.msc { display: block; margin: 10px 0; background: #fff; }
svg.msc text { font: 12px ui-monospace, monospace; fill: #1d2125; }
svg.msc text.head { font-weight: 600; } svg.msc text.change { fill: #0550ae; font-size: 11px; }
svg.msc text.index, svg.msc text.note { fill: #6e7781; } svg.msc text.final { fill: #cf222e; }
svg.msc text.final.goal { fill: #1a7f37; }
svg.msc text.crash { fill: #cf222e; font-weight: 600; }
svg.msc .lifeline line { stroke: #8c959f; stroke-dasharray: 4 3; }
svg.msc .process rect { fill: #ddf4ff; stroke: #54aeff; }
svg.msc .domain rect { fill: #fff8c5; stroke: #d4a72c; }
svg.msc circle.move { fill: #0969da; } svg.msc circle.tau, svg.msc circle.hidden { fill: #8c959f; }
svg.msc line.sync { stroke: #0969da; stroke-width: 2; }
svg.msc line.write { stroke: #0550ae; } svg.msc marker path { fill: #0550ae; }
svg.msc line.crash { stroke: #cf222e; stroke-width: 3; stroke-dasharray: 8 4; }
svg.msc line.internal { stroke: #d0d7de; stroke-dasharray: 2 3; }
svg.msc line.loop { stroke: #8250df; stroke-width: 2; stroke-dasharray: 6 3; }
svg.msc text.loop { fill: #8250df; }
"""


def render_html_report(
    reports: Sequence[FileReport], expectations: Sequence[Sequence[Mismatch]] | None = None
) -> str:
    """The whole page."""
    body = ["<h1>fito check</h1>"]
    for i, r in enumerate(reports):
        body.extend(file_html(r, f"f{i}", None if expectations is None else expectations[i]))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>fito check</title><style>"
        + CSS
        + "</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>"
    )


def file_html(r: FileReport, key: str, problems: Sequence[Mismatch] | None = None) -> list[str]:
    """One file's section: diagnostics, verdicts, runs (key makes its ids unique)."""
    out = [f"<h2>{escape(r.path)}</h2>"]
    if problems is not None:
        out.append(_expect_html(problems))
    out.extend(
        f'<pre class="diag">{escape(render_text(d, r.path, r.text))}</pre>' for d in r.diagnostics
    )
    if r.verdicts:
        out.append(verdicts_table(r.verdicts))
    for k, v in enumerate(r.verdicts):
        if v.run is not None and v.verdict in (FAILS, HOLDS):
            out.append(run_details(v, f"{key}-run{k}"))
    return out


def _expect_html(problems: Sequence[Mismatch]) -> str:
    if not problems:
        return '<p class="holds">every <code>-- expect:</code> comment is met</p>'
    items = "".join(f"<li>line {p.line}: {escape(p.message)}</li>" for p in problems)
    return f'<p class="fails">expectations not met:</p><ul>{items}</ul>'


def verdicts_table(verdicts: Sequence[Verdict]) -> str:
    """One row per assertion: line, assertion, verdict, states, transitions, seconds."""
    head = (
        "<tr><th>line</th><th>assertion</th><th>verdict</th><th>states</th>"
        "<th>transitions</th><th>seconds</th></tr>"
    )
    body = "".join(
        f"<tr><td>{v.line}</td><td>{escape(v.text)}</td>"
        f'<td class="{v.verdict}">{v.verdict}'
        + (f" in {len(v.trace)}" if v.verdict == FAILS and v.trace else "")
        + "</td>"
        f"<td>{v.states:,}</td><td>{v.transitions:,}</td><td>{v.seconds:.2f}</td></tr>"
        for v in verdicts
    )
    return f'<table class="fito verdicts">{head}{body}</table>'


def run_details(v: Verdict, chart_id: str) -> str:
    """A verdict's run: the reason, the chart, the steps and the end of the run."""
    assert v.run is not None
    title = "counterexample" if v.verdict == FAILS else "witness"
    parts = [
        f"<details open><summary>line {v.line}: {title} for <code>{escape(v.text)}</code></summary>"
    ]
    if v.reason:
        parts.append(f'<p class="reason">{escape(v.reason)}</p>')
    parts.append(render_chart(v.run, chart_id))
    parts.append(steps_table(v.run))
    parts.append(end_html(v.run))
    parts.append("</details>")
    return "\n".join(parts)


def steps_table(trace: Trace, verbose: bool = False) -> str:
    """The steps as a table: one column per persistence domain that the run changes."""
    shown = rows(trace, verbose)
    touched = {d for s in trace.steps for d, _ in step_changes(trace, s)}
    domains = [d for d in trace.domains() if d in touched]
    head = (
        "<tr><th>#</th><th>event</th><th>process</th>"
        + "".join(f"<th>{escape(domain_name(d))}</th>" for d in domains)
        + "</tr>"
    )
    out = []
    loop = trace.final.loop_start if trace.final.kind == LOOP else None
    for r in shown:
        if loop is not None and (r.first if isinstance(r, Collapsed) else r.index) >= loop:
            out.append(
                f'<tr class="loop"><td></td><td colspan="{2 + len(domains)}">'
                "the loop: from here the steps repeat forever</td></tr>"
            )
            loop = None
        if isinstance(r, Collapsed):
            out.append(
                f'<tr><td>{r.first}-{r.last}</td><td colspan="{2 + len(domains)}">'
                f"{r.count} internal steps that change no cell</td></tr>"
            )
            continue
        out.append(_step_row(trace, r, domains))
    return f'<table class="fito steps">{head}{"".join(out)}</table>'


def _step_row(trace: Trace, s: TraceStep, domains: list[str]) -> str:
    changes = dict(step_changes(trace, s))
    cells = "".join(f"<td>{escape(changes.get(d, ''))}</td>" for d in domains)
    return (
        f"<tr><td>{s.index}</td><td>{escape(s.label)}</td>"
        f"<td>{escape(', '.join(s.movers))}</td>{cells}</tr>"
    )


def end_html(trace: Trace) -> str:
    """The last state's cells that matter, and a deadlock's waiting processes."""
    final = trace.final
    parts = []
    if final.cells:
        cells = ", ".join(f"{n} = {v}" for n, v in final.cells)
        parts.append(f'<p class="reason">in the last state: {escape(cells)}</p>')
    if final.waiting:
        items = "".join(
            f"<li><code>{escape(w.process)}</code>: {escape(waiting_text(w, 8))}</li>"
            for w in final.waiting
        )
        parts.append(f"<p>each process waits:</p><ul>{items}</ul>")
    return "\n".join(parts)


def verdict_html(v: Verdict) -> str:
    """A verdict in a notebook: its table row and, if it has one, its run."""
    out = [f"<style>{CSS}</style>", verdicts_table([v])]
    if v.run is not None:
        out.append(run_details(v, f"v{id(v):x}"))
    return "\n".join(out)


def report_html(report: FileReport) -> str:
    """A file's report in a notebook."""
    return "\n".join([f"<style>{CSS}</style>"] + file_html(report, f"r{id(report):x}"))


def trace_html(trace: Trace) -> str:
    """A run in a notebook: its chart, its steps, its end."""
    return "\n".join(
        [
            f"<style>{CSS}</style>",
            render_chart(trace, f"t{id(trace):x}"),
            steps_table(trace),
            end_html(trace),
        ]
    )


display.register_html(Verdict, verdict_html)
display.register_html(FileReport, report_html)
display.register_html(Trace, trace_html)
