"""Expanding a rank's part of a level in a forked child, so that the rank itself learns
nothing the other ranks do not learn.

Packed rows name locations and modes by codes that a search assigns as it meets them
(fito/semantics/packed.py): two ranks that met new locations in different orders would give
one state two encodings. So a rank's own process (the one that talks MPI, keeps the visited
shard and the codebook) never expands a row on its own. Each level, it forks a child, an
exact copy, which expands the rank's frontier rows chunk by chunk with the frontier engine's
code (fito/check/frontier/level.py) and sends back the candidates, the level's outcome and,
if a chunk made the view learn a code (its fingerprint changed, or a field overflowed), the
rows of that chunk. Then every rank's process expands those rows, the same rows in the same
order on every rank (`learn`), so every rank learns the same codes, and the level is
speculated again. Groups compiled in a child are compiled again in the next one: the price
of keeping the ranks' encodings equal without a global codebook.
"""

from __future__ import annotations

import os
import pickle
import traceback
from dataclasses import dataclass, field

import numpy as np

from fito.budget import BudgetExceeded
from fito.check.frontier.expand import Expander
from fito.check.frontier.level import Outcome, expand_chunk, note
from fito.check.frontier.visited import StateStore
from fito.semantics.compiled import StructureGrows, TimeLimit
from fito.semantics.packed import Overflow

STEP = 1 << 12  # rows a child expands between two looks at the view's fingerprint
REPLICATE_BELOW = 1 << 12  # levels smaller than this are expanded whole by every rank


@dataclass(slots=True)
class Speculation:
    """What a child found: candidates (rows, keys: local parent << 32 | dense rank) and the
    outcome; or the rows that taught the view something (`learners`); or why it stopped."""

    out: Outcome = field(default_factory=Outcome)
    block: np.ndarray | None = None
    keys: np.ndarray | None = None
    learners: np.ndarray | None = None
    stop: str | None = None


def fingerprint(ex: Expander) -> tuple:
    """What the encoding of rows depends on: modes, codes per position, words per row."""
    return (ex.packed.fingerprint(), ex.packed.words)


def speculate(ex: Expander, lo: int, hi: int, deadlock: bool) -> Speculation:
    """Expand the rank's rows lo .. hi - 1 in a forked child; the parent learns nothing."""
    if hi <= lo:
        return Speculation(
            block=np.zeros((0, ex.packed.words), np.uint64), keys=np.zeros(0, np.int64)
        )
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: expand, send, leave without running anything of the parent's
        os.close(read)
        try:
            payload: tuple = ("ok", _expand(ex, lo, hi, deadlock))
        except (TimeLimit, StructureGrows, BudgetExceeded) as stop:
            reason = (
                f"timeout after {ex.limits.timeout or 0:g} s"
                if isinstance(stop, TimeLimit)
                else stop.message
            )
            payload = ("ok", Speculation(stop=reason))
        except BaseException:  # noqa: BLE001 - reported to the parent, which raises it
            payload = ("crash", traceback.format_exc())
        try:
            with os.fdopen(write, "wb") as f:
                pickle.dump(payload, f, protocol=pickle.HIGHEST_PROTOCOL)
        finally:
            os._exit(0)
    os.close(write)
    try:
        with os.fdopen(read, "rb") as f:
            kind, got = pickle.load(f)
    except (EOFError, pickle.UnpicklingError) as exc:
        raise RuntimeError(f"a distributed search's expanding child died: {exc}") from None
    finally:
        os.waitpid(pid, 0)
    if kind != "ok":
        raise RuntimeError(f"a distributed search's expanding child failed:\n{got}")
    assert isinstance(got, Speculation)
    return got


def _expand(ex: Expander, lo: int, hi: int, deadlock: bool) -> Speculation:
    before = fingerprint(ex)
    got = Speculation()
    blocks, keys = [], []
    for start in range(lo, hi, STEP):
        stop = min(hi, start + STEP)
        try:
            block, key = expand_chunk(ex, start, stop, deadlock, got.out)
        except Overflow:
            block = None
        if block is None or fingerprint(ex) != before:
            return Speculation(learners=ex.store.keys[start:stop].copy())
        blocks.append(block)
        keys.append(key)
    got.block = np.concatenate(blocks) if blocks else np.zeros((0, ex.packed.words), np.uint64)
    got.keys = np.concatenate(keys) if keys else np.zeros(0, np.int64)
    return got


