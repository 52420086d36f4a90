"""`fito check --explain`: a counterexample as a per-domain timeline, one row per event and
one column per persistence domain, next to the event and the process that made it."""

from __future__ import annotations

from fito.check.traces.records import Trace, TraceStep
from fito.render.runs import Collapsed, domain_name, rows, step_changes, wrap

_CAP = {"event": 24, "process": 24}
WIDTH = 100


def render_timeline(trace: Trace, verbose: bool = False) -> list[str]:
    """The timeline's lines (indented by two)."""
    shown = rows(trace, verbose)
    touched = {d for s in trace.steps for d, _ in step_changes(trace, s)}
    domains = [d for d in trace.domains() if d in touched]
    header = ["#", "event", "process"] + [domain_name(d) for d in domains]
    table: list[list[str]] = []
    for r in shown:
        if isinstance(r, Collapsed):
            table.append(
                [f"{r.first}-{r.last}", f"({r.count} internal steps)", "", *[""] * len(domains)]
            )
            continue
        table.append(_row(trace, r, domains))
    natural = [max([len(header[i])] + [len(row[i]) for row in table]) for i in range(len(header))]
    caps = [12, _CAP["event"], _CAP["process"]]
    fixed = sum(min(w, c) for w, c in zip(natural, caps)) + 3 * (len(header) - 1)
    share = max(18, (WIDTH - 2 - fixed) // max(len(domains), 1))
    caps += [share] * len(domains)
    wrapped = [
        [wrap(text, min(natural[i], caps[i])) for i, text in enumerate(row)] for row in table
    ]
    widths = [
        max([len(header[i])] + [len(line) for row in wrapped for line in row[i]])
        for i in range(len(header))
    ]
    lines = [
        "  timeline (one row per step, one column per persistence domain):",
        ("  " + _join(header, widths)).rstrip(),
        "  " + "-+-".join("-" * w for w in widths),
    ]
    for cells in wrapped:
        for k in range(max(len(c) for c in cells)):
            parts = [c[k] if k < len(c) else "" for c in cells]
            lines.append(("  " + _join(parts, widths)).rstrip())
    return lines


def _row(trace: Trace, s: TraceStep, domains: list[str]) -> list[str]:
    changes = dict(step_changes(trace, s))
    label = s.label + (" (crash)" if s.crash and s.channel != "crash" else "")
    return [str(s.index), label, ", ".join(s.movers)] + [changes.get(d, "") for d in domains]


def _join(cells: list[str], widths: list[int]) -> str:
    first = f"{cells[0]:>{widths[0]}}"
    return " | ".join([first] + [f"{c:<{w}}" for c, w in zip(cells[1:], widths[1:])])
