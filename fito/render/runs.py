"""What the renderers share about a trace: collapsing internal runs, grouping cells per
persistence domain, and the wording of what a run shows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fito.check.traces.records import OTHER, Cells, Trace, TraceStep, Waiting

OTHER_NAME = "other"


@dataclass(frozen=True, slots=True)
class Collapsed:
    """A run of internal steps that changed nothing, shown as one line."""

    first: int
    last: int

    @property
    def count(self) -> int:
        return self.last - self.first + 1


Row = TraceStep | Collapsed


def rows(trace: Trace, verbose: bool = False) -> list[Row]:
    """The steps to show: runs of internal steps that change nothing become one Collapsed row
    (a single such step stays a step), unless verbose."""
    out: list[Row] = []
    run: list[TraceStep] = []

    def flush() -> None:
        if len(run) > 1:
            out.append(Collapsed(run[0].index, run[-1].index))
        else:
            out.extend(run)
        run.clear()

    for step in trace.steps:
        if step.is_internal and not verbose:
            run.append(step)
            continue
        flush()
        out.append(step)
    flush()
    return out


def domain_name(domain: str) -> str:
    return domain if domain != OTHER else OTHER_NAME


def local_name(cell: str, domain: str) -> str:
    """The cell's name inside its domain's group: `shard[model][1]` under model is `shard[1]`."""
    return cell.replace(f"[{domain}]", "", 1) if domain != OTHER else cell


def by_domain(trace: Trace, cells: Iterable[tuple[str, str]]) -> list[tuple[str, Cells]]:
    """Cells grouped per persistence domain, domains in the trace's order (other last)."""
    groups: dict[str, list[tuple[str, str]]] = {d: [] for d in trace.domains()}
    for name, value in cells:
        groups.setdefault(trace.domain_of(name), []).append((name, value))
    return [(d, tuple(g)) for d, g in groups.items() if g]


def assignments(step: TraceStep) -> Cells:
    """The step's writes that are not a crash's reset to the initial value."""
    reset = set(step.crash_reset)
    return tuple((n, v) for n, v in step.writes if n not in reset)


def shown_cells(trace: Trace, domain: str, cells: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"{local_name(n, domain)} = {v}" for n, v in cells)


def step_changes(trace: Trace, step: TraceStep) -> list[tuple[str, str]]:
    """Per domain, what the step did there: `reset cur`, `saved = 1` (domains in order)."""
    parts: dict[str, list[str]] = {}
    for name in step.crash_reset:
        d = trace.domain_of(name)
        parts.setdefault(d, []).append(f"reset {local_name(name, d)}")
    for name, value in assignments(step):
        d = trace.domain_of(name)
        parts.setdefault(d, []).append(f"{local_name(name, d)} = {value}")
    order = {d: i for i, d in enumerate(trace.domains())}
    return [(d, ", ".join(parts[d])) for d in sorted(parts, key=lambda d: order.get(d, 1 << 30))]


def waiting_text(w: Waiting, limit: int = 4) -> str:
    """What one process of a deadlock waits for, in a phrase."""
    if w.terminated:
        return "terminated"
    parts = []
    if w.offers:
        parts.append("waits for a partner on " + _some(w.offers, limit))
    if w.guarded:
        parts.append("guard false for " + _some(w.guarded, limit))
    return "; ".join(parts) if parts else "offers nothing (STOP)"


def _some(items: Sequence[str], limit: int) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def wrap(text: str, width: int) -> list[str]:
    """A comma-separated list in lines of at most width characters: split after commas (a
    line's trailing comma may overhang), a part longer than a line broken at spaces."""
    if len(text) <= width:
        return [text]
    parts = text.split(", ")
    lines: list[str] = []
    line = ""
    for part in parts:
        piece = part if not line else f"{line}, {part}"
        if line and len(piece) > width:
            lines.append(line)
            line = part
        else:
            line = piece
    lines.append(line)
    out: list[str] = []
    for i, line in enumerate(lines):
        chunks = _cut(line, width)
        if i < len(lines) - 1:
            chunks[-1] += ","
        out.extend(chunks)
    return out


def _cut(line: str, width: int) -> list[str]:
    """Break a line at spaces to fit width (a longer word is cut)."""
    out: list[str] = []
    current = ""
    for word in line.split(" "):
        while len(word) > width:
            if current:
                out.append(current)
                current = ""
            out.append(word[:width])
            word = word[width:]
        piece = word if not current else f"{current} {word}"
        if current and len(piece) > width:
            out.append(current)
            current = word
        else:
            current = piece
    out.append(current)
    return out
