"""The compiled network: a process term split into a fixed shape of sequential components.

A configuration of the system is a *shape* (the operators of its parallel structure:
parallel, alphabetised parallel, hiding, renaming, interrupt and sequential composition
above a parallel) whose holes are *components*: sequential terms (docs/architecture.md).
A state is the store (cells and buffers), the shape's number (its *mode*), one control
location per component (the component's term id) and one *region* per component: the
values of the activations its term refers to (docs/semantics.md, "How the engine keeps the
store"). Splitting a term into (mode, locations, regions) is a bijection, so the states are
exactly the (term, store) pairs of docs/semantics.md.

Transitions are grouped by the components that take part in them: for a mode, a
*candidate* is a set of positions that can move together (each position alone; the
participants of a synchronised event; every part of a parallel whose parts have all
terminated). The transitions of a candidate at given locations of its positions are
computed once, by the rules of docs/semantics.md applied to the shape with those components
in place and every other position standing still, and are cached by
(mode, candidate, locations): never per reached state.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fito.diagnostics import NO_SPAN, Span
from fito.semantics.ir import ACT
from fito.semantics.rules.refusal import refuse
from fito.semantics.rules.step import EVENT, Step
from fito.semantics.rules.steps import Semantics, owners

Shape = tuple  # ("hole", p) | ("par"|"apar", sets, parts) | ("hide"|"rename", set, s) |
#                ("intr", l, r) | ("seq", s, qkey, qenv)
Control = tuple  # (mode, location of position 0, location of position 1, ...)
# The region of a new location, per frame (layout.frames, in order): None (no activation),
# ("copy", p) (the activation of the source's position p, after the step's writes) or
# ("init", values) (a new activation)
Recipe = tuple

# an entry of a target's locations: a term id (>= 0), or -(p + 1): position p keeps its own
KEEP = -1
_SHAPES = ("par", "apar", "hide", "rename", "intr", "seq")
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
    size: int  # number of positions (components)
    candidates: tuple[tuple[int, ...], ...]
    # why each candidate moves together: None for a single position, else the channels it
    # synchronises on and whether it is the termination of a parallel
    reasons: tuple[tuple[frozenset[str], bool] | None, ...]


@dataclass(frozen=True, slots=True)
class Placement:
    """A term split: its control, and the region recipe of every new location (None for a
    position that keeps its own location and region)."""

    control: Control
    regions: tuple[Recipe | None, ...]


@dataclass(frozen=True, slots=True)
class Transition:
    """A transition of a candidate at given locations: the step (guard, event, writes) and
    the control after it. `locations` entries are term ids or keeps (-(p + 1)); `regions`
    the recipe of each new location's region. When the target depends on the state after the
    step (a call whose arguments read it), `deferred` computes the target term instead."""

    step: Step
    mode: int
    locations: tuple[int, ...]
    deferred: Callable[[Sequence[int]], int] | None = None
    regions: tuple[Recipe | None, ...] = ()

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

    @property
    def region(self) -> int:
        """Slots of one region (the frames of every definition with variables)."""
        return len(self.semantics.layout.region)

    def region_base(self, mode: int, p: int) -> int:
        """The state slot where position p's region starts, in a state of this mode."""
        return self.semantics.layout.size + 1 + self.modes[mode].size + p * self.region

    # ------------------------------------------------------------------ splitting terms
    def split(self, tid: int) -> Placement:
        """(mode, locations) of a term, placeholders ("hole", p) as keeps; each component's
        activations in canonical form, with where their values come from."""
        holes: list[int] = []
        shape = self._split(tid, holes)
        control = (self._mode(shape),) + tuple(holes)
        if not self.semantics.layout.frames:
            return Placement(control, ())
        return self._activations(shape, control)

    def _split(self, tid: int, holes: list[int]) -> Shape:
        terms = self.semantics.terms
        terms.poll()  # the deadline: nested replicated parallels have n^k components
        t = terms.table[tid]
        tag = t[0]
        if tag == "hole":
            holes.append(-t[1] - 1)
            return ("hole", len(holes) - 1)
        if tag not in _SHAPES or (tag != "intr" and not terms.has_par(tid)):
            # an interrupt is always split: its two sides move on their own, and a side
            # standing still must stay a position of its own when the other loses its
            # parallel operator
            assert tag != "mark", "a component in place survived a step"
            holes.append(tid)
            return ("hole", len(holes) - 1)
        if tag in ("par", "apar"):
            return (tag, t[1], tuple(self._split(p, holes) for p in t[2]))
        if tag in ("hide", "rename"):
            return (tag, t[1], self._split(t[2], holes))
        if tag == "intr":
            left = self._split(t[1], holes)
            return ("intr", left, self._split(t[2], holes))
        return ("seq", self._split(t[1], holes), t[2], t[3])

    def _activations(self, shape: Shape, control: Control) -> Placement:
        """Canonical locations (markers untagged) and their regions' recipes; refuses what
        the regions cannot represent: one activation in several components, two live
        activations of one definition in one component, an activation outside components."""
        terms, frames = self.semantics.terms, self.semantics.layout.frames
        outside = [value for name, value in _shape_envs(shape) if name == ACT]
        if outside:
            proc = outside[0][0] if isinstance(outside[0], tuple) and outside[0] else ""
            raise refuse(
                f"an activation of '{proc}' is referred to outside its components (a "
                "parallel inside a definition with variables, with a continuation)",
                self._span(str(proc)),
                hint=_HINT,
            )
        locations, regions, seen = [], [], {}
        for q, e in enumerate(control[1:]):
            if e < 0:
                locations.append(e)
                regions.append(None)
                continue
            marks = terms.markers(e)
            per: dict[str, tuple] = {}
            for m in marks:
                if m in seen and seen[m] != q:
                    raise refuse(
                        f"an activation of '{m[0]}' is shared by two parallel components",
                        self._span(m[0]),
                        hint=_HINT,
                    )
                seen[m] = q
                if per.setdefault(m[0], m) != m:
                    raise refuse(
                        f"two activations of '{m[0]}' are live in one component",
                        self._span(m[0]),
                        hint=_HINT,
                    )
            canon = {m: (m[0], m[1], None) for m in marks if m[2] is not None}
            locations.append(terms.map_markers(e, canon) if canon else e)
            regions.append(tuple(_source(per.get(name)) for name in frames))
        return Placement((control[0],) + tuple(locations), tuple(regions))

    def _span(self, name: str) -> Span:
        """Where a definition with variables is declared (the place a refusal points at)."""
        decl = self.semantics.model.processes.get(name)
        return NO_SPAN if decl is None else decl.span

    def _mode(self, shape: Shape) -> int:
        got = self._mode_ids.get(shape)
        if got is None:
            got = len(self.modes)
            if got >= MAX_MODES:
                raise StructureGrows(
                    f"more than {MAX_MODES:,} shapes (a recursion through a "
                    "parallel operator makes a new component at every turn)"
                )
            size = _count_holes(shape)
            self._check_width(size)
            self._mode_ids[shape] = got
            sets, reasons = candidates(
                shape, size, self._channels(), self.semantics.terms.compiler.check_bounds
            )
            self.modes.append(Mode(got, shape, size, sets, reasons))
        return got

    def _channels(self) -> list[str]:
        return [name for name, c in self.semantics.model.channels.items() if not c.buffered]

    def _check_width(self, size: int) -> None:
        """Refuse a shape of more than MAX_POSITIONS components, or one that doubles the
        widest so far past GROWING (a recursion through a parallel operator: 1, 2, 4, ...
        components, each wider shape costing the square of its width to compile)."""
        widest = max((m.size for m in self.modes), default=0)
        if size > MAX_POSITIONS:
            raise StructureGrows(f"{size:,} components in parallel, more than {MAX_POSITIONS:,}")
        if self.modes and size > GROWING and size >= 2 * widest:
            raise StructureGrows(
                f"a shape of {size:,} components after one of {widest:,} (a "
                "recursion through a parallel operator doubles it at each turn)"
            )

    # ------------------------------------------------------------------ transitions
    def offers(self, tid: int) -> frozenset[str]:
        """The channels a component at this location can take part in an event of."""
        got = self._offers.get(tid)
        if got is None:
            got = frozenset(
                s.channel
                for s in self.semantics.steps(tid)
                if s.kind == EVENT and s.channel is not None
            )
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
        tid = self._place(m.shape, placed, self.region_base(m.id, 0))
        want = frozenset(movers)
        out = []
        for s in self.semantics.steps(tid):
            if s.parts != want:
                continue  # a step of fewer components: it belongs to another candidate
            if isinstance(s.target, int):
                target = self.split(s.target)
                out.append(
                    Transition(s, target.control[0], target.control[1:], None, target.regions)
                )
            else:
                out.append(Transition(s, -1, (), s.target))  # type: ignore[arg-type]
        return tuple(out)

    def _place(self, shape: Shape, placed: dict[int, int], base: int) -> int:
        intern = self.semantics.terms.intern
        tag = shape[0]
        if tag == "hole":
            p = shape[1]
            if p not in placed:
                return intern(("hole", p))
            return intern(("mark", p, placed[p], base + p * self.region))
        if tag in ("par", "apar"):
            return intern((tag, shape[1], tuple(self._place(s, placed, base) for s in shape[2])))
        if tag in ("hide", "rename"):
            return intern((tag, shape[1], self._place(shape[2], placed, base)))
        if tag == "intr":
            return intern(
                ("intr", self._place(shape[1], placed, base), self._place(shape[2], placed, base))
            )
        return intern(("seq", self._place(shape[1], placed, base), shape[2], shape[3]))

    def resolve(self, t: Transition, post: Sequence[int]) -> Placement:
        """Where transition t leads (keeps unresolved), the state after its writes being
        `post` (for a deferred target)."""
        if t.deferred is None:
            return Placement((t.mode,) + t.locations, t.regions)
        return self.split(t.deferred(post))

    def term(self, control: Control) -> int:
        """The term of a control (for showing states): the shape with its components."""
        placed = {p: loc for p, loc in enumerate(control[1:])}
        return self._rebuild(self.modes[control[0]].shape, placed)

    def _rebuild(self, shape: Shape, placed: dict[int, int]) -> int:
        intern = self.semantics.terms.intern
        tag = shape[0]
        if tag == "hole":
            return placed[shape[1]]
        if tag in ("par", "apar"):
            return intern((tag, shape[1], tuple(self._rebuild(s, placed) for s in shape[2])))
        if tag in ("hide", "rename"):
            return intern((tag, shape[1], self._rebuild(shape[2], placed)))
        if tag == "intr":
            return intern(
                ("intr", self._rebuild(shape[1], placed), self._rebuild(shape[2], placed))
            )
        return intern(("seq", self._rebuild(shape[1], placed), shape[2], shape[3]))


