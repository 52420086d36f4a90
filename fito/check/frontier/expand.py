"""Successors of a block of packed states: the work of one chunk of a frontier level.

The rows of a chunk are grouped by mode and, per candidate of the mode, by the locations of
the candidate's positions; each group's numpy function (`compile_group` of the packed view,
fito/semantics/packed.py) produces the successors of all its rows at once. Rows that may
meet a model error are redone state by state by the scalar code, which decides the error
exactly (docs/semantics.md).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from fito.check.frontier.visited import StateStore
from fito.check.options import Limits
from fito.check.reduce import NONE, Reduction
from fito.semantics.compiled import RANK_BITS, Compiled, StepFault, TimeLimit
from fito.semantics.packed import NotVector

GROUP_BITS = 16  # candidate number and transition number in a dense rank (each < 2**16)
SCALAR = object()  # a group whose rows are always run state by state
VECTOR_AFTER = 64  # rows a group must have met before its numpy code is compiled
LIVE_BITS = 16  # a candidate keeps a table of its live locations if its key is this narrow


@dataclass(slots=True)
class Chunk:
    """The candidates of a chunk of frontier rows (states start .. start + size - 1):
    successor rows with the state they came from and their dense rank; transitions per row;
    rows that needed the scalar code; the exact errors it found."""

    start: int
    size: int
    blocks: list = field(default_factory=list)
    parents: list = field(default_factory=list)
    ranks: list = field(default_factory=list)
    scalar: list = field(default_factory=list)
    counts: np.ndarray = field(init=False)
    suspect: np.ndarray = field(init=False)
    state_errors: list = field(default_factory=list)  # (state, fault)
    step_errors: list = field(default_factory=list)  # (state, rank, fault)

    def __post_init__(self) -> None:
        self.counts = np.zeros(self.size, dtype=np.int64)
        self.suspect = np.zeros(self.size, dtype=bool)

    def add(
        self, block: np.ndarray, rows: np.ndarray, rank: int | np.ndarray, scalar: bool = False
    ) -> None:
        self.blocks.append(block)
        self.parents.append(rows)
        self.ranks.append(rank)  # one rank for every row, or one per row
        self.scalar.append(scalar)

    def candidates(self, words: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, order key = parent state << 32 | dense rank) of every candidate, leaving
        out what the vector code produced for suspect rows (the scalar code redid those)."""
        if not self.blocks:
            return np.zeros((0, words), dtype=np.uint64), np.zeros(0, np.int64)
        keep = [
            np.ones(p.size, dtype=bool) if sc else ~self.suspect[p]
            for p, sc in zip(self.parents, self.scalar)
        ]
        mask = np.concatenate(keep)
        block = np.concatenate(self.blocks)[mask]
        ranks = np.concatenate(
            [
                np.full(p.size, r, dtype=np.int64) if isinstance(r, int) else r
                for p, r in zip(self.parents, self.ranks)
            ]
        )
        keys = ((np.concatenate(self.parents)[mask] + self.start) << 32) | ranks[mask]
        return block, keys


