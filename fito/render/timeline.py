"""`fito check --explain`: a counterexample as a per-domain timeline, one row per event and
one column per persistence domain, next to the event and the process that made it."""
from __future__ import annotations

from fito.check.trace import Trace, TraceStep
from fito.render.runs import Collapsed, domain_name, rows, step_changes

_CAP = {"event": 24, "process": 24, "domain": 30}


def render_timeline(trace: Trace, verbose: bool = False) -> list[str]:
    """The timeline's lines (indented by two)."""
    shown = rows(trace, verbose)
    touched = {d for s in trace.steps for d, _ in step_changes(trace, s)}
    domains = [d for d in trace.domains() if d in touched]
    header = ["#", "event", "process"] + [domain_name(d) for d in domains]
    table: list[list[str]] = []
    for r in shown:
        if isinstance(r, Collapsed):
            table.append([f"{r.first}-{r.last}", f"({r.count} internal steps)", "",
                          *[""] * len(domains)])
            continue
        table.append(_row(trace, r, domains))
    widths = [max([len(header[i])] + [len(row[i]) for row in table]) for i in range(len(header))]
    widths = [min(w, _cap(i)) for i, w in enumerate(widths)]
    lines = ["  timeline (one row per step, one column per persistence domain):",
             "  " + _join(header, widths), "  " + "-+-".join("-" * w for w in widths)]
    for row in table:
        cells = [_wrap(text, w) for text, w in zip(row, widths)]
        for k in range(max(len(c) for c in cells)):
            parts = [c[k] if k < len(c) else "" for c in cells]
            lines.append(("  " + _join(parts, widths)).rstrip())
    return lines


def _row(trace: Trace, s: TraceStep, domains: list[str]) -> list[str]:
    changes = dict(step_changes(trace, s))
    label = s.label + (" (crash)" if s.crash and s.channel != "crash" else "")
    return [str(s.index), label, ", ".join(s.movers)] + [changes.get(d, "") for d in domains]


def _cap(i: int) -> int:
    return _CAP["event"] if i == 1 else _CAP["process"] if i == 2 else \
        _CAP["domain"] if i > 2 else 12


def _join(cells: list[str], widths: list[int]) -> str:
    first = f"{cells[0]:>{widths[0]}}"
    return " | ".join([first] + [f"{c:<{w}}" for c, w in zip(cells[1:], widths[1:])])


def _wrap(text: str, width: int) -> list[str]:
    """Split at ", " so that each line fits width (a single longer part stands alone)."""
    if len(text) <= width:
        return [text]
    lines: list[str] = []
    line = ""
    for part in text.split(", "):
        piece = part if not line else f"{line}, {part}"
        if line and len(piece) + 1 > width:
            lines.append(line + ",")
            line = part
        else:
            line = piece
    lines.append(line)
    return [chunk for line in lines for chunk in _cut(line, width)]


def _cut(line: str, width: int) -> list[str]:
    return [line[i:i + width] for i in range(0, len(line), width)] or [""]
