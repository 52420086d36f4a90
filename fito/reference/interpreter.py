"""A deliberately naive reference interpreter of the process language.

It shares nothing with the fast explorer but the AST and the resolver: expressions are
evaluated by walking the AST, transitions are recomputed in every state straight from the
rules of docs/semantics.md, nothing is cached or generated. The property tests compare its
verdicts, state counts and trace lengths with the explorer's on random small specs; it is
the oracle for every form of the language (`reference_terms`, `reference_steps`,
`reference_eval`, `reference_store`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from fito.lang import nodes as A
from fito.lang.resolve.model import Model
from fito.reference.steps import TAU, TICK
from fito.reference.store import RefFault, Store
from fito.reference.terms import OMEGA, Reference, at_end

__all__ = ["RefFault", "RefLimit", "RefResult", "Reference", "check"]


@dataclass(frozen=True)
class RefResult:
    verdict: str  # holds | fails
    states: int
    trace_length: int
    error: str | None = None  # the model error the verdict comes from, if any


class RefLimit(Exception):
    """More states than the caller allowed."""


State = tuple[tuple, Store]


class _Search:
    """The best verdict candidate of a breadth-first search: shortest first; among equally
    short ones, a model error before anything else, then the first found."""

    def __init__(self) -> None:
        self.best: tuple[int, str, str | None] | None = None  # (length, kind, error)

    def offer(self, length: int, kind: str, error: str | None = None) -> None:
        if (
            self.best is None
            or length < self.best[0]
            or (length == self.best[0] and kind == "error" != self.best[1])
        ):
            self.best = (length, kind, error)


def check(
    model: Model, a: A.AssertDecl, max_states: int | None = None, max_seconds: float | None = None
) -> RefResult:
    """Decide one assertion by plain BFS (the reference for the property tests).

    Raises RefLimit when more than max_states states are reached or max_seconds pass."""
    deadline = None if max_seconds is None else time.monotonic() + max_seconds

    def over() -> bool:
        return deadline is not None and time.monotonic() > deadline

    ref = Reference(model)
    proc = a.proc if a.proc is not None else model.system
    assert proc is not None
    if a.kind == "refines":
        return _refines(ref, a, proc, max_states, over)
    try:
        root = ref.root(proc)
    except RefFault as exc:
        return RefResult("fails", 1, 0, str(exc))
    goal = _goal(ref, a)
    search = _Search()
    goal(root, 0, search)
    if search.best is not None:
        return _verdict(a, search, 1)
    seen = {root: 0}
    frontier = [root]
    depth = 0
    while frontier:
        nxt = []
        for term, store in frontier:
            for state in _successors(ref, a, term, store, depth, search):
                if state in seen:
                    continue
                seen[state] = depth + 1
                if (max_states is not None and len(seen) > max_states) or (
                    len(seen) & 63 == 0 and over()
                ):
                    raise RefLimit()
                nxt.append(state)
                goal(state, depth + 1, search)
        depth += 1
        if search.best is not None:
            return _verdict(a, search, len(seen))
        frontier = nxt
    return RefResult("fails" if a.kind == "reaches" else "holds", len(seen), 0)


def _goal(ref: Reference, a: A.AssertDecl) -> Callable[[State, int, _Search], None]:
    """Offers a state that violates `always e`, or satisfies `reaches e`."""

    def goal(state: State, depth: int, search: _Search) -> None:
        if a.expr is None:
            return
        try:
            hit = bool(ref.ev(a.expr, {}, state[1]))
        except RefFault as exc:
            search.offer(depth, "error", str(exc))
            return
        if hit != (a.kind == "always"):
            search.offer(depth, "goal")

    return goal


def _successors(
    ref: Reference, a: A.AssertDecl, term: tuple, store: Store, depth: int, search: _Search
) -> list[State]:
    """The states after every transition; a model error is offered instead."""
    try:
        trs = ref.trans(term, store)
    except RefFault as exc:
        search.offer(depth, "error", str(exc))
        return []
    try:
        fired = [ref.fire(tr, store) for tr in trs]
    except RefFault as exc:
        search.offer(depth + 1, "error", str(exc))
        return []
    if not fired and a.kind == "deadlock" and term != OMEGA and not at_end(term, ref):
        search.offer(depth, "deadlock")
    return fired


def _verdict(a: A.AssertDecl, search: _Search, states: int) -> RefResult:
    assert search.best is not None
    length, kind, error = search.best
    ok = a.kind == "reaches" and kind == "goal"
    return RefResult("holds" if ok else "fails", states, length, error)


def _refines(
    ref: Reference, a: A.AssertDecl, impl: A.Proc, max_states: int | None, over: Callable[[], bool]
) -> RefResult:
    assert a.spec is not None

    def closure(states: set) -> frozenset:
        todo, seen = list(states), set(states)
        while todo:
            term, store = todo.pop()
            for tr in ref.trans(term, store):
                if tr.kind == TAU:
                    s = ref.fire(tr, store)
                    if s not in seen:
                        seen.add(s)
                        todo.append(s)
        return frozenset(seen)

    def after(node: frozenset, event: tuple) -> frozenset:
        nxt = set()
        for term, store in node:
            for tr in ref.trans(term, store):
                key = ("tick",) if tr.kind == TICK else tr.event
                if tr.kind != TAU and key == event:
                    nxt.add(ref.fire(tr, store))
        return closure(nxt) if nxt else frozenset()

    spec_root = closure({ref.root(a.spec)})
    root = (ref.root(impl), spec_root)
    seen = {root}
    queue = deque([(root, 0)])
    best: int | None = None
    error: str | None = None
    level_end = 0
    while queue:
        (state, node), depth = queue.popleft()
        if best is not None and depth >= level_end:
            break
        term, store = state
        try:
            trs = ref.trans(term, store)
            fired = [(tr, ref.fire(tr, store)) for tr in trs]
        except RefFault as exc:
            if best is None or depth + 1 < best:
                best, error = depth + 1, str(exc)
            level_end = depth + 1
            continue
        for tr, s in fired:
            if tr.kind == TAU:
                nnode = node
            else:
                nnode = after(node, ("tick",) if tr.kind == TICK else tr.event)
                if not nnode:
                    if best is None:
                        best, level_end = depth + 1, depth + 1
                    continue
            if (s, nnode) not in seen:
                seen.add((s, nnode))
                if (max_states is not None and len(seen) > max_states) or (
                    len(seen) & 63 == 0 and over()
                ):
                    raise RefLimit()
                queue.append(((s, nnode), depth + 1))
    if best is not None:
        return RefResult("fails", len(seen), best, error)
    return RefResult("holds", len(seen), 0)
