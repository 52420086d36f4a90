"""The values the model interface hands out (fito/semantics/compiled.py): the state vector's
layout, and transition groups with the slots their transitions read and write.

All are frozen. Slot numbers are positions in a flat state of one mode: the store (cells,
then buffers) at 0 .. K - 1, the mode at K, the location of position p at K + 1 + p, then
one region of R process-variable slots per position (docs/model-interface.md).

Dependency sets follow LTSmin's read and write matrices, with copy semantics: a slot
outside a transition's `writes` holds the same value after it as before; a slot in
`writes` that the transition may also leave alone (an array element written at a computed
index, a variable a crash resets only where an activation holds it) is in `reads` too. So
two states that agree on a transition's `reads` give it the same enabledness, the same
label and successors that agree on `writes` (and on every other slot, with the states).
A transition that changes the mode (or whose target is computed from the state after it)
*reshapes* the state: its successor has another length, and its `writes` hold every slot
from the mode on.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fito.lang.resolve.model import ValueType
from fito.semantics.network import Transition
from fito.semantics.rules.steps import EVENT, Step
from fito.semantics.state.layout import BufferSlots, CellSlots, Layout
from fito.semantics.state.ranges import value_range

Slots = frozenset[int]
Expr = tuple[Any, ...]  # an expression as IR: nested tuples (fito/semantics/ir.py)


@dataclass(frozen=True, slots=True)
class BufferView:
    """A buffered channel in the store: its length slots (one per FIFO of an array) and, per
    field, one slot per message of each FIFO (`fields[f].base + fifo * capacity + k`)."""

    name: str
    capacity: int
    length: CellSlots
    fields: tuple[CellSlots, ...]
    types: tuple[ValueType, ...]  # the message fields' types
    labels: tuple[str, ...]  # the name of each FIFO: `q`, or `q[0]`, `q[1]`, ...
    durable: bool


@dataclass(frozen=True, slots=True)
class StateLayout:
    """The state vector: store slots (names, types, initial values), the control and the
    regions of process variables (one per position of the mode, `region` slots each)."""

    names: tuple[str, ...]  # per store slot: `has[gpu][1]`, `len(q)`, `q#0[1]`
    types: tuple[ValueType, ...]  # per store slot
    init: tuple[int, ...]  # the store's initial values
    volatile: tuple[int, ...]  # store slots a crash resets
    shown: int  # store slots that are cells (the buffers' follow)
    cells: tuple[CellSlots, ...]  # each cell (or cell array) of the store, in declaration order
    buffers: tuple[BufferView, ...]
    region: tuple[ValueType, ...]  # per slot of a region
    region_names: tuple[str, ...]  # per slot of a region: `Proc.v`, `Proc.a[1]`
    region_volatile: tuple[int, ...]  # region slots a crash resets (where an activation is)
    _by_name: Mapping[str, CellSlots | BufferView] = field(repr=False, compare=False)
    _layout: Layout = field(repr=False, compare=False)

    @property
    def size(self) -> int:
        """K: the store's slots, before the mode."""
        return len(self.init)

    @property
    def mode_slot(self) -> int:
        return len(self.init)

    def location_slot(self, p: int) -> int:
        """The slot of position p's location (a term id)."""
        return len(self.init) + 1 + p

    def region_slots(self, size: int, p: int) -> range:
        """The slots of position p's region, in a state whose mode has `size` positions."""
        start = len(self.init) + 1 + size + p * len(self.region)
        return range(start, start + len(self.region))

    def width(self, size: int) -> int:
        """The length of a state whose mode has `size` positions."""
        return len(self.init) + 1 + size * (1 + len(self.region))

    def bounds(self, slot: int, size: int) -> tuple[int, int] | None:
        """The lowest and highest value of a slot in a state whose mode has `size`
        positions (None for the mode and the locations: numbers of shapes and of terms;
        NotPackable for a cell of an unbounded type)."""
        K = len(self.init)
        if slot < K:
            return value_range(self.types[slot])
        if slot <= K + size:
            return None
        return value_range(self.region[(slot - K - 1 - size) % len(self.region)])

    def block(self, size: int, p: int) -> tuple[int, ...]:
        """Position p's own slots, its location then its region (what symmetry permutes)."""
        return (self.location_slot(p), *self.region_slots(size, p))

    def find(self, name: str) -> CellSlots | BufferView | None:
        """The cell or the buffered channel of that name."""
        return self._by_name.get(name)

    def entries(self, store: Sequence[int]) -> list[tuple[str, str]]:
        """(name, shown value) of every cell element, then of every FIFO (`<1, 2.0>`)."""
        return self._layout.entries(tuple(store))

    def show(self, store: Sequence[int]) -> str:
        return self._layout.show(tuple(store))


