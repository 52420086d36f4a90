"""The packed-state view of the model interface (fito/semantics/compiled.py): states as rows
of 64-bit words, and the successors of a transition group over a whole block of rows.

A row holds every slot of a state in a field of a few bits (fito/semantics/state/packing.py):
the store's slots, the mode, one location code per position (an index into the position's
codebook of term ids; 0: no component there) and each position's region. The store and the
regions have fixed widths; the control fields are sized from an estimate, and a mode or a
location that does not fit raises Overflow: the search then calls `widen` on its stored
rows and redoes what it was doing. `hash_rows` is the row hash a visited table (and a
partition of states between processes or machines) uses.

`compile_group(mode, h, locations)` is a group's vectorised successor function: given the
rows of every state at that control, it returns the packed successors of each enabled
transition with the rows they came from, the transitions per row, and the rows that may
meet a model error (which the search redoes state by state, `Compiled.successors`, to
decide the error exactly); NotVector when numpy cannot run the group.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from fito.semantics.codegen.numpy_exprs import NotVector
from fito.semantics.codegen.vector import VectorCode
from fito.semantics.descriptors import Expr
from fito.semantics.network import Network
from fito.semantics.state.layout import Layout
from fito.semantics.state.packing import (
    Codebook,
    Overflow,
    Packer,
    Packing,
    extract,
    layout_fields,
    repack,
)

Block = np.ndarray  # (rows, words) of uint64
Apply = Callable[[Block], tuple[list[tuple[Block, np.ndarray, int]], np.ndarray, np.ndarray | None]]
Resets = Callable[[int], tuple[tuple[int, int], ...]]

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, vectorised (uint64 arithmetic wraps)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    out: np.ndarray = z ^ (z >> _S31)
    return out


def hash_rows(block: Block) -> np.ndarray:
    """A 64-bit hash of every row of a block (word by word through splitmix64)."""
    h = _mix(block[:, 0].copy())
    for w in range(1, block.shape[1]):
        h = _mix(h ^ block[:, w])
    return h


class PackedStates:
    """Packing, codebook and vector code of one search (Compiled.packed_view). Everything
    that assigns location codes or compiles groups runs under `lock`."""

    def __init__(
        self,
        layout: Layout,
        network: Network,
        resets: Resets,
        location_bits: Sequence[int],
        lock: threading.RLock,
    ) -> None:
        self._layout = layout
        self._network = network
        self._resets = resets
        self._lock = lock
        self._codebook = Codebook()
        self._sizes: list[int] = []  # positions per mode, for unpacking
        mode_bits = (len(network.modes) * 2 + 1).bit_length()
        self._use(layout_fields(layout.types, mode_bits, location_bits, layout.region))

    def _use(self, packing: Packing) -> None:
        self._packing = packing
        self._packer = Packer(packing, self._codebook, self._network.modes)
        self._vector = VectorCode(
            self._layout, packing, self._codebook, self._network, self._resets, self._lock
        )

    # ------------------------------------------------------------------ rows
    @property
    def packing(self) -> Packing:
        """Where each field lives (frozen): word, shift, width and lowest value."""
        return self._packing

    @property
    def words(self) -> int:
        """Words per packed state."""
        return self._packing.words

    def pack(self, s: tuple[int, ...]) -> np.ndarray:
        """One state as a row of words (Overflow: a control field is too narrow)."""
        return self._packer.pack(s)

    def pack_many(self, states: Sequence[tuple[int, ...]]) -> Block:
        """Many states as a block of rows (Overflow as `pack`)."""
        return self._packer.pack_many(states)

    def unpack(self, row: np.ndarray) -> tuple[int, ...]:
        """The flat state of one row."""
        modes = self._network.modes
        if len(self._sizes) != len(modes):
            self._sizes = [m.size for m in modes]
        return self._packer.unpack(row, self._sizes)

    def widen(self, block: Block) -> Block:
        """Control fields wide enough for every mode and location known so far; the block's
        rows re-packed in them (the vector code is compiled afresh for the new fields)."""
        old, modes = self._packing, self._network.modes
        positions = max([old.positions] + [m.size for m in modes])
        self._codebook.ensure(positions)
        bits = [
            max(
                old.position_field(p).width if p < old.positions else 0,
                (len(self._codebook.terms[p]) * 2).bit_length(),
            )
            for p in range(positions)
        ]
        mode_bits = max(old.mode_field.width, (len(modes) * 2).bit_length())
        new = layout_fields(self._layout.types, mode_bits, bits, self._layout.region)
        rows = repack(block, old, new)
        self._use(new)
        return rows

    def fingerprint(self) -> tuple[int, ...]:
        """What the view has learnt: the modes met and the codes of each position (a forked
        worker whose fingerprint changed made codes its parent lacks)."""
        return (len(self._network.modes), *(len(t) for t in self._codebook.terms))

    # ------------------------------------------------------------------ fields of a block
    @property
    def mode_width(self) -> int:
        """Bits of the mode field (0: one mode, stored nowhere)."""
        return self._packing.mode_field.width

    def modes(self, block: Block) -> np.ndarray:
        """The mode of every row."""
        return extract(block, self._packing.mode_field)

    def location_width(self, p: int) -> int:
        """Bits of position p's location field."""
        return self._packing.position_field(p).width

    def locations(self, block: Block, p: int) -> np.ndarray:
        """The location code of position p in every row."""
        return extract(block, self._packing.position_field(p))

    def terms(self, p: int) -> Sequence[int]:
        """Position p's codebook: the term id of each location code (-1 for code 0)."""
        return self._codebook.terms[p]

    # ------------------------------------------------------------------ vectorised code
    def compile_group(self, mode: int, h: int, locations: tuple[int, ...]) -> Apply:
        """The numpy successor function of a group (NotVector when numpy cannot run it)."""
        movers = self._network.modes[mode].candidates[h]
        transitions = self._network.transitions(mode, h, locations)
        return self._vector.compile(mode, movers, locations, transitions)

    def predicate(self, ir: Expr, negate: bool) -> Callable[[Block], tuple[np.ndarray, np.ndarray]]:
        """A store predicate over a block: (truth per row, rows where it may fault)."""
        return self._vector.predicate(ir, negate)


__all__ = ["NotVector", "Overflow", "PackedStates", "hash_rows"]
