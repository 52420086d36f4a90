"""The compiled network: a process term split into a fixed shape of sequential components.

A configuration of the system is a *shape* (the operators of its parallel structure:
parallel, hiding, interrupt and sequential composition above a parallel) whose holes are
*components*: sequential terms (docs/architecture.md). A state is the shape's number
(its *mode*), one control location per component (the component's term id) and the cells.
Splitting a term into (mode, locations) is a bijection, so the states are exactly the
(term, cells) pairs of docs/semantics.md.

Transitions are grouped by the components that take part in them: for a mode, a
*candidate* is a set of positions that can move together (each position alone; the
participants of a synchronised channel; every part of a parallel whose parts have all
terminated). The transitions of a candidate at given locations of its positions are
computed once, by the rules of docs/semantics.md applied to the shape with those components
in place and every other position standing still, and are cached by
(mode, candidate, locations): never per reached state.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fito.semantics.steps import EVENT, Semantics, Step

Shape = tuple  # ("hole", p) | ("par", sync, parts) | ("hide", chans, s) | ("intr", l, r) | ("seq", s, qkey, qenv)
Control = tuple  # (mode, location of position 0, location of position 1, ...)

# an entry of a target's locations: a term id (>= 0), or -(p + 1): position p keeps its own
KEEP = -1
MAX_MODES = 10_000  # more shapes than this: the structure grows without bound
MAX_POSITIONS = 2_048  # more components in one shape than this: refused as too wide
GROWING = 128  # a new shape wider than this and twice every earlier one: growing without end


class StructureGrows(Exception):
    """More modes than MAX_MODES, or a mode of more than MAX_POSITIONS components: the
    parallel structure keeps growing as the search goes on (recursion through a parallel
    operator), so no finite network describes it; or it is too wide to compile (the cost of
    a mode's transitions grows with the square of its components)."""

    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason

    @property
    def message(self) -> str:
        return f"the parallel structure keeps growing: {self.reason}"


@dataclass(frozen=True, slots=True)
class Mode:
    """One shape of the parallel structure, with its candidates in rank order."""

    id: int
    shape: Shape
    size: int                                  # number of positions (components)
    candidates: tuple[tuple[int, ...], ...]
    # why each candidate moves together: None for a single position, else the channels it
    # synchronises on and whether it is the termination of a parallel
    reasons: tuple[tuple[frozenset[str], bool] | None, ...]


@dataclass(frozen=True, slots=True)
class Transition:
    """A transition of a candidate at given locations: the step (guard, event, writes) and
    the control after it. `locations` entries are term ids or keeps (-(p + 1)); when the
    target depends on the cells after the step (a call whose arguments read cells),
    `deferred` computes the target term from them instead."""

    step: Step
    mode: int
    locations: tuple[int, ...]
    deferred: Callable[[Sequence[int]], int] | None = None

    def control(self, source: Control) -> Control:
        """The control after the step from a source control (not for deferred targets)."""
        return (self.mode,) + tuple(source[-e] if e < 0 else e for e in self.locations)


@dataclass(slots=True)
class Network:
    """Modes, splitting and cached transitions of one model."""

    semantics: Semantics
    modes: list[Mode] = field(default_factory=list)
    _mode_ids: dict[Shape, int] = field(default_factory=dict)
    _transitions: dict[tuple, tuple[Transition, ...]] = field(default_factory=dict)
    _offers: dict[int, frozenset[str]] = field(default_factory=dict)

    # ------------------------------------------------------------------ splitting terms
    def split(self, tid: int) -> Control:
        """(mode, locations) of a term; placeholders ("hole", p) become keeps."""
        holes: list[int] = []
        shape = self._split(tid, holes)
        return (self._mode(shape),) + tuple(holes)

    def _split(self, tid: int, holes: list[int]) -> Shape:
        terms = self.semantics.terms
        t = terms.table[tid]
        tag = t[0]
        if tag == "hole":
            holes.append(-t[1] - 1)
            return ("hole", len(holes) - 1)
        if tag not in ("par", "hide", "intr", "seq") or not terms.has_par(tid):
            assert tag != "mark", "a component in place survived a step"
            holes.append(tid)
            return ("hole", len(holes) - 1)
        if tag == "par":
            return ("par", t[1], tuple(self._split(p, holes) for p in t[2]))
        if tag == "hide":
            return ("hide", t[1], self._split(t[2], holes))
        if tag == "intr":
            left = self._split(t[1], holes)
            return ("intr", left, self._split(t[2], holes))
        return ("seq", self._split(t[1], holes), t[2], t[3])

    def _mode(self, shape: Shape) -> int:
        got = self._mode_ids.get(shape)
        if got is None:
            got = len(self.modes)
            if got >= MAX_MODES:
                raise StructureGrows(f"more than {MAX_MODES:,} shapes (a recursion through a "
                                     "parallel operator makes a new component at every turn)")
            size = _count_holes(shape)
            self._check_width(size)
            self._mode_ids[shape] = got
            sets, reasons = candidates(shape, size)
            self.modes.append(Mode(got, shape, size, sets, reasons))
        return got

    def _check_width(self, size: int) -> None:
        """Refuse a shape of more than MAX_POSITIONS components, or one that doubles the
        widest so far past GROWING (a recursion through a parallel operator: 1, 2, 4, ...
        components, each wider shape costing the square of its width to compile)."""
        widest = max((m.size for m in self.modes), default=0)
        if size > MAX_POSITIONS:
            raise StructureGrows(f"{size:,} components in parallel, more than {MAX_POSITIONS:,}")
        if self.modes and size > GROWING and size >= 2 * widest:
            raise StructureGrows(f"a shape of {size:,} components after one of {widest:,} (a "
                                 "recursion through a parallel operator doubles it at each turn)")

    # ------------------------------------------------------------------ transitions
    def offers(self, tid: int) -> frozenset[str]:
        """The channels a component at this location can take part in an event of."""
        got = self._offers.get(tid)
        if got is None:
            got = frozenset(s.channel for s in self.semantics.steps(tid)
                            if s.kind == EVENT and s.channel is not None)
            self._offers[tid] = got
        return got

    def takes_part(self, reason: tuple[frozenset[str], bool], key: str | None, tid: int) -> bool:
        """Whether a component at tid can take part in a candidate for `key`: a channel of
        the candidate's synchronisation, or None for the termination of a parallel."""
        if key is None:
            return tid == self.semantics.omega
        return key in self.offers(tid)

    def relevant(self, mode: int, h: int, locations: tuple[int, ...]) -> bool:
        """Whether a candidate can have transitions at these locations at all: every member
        offers one common synchronised channel, or every member has terminated. The others
        are never compiled (a candidate of every part of a parallel would otherwise be
        compiled once per combination of their locations)."""
        reason = self.modes[mode].reasons[h]
        if reason is None:
            return True
        chans, end = reason
        if end and all(t == self.semantics.omega for t in locations):
            return True
        return any(all(c in self.offers(t) for t in locations) for c in chans)

    def transitions(self, mode: int, h: int, locations: tuple[int, ...]) -> tuple[Transition, ...]:
        """The transitions of candidate h of a mode, its positions at the given locations."""
        key = (mode, h, locations)
        got = self._transitions.get(key)
        if got is None:
            got = self._compute(self.modes[mode], h, locations)
            self._transitions[key] = got
        return got

    def _compute(self, m: Mode, h: int, locations: tuple[int, ...]) -> tuple[Transition, ...]:
        movers = m.candidates[h]
        placed = dict(zip(movers, locations))
        tid = self._place(m.shape, placed)
        want = frozenset(movers)
        out = []
        for s in self.semantics.steps(tid):
            if s.parts != want:
                continue  # a step of fewer components: it belongs to another candidate
            if isinstance(s.target, int):
                control = self.split(s.target)
                out.append(Transition(s, control[0], control[1:]))
            else:
                out.append(Transition(s, -1, (), s.target))  # type: ignore[arg-type]
        return tuple(out)

    def _place(self, shape: Shape, placed: dict[int, int]) -> int:
        intern = self.semantics.terms.intern
        tag = shape[0]
        if tag == "hole":
            p = shape[1]
            return intern(("mark", p, placed[p])) if p in placed else intern(("hole", p))
        if tag == "par":
            return intern(("par", shape[1], tuple(self._place(s, placed) for s in shape[2])))
        if tag == "hide":
            return intern(("hide", shape[1], self._place(shape[2], placed)))
        if tag == "intr":
            return intern(("intr", self._place(shape[1], placed), self._place(shape[2], placed)))
        return intern(("seq", self._place(shape[1], placed), shape[2], shape[3]))

    def resolve(self, t: Transition, source: Control, post: Sequence[int]) -> Control:
        """The control after transition t from `source`, the cells after it being `post`."""
        if t.deferred is None:
            return t.control(source)
        target = self.split(t.deferred(post))
        return (target[0],) + tuple(source[-e] if e < 0 else e for e in target[1:])

    def term(self, control: Control) -> int:
        """The term of a control (for showing states): the shape with its components."""
        placed = {p: loc for p, loc in enumerate(control[1:])}
        return self._rebuild(self.modes[control[0]].shape, placed)

    def _rebuild(self, shape: Shape, placed: dict[int, int]) -> int:
        intern = self.semantics.terms.intern
        tag = shape[0]
        if tag == "hole":
            return placed[shape[1]]
        if tag == "par":
            return intern(("par", shape[1], tuple(self._rebuild(s, placed) for s in shape[2])))
        if tag == "hide":
            return intern(("hide", shape[1], self._rebuild(shape[2], placed)))
        if tag == "intr":
            return intern(("intr", self._rebuild(shape[1], placed), self._rebuild(shape[2], placed)))
        return intern(("seq", self._rebuild(shape[1], placed), shape[2], shape[3]))


# ---------------------------------------------------------------------- shapes and candidates
def _count_holes(shape: Shape) -> int:
    tag = shape[0]
    if tag == "hole":
        return 1
    if tag == "par":
        return sum(_count_holes(s) for s in shape[2])
    if tag == "intr":
        return _count_holes(shape[1]) + _count_holes(shape[2])
    return _count_holes(shape[2] if tag == "hide" else shape[1])


def candidates(shape: Shape, size: int) -> tuple[tuple[tuple[int, ...], ...], tuple]:
    """Every set of positions that may move together, in rank order: each position alone,
    then the participants of each synchronised channel of each parallel, then the parts of
    each parallel whose parts are all components (its termination); with the reason of each
    (None for a single position, else (channels, termination))."""
    out: list[tuple[int, ...]] = [(p,) for p in range(size)]
    why: dict[tuple[int, ...], tuple[set[str], bool]] = {}
    for node in _nodes(shape):
        if node[0] != "par":
            continue
        for chan in sorted(node[1]):
            for combo in itertools.product(*(_offers(part, chan) for part in node[2])):
                g = tuple(sorted(set().union(*combo)))
                if len(g) > 1:
                    why.setdefault(g, (set(), False))[0].add(chan)
        if all(part[0] == "hole" for part in node[2]) and len(node[2]) > 1:
            g = tuple(part[1] for part in node[2])
            chans, _ = why.get(g, (set(), False))
            why[g] = (chans, True)
    out += list(why)
    reasons = [None] * size + [(frozenset(c), end) for c, end in why.values()]
    return tuple(out), tuple(reasons)


def _nodes(shape: Shape) -> list[Shape]:
    out = [shape]
    tag = shape[0]
    if tag == "par":
        for s in shape[2]:
            out += _nodes(s)
    elif tag == "intr":
        out += _nodes(shape[1]) + _nodes(shape[2])
    elif tag in ("hide", "seq"):
        out += _nodes(shape[2] if tag == "hide" else shape[1])
    return out


def _offers(shape: Shape, chan: str) -> list[frozenset[int]]:
    """The sets of positions that can jointly offer a visible event of chan at this node."""
    tag = shape[0]
    if tag == "hole":
        return [frozenset((shape[1],))]
    if tag == "par":
        if chan in shape[1]:
            return [frozenset().union(*c) for c in itertools.product(*(_offers(s, chan) for s in shape[2]))]
        return [o for s in shape[2] for o in _offers(s, chan)]
    if tag == "hide":
        return [] if chan in shape[1] else _offers(shape[2], chan)
    if tag == "intr":
        return _offers(shape[1], chan) + _offers(shape[2], chan)
    return _offers(shape[1], chan)
