"""Breadth-first exploration, state by state: shortest counterexamples by construction.

States are flat tuples (cells, then control; fito/semantics/compiled.py); the visited set
maps them to numbers, and parent links (number, rank) rebuild traces. No AST objects are
kept per state. Each level is finished before a verdict is drawn, so the reported trace is
the shortest among violations, deadlocks and model errors alike.
"""

from __future__ import annotations

import sys
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

from fito import budget
from fito.check.options import Limits
from fito.check.reduce import NONE, Reduction
from fito.semantics.compiled import Compiled, Fault, Rank, StepFault, StructureGrows, TimeLimit

GOAL, DEADLOCK, ERROR, EXHAUSTED, LIMIT = "goal", "deadlock", "error", "exhausted", "limit"


@dataclass(frozen=True, slots=True)
class Found:
    """What a search ended with: a state (and possibly a failing step from it)."""

    kind: str  # goal, deadlock, error, exhausted or limit
    state: int = -1  # the state reached (or where the error happened)
    step: Rank | None = None  # for an error in a transition's effect: its rank
    fault: Fault | None = None
    reason: str = ""


@dataclass(slots=True)
class Graph:
    """The visited states of a search: a dict from state tuples to numbers, and per state
    its parent link (number, rank of the transition), the links in 8-byte arrays."""

    states: list[tuple] = field(default_factory=list)
    parent: array = field(default_factory=lambda: array("q"))
    via: array = field(default_factory=lambda: array("q"))
    index: dict[tuple, int] = field(default_factory=dict)
    transitions: int = 0
    depth: int = 0
    engine: str = "scalar"
    frontier: list[int] = field(default_factory=list)  # the next level, at a handover
    answers: object = None  # the tasks' answers so far

    def add(self, state: tuple, parent: int, rank: int) -> int:
        n = len(self.states)
        self.index[state] = n
        self.states.append(state)
        self.parent.append(parent)
        self.via.append(rank)
        return n

    def __len__(self) -> int:
        return len(self.states)

    def state(self, sid: int) -> tuple:
        return self.states[sid]

    def chain(self, sid: int) -> list[int]:
        """The states from the initial state to sid."""
        out = [sid]
        while self.parent[out[-1]] >= 0:
            out.append(self.parent[out[-1]])
        out.reverse()
        return out

    def path(self, sid: int) -> list[tuple[int, Rank]]:
        """The (state, rank) pairs from the initial state to sid."""
        out = []
        while self.parent[sid] >= 0:
            out.append((self.parent[sid], self.via[sid]))
            sid = self.parent[sid]
        out.reverse()
        return out


class Progress:
    """A progress line on stderr, at most once a second. The figures of the last tick of
    any search are kept (`latest`, states and depth; `on_screen`, whether a progress line
    is showing) for a command interrupted by Ctrl-C to print what the search had reached."""

    latest: tuple[int, int] | None = None
    on_screen = False

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = self.start
        self.shown = False

    def tick(self, states: int, depth: int) -> None:
        Progress.latest = (states, depth)
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last >= 1.0:
            self.last = now
            rate = states / max(now - self.start, 1e-9)
            sys.stderr.write(f"\r  {states:,} states, depth {depth}, {rate:,.0f} states/s ")
            sys.stderr.flush()
            self.shown = Progress.on_screen = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()
            Progress.on_screen = False


def _probing(probes: list[int], best: dict[int, Found]) -> list[int]:
    """The tasks whose goal can still change this level's answer: none is found yet, or
    only a goal state (a model error of the same length would beat it); the first error
    found stands."""
    return [i for i in probes if i not in best or best[i].kind == GOAL]


def _better(length: int, kind: str, best_len: int, best: Found | None) -> bool:
    """Shorter wins; at equal length a model error beats a goal or a deadlock."""
    if length != best_len:
        return length < best_len
    return kind == ERROR and best is not None and best.kind != ERROR


