"""Trace refinement `Spec [T= Impl`: every trace of Impl is a trace of Spec.

Spec is normalised on the fly (subset construction over its tau closure); the product of
Impl's states with normalised Spec nodes is explored breadth-first, so the counterexample
is the shortest: the Impl trace up to and including the event Spec cannot perform.
Spec gets its own copy of the cells (it is a separate process, as in FDR).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from fito.check.explore import Progress, stop_reason
from fito.check.options import Limits
from fito.check.result import FAILS, HOLDS, UNKNOWN, ModelError, Verdict
from fito.check.traces.from_states import Transition, build_trace
from fito.check.traces.records import MODEL_ERROR, REFUSAL, Failure
from fito.lang import nodes as A
from fito.semantics.compiled import TAU, Compiled, Fault, StepFault, TimeLimit


class SpecFault(Exception):
    """A model error inside the specification process."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault)
        self.fault = fault


@dataclass(slots=True)
class Normaliser:
    """Normalised Spec nodes: frozensets of spec states closed under tau, interned."""

    c: Compiled
    nodes: list[frozenset] = field(default_factory=list)
    ids: dict[frozenset, int] = field(default_factory=dict)
    after: dict[tuple[int, tuple], int] = field(default_factory=dict)
    by_event: dict[int, dict[tuple, object]] = field(default_factory=dict)

    def node(self, states: set[tuple]) -> int:
        closed = frozenset(self._closure(states))
        got = self.ids.get(closed)
        if got is None:
            got = len(self.nodes)
            self.ids[closed] = got
            self.nodes.append(closed)
        return got

    def _moves(self, state: tuple) -> list:
        try:
            return self.c.successors(state)
        except StepFault as e:
            raise SpecFault(e.fault) from None

    def _closure(self, states: set[tuple]) -> set[tuple]:
        seen = set(states)
        todo = list(states)
        while todo:
            s = todo.pop()
            for rank, post in self._moves(s):
                if self.c.step(s, rank).kind == TAU and post not in seen:
                    seen.add(post)
                    todo.append(post)
        return seen

    def step(self, node: int, event: tuple) -> int | None:
        """The node after event, or None when Spec cannot perform it."""
        key = (node, event)
        if key in self.after:
            got = self.after[key]
            return None if got < 0 else got
        got = self._events(node).get(event, -1)
        if isinstance(got, set):
            got = self.node(got)
        self.after[key] = got
        return None if got < 0 else got

    def _events(self, node: int) -> dict[tuple, object]:
        """The states after each visible event of a node, found in one pass over its moves
        (per event, the pass would be quadratic in a channel's type)."""
        table = self.by_event.get(node)
        if table is None:
            self.c.check_time()
            table = {}
            for s in self.nodes[node]:
                for rank, post in self._moves(s):
                    step = self.c.step(s, rank)
                    if step.kind != TAU:
                        table.setdefault(self.c.event_key(step, s), set()).add(post)
            self.by_event[node] = table
        return table


