"""The counterexample of an ltl assertion as a lasso: a stem from the initial state to a
state of the accepting component, then a cycle inside it back to that state.

The stem is a shortest path (breadth-first) from the initial product state to the
component the search found; another accepting component may lie closer, which a
depth-first emptiness check cannot know (docs/ltl.md). The cycle is built greedily: from
where it is, the nearest edge (breadth-first inside the component) that does something the
cycle still owes (an acceptance set, a fairness obligation), until nothing is owed, then
the shortest way back.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from fito.check.ltl.emptiness import Accepting, Edge, Goal
from fito.check.ltl.product import Key, Product

Step = tuple[Key, int]  # a product state and the rank taken from it


def stem(
    p: Product, root: Key, goal: Callable[[Key], bool], tick: Callable[[int], None]
) -> tuple[list[Step], Key]:
    """A shortest path from root to a state satisfying goal, and that state."""
    if goal(root):
        return [], root
    parent: dict[Key, Step | None] = {root: None}
    queue = deque([root])
    while queue:
        key = queue.popleft()
        for after, _, k in p.successors(key):
            if after in parent:
                continue
            parent[after] = (key, k)
            if goal(after):
                return _back(parent, after), after
            queue.append(after)
            if len(parent) & 1023 == 0:
                tick(len(parent))
    raise AssertionError("the accepting component is not reachable")


def _back(parent: dict[Key, Step | None], key: Key) -> list[Step]:
    out: list[Step] = []
    here = parent[key]
    while here is not None:
        out.append(here)
        here = parent[here[0]]
    return out[::-1]


def inner_edges(p: Product, found: Accepting) -> dict[Key, list[Edge]]:
    """The edges inside the component (those the judge saw, or recomputed)."""
    if found.edges is not None:
        return found.edges
    members = found.members
    return {
        key: [(e, frozenset(), 0) for e in p.successors(key) if e[0] in members] for key in members
    }


def cycle(p: Product, found: Accepting, entry: Key) -> list[Step]:
    """A cycle from entry inside the component that takes an edge of every acceptance set
    and meets every fairness goal."""
    edges = inner_edges(p, found)
    owed: list[Goal] = [_accepts(j) for j in range(p.aut.sets)] + list(found.goals)
    out: list[Step] = []
    here = entry
    while owed:
        path = _nearest(edges, here, _any_of(tuple(owed)))
        for k, e in path:
            owed = [g for g in owed if not g(k, e)]
            out.append((k, e[0][2]))
        here = path[-1][1][0][0]
    if here != entry or not out:
        if not out:  # one step first: a cycle has at least one
            e = edges[entry][0]
            out.append((entry, e[0][2]))
            here = e[0][0]
        if here != entry:
            path = _nearest(edges, here, lambda k, e: e[0][0] == entry)
            out += [(k, e[0][2]) for k, e in path]
    return out


def _any_of(goals: tuple[Goal, ...]) -> Goal:
    return lambda k, e: any(g(k, e) for g in goals)


def _accepts(j: int) -> Goal:
    return lambda k, e: bool(e[0][1] >> j & 1)


def _nearest(
    edges: dict[Key, list[Edge]], start: Key, wanted: Callable[[Key, Edge], bool]
) -> list[tuple[Key, Edge]]:
    """The shortest path of edges from start whose last edge is wanted."""
    prev: dict[Key, tuple[Key, Edge] | None] = {start: None}
    queue = deque([start])
    while queue:
        key = queue.popleft()
        for e in edges[key]:
            if wanted(key, e):
                out = [(key, e)]
                here = prev[key]
                while here is not None:
                    out.append(here)
                    here = prev[here[0]]
                return out[::-1]
            after = e[0][0]
            if after not in prev:
                prev[after] = (key, e)
                queue.append(after)
    raise AssertionError("no such edge inside the component")