@dataclass(frozen=True, slots=True)
class Task:
    """One safety question asked of a search: a goal predicate on states (a violation of
    `always`, a witness of `reaches`: `goal` for one state tuple, `ir` and `negate` for
    whole blocks) and/or deadlock. One search answers several tasks on the same process."""

    goal: Callable[[tuple], object] | None = None
    ir: object = None
    negate: bool = False
    deadlock: bool = False


@dataclass(slots=True)
class Decided:
    """A task's answer and the search's figures when it was drawn (what a search of that
    task alone would report), over the graph that holds its trace."""

    found: Found
    graph: object
    states: int
    transitions: int
    depth: int
    seconds: float = 0.0
    proof: object = None  # the symbolic engine's proof that no such state is reachable

    def __len__(self) -> int:
        return self.states

    @property
    def engine(self) -> str:
        return self.graph.engine

    def path(self, sid: int) -> list:
        return self.graph.path(sid)

    def chain(self, sid: int) -> list[int]:
        return self.graph.chain(sid)  # type: ignore[attr-defined]

    def state(self, sid: int) -> tuple:
        return self.graph.state(sid)


class Answers:
    """The answers of the tasks of one search, filled in level by level."""

    def __init__(self, tasks: list[Task], graph: object) -> None:
        self.tasks = tasks
        self.graph = graph
        self.got: list[Decided | None] = [None] * len(tasks)
        self.start = time.perf_counter()

    def open(self) -> list[int]:
        return [i for i, d in enumerate(self.got) if d is None]

    def decide(self, i: int, found: Found, states: int, transitions: int, depth: int) -> None:
        self.got[i] = Decided(
            found, self.graph, states, transitions, depth, time.perf_counter() - self.start
        )

    def decide_root(self, root: tuple) -> None:
        """Decide the tasks whose goal holds in the initial state (or meets a model error
        there): a run of no step, one state."""
        for i, t in enumerate(self.tasks):
            if t.goal is None:
                continue
            try:
                if t.goal(root):
                    self.decide(i, Found(GOAL, 0), 1, 0, 0)
            except Fault as f:
                self.decide(i, Found(ERROR, 0, None, f), 1, 0, 0)

    def close(self, found: Found, states: int, transitions: int, depth: int) -> list[Decided]:
        """Every undecided task ends with `found` (exhausted, limit)."""
        for i in self.open():
            self.decide(i, found, states, transitions, depth)
        return self.got  # type: ignore[return-value]


def stop_reason(deadline: float | None, limits: Limits) -> str | None:
    """Why a search must stop now: its deadline passed, or the memory budget
    (--max-memory, fito.budget) is used up; None to go on."""
    if deadline is not None and time.monotonic() > deadline:
        return f"timeout after {limits.timeout:g} s"
    try:
        budget.current().poll()
    except budget.BudgetExceeded as exc:
        return exc.message
    return None


def search(
    c: Compiled,
    root: tuple,
    tasks: list[Task],
    limits: Limits,
    handover_at: int | None = None,
    reduction: Reduction = NONE,
) -> tuple[list[Decided] | None, Graph]:
    """BFS from root until every task is answered: a goal state, a deadlock (if asked) or a
    model error; with handover_at, stop (returning None) at the end of the first level that
    passes that many states while some task is still open. With a symmetry `reduction`,
    every state is stored as its canonical representative."""
    canonical = reduction.canonical_fn()
    if canonical is not None:
        root = canonical(root)
    g = Graph()
    g.add(root, -1, -1)
    answers = Answers(tasks, g)
    g.answers = answers
    answers.decide_root(root)
    if not answers.open():
        return answers.got, g  # type: ignore[return-value]
    progress = Progress(limits.progress)
    try:
        ample = reduction.ample if reduction.por else None
        return _levels(c, g, answers, limits, handover_at, progress, canonical, ample)
    finally:
        progress.done()


