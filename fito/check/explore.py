"""Breadth-first exploration, state by state: shortest counterexamples by construction.

States are flat tuples (cells, then control; fito/semantics/compiled.py); the visited set
maps them to numbers, and parent links (number, rank) rebuild traces. No AST objects are kept per state. Each level is
finished before a verdict is drawn, so the reported trace is the shortest among
violations, deadlocks and model errors alike.
"""
from __future__ import annotations

import sys
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

from fito.semantics.compiled import Compiled, Rank, StepFault, TimeLimit
from fito.semantics.ir import Fault

GOAL, DEADLOCK, ERROR, EXHAUSTED, LIMIT = "goal", "deadlock", "error", "exhausted", "limit"
HANDOVER = "handover"  # the search grew past `handover_at`: the frontier engine goes on


@dataclass(frozen=True, slots=True)
class Limits:
    max_states: int | None = None
    timeout: float | None = None
    progress: bool = False
    engine: str = "auto"          # auto (frontier where states pack), frontier, scalar
    jobs: int = 1                 # threads of the frontier engine


@dataclass(frozen=True, slots=True)
class Found:
    """What a search ended with: a state (and possibly a failing step from it)."""

    kind: str                    # goal, deadlock, error, exhausted or limit
    state: int = -1              # the state reached (or where the error happened)
    step: Rank | None = None     # for an error in a transition's effect: its rank
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
    frontier: list[int] = field(default_factory=list)   # the next level, at a handover

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

    def path(self, sid: int) -> list[tuple[int, Rank]]:
        """The (state, rank) pairs from the initial state to sid."""
        out = []
        while self.parent[sid] >= 0:
            out.append((self.parent[sid], self.via[sid]))
            sid = self.parent[sid]
        out.reverse()
        return out


class Progress:
    """A progress line on stderr, at most once a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = self.start
        self.shown = False

    def tick(self, states: int, depth: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last >= 1.0:
            self.last = now
            rate = states / max(now - self.start, 1e-9)
            sys.stderr.write(f"\r  {states:,} states, depth {depth}, {rate:,.0f} states/s ")
            sys.stderr.flush()
            self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()


def _better(length: int, kind: str, best_len: int, best: Found | None) -> bool:
    """Shorter wins; at equal length a model error beats a goal or a deadlock."""
    if length != best_len:
        return length < best_len
    return kind == ERROR and best is not None and best.kind != ERROR


def search(c: Compiled, root: tuple, goal: Callable[[tuple], object] | None,
           deadlock: bool, limits: Limits, handover_at: int | None = None) -> tuple[Found, Graph]:
    """BFS from root until a goal state, a deadlock (if asked) or a model error; with
    handover_at, stop at the end of the first level that passes that many states."""
    g = Graph()
    g.add(root, -1, -1)
    if goal is not None:
        try:
            if goal(root):
                return Found(GOAL, 0), g
        except Fault as f:
            return Found(ERROR, 0, None, f), g
    frontier = [0]
    progress = Progress(limits.progress)
    deadline = None if limits.timeout is None else time.monotonic() + limits.timeout
    max_states = limits.max_states
    states, index, parents, vias = g.states, g.index, g.parent, g.via
    push_state, push_parent, push_via = states.append, parents.append, vias.append
    successors = c.successors
    n = len(states)
    expanded = 0
    try:
        while frontier:
            # the whole level is expanded before a verdict, so the state count and the
            # length of the reported trace do not depend on the order of expansion
            best: Found | None = None
            best_len = 1 << 60
            nxt: list[int] = []
            push_next = nxt.append
            depth = g.depth
            probe = goal is not None  # can a goal check still change the verdict of this level?
            transitions = 0
            for sid in frontier:
                s = states[sid]
                try:
                    moves = successors(s)
                except StepFault as e:
                    length = depth if e.step is None else depth + 1
                    if _better(length, ERROR, best_len, best):
                        best, best_len = Found(ERROR, sid, e.step, e.fault), length
                        probe = goal is not None and length > depth
                    continue
                except TimeLimit:
                    g.transitions += transitions
                    return Found(LIMIT, reason=f"timeout after {limits.timeout:g} s"), g
                if not moves:
                    if deadlock and depth < best_len and not c.is_terminated(s):
                        best, best_len = Found(DEADLOCK, sid), depth
                        probe = False
                    continue
                transitions += len(moves)
                for rank, post in moves:
                    if post in index:
                        continue
                    index[post] = n
                    push_state(post)
                    push_parent(sid)
                    push_via(rank)
                    push_next(n)
                    n += 1
                    if probe:
                        try:
                            hit = goal(post)  # type: ignore[misc]
                        except Fault as f:
                            best, best_len = Found(ERROR, n - 1, None, f), depth + 1
                            probe = False  # nothing of this length beats an error
                            continue
                        if hit and best is None:
                            best, best_len = Found(GOAL, n - 1), depth + 1
                expanded += 1
                if expanded & 1023 == 0:
                    progress.tick(n, depth)
                    if deadline is not None and time.monotonic() > deadline:
                        g.transitions += transitions
                        return Found(LIMIT, reason=f"timeout after {limits.timeout:g} s"), g
                if max_states is not None and n > max_states:
                    g.transitions += transitions
                    return Found(LIMIT, reason=f"more than {max_states:,} states"), g
            g.transitions += transitions
            g.depth += 1
            if best is not None:
                return best, g
            frontier = nxt
            if handover_at is not None and n > handover_at and frontier:
                g.frontier = frontier
                return Found(HANDOVER), g
        return Found(EXHAUSTED), g
    finally:
        progress.done()
