"""Is the product's language empty? Couvreur's SCC-based check ("On-the-fly verification of
linear temporal logic", FM 1999; iterative, in the form of Renault et al., "Three SCC-based
emptiness checks for generalized Büchi automata", LPAR 2013).

A depth-first search numbers product states; a stack of roots holds, per strongly connected
component found so far, the acceptance sets of its edges. Each state is one entry of one
dict (its number; 0 once its component is complete), as the safety search keeps one entry
per state; the search's stack holds the successors of the states on the current path.
Without fairness the search stops as soon as one component carries every acceptance set
and a cycle. With fairness a component is judged when it is complete
(fito/check/ltl/fairness.py decides whether a fair cycle lies inside it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from fito.check.ltl.product import Key, Product, Succ

Edge = tuple[Succ, frozenset, int]  # a product edge, the threads it moves, the fair sets
Goal = Callable[[Key, Edge], bool]  # an edge a fair cycle must take (one of them)


@dataclass(frozen=True, slots=True)
class Accepting:
    """A set of product states, strongly connected, inside which an accepting (fair) cycle
    runs: `members`; with fairness also the edges inside (threads moved, fair sets taken)
    and what else the cycle must do (`goals`)."""

    members: frozenset[Key]
    edges: dict[Key, list[Edge]] | None = None
    goals: tuple[Goal, ...] = ()


class Limit(Exception):
    """The search stops: a bound was reached (the reason)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


Judge = Callable[[list[Key]], Accepting | None]
Tick = Callable[[int], str | None]  # states so far -> why to stop, or None


def search(
    p: Product, root: Key, judge: Judge | None, tick: Tick, max_states: int | None = None
) -> tuple[Accepting | None, int, int]:
    """An accepting component reachable from root (or None), the states and transitions met.

    `judge` (fairness) decides complete components whose edges carry every acceptance set;
    without it the first such component is taken at once. Raises Limit, Fault, StepFault."""
    every = p.aut.all_sets
    number: dict[Key, int] = {}
    get = number.get
    successors = p.successors
    limit = max_states if max_states is not None else -1
    # per root: its number, the acceptance sets inside, those of the edge into it, its place
    # on `active`, and whether the component has an edge at all
    roots: list[list[int]] = []
    active: list[Key] = []
    frames: list[tuple[Key, Iterator[Succ]]] = []  # the search's path: state, successors left
    transitions = 0

    def push(key: Key, acc: int) -> None:
        nonlocal transitions
        n = len(number) + 1
        if n == limit + 1:
            raise Limit(f"more than {limit:,} states")
        number[key] = n
        roots.append([n, 0, acc, len(active), 0])
        active.append(key)
        out = successors(key)
        transitions += len(out)
        frames.append((key, iter(out)))
        if n & 1023 == 0:
            stop = tick(n)
            if stop is not None:
                raise Limit(stop)

    push(root, 0)
    while frames:
        here, it = frames[-1]
        for key, acc, _ in it:
            n = get(key)
            if n is None:
                push(key, acc)
                break
            if n == 0:
                continue
            merged = acc
            while n < roots[-1][0]:
                r = roots.pop()
                merged |= r[1] | r[2]
            top = roots[-1]
            top[1] |= merged
            top[4] = 1
            if judge is None and top[1] == every:
                return Accepting(frozenset(active[top[3] :])), len(number), transitions
        else:  # every successor seen: leave the state; a root closes its component
            frames.pop()
            if number[here] != roots[-1][0]:
                continue
            r = roots.pop()
            members = active[r[3] :]
            del active[r[3] :]
            if judge is not None and r[4] and r[1] == every:
                found = judge(members)
                if found is not None:
                    return found, len(number), transitions
            for m in members:
                number[m] = 0
    return None, len(number), transitions