_HINT = (
    "the compiled engine keeps one region of variables per component "
    '(docs/semantics.md, "How the engine keeps the store")'
)


def _source(marker: tuple | None) -> object:
    """Where a component's activation of one definition comes from."""
    if marker is None:
        return None
    tag = marker[2]
    if tag is not None and tag[0] == "old":
        return ("copy", tag[1])
    return ("init", marker[1])


def _shape_envs(shape: Shape) -> list[tuple]:
    """The (name, value) pairs of the continuations in a shape."""
    out = []
    for node in _nodes(shape):
        if node[0] == "seq":
            out.extend(node[3])
    return out


# ---------------------------------------------------------------------- shapes and candidates
def _count_holes(shape: Shape) -> int:
    tag = shape[0]
    if tag == "hole":
        return 1
    if tag in ("par", "apar"):
        return sum(_count_holes(s) for s in shape[2])
    if tag == "intr":
        return _count_holes(shape[1]) + _count_holes(shape[2])
    return _count_holes(shape[2] if tag in ("hide", "rename") else shape[1])


def candidates(
    shape: Shape, size: int, channels: Sequence[str], poll: Callable[[], None] = lambda: None
) -> tuple[tuple[tuple[int, ...], ...], tuple]:
    """Every set of positions that may move together, in rank order: each position alone,
    then the participants of each synchronised class of events at each parallel, then the
    parts of each parallel whose parts are all components (its termination); with the reason
    of each (None for a single position, else (channels, termination)). Under a renaming an
    event's channel is not the one its components offer: any channel is a reason there."""
    out: list[tuple[int, ...]] = [(p,) for p in range(size)]
    why: dict[tuple[int, ...], tuple[set[str], bool]] = {}
    classes = _classes(shape, channels)
    renamed = any(node[0] == "rename" for node in _nodes(shape))
    for node in _nodes(shape):
        if node[0] not in ("par", "apar"):
            continue
        for q in classes:
            poll()  # the deadline: each parallel's offers walk the parallels below it
            for combo in _offers(node, q, classes):
                g = tuple(sorted(combo))
                if len(g) > 1:
                    why.setdefault(g, (set(), False))[0].update(channels if renamed else (q[0],))
        if all(part[0] == "hole" for part in node[2]) and len(node[2]) > 1:
            g = tuple(part[1] for part in node[2])
            chans, _ = why.get(g, (set(), False))
            why[g] = (chans, True)
    out += list(why)
    reasons = [None] * size + [(frozenset(c), end) for c, end in why.values()]
    return tuple(out), tuple(reasons)