def state_layout(layout: Layout) -> StateLayout:
    """The frozen view of a store layout."""
    shown = layout.size if layout.shown < 0 else layout.shown
    cells = tuple(s for s in layout.cells.values() if s.base < shown)
    buffers = tuple(_buffer(layout, b) for b in (layout.buffers or {}).values())
    names: list[str] = []
    volatile: list[int] = []
    for frame in (layout.frames or {}).values():
        for var in frame.vars.values():
            idx = var.slots.cell.indices
            for combo in itertools.product(*(t.values() for t in idx)):
                suffix = "".join(f"[{t.show(v)}]" for t, v in zip(idx, combo))
                names.append(f"{frame.proc}.{var.name}{suffix}")
        volatile += frame.volatile()
    by_name: dict[str, CellSlots | BufferView] = {s.cell.name: s for s in cells}
    by_name.update((b.name, b) for b in buffers)
    return StateLayout(
        tuple(layout.names),
        tuple(layout.types),
        tuple(layout.init),
        tuple(layout.volatile),
        shown,
        cells,
        buffers,
        tuple(layout.region),
        tuple(names),
        tuple(sorted(volatile)),
        MappingProxyType(by_name),
        layout,
    )


def _buffer(layout: Layout, b: BufferSlots) -> BufferView:
    length = layout.cells[b.length]
    return BufferView(
        b.name,
        b.capacity,
        length,
        tuple(layout.cells[f] for f in b.fields),
        tuple(b.types),
        tuple(layout.buffer_labels(b)),
        length.cell.durable,
    )


@dataclass(frozen=True, slots=True)
class SymmetryBlocks:
    """The store slots a permutation of a symmetric type moves (docs/reductions.md): per
    member of the type (in the type's order), the slots of every cell element indexed by
    that member, the cells in declaration order and each cell's other indices row-major.
    A permutation of the members permutes these blocks together, slot for slot."""

    type: str
    members: tuple[str, ...]  # the members as shown
    blocks: tuple[tuple[int, ...], ...]  # per member: its store slots


def symmetry_blocks(view: StateLayout, name: str, dims: Mapping[str, int]) -> SymmetryBlocks:
    """The blocks of symmetric type `name`: `dims` gives, per cell, its index over the type."""
    members: tuple[str, ...] = ()
    per: list[list[int]] = []
    for cs in view.cells:
        k = dims.get(cs.cell.name)
        if k is None:
            continue
        t = cs.cell.indices[k]
        values = t.values()
        if not per:
            members = tuple(t.show(v) for v in values)
            per = [[] for _ in values]
        ranges = [tt.values() for tt in cs.cell.indices]
        for combo in itertools.product(*ranges):
            slot = cs.slot(combo)
            assert slot is not None
            per[values.index(combo[k])].append(slot)
    return SymmetryBlocks(name, members, tuple(tuple(b) for b in per))


