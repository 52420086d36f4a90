"""Packed state vectors: every field of a state in a few bits of a few 64-bit words.

A block of states is a (rows, words) array of uint64.

The fields are the cells (each a value of its declared type, stored as value - lowest), the
mode and one control location per position of the network (an index into the position's
codebook of term ids; index 0 means "no component here"). A field never straddles two
words. Cells have fixed widths; the control fields get widths from an estimate, and when a
new mode or location does not fit, the explorer widens them (`Overflow`) and re-packs.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from fito.lang.values import BoolT, EnumT, IntRange, SetT, ValueType


class Overflow(Exception):
    """A mode or a location index does not fit its field: widen and re-pack."""


class NotPackable(Exception):
    """A cell's type is too wide for a 63-bit field: the state-by-state engine is used."""


@dataclass(frozen=True, slots=True)
class Field:
    word: int
    shift: int
    width: int
    lo: int

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


@dataclass(frozen=True, slots=True)
class Packing:
    """Where each field lives. Field order: the cells, the mode, then each position."""

    fields: tuple[Field, ...]
    words: int
    cells: int
    positions: int

    @property
    def mode_field(self) -> Field:
        return self.fields[self.cells]

    def position_field(self, p: int) -> Field:
        return self.fields[self.cells + 1 + p]


def value_range(t: ValueType) -> tuple[int, int]:
    """Lowest and highest value of a cell type."""
    if isinstance(t, IntRange):
        return t.lo, t.hi
    if isinstance(t, BoolT):
        return 0, 1
    if isinstance(t, EnumT):
        return 0, len(t.members) - 1
    if isinstance(t, SetT):
        return min(t.members), max(t.members)
    raise NotPackable(f"type {t} has no finite range")


def layout_fields(cell_types: Sequence[ValueType], mode_bits: int, position_bits: Sequence[int]) -> Packing:
    """Assign words and shifts, first fit in order."""
    widths: list[tuple[int, int]] = []
    for t in cell_types:
        lo, hi = value_range(t)
        width = (hi - lo).bit_length()
        if width > 63:
            raise NotPackable(f"a cell of type {t} needs {width} bits")
        widths.append((width, lo))
    widths.append((mode_bits, 0))
    widths += [(b, 0) for b in position_bits]
    fields: list[Field] = []
    word, used = 0, 0
    for width, lo in widths:
        if used + width > 64:
            word, used = word + 1, 0
        fields.append(Field(word, used, width, lo))
        used += width
    return Packing(tuple(fields), word + 1, len(cell_types), len(position_bits))


@dataclass(slots=True)
class Codebook:
    """Per position: term id <-> location index (0 = no component at this position)."""

    terms: list[list[int]] = field(default_factory=list)    # per position: index -> term id
    index: list[dict[int, int]] = field(default_factory=list)

    def ensure(self, positions: int) -> None:
        while len(self.terms) < positions:
            self.terms.append([-1])
            self.index.append({})

    def code(self, p: int, tid: int) -> int:
        got = self.index[p].get(tid)
        if got is None:
            got = len(self.terms[p])
            self.terms[p].append(tid)
            self.index[p][tid] = got
        return got


class Packer:
    """Packs flat state tuples (cells, mode, term ids) into rows of words and back."""

    def __init__(self, packing: Packing, codebook: Codebook) -> None:
        self.packing = packing
        self.codebook = codebook

    def pack(self, s: tuple) -> np.ndarray:
        """One state as a row of words; raises Overflow when a control field is too narrow."""
        pk = self.packing
        K = pk.cells
        size = len(s) - K - 1
        if size > pk.positions:
            raise Overflow()
        self.codebook.ensure(pk.positions)
        values = list(s[:K]) + [s[K]] + [self.codebook.code(p, s[K + 1 + p]) for p in range(size)]
        row = [0] * pk.words
        for f, v in zip(pk.fields, values):
            v -= f.lo
            if v >> f.width:
                raise Overflow()
            row[f.word] |= v << f.shift
        return np.array(row, dtype=np.uint64)

    def unpack(self, row: np.ndarray, sizes: Sequence[int]) -> tuple:
        """The flat state tuple of one row (sizes: number of positions of each mode)."""
        pk = self.packing
        words = [int(w) for w in row]
        values = [((words[f.word] >> f.shift) & f.mask) + f.lo for f in pk.fields]
        K = pk.cells
        mode = values[K]
        terms = self.codebook.terms
        return tuple(values[:K]) + (mode,) + tuple(terms[p][values[K + 1 + p]] for p in range(sizes[mode]))


def extract(block: np.ndarray, f: Field) -> np.ndarray:
    """The values of one field in every row of a block of packed states, as int64."""
    out = ((block[:, f.word] >> np.uint64(f.shift)) & np.uint64(f.mask)).astype(np.int64)
    if f.lo:
        out += f.lo
    return out


def repack(block: np.ndarray, old: Packing, new: Packing) -> np.ndarray:
    """The same states in a wider packing (same fields, in the same order)."""
    n = block.shape[0]
    out = np.zeros((n, new.words), dtype=np.uint64)
    for fo, fn in zip(old.fields, new.fields):
        if fo.width == 0:
            continue
        values = extract(block, fo) - fo.lo
        out[:, fn.word] |= values.astype(np.uint64) << np.uint64(fn.shift)
    return out
