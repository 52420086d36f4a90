"""The visited states of a frontier search: packed keys by state number, and an
open-addressing hash table of state numbers (4 bytes a slot, at most half full).

Insertion takes a whole block of candidate states at once: every round probes all pending
candidates with numpy; a candidate meeting an empty slot claims it (one claimant per slot
wins, the others compare against the winner in the next round), one meeting a different
key moves to the next slot. No Python object exists per state.
"""

from __future__ import annotations

import mmap

import numpy as np

from fito import budget
from fito.semantics.packed import hash_rows

EMPTY = -1
REGION_LOAD = 0.75  # a region fuller than this during a level gives the level up
MAX_STATES = 2**31 - 2


def shared(shape: tuple[int, ...], dtype: type, fill: int = 0) -> np.ndarray:
    """A filled array in memory shared with the processes this one forks (MAP_SHARED)."""
    size = max(1, int(np.prod(shape)) * np.dtype(dtype).itemsize)
    area = mmap.mmap(-1, size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    out = np.frombuffer(area, dtype=dtype, count=int(np.prod(shape))).reshape(shape)
    if fill:
        out.fill(fill)
    return out


class RegionFull(Exception):
    """A region of a partitioned table is too full to insert into during a level."""


class Provisional:
    """The states a process added to its regions during a level: rows, least discovery
    keys and table slots, by handle - first."""

    def __init__(self, words: int, first: int) -> None:
        self.first = first
        self.n = 0
        self.rows = np.zeros((1024, words), dtype=np.uint64)
        self.best = np.zeros(1024, dtype=np.int64)
        self.slots = np.zeros(1024, dtype=np.int64)

    def add(self, rows: np.ndarray, disc: np.ndarray, slots: np.ndarray) -> np.ndarray:
        k = rows.shape[0]
        if self.n + k > self.best.size:
            size = max(self.n + k, 2 * self.best.size)
            self.rows = np.concatenate(
                (self.rows, np.zeros((size - self.best.size, self.rows.shape[1]), np.uint64))
            )
            self.best = np.concatenate((self.best, np.zeros(size - self.best.size, np.int64)))
            self.slots = np.concatenate((self.slots, np.zeros(size - self.slots.size, np.int64)))
        self.rows[self.n : self.n + k] = rows
        self.best[self.n : self.n + k] = disc
        self.slots[self.n : self.n + k] = slots
        handles = np.arange(self.first + self.n, self.first + self.n + k, dtype=np.int64)
        self.n += k
        return handles

    def taken(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.rows[: self.n], self.best[: self.n], self.slots[: self.n]


def rows_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row by row, whether two blocks of packed rows are equal (word by word: numpy's
    all(axis=1) over a short axis is slow)."""
    eq = a[:, 0] == b[:, 0]
    for w in range(1, a.shape[1]):
        eq &= a[:, w] == b[:, w]
    return eq


class StateStore:
    """Packed keys of the visited states, numbered in the order they were added."""

    def __init__(self, words: int, capacity: int = 1 << 12) -> None:
        self.words = words
        self.keys = np.zeros((capacity, words), dtype=np.uint64)
        self.n = 0
        self.table = np.full(capacity * 2, EMPTY, dtype=np.int32)
        self.mask = np.uint64(capacity * 2 - 1)
        self._since = 0
        self._slot_of: np.ndarray | None = None  # slots of the states since _since (track)
        self.regions = 1  # parts of the table, each probed on its own (partition)

    @classmethod
    def of(cls, keys: np.ndarray, capacity: int) -> StateStore:
        """A store holding these keys, numbered in order."""
        store = cls(keys.shape[1], max(capacity, keys.shape[0], 16))
        store.keys[: keys.shape[0]] = keys
        store.n = keys.shape[0]
        store._reserve(store.n)
        store._rebuild(store.table.size)
        return store

    def __len__(self) -> int:
        return self.n

    @property
    def nbytes(self) -> int:
        return int(self.keys.nbytes + self.table.nbytes)

    def insert(self, block: np.ndarray) -> np.ndarray:
        """State numbers of every candidate row; rows not seen before become states
        numbered from the current count on (duplicates within the block share one)."""
        m = block.shape[0]
        self._reserve(self.n + m)
        sid = np.empty(m, dtype=np.int64)
        slots = (hash_rows(block) & self.mask).astype(np.int64)
        pending = np.arange(m, dtype=np.int64)
        rows = block  # the pending candidates' rows
        table, keys = self.table, self.keys
        while pending.size:
            occupant = table[slots]
            held = occupant >= 0
            at_held = np.flatnonzero(held)
            occ = occupant[at_held].astype(np.int64)
            same = rows_equal(keys[occ], rows[at_held])
            sid[pending[at_held[same]]] = occ[same]
            moved = at_held[~same]  # a different key: on to the next slot
            at_empty = np.flatnonzero(~held)
            claimants, at = pending[at_empty], slots[at_empty]
            marks = -2 - claimants
            table[at] = marks  # markers: one claimant per slot survives
            won = table[at] == marks
            winners, wslots = claimants[won], at[won]
            ids = np.arange(self.n, self.n + winners.size, dtype=np.int64)
            keys[ids] = block[winners]
            table[wslots] = ids
            sid[winners] = ids
            self._placed(ids, wslots)
            self.n += winners.size
            lost = at_empty[~won]  # another claimant won: compare with it
            again = np.concatenate((moved, lost))
            pending, rows = pending[again], rows[again]
            slots[moved] = self._step(slots[moved])
            slots = slots[again]
        return sid

    def _step(self, slots: np.ndarray) -> np.ndarray:
        """The next slot of each probe: linear probing, wrapping within the region of the
        table the slot lies in (the whole table when it has one region)."""
        if self.regions == 1:
            return (slots + 1) & int(self.mask)
        inner = self.table.size // self.regions - 1
        return (slots & ~inner) | ((slots + 1) & inner)

    def home(self, block: np.ndarray) -> np.ndarray:
        return (hash_rows(block) & self.mask).astype(np.int64)

    def region(self, slots: np.ndarray) -> np.ndarray:
        return slots // (self.table.size // self.regions)

    def partition(self, regions: int) -> None:
        """Cut the table into `regions` (a power of two), each probed on its own, in memory
        shared with forked processes: each process inserts into its own regions
        (fito/check/frontier/workers.py)."""
        self.regions = regions
        self._rebuild(self.table.size)

    def room(self, states: int) -> None:
        """A table big enough for this many states at most half full (before forking)."""
        self._reserve_table(states)

    def insert_owned(
        self, block: np.ndarray, disc: np.ndarray, slots: np.ndarray, new: Provisional
    ) -> None:
        """Insert candidates whose home slots lie in regions only this process writes, during
        a level whose states from `new.first` on are provisional: a new row gets the handle
        new.first + its index in `new` (rows, least discovery key, slot); the parent numbers
        every process's new states when the level ends."""
        first = new.first
        pending = np.arange(block.shape[0], dtype=np.int64)
        rows, slots = block, slots.copy()
        table, keys = self.table, self.keys
        while pending.size:
            occupant = table[slots]
            held = occupant >= 0
            at_held = np.flatnonzero(held)
            occ = occupant[at_held].astype(np.int64)
            old = occ < first
            if old.all():
                same = rows_equal(keys[occ], rows[at_held])
            else:
                ref = np.empty((occ.size, self.words), dtype=np.uint64)
                ref[old] = keys[occ[old]]
                ref[~old] = new.rows[occ[~old] - first]
                same = rows_equal(ref, rows[at_held])
                mine = same & ~old
                np.minimum.at(new.best, occ[mine] - first, disc[pending[at_held[mine]]])
            moved = at_held[~same]
            at_empty = np.flatnonzero(~held)
            claimants, at = pending[at_empty], slots[at_empty]
            marks = -2 - claimants
            table[at] = marks
            won = table[at] == marks
            winners, wslots = claimants[won], at[won]
            handles = new.add(block[winners], disc[winners], wslots)
            table[wslots] = handles
            lost = at_empty[~won]
            again = np.concatenate((moved, lost))
            pending, rows = pending[again], rows[again]
            slots[moved] = self._step(slots[moved])
            slots = slots[again]
        if self.n + self.regions * new.n > self.table.size * REGION_LOAD:
            raise RegionFull()

    def adopt(self, first: int, rows: np.ndarray, slots: np.ndarray) -> None:
        """Number the provisional states of a level first, first + 1, ... in the order
        given (their table slots `slots`); `reorder` then renumbers them."""
        self._reserve_keys(first + rows.shape[0])
        self.keys[first : first + rows.shape[0]] = rows
        self.table[slots] = np.arange(first, first + rows.shape[0], dtype=np.int32)
        self.n = first + rows.shape[0]
        self._since, self._slot_of = first, slots
        self._reserve_table(self.n)

    def track(self, first: int) -> None:
        """Remember the table slot of every state numbered from `first` on, as it is added
        (for `reorder`; forgotten when the table is rebuilt)."""
        self._since = first
        self._slot_of = np.empty(max(16, self.n - first), dtype=np.int64)
        self._slot_of[: self.n - first] = self._slots(first)

    def _placed(self, ids: np.ndarray, slots: np.ndarray) -> None:
        if self._slot_of is None or not ids.size:
            return
        need = int(ids[-1]) + 1 - self._since
        if need > self._slot_of.size:
            grown = np.empty(max(need, 2 * self._slot_of.size), dtype=np.int64)
            grown[: self._slot_of.size] = self._slot_of
            self._slot_of = grown
        self._slot_of[ids - self._since] = slots

    def find(self, block: np.ndarray) -> np.ndarray:
        """State number of every row, or -1 where the store does not hold it (read only)."""
        m = block.shape[0]
        out = np.full(m, -1, dtype=np.int64)
        slots = (hash_rows(block) & self.mask).astype(np.int64)
        pending = np.arange(m, dtype=np.int64)
        table, keys = self.table, self.keys
        while pending.size:
            occupant = table[slots].astype(np.int64)
            held = occupant != EMPTY
            who, where, occ = pending[held], slots[held], occupant[held]
            same = rows_equal(keys[occ], block[who])
            out[who[same]] = occ[same]
            pending, slots = who[~same], self._step(where[~same])
        return out

    def reorder(self, first: int, perm: np.ndarray) -> None:
        """Renumber the states numbered from `first` on: state first + i becomes the one
        that was first + perm[i]."""
        if self._slot_of is not None and self._since == first:
            slots = self._slot_of[: self.n - first]
        else:
            slots = self._slots(first)
        self._slot_of = None
        self.keys[first : self.n] = self.keys[first : self.n][perm]
        self.table[slots[perm]] = np.arange(first, self.n, dtype=np.int32)

    def _slots(self, first: int) -> np.ndarray:
        """The table slot of every state numbered from `first` on."""
        ids = np.arange(first, self.n, dtype=np.int64)
        out = np.empty(ids.size, dtype=np.int64)
        slots = (hash_rows(self.keys[first : self.n]) & self.mask).astype(np.int64)
        pending = np.arange(ids.size, dtype=np.int64)
        while pending.size:
            hit = self.table[slots] == ids[pending]
            out[pending[hit]] = slots[hit]
            pending, slots = pending[~hit], self._step(slots[~hit])
        return out

    def truncate(self, n: int) -> None:
        """Forget the states numbered n and above (used when a level is redone)."""
        if n >= self.n:
            return
        self.n = n
        self._rebuild(self.table.size)

    def _reserve(self, need: int) -> None:
        self._reserve_keys(need)
        self._reserve_table(need)

    def _reserve_keys(self, need: int) -> None:
        if need > MAX_STATES:
            raise MemoryError("more states than a frontier search can number")
        if need > self.keys.shape[0]:
            cap = self.keys.shape[0]
            while cap < need:
                cap *= 2
            budget.current().reserve(cap * self.words * 8, "the visited states' keys")
            grown = np.zeros((cap, self.words), dtype=np.uint64)
            grown[: self.n] = self.keys[: self.n]
            self.keys = grown

    def _reserve_table(self, need: int) -> None:
        if need * 2 > self.table.size:
            size = self.table.size
            while size < need * 2:
                size *= 2
            budget.current().reserve(size * 4, "the visited states' hash table")
            self._rebuild(size)

    def _rebuild(self, size: int) -> None:
        self._slot_of = None
        self.table = (
            np.full(size, EMPTY, dtype=np.int32)
            if self.regions == 1
            else shared((size,), np.int32, EMPTY)
        )
        self.mask = np.uint64(size - 1)
        pending = np.arange(self.n, dtype=np.int64)
        slots = (hash_rows(self.keys[: self.n]) & self.mask).astype(np.int64)
        while pending.size:
            free = self.table[slots] == EMPTY
            claimants, at = pending[free], slots[free]
            self.table[at] = claimants
            won = self.table[at] == claimants
            lost = np.concatenate((pending[~free], claimants[~won]))
            lost_slots = np.concatenate((slots[~free], at[~won]))
            pending, slots = lost, self._step(lost_slots)
