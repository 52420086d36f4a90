"""Replaying a saved trace (`fito replay`): step the spec from its initial state, at each
step taking the transitions whose label and resulting state match the saved step, and say
whether the run ends as the saved one did (the violation, the deadlock, ...) or where the
spec and the trace part ways.

This module is the only user of the engine besides the adapter (`trace_adapter`): a new
engine ports `_Engine` (initial state, moves with labels, faults, the predicate).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from fito.check.ltl.evaluate import violates
from fito.check.refine import Normaliser
from fito.check.traces.from_states import Transition, build_trace
from fito.check.traces.records import (
    DEADLOCK,
    END,
    LOOP,
    MODEL_ERROR,
    REFUSAL,
    VIOLATION,
    WITNESS,
    Failure,
    Trace,
    TraceStep,
)
from fito.lang import nodes as A
from fito.lang.resolve.model import Model
from fito.semantics.compiled import TAU, Compiled, Fault, StepFault, compile_model

MAX_BRANCHES = 10_000  # states followed at once (saved steps with equal labels and states)


@dataclass(frozen=True, slots=True)
class Replayed:
    """The outcome: reproduced or not, why, and the spec's own run along the saved one."""

    reproduced: bool
    message: str
    run: Trace | None  # the spec's run, up to where it parts from the saved one
    parted_at: int | None = None


State = tuple  # a flat state: the cells, then the control


class _Engine:
    """What replay needs of the engine: labelled moves, shown states, faults, predicates."""

    def __init__(self, model: Model) -> None:
        self.c: Compiled = compile_model(model)

    def shown(self, s: Sequence[int]) -> tuple[tuple[str, str], ...]:
        layout = self.c.layout  # the names cover the cells, which come first in a state
        return tuple((n, t.show(v)) for n, t, v in zip(layout.names, layout.types, s))

    def moves(self, s: State) -> list[tuple[int, str, State]]:
        """(step number, label, next state); raises StepFault on a model error."""
        return [(k, self.c.label(s, k), post) for k, post in self.c.successors(s)]

    def fault_label(self, s: State, e: StepFault) -> str | None:
        return None if e.step is None else self.c.label(s, e.step)


def replay(model: Model, a: A.AssertDecl, saved: Trace) -> Replayed:
    """Replay `saved` against assertion `a` of the model."""
    eng = _Engine(model)
    c = eng.c
    proc = a.proc if a.proc is not None else model.system
    if proc is None:
        return Replayed(False, "the assertion names no process and the spec has no system", None)
    start = c.initial(proc)
    if eng.shown(start) != saved.initial_state:
        diff = _differences(saved.initial_state, eng.shown(start))
        return Replayed(
            False, f"the spec and the trace part ways at the initial state: {diff}", None, 0
        )
    current: dict[State, list[Transition]] = {start: []}
    for step in saved.steps:
        outcome = _advance(eng, current, step)
        if isinstance(outcome, str):
            path = next(iter(current.values()))
            return Replayed(False, outcome, _run(c, proc, path, saved.final, a), step.index)
        if isinstance(outcome, list):  # the saved step's model error, reached
            run = _run(c, proc, outcome, saved.final, a)
            return Replayed(
                True, f"the model error is reached at step {step.index}: {saved.final.message}", run
            )
        current = outcome
    return _judge(eng, a, proc, saved, current)


def _advance(
    eng: _Engine, current: dict[State, list[Transition]], step: TraceStep
) -> dict[State, list[Transition]] | list[Transition] | str:
    """The states after step (or, for a failing step, the path to the fault), or why none."""
    nxt: dict[State, list[Transition]] = {}
    offered: list[str] = []
    for s, path in current.items():
        try:
            moves = eng.moves(s)
        except StepFault as e:
            if step.failed and eng.fault_label(s, e) == step.label:
                assert e.step is not None
                return path + [(s, e.step)]
            offered.append("(a model error)")
            continue
        for k, label, t in moves:
            offered.append(label)
            if label == step.label and eng.shown(t) == step.state and len(nxt) < MAX_BRANCHES:
                nxt.setdefault(t, path + [(s, k)])
    if nxt and not step.failed:
        return nxt
    return _parting(eng, current, step, offered)