# ---------------------------------------------------------------------- groups
@dataclass(frozen=True, slots=True)
class TransitionInfo:
    """One transition of a group: its rank, its step as data (guard, checks, writes and
    event fields as IR: fito/semantics/ir.py), the control after it, and its dependencies.
    `guard` and `reads` include the group's control slots."""

    rank: int
    step: Step
    target: tuple[int, ...] | None  # (mode, entry per position: term id, or -(p + 1) to keep
    # position p's location); None when made from the state after the step
    guard: Slots  # what decides whether it is enabled
    reads: Slots  # what decides its enabledness, label and successor
    writes: Slots  # what it may change
    reshapes: bool  # the state after has another mode (another length)

    @property
    def kind(self) -> int:
        """EVENT, TAU or TICK (fito/semantics/rules/steps.py)."""
        return self.step.kind

    @property
    def channel(self) -> str | None:
        """The channel of its event (also of a hidden one, which shows as tau)."""
        return self.step.channel

    @property
    def visible(self) -> bool:
        """Whether it is an event an observer sees (not hidden, not internal, not a tick)."""
        return self.step.kind == EVENT and not self.step.hidden


@dataclass(frozen=True, slots=True)
class GroupInfo:
    """A transition group: candidate `candidate` of mode `mode`, its positions (`movers`) at
    `locations`, its transitions in rank order and the union of their dependencies."""

    mode: int
    candidate: int
    movers: tuple[int, ...]  # component positions that move together
    locations: tuple[int, ...]  # their locations (term ids), in the order of movers
    sync: frozenset[str]  # channels the movers synchronise on (empty for one position)
    ends: bool  # the termination of a parallel (every part has terminated)
    control: Slots  # the mode slot and the movers' location slots: they select the group
    transitions: tuple[TransitionInfo, ...]
    guard: Slots
    reads: Slots
    writes: Slots


class _Unknown(Exception):
    """An IR form whose reads are not known here (read every slot)."""


def ir_reads(ir: Expr, cells: Mapping[str, CellSlots], out: set[int]) -> None:
    """Add the slots ir reads to out (every element of an array read at computed indices)."""
    tag = ir[0]
    if tag in ("k", "fault"):
        return
    if tag == "c":
        out.add(ir[1])
        return
    if tag == "cd":
        slots = cells[ir[1]]
        out.update(range(slots.base, slots.base + slots.size))
        _all_reads(ir[2], cells, out)
        return
    if tag in ("r", "rd", "vp"):
        raise _Unknown(tag)  # a variable not placed in a region
    if tag == "chk":
        ir_reads(ir[1], cells, out)
        return
    if tag == "seq":
        _all_reads(ir[1], cells, out)
        ir_reads(ir[2], cells, out)
        return
    for x in ir[1:]:
        if isinstance(x, tuple) and x and isinstance(x[0], str):
            ir_reads(x, cells, out)


def _all_reads(irs: Iterable[Expr], cells: Mapping[str, CellSlots], out: set[int]) -> None:
    for x in irs:
        ir_reads(x, cells, out)


@dataclass(frozen=True, slots=True)
class _Source:
    """What the dependencies of a transition need of its source: the layout, the slot
    numbers of the mode and the group's control."""

    layout: Layout
    mode: int
    size: int  # positions of the mode
    here: Mapping[int, int]  # mover position -> its location
    control: Slots

    @property
    def K(self) -> int:
        return self.layout.size

    @property
    def R(self) -> int:
        return len(self.layout.region)

    def location(self, p: int) -> int:
        return self.K + 1 + p

    def region(self, p: int, lo: int = 0, hi: int | None = None) -> range:
        base = self.K + 1 + self.size + p * self.R
        return range(base + lo, base + (self.R if hi is None else hi))

    @property
    def width(self) -> int:
        return self.K + 1 + self.size * (1 + self.R)


