"""Counterexamples as text: one line per step with the process that moved and the cells it
changed per persistence domain; internal runs collapsed; what the run shows at its end."""

from __future__ import annotations

from fito.check.traces.records import DEADLOCK, LOOP, REFUSAL, Trace, TraceStep
from fito.render.runs import (
    Collapsed,
    by_domain,
    domain_name,
    rows,
    shown_cells,
    step_changes,
    waiting_text,
    wrap,
)

WIDTH = 100
_LABEL_MAX = 30
_MOVER_MAX = 26


def render_run(trace: Trace, title: str, verbose: bool = False, explain: bool = False) -> list[str]:
    """`title:` then the numbered steps (indented by four), or the per-domain timeline
    (explain), then the end of the run."""
    if explain:
        from fito.render.timeline import render_timeline  # lazy-import: only --explain

        return render_timeline(trace, verbose) + render_end(trace)
    shown = rows(trace, verbose)
    steps = [r for r in shown if isinstance(r, TraceStep)]
    number = max((len(_number(r)) for r in shown), default=1)
    label = min(max((len(s.label) for s in steps), default=0), _LABEL_MAX)
    mover = min(max((len(_movers(s)) for s in steps), default=0), _MOVER_MAX)
    lines = [f"  {title}:"]
    if not trace.steps:
        lines.append("    (no step: the initial state)")
    loop = trace.final.loop_start if trace.final.kind == LOOP else None
    for r in shown:
        if loop is not None and _first(r) >= loop:
            lines.append(f"    {'':>{number}}  -- the loop: from here the steps repeat forever")
            loop = None
        if isinstance(r, Collapsed):
            lines.append(
                f"    {_number(r):>{number}}  ({r.count} internal steps that change "
                f"no cell; --verbose shows them)"
            )
            continue
        lines.extend(_step_lines(trace, r, number, label, mover))
    lines.extend(render_end(trace))
    return lines


def _first(r: TraceStep | Collapsed) -> int:
    return r.first if isinstance(r, Collapsed) else r.index


def _number(r: TraceStep | Collapsed) -> str:
    return f"{r.first}-{r.last}." if isinstance(r, Collapsed) else f"{r.index}."


def _movers(s: TraceStep) -> str:
    return ", ".join(s.movers)


def _step_lines(trace: Trace, s: TraceStep, number: int, label: int, mover: int) -> list[str]:
    head = f"    {_number(s):>{number}} {s.label:<{label}}  {_movers(s):<{mover}}"
    changes = "; ".join(f"{domain_name(d)}: {text}" for d, text in step_changes(trace, s))
    if s.failed:
        changes = "(the model error happens here)"
    elif s.crash and not s.crash_reset:
        changes = "(no volatile cell to reset)" + (f"; {changes}" if changes else "")
    if not changes:
        return [head.rstrip()]
    if len(head) + 2 + len(changes) <= WIDTH:
        return [f"{head}  {changes}"]
    indent = " " * (6 + number)
    lines = [head.rstrip()]
    for d, text in step_changes(trace, s):
        lines.extend(indent + w for w in wrap(f"{domain_name(d)}: {text}", WIDTH - len(indent)))
    return lines


def render_end(trace: Trace) -> list[str]:
    """What the last state shows: a deadlock's state and waiting processes, a refusal."""
    final = trace.final
    lines: list[str] = []
    if final.kind == REFUSAL and final.event is not None:
        lines.append(f"  the specification cannot perform {final.event} after this trace")
    if final.kind == DEADLOCK:
        lines.append("  state in the deadlock:")
        lines.extend(render_state(trace, trace.last_state, "    "))
        if final.waiting:
            lines.append("  each process waits:")
            width = min(max(len(w.process) for w in final.waiting), _MOVER_MAX)
            lines.extend(f"    {w.process:<{width}}  {waiting_text(w)}" for w in final.waiting)
    return lines


def render_state(trace: Trace, cells: tuple[tuple[str, str], ...], indent: str) -> list[str]:
    """A whole state, one group per persistence domain, wrapped at WIDTH."""
    lines: list[str] = []
    groups = by_domain(trace, cells)
    width = max((len(domain_name(d)) for d, _ in groups), default=0)
    for domain, group in groups:
        text = shown_cells(trace, domain, group)
        head = f"{indent}{domain_name(domain) + ':':<{width + 1}} "
        wrapped = wrap(text, WIDTH - len(head))
        lines.append(head + wrapped[0])
        lines.extend(" " * len(head) + w for w in wrapped[1:])
    return lines