class Expander:
    """The packed view, vectorised groups and the visited store of one frontier search."""

    def __init__(
        self, c: Compiled, root: tuple, limits: Limits, reduction: Reduction = NONE
    ) -> None:
        self.c = c
        self.limits = limits
        self.reduction = reduction  # candidates become canonical representatives (level.py)
        # everything that makes terms, compiles groups or assigns location codes holds this
        self.lock = threading.RLock()
        self.jobs = max(1, limits.jobs)  # processes expanding a large level (workers.py)
        self.deadline = None if limits.timeout is None else time.monotonic() + limits.timeout
        self.packed = c.packed_view(root, self.lock)
        self.groups: dict[tuple, object] = {}
        self.met: dict[tuple, int] = {}  # rows met by groups still run state by state
        self.tables: dict[tuple, np.ndarray] = {}
        self.store = StateStore(self.packed.words)

    def state(self, sid: int) -> tuple:
        return self.packed.unpack(self.store.keys[sid])

    def close(self) -> None:
        """Nothing is held between levels (workers live for one level)."""

    def widen(self) -> None:
        """Re-pack every stored state with control fields wide enough for what is known."""
        keys = self.packed.widen(self.store.keys[: self.store.n])
        self.store = StateStore.of(keys, self.store.keys.shape[0])
        self.groups.clear()
        self.met.clear()

    # ------------------------------------------------------------------ one chunk
    def expand(self, start: int, stop: int) -> Chunk:
        """Successor candidates of the states start .. stop - 1 (no insertion yet)."""
        chunk = Chunk(start, stop - start)
        F = self.store.keys[start:stop]
        packed = self.packed
        if self.c.mode_count == 1 or not packed.mode_width:
            self._expand_mode(
                0 if not packed.mode_width else int(packed.modes(F[:1])[0]),
                F,
                np.arange(chunk.size),
                chunk,
            )
        else:
            modes = packed.modes(F)
            for m in np.unique(modes).tolist():
                self._expand_mode(m, F, np.flatnonzero(modes == m), chunk)
        self._scalar_rows(chunk)
        return chunk

    def _expand_mode(self, m: int, F: np.ndarray, rows_m: np.ndarray, chunk: Chunk) -> None:
        mode = self.c.mode(m)
        Fm = F[rows_m] if rows_m.size != F.shape[0] else F
        codes: dict[int, np.ndarray] = {}
        for h, movers in enumerate(mode.candidates):
            for p in movers:
                if p not in codes:
                    codes[p] = self.packed.locations(Fm, p)
            member = tuple(codes[p] for p in movers)
            key, live = self._live(m, h, movers, member)
            if live is not None:  # rows at locations not yet known to have no transitions
                keep = live[key]
            elif mode.reasons[h] is not None:  # rows where every member can take part
                keep = self._taking_part(mode.reasons[h], movers, member)
            else:
                keep = None
            which = None
            if keep is not None and not keep.all():
                which = np.flatnonzero(keep)
                if not which.size:
                    continue
                member, key = tuple(c[which] for c in member), key[which]
            self._expand_candidate(
                m,
                h,
                movers,
                member,
                key,
                live,
                Fm,
                rows_m if which is None else rows_m[which],
                which,
                chunk,
            )

    def _live(
        self, m: int, h: int, movers: tuple[int, ...], member: tuple
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Each row's locations of the movers as one key, and the candidate's table over
        keys: False where the group is known to have no transitions (None: too many keys)."""
        widths = tuple(self.packed.location_width(p) for p in movers)
        if sum(widths) > 62:  # numbered by distinct combination instead
            inverse = np.unique(np.stack(member, axis=1), axis=0, return_inverse=True)[1]
            return inverse.reshape(-1), None
        key = member[0]
        for c, width in zip(member[1:], widths[1:]):
            key = (key << width) | c
        if sum(widths) > LIVE_BITS:
            return key, None
        got = self.tables.get((m, h, widths))
        if got is None:
            got = self.tables[(m, h, widths)] = np.ones(1 << sum(widths), dtype=bool)
        return key, got

    def _taking_part(self, reason: tuple, movers: tuple[int, ...], codes: tuple) -> np.ndarray:
        """Rows whose members all offer one common channel of the candidate, or have all
        terminated (lookup tables over each position's location codes)."""
        chans, end = reason
        keys = sorted(chans) + ([None] if end else [])
        out = np.zeros(codes[0].size, dtype=bool)
        for key in keys:
            mask = np.ones(codes[0].size, dtype=bool)
            for p, c in zip(movers, codes):
                mask &= self._member_table(reason, key, p)[c]
            out |= mask
        return out

    def _member_table(self, reason: tuple, key: str | None, p: int) -> np.ndarray:
        terms = self.packed.terms(p)
        got = self.tables.get((key, p))
        if got is None or got.size < len(terms):
            with self.lock:
                got = np.array(
                    [tid >= 0 and self.c.takes_part(reason, key, tid) for tid in terms],
                    dtype=bool,
                )
                self.tables[(key, p)] = got
        return got

    def _expand_candidate(
        self,
        m: int,
        h: int,
        movers: tuple[int, ...],
        member: tuple,
        key: np.ndarray,
        live: np.ndarray | None,
        Fm: np.ndarray,
        rows: np.ndarray,
        which: np.ndarray | None,
        chunk: Chunk,
    ) -> None:
        """Apply the groups of one candidate to some rows of its mode (`rows`, numbered in the
        chunk; `which`, numbered in Fm; None: all of Fm), grouped by location."""
        for combo, k, at in _groups_by(member, key):
            terms = tuple(self.packed.terms(p)[code] for p, code in zip(movers, combo))
            sel = rows if at is None else rows[at]
            group = self._group(m, h, movers, terms, sel.size)
            if group is None:
                if live is not None:
                    live[k] = False
                continue
            if group is SCALAR:
                chunk.suspect[sel] = True
                continue
            if which is None:
                X = Fm if at is None else Fm[at]
            else:
                X = Fm[which if at is None else which[at]]
            outs, cnt, sus = group(X)  # type: ignore[operator]
            chunk.counts[sel] += cnt
            if sus is not None:
                chunk.suspect[sel] |= sus
            for Y, picked, n in outs:
                chunk.add(Y, sel[picked], (h << GROUP_BITS) | n)
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise TimeLimit()

    def _group(
        self, m: int, h: int, movers: tuple[int, ...], terms: tuple[int, ...], rows: int
    ) -> object:
        """The numpy code of a group; None if it has no transitions; SCALAR while its rows
        are run state by state: always when numpy cannot run it, and until it has met
        VECTOR_AFTER rows (a spec whose terms keep changing makes many groups of a row or
        two each, and compiling numpy code for each costs more than it saves)."""
        key = (m, h, terms)
        got = self.groups.get(key, key)
        if got is not key:
            return got
        with self.lock:
            got = self.groups.get(key, key)
            if got is not key:
                return got
            transitions = self.c.transition_count(m, h, terms)
            met = self.met.get(key, 0) + rows
            if transitions and met < VECTOR_AFTER:
                self.met[key] = met
                return SCALAR
            self.met.pop(key, None)
            if not transitions:
                got = None
            elif h >> GROUP_BITS or transitions >> GROUP_BITS:
                got = SCALAR
            else:
                try:
                    got = self.packed.compile_group(m, h, terms)
                except NotVector:
                    got = SCALAR
            self.groups[key] = got
            self.c.check_time()
        return got

    def _scalar_rows(self, chunk: Chunk) -> None:
        """Redo the suspect rows state by state: exact errors, or exact successors."""
        rows = np.flatnonzero(chunk.suspect)
        if not rows.size:
            return
        with self.lock:
            self._scalar_rows_locked(chunk, rows)

    def _scalar_rows_locked(self, chunk: Chunk, rows: np.ndarray) -> None:
        mask = (1 << RANK_BITS) - 1
        posts, parents, ranks = [], [], []
        keys = self.store.keys
        for row in rows.tolist():
            sid = chunk.start + row
            s = self.packed.unpack(keys[sid])
            chunk.counts[row] = 0
            try:
                moves = self.c.successors(s)
            except StepFault as e:
                if e.step is None:
                    chunk.state_errors.append((sid, e.fault))
                else:
                    chunk.step_errors.append((sid, e.step, e.fault))
                continue
            chunk.counts[row] = len(moves)
            for r, post in moves:
                posts.append(post)
                parents.append(row)
                ranks.append(((r >> RANK_BITS) << GROUP_BITS) | (r & mask))
        if posts:
            chunk.add(
                self.packed.pack_many(posts),
                np.array(parents, dtype=np.int64),
                np.array(ranks, dtype=np.int64),
                scalar=True,
            )


def _groups_by(
    codes: tuple[np.ndarray, ...], key: np.ndarray
) -> list[tuple[tuple[int, ...], int, np.ndarray | None]]:
    """The distinct combinations of codes (rows with equal keys have equal codes), in
    increasing order of key, each with its key and the rows that have it, in increasing
    order (None: all rows)."""
    n = key.size
    if not n:
        return []
    first, last = key.min(), key.max()
    if first == last:
        return [(tuple(int(c[0]) for c in codes), int(first), None)]
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    bounds = [0, *(np.flatnonzero(ordered[1:] != ordered[:-1]) + 1).tolist(), n]
    firsts = order[bounds[:-1]]
    combos = list(zip(*(c[firsts].tolist() for c in codes)))
    keys = ordered[bounds[:-1]].tolist()
    return [(combo, k, order[a:b]) for combo, k, a, b in zip(combos, keys, bounds, bounds[1:])]