class _NoDeadline:
    """No deadline while every rank runs the same expansion: a rank stopping half way
    would make the ranks' views differ (the search looks at the clock between levels)."""

    def __init__(self, ex: Expander) -> None:
        self.ex = ex

    def __enter__(self) -> None:
        self.held = (self.ex.deadline, self.ex.c.deadline)
        self.ex.deadline = None
        self.ex.c.set_deadline(None)

    def __exit__(self, *exc: object) -> None:
        self.ex.deadline = self.held[0]
        self.ex.c.set_deadline(self.held[1])


def replicate(
    ex: Expander, rows: np.ndarray, mine: tuple[int, int], lo: int, deadlock: bool
) -> Speculation:
    """Expand a whole (small) level in this process, every rank the same rows (every rank's
    frontier, in rank order), so every rank learns the same codes and keeps the groups it
    compiled; keep what comes of this rank's rows mine[0] .. mine[1] - 1, numbered as its
    local states lo, lo + 1, ..."""
    with _NoDeadline(ex):
        while True:
            saved = ex.store
            ex.store = StateStore.of(rows, 1 << max(4, rows.shape[0].bit_length()))
            try:
                return _whole(ex, rows.shape[0], mine, lo, deadlock)
            except Overflow:
                pass
            finally:
                ex.store = saved
            rows = _widen(ex, rows)


def _whole(ex: Expander, n: int, mine: tuple[int, int], lo: int, deadlock: bool) -> Speculation:
    got = Speculation()
    blocks, keys = [], []
    shift = lo - mine[0]
    for start in range(0, n, STEP):
        chunk = ex.expand(start, min(n, start + STEP))
        block, key = chunk.candidates(ex.packed.words)
        block = ex.reduction.canonical_rows(ex.packed, block)  # as level.expand_chunk does
        a, b = max(start, mine[0]), min(start + chunk.size, mine[1])
        if a >= b:
            continue
        counts = chunk.counts
        chunk.counts = counts[a - start : b - start]  # what note() and the figures see
        chunk.start, chunk.size = a, b - a
        chunk.state_errors = [e for e in chunk.state_errors if a <= e[0] < b]
        chunk.step_errors = [e for e in chunk.step_errors if a <= e[0] < b]
        got.out.transitions += int(chunk.counts.sum())
        note(ex, chunk, got.out, deadlock)
        parent = key >> 32
        keep = (parent >= a) & (parent < b)
        blocks.append(block[keep])
        keys.append(key[keep] + (shift << 32))
    got.out = _shifted(got.out, shift)
    got.block = np.concatenate(blocks) if blocks else np.zeros((0, ex.packed.words), np.uint64)
    got.keys = np.concatenate(keys) if keys else np.zeros(0, np.int64)
    return got


def _shifted(out: Outcome, shift: int) -> Outcome:
    """The outcome with its states renumbered by shift (rows of the level -> local states)."""
    moved = Outcome(out.transitions)
    if out.state_error is not None:
        moved.state_error = (out.state_error[0] + shift, out.state_error[1])
    if out.dead is not None:
        moved.dead = out.dead + shift
    moved.step_errors = [(sid + shift, rank, fault) for sid, rank, fault in out.step_errors]
    return moved


def _widen(ex: Expander, rows: np.ndarray) -> np.ndarray:
    """Widen the fields: the stored states and rows re-packed, every rank alike."""
    saved = ex.store
    both = ex.packed.widen(np.concatenate((saved.keys[: saved.n], rows)))
    ex.store = StateStore.of(both[: saved.n], saved.keys.shape[0])
    ex.groups.clear()
    ex.met.clear()
    return both[saved.n :]


def learn(ex: Expander, rows: np.ndarray) -> np.ndarray:
    """Expand rows in this process (every rank the same rows, in the same order), so that
    every rank's view learns the same codes; widen the fields where they overflow. Returns
    the rows as now packed. No deadline applies: a rank stopping half way would make the
    ranks' views differ."""
    with _NoDeadline(ex):
        while True:
            saved = ex.store
            ex.store = StateStore.of(rows, 1 << max(4, rows.shape[0].bit_length()))
            try:
                for start in range(0, rows.shape[0], STEP):
                    chunk = ex.expand(start, min(rows.shape[0], start + STEP))
                    chunk.candidates(ex.packed.words)
                return rows
            except Overflow:
                pass
            finally:
                ex.store = saved
            rows = _widen(ex, rows)