def check_refinement(c: Compiled, a: A.AssertDecl, text: str, limits: Limits) -> Verdict:
    assert a.spec is not None
    impl = a.proc if a.proc is not None else c.model.system
    assert impl is not None
    norm = Normaliser(c)
    try:
        spec_root = norm.node({c.initial(a.spec)})
    except SpecFault as e:
        return _error(c, a, text, e.fault, [], 0, 0, "in the specification")
    root = (c.initial(impl), spec_root)
    states: list[tuple] = [root]
    parent, via = [-1], [-1]
    index = {root: 0}
    transitions = 0
    depth = 0
    frontier = [0]
    progress = Progress(limits.progress)
    deadline = None if limits.timeout is None else time.monotonic() + limits.timeout

    def trace(sid: int, extra: tuple[int, int] | None = None) -> list[Transition]:
        path = []
        while parent[sid] >= 0:
            path.append((parent[sid], via[sid]))
            sid = parent[sid]
        path.reverse()
        if extra is not None:
            path.append(extra)
        return [(states[s][0], k) for s, k in path]

    try:
        while frontier:
            nxt = []
            pending: Verdict | None = None
            pending_len = 1 << 60
            for sid in frontier:
                here, node = states[sid]
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeLimit()
                try:
                    moves = c.successors(here)
                except StepFault as e:
                    length = depth if e.step is None else depth + 1
                    if length < pending_len:
                        extra = None if e.step is None else (sid, e.step)
                        pending, pending_len = (
                            _error(
                                c,
                                a,
                                text,
                                e.fault,
                                trace(sid, extra),
                                len(states),
                                transitions,
                                impl=impl,
                            ),
                            length,
                        )
                    continue
                transitions += len(moves)
                for rank, post in moves:
                    step = c.step(here, rank)
                    if step.kind == TAU:
                        nnode: int | None = node
                    else:
                        nnode = norm.step(node, c.event_key(step, here))
                        if nnode is None:
                            if pending_len > depth + 1:
                                pending_len = depth + 1
                                event = c.label(here, rank)
                                reason = f"the specification cannot perform {event} here"
                                run = build_trace(
                                    c,
                                    impl,
                                    trace(sid, (sid, rank)),
                                    Failure(REFUSAL, reason, event=event),
                                )
                                pending = Verdict(
                                    text,
                                    a.span.line,
                                    FAILS,
                                    len(states),
                                    transitions,
                                    trace=run.labels,
                                    run=run,
                                    depth=depth + 1,
                                    reason=reason,
                                    engine="refinement",
                                )
                            continue
                    key = (post, nnode)
                    if key in index:
                        continue
                    if limits.max_states is not None and len(states) >= limits.max_states:
                        return _limit(  # exact: never more than N states
                            a,
                            text,
                            f"more than {limits.max_states:,} states",
                            len(states),
                            transitions,
                        )
                    index[key] = len(states)
                    states.append(key)
                    parent.append(sid)
                    via.append(rank)
                    nxt.append(len(states) - 1)
                if len(states) & 1023 == 0:
                    progress.tick(len(states), depth)
                    stop = stop_reason(deadline, limits)  # the deadline, --max-memory
                    if stop is not None:
                        return _limit(a, text, stop, len(states), transitions)
            depth += 1
            if pending is not None:
                return replace(pending, states=len(states), transitions=transitions, depth=depth)
            frontier = nxt
    except SpecFault as e:
        return _error(c, a, text, e.fault, [], len(states), transitions, "in the specification")
    except TimeLimit:
        return _limit(a, text, f"timeout after {limits.timeout:g} s", len(states), transitions)
    finally:
        progress.done()
    return Verdict(
        text, a.span.line, HOLDS, len(states), transitions, depth=depth, engine="refinement"
    )


def _limit(a: A.AssertDecl, text: str, reason: str, states: int, transitions: int) -> Verdict:
    return Verdict(
        text,
        a.span.line,
        UNKNOWN,
        states,
        transitions,
        reason=reason,
        limit_hit=True,
        engine="refinement",
    )


def _error(
    c: Compiled,
    a: A.AssertDecl,
    text: str,
    fault: Fault,
    trace: list[Transition],
    states: int,
    transitions: int,
    where: str = "",
    impl: A.Proc | None = None,
) -> Verdict:
    code, message, span = c.error_site(fault)
    where = f" {where}" if where else ""
    reason = f"model error{where} [{code}]: {message}"
    run = None
    if impl is not None:
        failure = Failure(MODEL_ERROR, reason, code=code, line=span.line, column=span.column)
        run = build_trace(c, impl, trace, failure)
    return Verdict(
        text,
        a.span.line,
        FAILS,
        states,
        transitions,
        trace=run.labels if run is not None else (),
        run=run,
        reason=reason,
        error=ModelError(message, span),
        engine="refinement",
    )