def transition_info(source: _Source, rank: int, t: Transition) -> TransitionInfo:
    """A transition's dependencies, from its step's IR and its target."""
    step, cells = t.step, source.layout.cells
    guard: set[int] = set(source.control)
    reads: set[int] = set(source.control)
    writes: set[int] = set()
    try:
        _all_reads(step.guard, cells, guard)
    except _Unknown:
        guard.update(range(source.width))
    reads |= guard
    try:
        _all_reads((ir for ir, _, _ in step.checks), cells, reads)
        _all_reads(step.fields, cells, reads)
        if step.label is not None and step.label[0] in ("send", "recv"):
            _all_reads((*step.label[2], *step.label[3]), cells, reads)
        for w in step.writes:
            ir_reads(w.value, cells, reads)
            _all_reads(w.index, cells, reads)
            if w.loc[0] == "c":
                writes.add(w.loc[1])
            elif w.loc[0] == "cd":
                at = cells[w.loc[1]]
                elements = range(at.base, at.base + at.size)
                writes.update(elements)
                reads.update(elements)  # the elements not written keep their values
                _all_reads(w.loc[2], cells, reads)
        if t.deferred is not None:  # making the target may read any slot after the step
            raise _Unknown("a target made from the state after the step")
    except _Unknown:
        reads.update(range(source.width))
    if step.crash:
        _crash(source, reads, writes)
    reshapes = t.deferred is not None or t.mode != source.mode
    if reshapes:
        reads.update(range(source.K, source.width))  # kept locations and regions move
        writes.update(range(source.K, source.width))
    else:
        _control(source, t, reads, writes)
    target = None if t.deferred is not None else (t.mode, *t.locations)
    return TransitionInfo(
        rank, step, target, frozenset(guard), frozenset(reads), frozenset(writes), reshapes
    )


def _crash(source: _Source, reads: set[int], writes: set[int]) -> None:
    """A crash resets the volatile store, and the volatile variables of every live
    activation (found from every position's location)."""
    writes.update(source.layout.volatile)
    if not source.R or not source.layout.frames:
        return
    volatile = [j for frame in source.layout.frames.values() for j in frame.volatile()]
    for q in range(source.size):
        reads.add(source.location(q))
        slots = [source.region(q)[j] for j in volatile]
        reads.update(slots)
        writes.update(slots)


def _control(source: _Source, t: Transition, reads: set[int], writes: set[int]) -> None:
    """The control and regions after a transition that keeps the mode: a new location is
    written, a location moved from another position read there and written here; a new
    activation's region written, a region copied from another position read and written."""
    frames = list((source.layout.frames or {}).values())
    for q, e in enumerate(t.locations):
        if e < 0:
            p = -e - 1
            if p != q:
                reads.update((source.location(p), *source.region(p)))
                writes.update((source.location(q), *source.region(q)))
            continue
        if source.here.get(q) != e:
            writes.add(source.location(q))
        if not source.R:
            continue
        for frame, how in zip(frames, t.regions[q] or ()):
            lo, hi = frame.base, frame.base + frame.size
            if how is not None and how[0] == "copy":
                if how[1] == q:
                    continue  # the position's own activation, after the step's writes
                reads.update(source.region(how[1], lo, hi))
            writes.update(source.region(q, lo, hi))


def group_info(
    layout: Layout,
    mode: int,
    size: int,
    candidate: int,
    movers: tuple[int, ...],
    locations: tuple[int, ...],
    reason: tuple[frozenset[str], bool] | None,
    transitions: Sequence[Transition],
    rank_base: int,
) -> GroupInfo:
    """The descriptor of a group of transitions (ranks rank_base + n)."""
    K = layout.size
    control = frozenset((K, *(K + 1 + p for p in movers)))
    source = _Source(layout, mode, size, dict(zip(movers, locations)), control)
    infos = tuple(transition_info(source, rank_base + n, t) for n, t in enumerate(transitions))
    sync, ends = reason if reason is not None else (frozenset(), False)
    return GroupInfo(
        mode,
        candidate,
        movers,
        locations,
        sync,
        ends,
        control,
        infos,
        control.union(*(i.guard for i in infos)),
        control.union(*(i.reads for i in infos)),
        frozenset().union(*(i.writes for i in infos)),
    )
