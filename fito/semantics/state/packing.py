"""Packed state vectors: every field of a state in a few bits of a few 64-bit words.

A block of states is a (rows, words) array of uint64.

The fields are the store's slots (cells and buffers, each a value of its declared type,
stored as value - lowest), the mode, one control location per position of the network (an
index into the position's codebook of term ids; index 0 means "no component here"), and
each position's region of process variables. A field never straddles two words. The store
and the regions have fixed widths; the control fields get widths from an estimate, and when
a new mode or location does not fit, the explorer widens them (`Overflow`) and re-packs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from fito.lang.resolve.model import ValueType
from fito.semantics.state.ranges import NotPackable, value_range

PACK_AT_ONCE = 32  # states of one mode packed column by column from this many on


class Overflow(Exception):
    """A mode or a location index does not fit its field: widen and re-pack."""


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
    """Where each field lives. Field order: the store's slots, the mode, each position's
    location, then each position's region (`region` slots each)."""

    fields: tuple[Field, ...]
    words: int
    cells: int
    positions: int
    region: int = 0

    @property
    def mode_field(self) -> Field:
        return self.fields[self.cells]

    def position_field(self, p: int) -> Field:
        return self.fields[self.cells + 1 + p]

    def region_field(self, p: int, j: int) -> Field:
        return self.fields[self.cells + 1 + self.positions + p * self.region + j]


def layout_fields(
    cell_types: Sequence[ValueType],
    mode_bits: int,
    position_bits: Sequence[int],
    region_types: Sequence[ValueType] = (),
) -> Packing:
    """Assign words and shifts, first fit in order."""
    widths: list[tuple[int, int]] = []
    for t in cell_types:
        widths.append(_width(t))
    widths.append((mode_bits, 0))
    widths += [(b, 0) for b in position_bits]
    region = [_width(t) for t in region_types]
    for _ in position_bits:
        widths += region
    fields: list[Field] = []
    word, used = 0, 0
    for width, lo in widths:
        if used + width > 64:
            word, used = word + 1, 0
        fields.append(Field(word, used, width, lo))
        used += width
    return Packing(tuple(fields), word + 1, len(cell_types), len(position_bits), len(region_types))


def _width(t: ValueType) -> tuple[int, int]:
    lo, hi = value_range(t)
    width = (hi - lo).bit_length()
    if width > 63:
        raise NotPackable(f"a cell of type {t} needs {width} bits")
    return width, lo


