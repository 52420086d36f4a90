"""The state vector's store: every cell (and every element of a cell array) gets one slot, and
every buffered channel a length slot and one slot per field of each of its N messages.

Process variables live in *regions*: one region per position of the network, laid out the
same way for every position (a frame per definition with variables, `Frames`), so that a
component's variables are fields of the packed state rather than part of its location.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

from fito.lang.resolve.model import Cell, IntRange, Model, ValueType
from fito.semantics.state.ranges import value_range


@dataclass(frozen=True, slots=True)
class CellSlots:
    """Where a cell lives: `base` plus the row-major offset of its indices."""

    cell: Cell
    base: int
    dims: tuple[tuple[int, int, int], ...]  # per index: (lowest value, size, stride)
    positions: tuple[Mapping[int, int] | None, ...] = ()  # for index sets with gaps

    @property
    def size(self) -> int:
        n = 1
        for _, size, _ in self.dims:
            n *= size
        return n

    def slot(self, index: tuple[int, ...]) -> int | None:
        """The slot of one element, or None when an index is out of range."""
        k = self.base
        for i, (v, (lo, size, stride)) in enumerate(zip(index, self.dims)):
            pos = self.positions[i] if self.positions else None
            offset = pos.get(v) if pos is not None else v - lo
            if offset is None or not 0 <= offset < size:
                return None
            k += offset * stride
        return k

    def moved(self, base: int) -> CellSlots:
        return CellSlots(self.cell, base, self.dims, self.positions)


def slots_of(cell: Cell, base: int) -> CellSlots:
    """The slots of a cell (or array) laid out row-major from base."""
    sizes = [len(t.values()) for t in cell.indices]
    strides, stride = [], 1
    for n in reversed(sizes):
        strides.append(stride)
        stride *= n
    strides.reverse()
    dims, positions = [], []
    for t, n, st in zip(cell.indices, sizes, strides):
        vals = t.values()
        dims.append((min(vals), n, st))
        contiguous = list(vals) == list(range(min(vals), min(vals) + n))
        positions.append(None if contiguous else {v: i for i, v in enumerate(vals)})
    return CellSlots(cell, base, tuple(dims), tuple(positions))


@dataclass(frozen=True, slots=True)
class BufferSlots:
    """A buffered channel (or an array of them): `length[idx]` and `fields[f][idx][k]`, the
    f-th field of the k-th oldest message; unused message slots hold 0."""

    name: str
    capacity: int
    arrays: int  # leading fields of the channel that index the array
    length: str  # keys into Layout.cells
    fields: tuple[str, ...]
    types: tuple[ValueType, ...]  # the message fields' types (the channel's, after indices)


@dataclass(frozen=True, slots=True)
class Var:
    """A process variable in its definition's frame: offset from the frame's start."""

    name: str
    offset: int
    slots: CellSlots  # with base = offset within the region
    type: ValueType
    durable: bool


@dataclass(frozen=True, slots=True)
class Frame:
    """The variables of one definition: a frame at `base` in every region."""

    proc: str
    base: int
    size: int
    vars: Mapping[str, Var]
    variables: tuple  # the resolver's Variables (initial values)

    def volatile(self) -> tuple[int, ...]:
        """Region slots of the frame that a crash resets."""
        return tuple(
            self.base + v.offset + k
            for v in self.vars.values()
            if not v.durable
            for k in range(v.slots.size)
        )


@dataclass(frozen=True, slots=True)
class Layout:
    cells: MutableMapping[str, CellSlots]  # cells, buffer slots, and moved variable arrays
    names: tuple[str, ...]  # display name of each slot, e.g. has[gpu][1]
    types: tuple[ValueType, ...]  # value type of each slot
    init: tuple[int, ...]
    volatile: tuple[int, ...]  # slots reset by a crash
    shown: int = -1  # slots that are cells (the rest: buffers)
    buffers: Mapping[str, BufferSlots] = None  # type: ignore[assignment]
    frames: Mapping[str, Frame] = None  # type: ignore[assignment]
    region: tuple[ValueType, ...] = ()  # value range of each slot of a region

    def show(self, values: tuple[int, ...]) -> str:
        return ", ".join(f"{name} = {value}" for name, value in self.entries(values))

    def entries(self, values: tuple[int, ...]) -> list[tuple[str, str]]:
        """(name, value) of every cell element, then of every buffer: its messages, oldest
        first, as `<1, 2.0>`."""
        n = len(self.names) if self.shown < 0 else self.shown
        out = [(nm, t.show(v)) for nm, t, v in zip(self.names[:n], self.types, values)]
        for b in (self.buffers or {}).values():
            out += self._show_buffer(b, values)
        return out

    def buffer_labels(self, b: BufferSlots) -> list[str]:
        """The name of each FIFO of a buffered channel (`q`, or `q[0]`, ... for an array)."""
        length = self.cells[b.length]
        if length.size == 1:
            return [b.name]
        shown = self.names[length.base : length.base + length.size]  # `len(q[0])`
        return [name[4:-1] for name in shown]

    def _show_buffer(self, b: BufferSlots, values: tuple[int, ...]) -> list[tuple[str, str]]:
        length = self.cells[b.length]
        out = []
        for k, label in enumerate(self.buffer_labels(b)):
            n = values[length.base + k]
            msgs = []
            for m in range(n):
                fs = [
                    t.show(values[self.cells[f].base + k * b.capacity + m])
                    for f, t in zip(b.fields, b.types)
                ]
                msgs.append(".".join(fs))
            out.append((label, f"<{', '.join(msgs)}>"))
        return out

    @property
    def size(self) -> int:
        return len(self.init)


def with_zero(t: ValueType) -> IntRange:
    """A range holding every value of t and 0 (the value of an unused slot)."""
    lo, hi = value_range(t)
    return IntRange(min(lo, 0), max(hi, 0))


def build_layout(model: Model) -> Layout:
    """Slots in declaration order of the cells, then the buffers; frames of the variables."""
    cells: dict[str, CellSlots] = {}
    names: list[str] = []
    types: list[ValueType] = []
    init: list[int] = []
    volatile: list[int] = []

    def add(
        key: str, cell: Cell, labels: list[str], durable: bool, values: tuple[int, ...]
    ) -> None:
        slots = slots_of(cell, len(init))
        cells[key] = slots
        names.extend(labels)
        types.extend([cell.type] * slots.size)
        if not durable:
            volatile.extend(range(len(init), len(init) + slots.size))
        init.extend(values if len(values) == slots.size else (0,) * slots.size)

    for name, cell in model.cells.items():
        labels = [
            name + "".join(f"[{t.show(v)}]" for t, v in zip(cell.indices, combo))
            for combo in itertools.product(*(t.values() for t in cell.indices))
        ]
        add(name, cell, labels, cell.durable, cell.init)
    shown = len(init)
    buffers = {
        name: _buffer(name, chan, add) for name, chan in model.channels.items() if chan.buffered
    }
    frames, region = _frames(model)
    return Layout(
        cells,
        tuple(names),
        tuple(types),
        tuple(init),
        tuple(volatile),
        shown,
        buffers,
        frames,
        region,
    )


def _buffer(name: str, chan: object, add: object) -> BufferSlots:
    indices = chan.fields[: chan.arrays]  # type: ignore[attr-defined]
    fields = chan.fields[chan.arrays :]  # type: ignore[attr-defined]
    n = chan.capacity  # type: ignore[attr-defined]
    durable = chan.durable  # type: ignore[attr-defined]
    combos = list(itertools.product(*(t.values() for t in indices)))
    shown = ["".join(f"[{t.show(v)}]" for t, v in zip(indices, c)) for c in combos]
    length = Cell(f"len({name})", indices, IntRange(0, n), durable, (), None)
    add(f"{name}#len", length, [f"len({name}{s})" for s in shown], durable, ())  # type: ignore[operator]
    keys = []
    positions = IntRange(0, n - 1)
    for f, t in enumerate(fields):
        cell = Cell(f"{name}#{f}", indices + (positions,), with_zero(t), durable, (), None)
        labels = [f"{name}{s}#{f}[{k}]" for s in shown for k in range(n)]
        add(f"{name}#{f}", cell, labels, durable, ())  # type: ignore[operator]
        keys.append(f"{name}#{f}")
    return BufferSlots(name, n, chan.arrays, f"{name}#len", tuple(keys), tuple(fields))  # type: ignore[attr-defined]


def _frames(model: Model) -> tuple[dict[str, Frame], tuple[ValueType, ...]]:
    """A frame per definition with variables (`var` parameters aside), in name order."""
    frames: dict[str, Frame] = {}
    region: list[ValueType] = []
    for proc in sorted(model.variables):
        variables = tuple(v for v in model.variables[proc] if v.init is not None)
        if not variables:
            continue
        base = len(region)
        vars_: dict[str, Var] = {}
        for v in variables:
            cell = Cell(v.name, v.indices, v.type, v.durable, (), None)
            slots = slots_of(cell, len(region))
            vars_[v.name] = Var(v.name, len(region) - base, slots, v.type, v.durable)
            region.extend([with_zero(v.type)] * slots.size)
        frames[proc] = Frame(proc, base, len(region) - base, vars_, variables)
    return frames, tuple(region)