def _classes(shape: Shape, channels: Sequence[str]) -> list[tuple]:
    """The classes of events the shape's sets tell apart: each listed prefix (events whose
    longest listed prefix it is) and each channel."""
    found = {(c,) for c in channels}
    for node in _nodes(shape):
        if node[0] in ("par", "hide"):
            found |= node[1]
        elif node[0] == "apar":
            found = found.union(*node[1])
        elif node[0] == "rename":
            found |= {x for pair in node[1] for x in pair}
    return sorted(found, key=repr)


def _nodes(shape: Shape) -> list[Shape]:
    out = [shape]
    tag = shape[0]
    if tag in ("par", "apar"):
        for s in shape[2]:
            out += _nodes(s)
    elif tag == "intr":
        out += _nodes(shape[1]) + _nodes(shape[2])
    elif tag in ("hide", "rename", "seq"):
        out += _nodes(shape[2] if tag in ("hide", "rename") else shape[1])
    return out


def _member(q: tuple, prefixes: frozenset) -> bool:
    return any(q[:k] in prefixes for k in range(1, len(q) + 1))


def _offers(shape: Shape, q: tuple, classes: list[tuple]) -> list[frozenset[int]]:
    """The sets of positions that can jointly offer an event of class q at this node."""
    tag = shape[0]
    if tag == "hole":
        return [frozenset((shape[1],))]
    if tag == "par":
        if _member(q, shape[1]):
            return [
                frozenset().union(*c)
                for c in itertools.product(*(_offers(s, q, classes) for s in shape[2]))
            ]
        return [o for s in shape[2] for o in _offers(s, q, classes)]
    if tag == "apar":
        who = sorted(owners(q, shape[1]))
        return (
            [
                frozenset().union(*c)
                for c in itertools.product(*(_offers(shape[2][i], q, classes) for i in who))
            ]
            if who
            else []
        )
    if tag == "hide":
        return [] if _member(q, shape[1]) else _offers(shape[2], q, classes)
    if tag == "rename":  # events are renamed on the way up: any class of the inner may be q
        got = {o for c in classes for o in _offers(shape[2], c, classes)}
        return sorted(got, key=sorted)
    if tag == "intr":
        return _offers(shape[1], q, classes) + _offers(shape[2], q, classes)
    return _offers(shape[1], q, classes)
