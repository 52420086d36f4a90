"""Breadth-first search over whole levels of packed states (the fast engine).

A level is a contiguous range of state numbers. It is expanded in chunks of rows
(fito/check/frontier/expand.py), each chunk's successors inserted into the visited store
(fito/check/frontier/visited.py) before the next chunk is expanded, so memory stays bounded by a
chunk's candidates. The new states of a level are then renumbered in the order a
state-by-state search would have found them (by parent, then by the rank of the
transition), so verdicts, state counts and traces are those of fito/check/explore.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from fito import budget
from fito.budget import BudgetExceeded
from fito.check.explore import (
    DEADLOCK,
    ERROR,
    EXHAUSTED,
    GOAL,
    LIMIT,
    Answers,
    Decided,
    Found,
    Graph,
    Progress,
    Task,
)
from fito.check.frontier import workers
from fito.check.frontier.expand import Expander
from fito.check.frontier.level import CHUNK, Fresh, Outcome, StateLimit, expand_range
from fito.check.frontier.visited import StateStore
from fito.check.options import Limits
from fito.check.reduce import NONE, Reduction
from fito.semantics.compiled import Compiled, Fault, StructureGrows, TimeLimit
from fito.semantics.packed import Overflow


@dataclass(slots=True)
class FrontierGraph:
    """The visited states of a frontier search, as explore.Graph offers them to reports."""

    c: Compiled
    expander: Expander
    parents: np.ndarray
    transitions: int = 0
    depth: int = 0
    engine: str = "frontier"

    def __len__(self) -> int:
        return len(self.expander.store)

    def state(self, sid: int) -> tuple:
        return self.expander.state(sid)

    def chain(self, sid: int) -> list[int]:
        """The states from the initial state to sid."""
        chain = [sid]
        while self.parents[chain[-1]] >= 0:
            chain.append(int(self.parents[chain[-1]]))
        chain.reverse()
        return chain

    def path(self, sid: int) -> list[tuple[int, int]]:
        """(state, rank) pairs from the initial state to sid (ranks found again by the scalar
        successors of each state on the path)."""
        chain = self.chain(sid)
        out = []
        for a, b in zip(chain, chain[1:]):
            target = self.state(b)
            rank = next(r for r, post in self.c.successors(self.state(a)) if post == target)
            out.append((a, rank))
        return out


def frontier_search(
    c: Compiled,
    root: tuple,
    tasks: list[Task],
    limits: Limits,
    start: Graph | None = None,
    answers: Answers | None = None,
    reduction: Reduction = NONE,
) -> tuple[list[Decided], object]:
    """BFS from root until every task is answered; or, from `start`, go on where a
    state-by-state search handed over (its next level pending, its answers so far). With a
    symmetry `reduction`, every state is stored as its canonical representative."""
    if answers is None:
        answers = Answers(tasks, start)
    root = reduction.canonical(root)
    try:
        ex = Expander(c, root, limits, reduction)
    except TimeLimit:  # estimating the packing took the time left: the scalar figures stand
        if start is None:  # (or those of the initial state alone)
            start = Graph()
            start.add(root, -1, -1)
            answers.graph = start
        answers.close(
            Found(LIMIT, reason=f"timeout after {limits.timeout:g} s"),
            len(start),
            start.transitions,
            start.depth,
        )
        return answers.got, start  # type: ignore[return-value]
    graph = FrontierGraph(c, ex, np.full(1024, -1, dtype=np.int32))
    answers.graph = graph
    for d in answers.got:
        if d is not None:
            d.graph = graph
    progress = Progress(limits.progress)
    try:
        if start is not None:
            level = _adopt(ex, graph, start)
        else:
            _insert_root(ex, root)
            level = (0, 1)
            answers.decide_root(root)
        if answers.open():
            _levels(ex, graph, level, answers, progress)
    except (TimeLimit, StructureGrows, BudgetExceeded) as stop:
        figures = graph if start is None or len(graph) >= len(start) else start
        reason = (
            f"timeout after {limits.timeout:g} s" if isinstance(stop, TimeLimit) else stop.message
        )
        answers.close(Found(LIMIT, reason=reason), len(figures), figures.transitions, figures.depth)
    finally:
        ex.close()
        progress.done()
    return answers.got, graph  # type: ignore[return-value]


def _insert_root(ex: Expander, root: tuple) -> None:
    while True:
        try:
            ex.store.insert(ex.packed.pack(root)[None, :])
            return
        except Overflow:
            ex.widen()


def _adopt(ex: Expander, graph: FrontierGraph, start: Graph) -> tuple[int, int]:
    """Take over the states, parent links and pending level of a scalar search."""
    while True:
        try:
            keys = ex.packed.pack_many(start.states)
            break
        except Overflow:
            ex.widen()
    ex.store = StateStore.of(keys, 1 << max(12, (2 * keys.shape[0]).bit_length()))
    graph.parents = _grown(graph.parents, keys.shape[0])
    graph.parents[: keys.shape[0]] = np.frombuffer(start.parent, dtype=np.int64)
    graph.transitions, graph.depth = start.transitions, start.depth
    lo, hi = start.frontier[0], start.frontier[-1] + 1
    assert hi - lo == len(start.frontier), "a level is a contiguous range of state numbers"
    return lo, hi


def _levels(
    ex: Expander, graph: FrontierGraph, level: tuple[int, int], answers: Answers, progress: Progress
) -> None:
    limits, tasks = ex.limits, answers.tasks
    predicates: dict[int, object] = {}
    lo, hi = level
    while hi > lo:
        first = ex.store.n
        todo = answers.open()
        deadlock = any(tasks[i].deadlock for i in todo)
        while True:
            try:
                ex.store.track(first)
                outcome, best = _expand_level(ex, lo, hi, deadlock)
                for i in todo:
                    if tasks[i].ir is not None and i not in predicates:
                        predicates[i] = ex.packed.predicate(tasks[i].ir, tasks[i].negate)
                break
            except Overflow:
                ex.store.truncate(first)
                ex.widen()
                predicates.clear()
            except StateLimit as stop:  # exact: the states past the bound are forgotten
                _over_limit(ex, answers, graph, graph.transitions + stop.transitions)
                return
        graph.transitions += outcome.transitions
        perm = np.argsort(best, kind="stable")
        ex.store.reorder(first, perm)
        best = best[perm]
        graph.parents = _grown(graph.parents, ex.store.n)
        graph.parents[first : ex.store.n] = best >> 32
        depth = graph.depth
        graph.depth += 1
        progress.tick(ex.store.n, depth)
        for i in todo:
            found = _this_level_verdict(outcome, tasks[i].deadlock)
            if found is None:
                found = _next_level_verdict(
                    ex, outcome, first, best, predicates.get(i), tasks[i].goal
                )
            if found is not None:
                answers.decide(i, found, ex.store.n, graph.transitions, graph.depth)
        if not answers.open():
            return
        if limits.max_states is not None and ex.store.n > limits.max_states:
            _over_limit(ex, answers, graph, graph.transitions)  # a level expanded by workers
            return
        if ex.deadline is not None and time.monotonic() > ex.deadline:
            raise TimeLimit()
        budget.current().poll()  # --max-memory: the store, the links and the next level
        lo, hi = first, ex.store.n
    answers.close(Found(EXHAUSTED), ex.store.n, graph.transitions, graph.depth)


def _over_limit(ex: Expander, answers: Answers, graph: FrontierGraph, transitions: int) -> None:
    """More states than --max-states: unknown, with exactly that many states kept."""
    bound = ex.limits.max_states
    assert bound is not None
    ex.store.truncate(bound)
    answers.close(
        Found(LIMIT, reason=f"more than {bound:,} states"), ex.store.n, transitions, graph.depth
    )


def _expand_level(ex: Expander, lo: int, hi: int, deadlock: bool) -> tuple[Outcome, np.ndarray]:
    """Expand the states lo .. hi - 1, inserting as it goes: the level's outcome and the
    discovery key (parent << 32 | dense rank) of every new state. With several jobs, a large
    level is split between worker processes (fito/check/frontier/workers.py); the result does not
    depend on how it is split, since the new states are renumbered by discovery key."""
    first = ex.store.n
    if ex.jobs > 1 and hi - lo >= workers.PARALLEL_MIN and workers.available():
        return workers.expand_level(ex, lo, hi, deadlock, first)
    out, sink = Outcome(), Fresh(ex.store, first)
    expand_range(ex, lo, hi, deadlock, out, sink)
    return out, sink.best


def _this_level_verdict(out: Outcome, deadlock: bool) -> Found | None:
    """An error of a state of this level (first in order), else a deadlock."""
    if out.state_error is not None:
        sid, fault = out.state_error
        return Found(ERROR, sid, None, fault)
    if deadlock and out.dead is not None:
        return Found(DEADLOCK, out.dead)
    return None


def _next_level_verdict(
    ex: Expander, out: Outcome, first: int, best: np.ndarray, predicate: object, scalar_goal: object
) -> Found | None:
    """Errors of transitions and goal states among the new states, first found first."""
    errors: list[tuple[int, Found]] = [
        ((sid << 32) - 1, Found(ERROR, sid, rank, fault)) for sid, rank, fault in out.step_errors
    ]
    hit = None
    if predicate is not None:
        for start in range(first, ex.store.n, CHUNK):
            stop = min(ex.store.n, start + CHUNK)
            truth, faulty = predicate(ex.store.keys[start:stop])  # type: ignore[operator]
            truth = np.array(truth)
            for i in np.flatnonzero(faulty).tolist():
                try:
                    truth[i] = bool(scalar_goal(ex.state(start + i)))  # type: ignore[operator]
                except Fault as f:
                    truth[i] = False
                    errors.append((int(best[start + i - first]), Found(ERROR, start + i, None, f)))
            hits = np.flatnonzero(truth)
            if hits.size and hit is None:
                hit = Found(GOAL, start + int(hits[0]))
    if errors:
        return min(errors, key=lambda x: x[0])[1]
    return hit


def _grown(parents: np.ndarray, need: int) -> np.ndarray:
    if need <= parents.size:
        return parents
    size = parents.size
    while size < need:
        size *= 2
    parents.resize(size, refcheck=False)  # realloc: no second copy of the links
    return parents