def _parting(
    eng: _Engine, current: dict[State, list[Transition]], step: TraceStep, offered: list[str]
) -> str:
    where = f"the spec and the trace part ways at step {step.index} ({step.label}): "
    if step.failed:
        return where + "the spec raises no model error there"
    if step.label in offered:
        for s in current:
            for _, label, t in eng.moves(s):
                if label == step.label:
                    return (
                        where
                        + "the spec makes this step, but then "
                        + _differences(step.state, eng.shown(t))
                    )
    shown = ", ".join(dict.fromkeys(offered)) or "nothing (a deadlock)"
    return where + f"the spec cannot make it; it offers {shown}"


def _differences(saved: Sequence[tuple[str, str]], spec: Sequence[tuple[str, str]]) -> str:
    mine = dict(spec)
    theirs = dict(saved)
    diffs = [
        f"{n} is {mine.get(n, 'absent')} in the spec, {v} in the trace"
        for n, v in theirs.items()
        if mine.get(n) != v
    ]
    diffs += [f"{n} is a cell of the spec only" for n in mine if n not in theirs]
    return "; ".join(diffs[:4]) + (f" (+{len(diffs) - 4} more)" if len(diffs) > 4 else "")


def _run(
    c: Compiled, proc: A.Proc, path: list[Transition], final: Failure, a: A.AssertDecl
) -> Trace:
    expr = a.expr if final.kind in (VIOLATION, WITNESS) else None
    return build_trace(c, proc, path, replace(final, cells=(), waiting=()), expr)


def _judge(
    eng: _Engine,
    a: A.AssertDecl,
    proc: A.Proc,
    saved: Trace,
    current: dict[State, list[Transition]],
) -> Replayed:
    """Does some state reached end the run as the saved trace says it does?"""
    kind = saved.final.kind
    n = len(saved.steps)
    for s, path in current.items():
        ok = _ends_as(eng, a, kind, s, path, saved)
        if ok:
            what = {
                VIOLATION: "the expression is violated",
                WITNESS: "the expression holds",
                DEADLOCK: "the run deadlocks",
                REFUSAL: "the specification refuses the last event",
                END: "the run ends",
                LOOP: "the loop closes",
                MODEL_ERROR: "the model error is reached",
            }.get(kind, kind)
            run = _run(eng.c, proc, path, saved.final, a)
            return Replayed(True, f"replayed {n} steps: {what} after step {n}, as saved", run)
    path = next(iter(current.values()))
    return Replayed(
        False,
        f"the spec follows all {n} steps, but the run does not end as saved "
        f"({saved.final.message})",
        _run(eng.c, proc, path, saved.final, a),
        n,
    )


def _ends_as(
    eng: _Engine, a: A.AssertDecl, kind: str, s: State, path: list[Transition], saved: Trace
) -> bool:
    c = eng.c
    try:
        if a.kind == "ltl" and kind in (LOOP, END):  # the formula is false on the lasso
            return violates(c, a, path, s, saved.final.loop_start if kind == LOOP else None)
        if kind in (VIOLATION, WITNESS):
            if a.expr is None:  # a saved trace of another kind of assertion (edited)
                return False
            holds = bool(c.predicate(a.expr)(s))
            return holds == (kind == WITNESS)
        if kind in (DEADLOCK, END):
            return not eng.moves(s)
        if kind == LOOP:
            start = saved.final.loop_start or 1
            before = path[start - 1] if start - 1 < len(path) else None
            return before is not None and before[0] == s
        if kind == REFUSAL:
            return _refused(c, a, path)
    except (Fault, StepFault):
        return kind == MODEL_ERROR
    return False


def _refused(c: Compiled, a: A.AssertDecl, path: list[Transition]) -> bool:
    """The specification can follow every visible event of path but the last."""
    if a.spec is None or not path:
        return False
    norm = Normaliser(c)
    node: int | None = norm.node({c.initial(a.spec)})
    for i, (state, k) in enumerate(path):
        step = c.step(state, k)
        if step.kind == TAU:
            continue
        assert node is not None
        node = norm.step(node, c.event_key(step, state))
        if node is None:
            return i == len(path) - 1
    return False
