"""LTL to a transition-based generalised Büchi automaton (TGBA), by the tableau of Couvreur
("On-the-fly verification of linear temporal logic", FM 1999), written for fito.

A state of the automaton is the set of formulas (in negation normal form, see
fito/check/ltl/formulas.py) the rest of the run must satisfy; its edges come from
expanding that set until only atoms and `X` obligations remain: each way of doing so is an
edge labelled by the atoms it needs, leading to the state made of the `X` obligations. One
acceptance set per until-formula `a U b`: the edges that do not postpone it (they either
do not need it or satisfy `b` now). A run of the automaton is accepting when it takes an
edge of every acceptance set infinitely often; with no until-formula every infinite run is.

Simplifications: edges are merged when they agree on target and label (their acceptance
joined) and dropped when another edge to the same target needs fewer atoms and accepts
more; states are numbered breadth-first from the initial state (0).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from fito.check.ltl.formulas import FALSE, TRUE, F

MAX_STATES = 4096  # a formula whose automaton grows past this is refused (M301)


@dataclass(frozen=True, slots=True)
class Edge:
    """An edge: the atoms that must hold (`pos`) and must not (`neg`), as bit masks over the
    atom numbers, its target state and its acceptance sets (a bit mask)."""

    pos: int
    neg: int
    target: int
    acc: int


@dataclass(frozen=True, slots=True)
class Automaton:
    """A TGBA: per state its edges; state 0 is initial; `sets` acceptance sets."""

    edges: tuple[tuple[Edge, ...], ...]
    sets: int
    untils: tuple[F, ...]  # the until-formula of each acceptance set

    @property
    def all_sets(self) -> int:
        return (1 << self.sets) - 1

    @property
    def size(self) -> int:
        return len(self.edges)


class TooLarge(Exception):
    """The automaton has more than MAX_STATES states."""


def untils_of(f: F) -> list[F]:
    """Every until-subformula, in a fixed order (first met, depth first)."""
    out: list[F] = []
    todo = [f]
    while todo:
        g = todo.pop()
        if g[0] == "U" and g not in out:
            out.append(g)
        if g[0] in ("and", "or", "U", "R"):
            todo += [g[2], g[1]]
        elif g[0] == "X":
            todo.append(g[1])
    return out


def translate(f: F) -> Automaton:
    """The TGBA of f."""
    untils = untils_of(f)
    bit = {u: 1 << i for i, u in enumerate(untils)}
    every = (1 << len(untils)) - 1
    ids: dict[frozenset[F], int] = {frozenset([f]) if f != TRUE else frozenset(): 0}
    order = deque(ids)
    table: list[tuple[Edge, ...]] = []
    while order:
        state = order.popleft()
        found: dict[tuple[int, int, int], int] = {}
        for pos, neg, nxt, postponed in _expand(state):
            key = nxt
            if key not in ids:
                if len(ids) >= MAX_STATES:
                    raise TooLarge()
                ids[key] = len(ids)
                order.append(key)
            acc = every & ~sum(bit[u] for u in postponed)
            label = (pos, neg, ids[key])
            found[label] = found.get(label, 0) | acc
        table.append(_prune([Edge(p, n, t, a) for (p, n, t), a in found.items()]))
    return Automaton(tuple(table), len(untils), tuple(untils))


Branch = tuple[tuple[F, ...], int, int, frozenset[F], frozenset[F], frozenset[F]]


def _expand(state: frozenset[F]) -> list[tuple[int, int, frozenset[F], frozenset[F]]]:
    """Every consistent expansion of a state: (pos, neg, next state, postponed untils)."""
    out = []
    # a branch: formulas still to expand, atoms needed true / false, next obligations,
    # untils postponed, formulas already expanded on this branch
    todo: list[Branch] = [(tuple(sorted(state)), 0, 0, frozenset(), frozenset(), frozenset())]
    while todo:
        rest, pos, neg, nxt, postponed, done = todo.pop()
        if not rest:
            out.append((pos, neg, nxt, postponed))
            continue
        g, rest = rest[0], rest[1:]
        if g in done or g == TRUE:
            todo.append((rest, pos, neg, nxt, postponed, done))
            continue
        done = done | {g}
        kind = g[0]
        if kind == "false":
            continue
        if kind in ("ap", "np"):
            b = 1 << g[1]
            pos2, neg2 = (pos | b, neg) if kind == "ap" else (pos, neg | b)
            if pos2 & neg2 == 0:
                todo.append((rest, pos2, neg2, nxt, postponed, done))
        elif kind == "and":
            todo.append(((g[1], g[2]) + rest, pos, neg, nxt, postponed, done))
        elif kind == "or":
            todo.append(((g[2],) + rest, pos, neg, nxt, postponed, done))
            todo.append(((g[1],) + rest, pos, neg, nxt, postponed, done))
        elif kind == "X":
            todo.append((rest, pos, neg, _add(nxt, g[1]), postponed, done))
        elif kind == "U":  # b now, or a now and a U b next (postponed)
            todo.append(((g[1],) + rest, pos, neg, _add(nxt, g), postponed | {g}, done))
            todo.append(((g[2],) + rest, pos, neg, nxt, postponed, done))
        else:  # R: a and b now, or b now and a R b next
            todo.append(((g[2],) + rest, pos, neg, _add(nxt, g), postponed, done))
            todo.append(((g[1], g[2]) + rest, pos, neg, nxt, postponed, done))
    return out


def _add(nxt: frozenset[F], g: F) -> frozenset[F]:
    return nxt if g == TRUE else nxt | {g}


def _prune(edges: list[Edge]) -> tuple[Edge, ...]:
    """Drop an edge when another to the same target needs no more atoms and accepts at
    least as much; the rest in a fixed order."""
    edges.sort(key=lambda e: (e.target, bin(e.pos | e.neg).count("1"), -e.acc, e.pos, e.neg))
    kept: list[Edge] = []
    for e in edges:
        if any(
            k.target == e.target
            and k.pos & e.pos == k.pos
            and k.neg & e.neg == k.neg
            and k.acc & e.acc == e.acc
            for k in kept
        ):
            continue
        kept.append(e)
    return tuple(kept)


def has_false(f: F) -> bool:
    return f == FALSE
