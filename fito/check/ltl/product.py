"""The product of the compiled model with a Büchi automaton, and the model's fairness.

A product state is `(s, q)`: a model state and an automaton state. From it, every model
transition enabled in s pairs with every edge of q whose label holds: the label's state
propositions are read in s, its `fired(...)` atoms from the transition taken (the step
from s), as SPIN's never claim reads the state before each step. A state with no
transition (a deadlock, or the end of a terminated process) stutters: it repeats itself
forever with the step STUTTER, which fires no event and moves no process, as SPIN
stutters at an end state. So every run is infinite.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fito.check.ltl.buchi import Automaton, Edge
from fito.check.ltl.formulas import Atoms
from fito.lang import nodes as A
from fito.semantics import compiled as S
from fito.semantics.compiled import Compiled

RECENT = 4096  # model states whose moves the product keeps (see Product._moves)
STUTTER = -1  # the rank of the stuttering step of a state without transitions
# A product state: bytes (two bytes of automaton state, then one per slot of the model
# state) when every slot is in 0..255, as most are; else the pair (model state, automaton
# state). Bytes take a third of a tuple's memory and keep their hash (`encode`, `decode`).
Key = bytes | tuple[tuple[int, ...], int]
Succ = tuple[Key, int, int]  # (product state after, acceptance sets, rank)
EventKey = tuple[object, ...]


@dataclass(frozen=True, slots=True)
class EventMatch:
    """One item of a set of events: its channel and the values of its leading fields."""

    channel: str
    values: tuple[int, ...]
    whole: bool  # `{c.0}` lists whole events; `{| c.0 |}` every event extending c.0

    def matches(self, key: EventKey) -> bool:
        if key[0] != self.channel:
            return False
        n = len(self.values)
        return key[1 : 1 + n] == self.values and (not self.whole or len(key) == n + 1)


def event_matcher(c: Compiled, events: A.EventSet) -> Callable[[EventKey | None], bool]:
    """Whether an event (None: a step that is no event) is in the set."""
    if events.kind == "all":
        return lambda key: key is not None
    root = c.layout.init  # the fields are constants: evaluated on any store
    items = [
        EventMatch(
            e.channel,
            tuple(_int(c.predicate(f.value)(root)) for f in e.fields),  # type: ignore[union-attr]
            events.kind == "events",
        )
        for e in events.items
    ]
    return lambda key: key is not None and any(m.matches(key) for m in items)


_PREFIX = [q.to_bytes(2, "little") for q in range(1 << 16)]


def encode(s: tuple[int, ...], q: int) -> Key:
    """The product state (s, q) as stored."""
    try:
        return _PREFIX[q] + bytes(s)
    except ValueError:  # a slot outside 0..255
        return (s, q)


def decode(key: Key) -> tuple[tuple[int, ...], int]:
    """The model state and automaton state of a stored product state."""
    if type(key) is bytes:
        return tuple(key[2:]), key[0] | key[1] << 8
    return key  # type: ignore[return-value]


def _int(v: object) -> int:
    return int(v)  # type: ignore[call-overload]


def step_event(c: Compiled, s: tuple[int, ...], rank: int) -> tuple[frozenset, EventKey | None]:
    """The threads a transition moves and its event (None for a step without one)."""
    if rank == STUTTER:
        return frozenset(), None
    step = c.step(s, rank)
    if step.channel is None or step.kind == S.TICK:
        return step.movers, None
    return step.movers, c.event_key(step, s)


class Product:
    """Successors of product states, with the automaton's acceptance on each."""

    def __init__(self, c: Compiled, aut: Automaton, atoms: Atoms) -> None:
        self.c = c
        self.aut = aut
        self.preds = [(1 << i, c.predicate(e)) for i, e in enumerate(atoms.exprs) if e is not None]
        self.fired = [
            (1 << i, event_matcher(c, ev)) for i, ev in enumerate(atoms.events) if ev is not None
        ]
        ev = sum(bit for bit, _ in self.fired)
        # per automaton state: its edges with the state part of their labels
        self.edges = [[(e.pos & ~ev, e.neg & ~ev, e) for e in es] for es in aut.edges]
        self._open: dict[tuple[int, int], list[Edge]] = {}
        # A model state met with several automaton states is usually met with them close
        # together (one move, several edges): its moves are kept for a while, not recomputed
        self._recent: dict[tuple[int, ...], list[tuple[int, tuple[int, ...]]]] = {}

    def values(self, s: tuple[int, ...]) -> int:
        """The state propositions true in s, as a bit mask (Fault on a model error)."""
        v = 0
        for bit, pred in self.preds:
            if pred(s):
                v |= bit
        return v

    def moves(self, s: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
        """The model's transitions of s, or its stuttering step (StepFault on a model error)."""
        return self.c.successors(s) or [(STUTTER, s)]

    def _moves(self, s: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
        recent = self._recent
        got = recent.get(s)
        if got is None:
            got = recent[s] = self.c.successors(s) or [(STUTTER, s)]
            if len(recent) > RECENT:
                del recent[next(iter(recent))]  # the oldest
        return got

    def successors(self, key: Key) -> list[Succ]:
        """Every product transition of key."""
        s, q = decode(key)
        v = self.values(s)
        edges = self._open.get((q, v))
        if edges is None:  # once per automaton state and truth of the state propositions
            edges = self._open[q, v] = [
                e for pos, neg, e in self.edges[q] if v & pos == pos and not v & neg
            ]
        if not edges:
            return []
        moves = self._moves(s)
        if not self.fired:
            if len(edges) == 1:
                target, acc = edges[0].target, edges[0].acc
                return [(encode(t, target), acc, k) for k, t in moves]
            return [(encode(t, e.target), e.acc, k) for k, t in moves for e in edges]
        out: list[Succ] = []
        for k, t in moves:
            _, event = step_event(self.c, s, k)
            w = v | sum(bit for bit, match in self.fired if match(event))
            out.extend(
                (encode(t, e.target), e.acc, k)
                for e in edges
                if w & e.pos == e.pos and not w & e.neg
            )
        return out