@dataclass(slots=True)
class Codebook:
    """Per position: term id <-> location index (0 = no component at this position)."""

    terms: list[list[int]] = field(default_factory=list)  # per position: index -> term id
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
    """Packs flat state tuples (store, mode, term ids, regions) into rows of words and back."""

    def __init__(self, packing: Packing, codebook: Codebook, modes: Sequence[object]) -> None:
        self.packing = packing
        self.codebook = codebook
        self.modes = modes  # the network's modes (a growing list), for their sizes
        fields = packing.fields
        self._lows = np.array([f.lo for f in fields], dtype=np.int64)
        self._widths = np.array([f.width for f in fields], dtype=np.int64)
        self._shifts = np.array([f.shift for f in fields], dtype=np.uint64)
        self._low = [f.lo for f in fields]
        self._fields = [(f.word, f.shift, f.mask, f.lo) for f in fields]
        self._zeros = [[0] * (packing.positions - n) for n in range(packing.positions + 1)]
        words = [f.word for f in fields]  # fields are laid out word by word
        self._starts = np.array([words.index(w) for w in range(packing.words)], dtype=np.int64)

    def pack(self, s: tuple) -> np.ndarray:
        """One state as a row of words; raises Overflow when a control field is too narrow."""
        pk = self.packing
        K = pk.cells
        size = self.modes[s[K]].size
        if size > pk.positions:
            raise Overflow()
        self.codebook.ensure(pk.positions)
        values = list(s[: K + 1]) + [self.codebook.code(p, s[K + 1 + p]) for p in range(size)]
        values += [0] * (pk.positions - size) + list(s[K + 1 + size :])
        row = [0] * pk.words
        for f, v in zip(pk.fields, values):
            v -= f.lo
            if v >> f.width:
                raise Overflow()
            row[f.word] |= v << f.shift
        return np.array(row, dtype=np.uint64)

    def pack_many(self, states: Sequence[tuple]) -> np.ndarray:
        """Many states as rows of words (as `pack`, with the bit work done by numpy)."""
        self.codebook.ensure(self.packing.positions)
        values = self._values_of_one_mode(states) if len(states) >= PACK_AT_ONCE else None
        if values is None:
            values = self._values(states)
        values -= self._lows
        if ((values >> self._widths) != 0).any():
            raise Overflow()
        shifted = values.astype(np.uint64) << self._shifts
        return np.add.reduceat(shifted, self._starts, axis=1)  # disjoint bits: sum == or

    def _values(self, states: Sequence[tuple]) -> np.ndarray:
        """The field values of each state (location codes for term ids), state by state."""
        pk = self.packing
        K, positions = pk.cells, pk.positions
        index, code, modes, lows = self.codebook.index, self.codebook.code, self.modes, self._low
        rows = []
        for s in states:
            size = modes[s[K]].size
            if size > positions:
                raise Overflow()
            ctl = [index[p].get(t) for p, t in enumerate(s[K + 1 : K + 1 + size])]
            if None in ctl:
                ctl = [code(p, s[K + 1 + p]) for p in range(size)]
            row = [*s[: K + 1], *ctl, *self._zeros[size], *s[K + 1 + size :]]
            if len(row) < len(lows):  # regions of absent positions: their lowest values
                row += lows[len(row) :]
            rows.append(row)
        return np.array(rows, dtype=np.int64).reshape(len(rows), len(lows))

    def _values_of_one_mode(self, states: Sequence[tuple]) -> np.ndarray | None:
        """As `_values`, column by column, when every state has the same mode (else None).
        New term ids get their codes in the order `_values` would give them."""
        pk = self.packing
        K, positions = pk.cells, pk.positions
        try:
            block = np.array(states, dtype=np.int64)
        except ValueError:  # states of different lengths
            return None
        if block.ndim != 2 or block[:, K].min() != block[:, K].max():
            return None
        size = self.modes[int(block[0, K])].size  # type: ignore[attr-defined]
        if size > positions:
            raise Overflow()
        out = np.empty((block.shape[0], len(self._low)), dtype=np.int64)
        out[:] = self._lows  # absent positions: no location, regions at their lowest
        out[:, : K + 1] = block[:, : K + 1]
        for p in range(size):
            out[:, K + 1 + p] = self._codes(p, block[:, K + 1 + p])
        out[:, K + 1 + positions : K + 1 + positions + block.shape[1] - K - 1 - size] = block[
            :, K + 1 + size :
        ]
        return out

    def _codes(self, p: int, tids: np.ndarray) -> np.ndarray:
        """The location codes of position p for a column of term ids (new ones numbered in
        the order of their first rows)."""
        values, first, inverse = np.unique(tids, return_index=True, return_inverse=True)
        index = self.codebook.index[p]
        got = [index.get(t) for t in values.tolist()]
        if None in got:
            for _, i in sorted(
                (f, i) for i, (g, f) in enumerate(zip(got, first.tolist())) if g is None
            ):
                got[i] = self.codebook.code(p, int(values[i]))
        return np.array(got, dtype=np.int64)[inverse.reshape(-1)]

    def unpack(self, row: np.ndarray, sizes: Sequence[int]) -> tuple:
        """The flat state tuple of one row (sizes: number of positions of each mode)."""
        pk = self.packing
        words = row.tolist()
        values = [((words[w] >> shift) & mask) + lo for w, shift, mask, lo in self._fields]
        K, R = pk.cells, pk.region
        mode = values[K]
        n = sizes[mode]
        terms = self.codebook.terms
        regions = values[K + 1 + pk.positions : K + 1 + pk.positions + n * R]
        return (*values[:K], mode, *(terms[p][values[K + 1 + p]] for p in range(n)), *regions)


def extract(block: np.ndarray, f: Field) -> np.ndarray:
    """The values of one field in every row of a block of packed states, as int64."""
    out = ((block[:, f.word] >> np.uint64(f.shift)) & np.uint64(f.mask)).astype(np.int64)
    if f.lo:
        out += f.lo
    return out


def repack(block: np.ndarray, old: Packing, new: Packing) -> np.ndarray:
    """The same states in a wider packing (the store, the mode, and each position's location
    and region, matched by role; positions the old packing lacks are empty)."""
    n = block.shape[0]
    out = np.zeros((n, new.words), dtype=np.uint64)
    pairs = list(zip(old.fields[: old.cells + 1], new.fields[: new.cells + 1]))
    for p in range(old.positions):
        pairs.append((old.position_field(p), new.position_field(p)))
        pairs += [(old.region_field(p, j), new.region_field(p, j)) for j in range(old.region)]
    for fo, fn in pairs:
        if fo.width == 0:
            continue
        values = extract(block, fo) - fo.lo
        out[:, fn.word] |= (values + (fo.lo - fn.lo)).astype(np.uint64) << np.uint64(fn.shift)
    return out
