"""The state vector: every cell (and every element of a cell array) gets one slot."""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

from fito.lang.resolve import Cell, Model
from fito.lang.values import ValueType


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


@dataclass(frozen=True, slots=True)
class Layout:
    cells: Mapping[str, CellSlots]
    names: tuple[str, ...]           # display name of each slot, e.g. has[gpu][1]
    types: tuple[ValueType, ...]     # value type of each slot
    init: tuple[int, ...]
    volatile: tuple[int, ...]        # slots reset by a crash

    def show(self, values: tuple[int, ...]) -> str:
        return ", ".join(f"{n} = {t.show(v)}" for n, t, v in zip(self.names, self.types, values))


def build_layout(model: Model) -> Layout:
    """Slots in declaration order of the cells."""
    cells: dict[str, CellSlots] = {}
    names: list[str] = []
    types: list[ValueType] = []
    init: list[int] = []
    volatile: list[int] = []
    base = 0
    for name, cell in model.cells.items():
        dims = []
        stride = 1
        sizes = [len(t.values()) for t in cell.indices]
        strides = []
        for size in reversed(sizes):
            strides.append(stride)
            stride *= size
        strides.reverse()
        positions: list[Mapping[int, int] | None] = []
        for t, size, st in zip(cell.indices, sizes, strides):
            vals = t.values()
            dims.append((min(vals), size, st))
            contiguous = list(vals) == list(range(min(vals), min(vals) + size))
            positions.append(None if contiguous else {v: i for i, v in enumerate(vals)})
        slots = CellSlots(cell, base, tuple(dims), tuple(positions))
        cells[name] = slots
        for combo in itertools.product(*(t.values() for t in cell.indices)):
            label = name + "".join(f"[{t.show(v)}]" for t, v in zip(cell.indices, combo))
            names.append(label)
            types.append(cell.type)
        init.extend(cell.init if len(cell.init) == slots.size else (0,) * slots.size)
        if not cell.durable:
            volatile.extend(range(base, base + slots.size))
        base += slots.size
    return Layout(cells, tuple(names), tuple(types), tuple(init), tuple(volatile))