def _levels(
    c: Compiled,
    g: Graph,
    answers: Answers,
    limits: Limits,
    handover_at: int | None,
    progress: Progress,
    canonical: Callable[[tuple], tuple] | None = None,
    ample: Callable[..., list[tuple[Rank, tuple]]] | None = None,
) -> tuple[list[Decided] | None, Graph]:
    deadline = None if limits.timeout is None else time.monotonic() + limits.timeout
    max_states = limits.max_states
    states, index, parents, vias = g.states, g.index, g.parent, g.via
    push_state, push_parent, push_via = states.append, parents.append, vias.append
    successors = c.successors
    if canonical is not None:  # symmetry: successors as their representatives
        concrete = successors

        def successors(s: tuple) -> list[tuple[Rank, tuple]]:
            return [(r, canonical(post)) for r, post in concrete(s)]

    tasks = answers.tasks
    n = len(states)
    frontier = [0]
    expanded = 0
    while frontier:
        # the whole level is expanded before a verdict, so the state count and the
        # length of the reported trace do not depend on the order of expansion
        todo = answers.open()
        best: dict[int, Found] = {}
        best_len = {i: 1 << 60 for i in todo}
        probes = [i for i in todo if tasks[i].goal is not None]  # goals that can still decide
        deadlock = any(tasks[i].deadlock for i in todo)
        nxt: list[int] = []
        push_next = nxt.append
        depth = g.depth
        transitions = 0
        for sid in frontier:
            s = states[sid]
            try:
                moves = successors(s)
            except StepFault as e:
                length = depth if e.step is None else depth + 1
                for i in todo:
                    if _better(length, ERROR, best_len[i], best.get(i)):
                        best[i], best_len[i] = Found(ERROR, sid, e.step, e.fault), length
                probes = _probing(probes, best)
                continue
            except TimeLimit:
                g.transitions += transitions
                return answers.close(
                    Found(LIMIT, reason=f"timeout after {limits.timeout:g} s"),
                    n,
                    g.transitions,
                    g.depth,
                ), g
            except StructureGrows as grows:
                g.transitions += transitions
                return answers.close(
                    Found(LIMIT, reason=grows.message), n, g.transitions, g.depth
                ), g
            if not moves:
                if deadlock and not c.ends_validly(s):
                    for i in todo:
                        if tasks[i].deadlock and depth < best_len[i]:
                            best[i], best_len[i] = Found(DEADLOCK, sid), depth
                    probes = _probing(probes, best)
                continue
            if ample is not None and len(moves) > 1:  # partial-order reduction
                moves = ample(c, s, moves, index)
            transitions += len(moves)
            for rank, post in moves:
                if post in index:
                    continue
                if max_states is not None and n >= max_states:  # exact: never more than N
                    g.transitions += transitions
                    return answers.close(
                        Found(LIMIT, reason=f"more than {max_states:,} states"),
                        n,
                        g.transitions,
                        g.depth,
                    ), g
                index[post] = n
                push_state(post)
                push_parent(sid)
                push_via(rank)
                push_next(n)
                n += 1
                failed = False
                for i in probes:
                    try:
                        hit = tasks[i].goal(post)  # type: ignore[misc]
                    except Fault as f:
                        best[i], best_len[i] = Found(ERROR, n - 1, None, f), depth + 1
                        failed = True
                        continue
                    if hit and i not in best:
                        best[i], best_len[i] = Found(GOAL, n - 1), depth + 1
                if failed:
                    probes = _probing(probes, best)
            expanded += 1
            if expanded & 1023 == 0:
                progress.tick(n, depth)
                stop = stop_reason(deadline, limits)
                if stop is not None:
                    g.transitions += transitions
                    return answers.close(Found(LIMIT, reason=stop), n, g.transitions, g.depth), g
        g.transitions += transitions
        g.depth += 1
        for i, found in best.items():
            answers.decide(i, found, n, g.transitions, g.depth)
        if not answers.open():
            return answers.got, g  # type: ignore[return-value]
        frontier = nxt
        if handover_at is not None and n > handover_at and frontier:
            g.frontier = frontier
            return None, g
    return answers.close(Found(EXHAUSTED), n, g.transitions, g.depth), g
