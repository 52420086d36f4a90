"""A counterexample as an SVG message-sequence chart, drawn as on a whiteboard: a lifeline per
process that moves and a lifeline per persistence domain; per step a dot on the lifeline of
each process that moved (joined when they synchronise), an arrow to each domain whose cells
it wrote, labelled with the new values; a crash as a red band with what it reset."""

from __future__ import annotations

from html import escape

from fito.check.traces.records import LOOP, WITNESS, Trace, TraceStep
from fito.render.runs import Collapsed, domain_name, rows, step_changes

CHAR = 7.2  # width of a character at the chart's font size, in px (monospace 12px)
ROW = 36
TOP = 56
LEFT = 56
MIN_LANE = 110
MAX_TEXT = 44  # characters of a label before it is cut


def render_chart(trace: Trace, chart_id: str = "msc", verbose: bool = False) -> str:
    """The chart as an `<svg>` element (no XML declaration: it is embedded in HTML); chart_id
    keeps its marker's id unique in the page."""
    shown = rows(trace, verbose)
    steps = [r for r in shown if isinstance(r, TraceStep)]
    processes = list(dict.fromkeys(m for s in steps for m in s.movers))
    changes = {s.index: dict(step_changes(trace, s)) for s in steps}
    touched = {d for c in changes.values() for d in c}
    domains = [d for d in trace.domains() if d in touched]
    xs, width = _lanes(steps, processes, domains, changes)
    final = _cut(trace.final.message, 120)
    width = max(width, LEFT + len(final) * CHAR + 16)  # the last line fits, never cut off
    end = (xs[-1] + 24) if xs else width - 16  # bands and marks end at the last lifeline
    height = TOP + ROW * (len(shown) + 1) + 24
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="msc" width="{width:.0f}" '
        f'height="{height}" viewBox="0 0 {width:.0f} {height}" role="img" '
        f'aria-label="message-sequence chart of the counterexample">',
        f'<defs><marker id="{chart_id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>',
    ]
    out.extend(_lifelines(processes, domains, xs, height))
    lane = {p: xs[i] for i, p in enumerate(processes)}
    lane.update({f"domain:{d}": xs[len(processes) + i] for i, d in enumerate(domains)})
    loop = trace.final.loop_start if trace.final.kind == LOOP else None
    for row, r in enumerate(shown):
        y = TOP + ROW * (row + 1)
        if loop is not None and (r.first if isinstance(r, Collapsed) else r.index) >= loop:
            out.extend(_loop_mark(y - ROW // 2, end))  # a lasso: the cycle starts here
            loop = None
        if isinstance(r, Collapsed):
            out.append(f'<line class="internal" x1="{LEFT}" y1="{y}" x2="{end:.0f}" y2="{y}"/>')
            out.append(
                _text(
                    LEFT + 4,
                    y - 5,
                    f"steps {r.first}-{r.last}: {r.count} internal steps that change no cell",
                    "note",
                )
            )
            continue
        out.extend(_step(r, y, lane, changes[r.index], end, chart_id))
    y = TOP + ROW * (len(shown) + 1)
    # the last line says why the run ends: a failure in red, a witness's goal in green
    out.append(_text(LEFT, y + 4, final, "final goal" if trace.final.kind == WITNESS else "final"))
    out.append("</svg>")
    return "\n".join(out)


def _lanes(
    steps: list[TraceStep],
    processes: list[str],
    domains: list[str],
    changes: dict[int, dict[str, str]],
) -> tuple[list[float], float]:
    """The x of each lifeline (processes, then domains), wide enough for its labels, and the
    chart's width."""
    widths = [
        _lane_width([p] + [_cut(s.label) for s in steps if s.movers and s.movers[0] == p])
        for p in processes
    ]
    widths += [
        _lane_width([domain_name(d)] + [_cut(c[d]) for c in changes.values() if d in c])
        for d in domains
    ]
    xs: list[float] = []
    x: float = LEFT
    for w in widths:
        xs.append(x + w / 2)
        x += w
    return xs, x + 16


def _lane_width(texts: list[str]) -> float:
    return max(MIN_LANE, max(len(t) for t in texts) * CHAR + 24)


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _text(x: float, y: float, text: str, cls: str, anchor: str = "start") -> str:
    return (
        f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{escape(text)}</text>'
    )


def _lifelines(processes: list[str], domains: list[str], xs: list[float], height: int) -> list[str]:
    out = []
    heads = [(p, "process") for p in processes] + [(domain_name(d), "domain") for d in domains]
    for (name, kind), x in zip(heads, xs):
        w = len(name) * CHAR + 14
        out.append(
            f'<g class="lifeline {kind}"><rect x="{x - w / 2:.1f}" y="12" '
            f'width="{w:.1f}" height="24" rx="{3 if kind == "process" else 10}"/>'
        )
        out.append(_text(x, 28, name, "head", "middle"))
        out.append(f'<line x1="{x:.1f}" y1="36" x2="{x:.1f}" y2="{height - 30}"/></g>')
    return out


def _loop_mark(y: int, end: float) -> list[str]:
    return [
        f'<line class="loop" x1="{LEFT}" y1="{y}" x2="{end:.0f}" y2="{y}"/>',
        _text(LEFT + 4, y - 4, "loop: from here the steps repeat forever", "loop"),
    ]


def _step(
    s: TraceStep,
    y: int,
    lane: dict[str, float],
    changes: dict[str, str],
    end: float,
    chart_id: str,
) -> list[str]:
    out = [_text(8, y + 4, f"{s.index}.", "index")]
    if s.crash:  # the band spans the lifelines, no further
        out.append(f'<line class="crash" x1="{LEFT}" y1="{y}" x2="{end:.0f}" y2="{y}"/>')
    movers = [lane[m] for m in s.movers if m in lane]
    if len(movers) > 1:
        out.append(
            f'<line class="sync" x1="{min(movers):.1f}" y1="{y}" x2="{max(movers):.1f}" y2="{y}"/>'
        )
    for x in movers:
        out.append(f'<circle class="move {s.kind}" cx="{x:.1f}" cy="{y}" r="5"/>')
    source = movers[0] if movers else LEFT
    out.append(_text(source, y - 9, _cut(s.label), "event crash" if s.crash else "event", "middle"))
    for domain, text in changes.items():
        x = lane[f"domain:{domain}"]
        out.append(
            f'<line class="write" x1="{source:.1f}" y1="{y}" x2="{x - 6:.1f}" y2="{y}" '
            f'marker-end="url(#{chart_id}-arrow)"/>'
            if abs(x - source) > 12
            else ""
        )
        out.append(_text(x, y + 15, _cut(text), "change", "middle"))
    return [line for line in out if line]
