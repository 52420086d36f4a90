"""Rendering check reports: text (diagnostics with carets, one line per assertion), JSON, SARIF."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from fito.check.result import FAILS, HOLDS, UNKNOWN, Verdict
from fito.check.traces.records import DEADLOCK, VIOLATION
from fito.diagnostics import Diagnostic, render_text, to_json, to_sarif
from fito.outcome import FileReport
from fito.render.sarif import expectation_results, verdict_result
from fito.render.text import WIDTH, render_run, render_state

if TYPE_CHECKING:
    from fito.expect import Mismatch


def render_text_report(
    reports: Sequence[FileReport], verbose: bool = False, explain: bool = False
) -> str:
    out: list[str] = []
    for r in reports:
        for d in r.diagnostics:
            out.append(render_text(d, r.path, r.text))
        for v in r.verdicts:
            out.append(render_verdict(r.path, v, verbose, explain))
    return "\n".join(out)


def render_verdict(path: str, v: Verdict, verbose: bool = False, explain: bool = False) -> str:
    """`file:line: assertion: verdict (stats)` and, for a failure, the numbered trace."""
    stats = f"{v.states:,} states, {v.transitions:,} transitions, {v.seconds:.2f} s"
    if v.engine == "symbolic":
        proved = f", proved by {v.proof}" if v.proof else ""
        stats = f"symbolic, BMC depth {v.depth}{proved}, {v.seconds:.2f} s"
    head = f"{path}:{v.line}: {v.text}: {v.verdict}"
    if v.verdict == FAILS:
        head += f" in {len(v.trace)} ({stats})"
    elif v.verdict == HOLDS:
        head += f" ({stats})"
    else:
        head += f" ({v.reason or 'no verdict'}; {stats})"
    lines = [head]
    if v.invariant:
        lines.append(
            "  inductive invariant (with every cell within its type, each conjunct holds "
            "in every reachable state):"
        )
        lines.extend(f"    {conjunct}" for conjunct in v.invariant)
        if v.kernel:
            lines.append(f"  certificate: {v.kernel}")
    if v.reductions:
        lines.append(f"  reductions: {'; '.join(v.reductions)}")
    if v.unreduced_states:
        saved = v.unreduced_states - v.states
        ratio = v.unreduced_states / max(1, v.states)
        lines.append(
            f"  symmetry: {v.states:,} representatives stand for {v.unreduced_states:,} states "
            f"of the unreduced graph ({saved:,} not stored, {ratio:,.1f}x)"
        )
    if v.engine == "ltl" and v.verdict != UNKNOWN:
        lines.append(f"  assuming {', '.join(v.fairness) or 'no fairness (every run counts)'}")
    where = (
        None if v.error is None else f"at line {v.error.span.line}, column {v.error.span.column}"
    )
    said = False  # the reason names the model error already: say where on its line, once
    if v.verdict == FAILS and v.reason:
        if (
            v.error is not None
            and v.reason.startswith("model error [")
            and v.error.message in (v.reason)
        ):
            lines.append("  " + v.reason.replace("]: ", f"] {where}: ", 1))
            said = True
        else:
            lines.extend(_reason(v))
    if v.error is not None and not said:
        lines.append(f"  model error {where}: {v.error.message}")
    label = "counterexample" if v.verdict == FAILS else "witness"
    if v.run is not None and (v.verdict == FAILS or v.verdict == HOLDS):
        if v.run.steps or v.run.final.kind == DEADLOCK:
            lines.extend(render_run(v.run, label, verbose, explain))
    elif v.trace and (v.verdict == FAILS or v.verdict == HOLDS):
        lines.append(f"  {label}:")
        width = len(str(len(v.trace)))
        lines.extend(f"    {i:>{width}}. {step}" for i, step in enumerate(v.trace, 1))
    return "\n".join(lines)


def _reason(v: Verdict) -> list[str]:
    """What failed; a violated expression's cells grouped per domain when they are many."""
    line = f"  {v.reason}"
    if v.run is None or v.run.final.kind != VIOLATION or len(line) <= WIDTH:
        return [line]
    return ["  violated in the last state:"] + render_state(v.run, v.run.final.cells, "    ")


REPORT_FORMAT = "fito-check-report"
REPORT_VERSION = 2  # 2: values typed (numbers, true/false, names); 1 (unversioned): strings


def render_json_report(
    reports: Sequence[FileReport], expectations: Sequence[Sequence[Mismatch]] | None = None
) -> str:
    """docs/report-schema.json: per file its diagnostics and verdicts (with their runs), and
    with --expect how the file met its `-- expect:` comments."""
    files = []
    for i, r in enumerate(reports):
        entry: dict[str, object] = {
            "path": r.path,
            "diagnostics": [to_json(d) for d in r.diagnostics],
            "assertions": [v.to_json() for v in r.verdicts],
        }
        if expectations is not None:
            entry["expect"] = _expect_json(expectations[i])
        files.append(entry)
    doc: dict[str, object] = {"format": REPORT_FORMAT, "version": REPORT_VERSION, "files": files}
    if expectations is not None:
        failed = sum(1 for e in expectations if e)
        doc["expect"] = {"passed": len(reports) - failed, "failed": failed}
    return json.dumps(doc, indent=2)


def _expect_json(problems: Sequence[Mismatch]) -> dict[str, object]:
    return {
        "ok": not problems,
        "problems": [{"line": p.line, "message": p.message} for p in problems],
    }


def render_sarif_report(
    reports: Sequence[FileReport], expectations: Sequence[Sequence[Mismatch]] | None = None
) -> str:
    """SARIF 2.1.0: diagnostics, failing and unknown verdicts (counterexamples as codeFlows),
    and with --expect one result per unmet expectation."""
    extra: list[dict[str, object]] = []
    for i, r in enumerate(reports):
        for v in r.verdicts:
            result = verdict_result(r.path, v)
            if result is not None:
                extra.append(result)
        if expectations is not None:
            extra.extend(expectation_results(r.path, expectations[i]))
    per_file: list[tuple[str, Sequence[Diagnostic]]] = [(r.path, r.diagnostics) for r in reports]
    return json.dumps(to_sarif(per_file, extra), indent=2)


def render_report(
    reports: Sequence[FileReport],
    fmt: str,
    verbose: bool = False,
    explain: bool = False,
    expectations: Sequence[Sequence[Mismatch]] | None = None,
) -> str:
    """The reports in the format asked for on the command line: text, json, sarif or html."""
    if fmt == "json":
        return render_json_report(reports, expectations)
    if fmt == "sarif":
        return render_sarif_report(reports, expectations)
    if fmt == "html":
        from fito.render.page import render_html_report  # lazy-import: only --format html

        return render_html_report(reports, expectations)
    return render_text_report(reports, verbose, explain)
