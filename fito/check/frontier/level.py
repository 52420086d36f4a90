"""Expanding one range of a frontier level: chunks of rows and their successors.

The rows lo .. hi - 1 are expanded CHUNK at a time (fito/check/frontier/expand.py); each chunk's
transitions, first state error, first deadlock and transition errors are noted in an
`Outcome`, and its candidate successors, with their discovery keys (parent << 32 | dense
rank), go to `Fresh`, which inserts them into the visited store and keeps, for every state
new in this level, the least key it was found by (the search renumbers the level by that
key afterwards). fito/check/frontier/workers.py expands chunks the same way on several processes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fito import budget
from fito.check.frontier.expand import Chunk, Expander
from fito.check.frontier.visited import StateStore

CHUNK = 1 << 17  # frontier rows expanded at once
NO_KEY = np.iinfo(np.int64).max


@dataclass(slots=True)
class Outcome:
    """What the chunks of one level found, in the order a state-by-state search finds it."""

    transitions: int = 0
    state_error: tuple | None = None  # (state, fault), the first
    dead: int | None = None  # the first state without a transition
    step_errors: list = field(default_factory=list)

    def merge(self, other: Outcome) -> None:
        """Add what another range of the same level found."""
        self.transitions += other.transitions
        if other.state_error is not None and (
            self.state_error is None or other.state_error[0] < self.state_error[0]
        ):
            self.state_error = other.state_error
        if other.dead is not None and (self.dead is None or other.dead < self.dead):
            self.dead = other.dead
        self.step_errors += other.step_errors


class Fresh:
    """Sink: insert into the store; the least discovery key of each state new since `first`."""

    def __init__(self, store: StateStore, first: int) -> None:
        self.store = store
        self.first = first
        self.best = np.zeros(0, dtype=np.int64)

    def add(self, block: np.ndarray, keys: np.ndarray) -> None:
        sid = self.store.insert(block)
        grown = self.store.n - self.first
        if grown > self.best.size:
            more = np.full(grown - self.best.size, NO_KEY, np.int64)
            self.best = np.concatenate((self.best, more))
        fresh = sid >= self.first
        np.minimum.at(self.best, sid[fresh] - self.first, keys[fresh])


class StateLimit(Exception):
    """--max-states was passed in the middle of a level: the transitions counted so far."""

    def __init__(self, transitions: int) -> None:
        super().__init__(transitions)
        self.transitions = transitions


def expand_range(ex: Expander, lo: int, hi: int, deadlock: bool, out: Outcome, sink: Fresh) -> None:
    """Expand the states lo .. hi - 1 chunk by chunk into `out` and `sink`; StateLimit as
    soon as the store holds more states than --max-states allows."""
    bound = ex.limits.max_states
    for start in range(lo, hi, CHUNK):
        block, keys = expand_chunk(ex, start, min(hi, start + CHUNK), deadlock, out)
        if block.shape[0]:
            sink.add(block, keys)
            if bound is not None and ex.store.n > bound:
                raise StateLimit(out.transitions)


def expand_chunk(
    ex: Expander, start: int, stop: int, deadlock: bool, out: Outcome
) -> tuple[np.ndarray, np.ndarray]:
    """The candidates of the states start .. stop - 1 and their keys; the rest into `out`."""
    budget.current().poll()
    chunk = ex.expand(start, stop)
    out.transitions += int(chunk.counts.sum())
    note(ex, chunk, out, deadlock)
    block, keys = chunk.candidates(ex.packed.words)
    return ex.reduction.canonical_rows(ex.packed, block), keys


def note(ex: Expander, chunk: Chunk, out: Outcome, deadlock: bool) -> None:
    """Keep the first state error, the first deadlock and every transition error."""
    if chunk.state_errors:
        first = min(chunk.state_errors, key=lambda x: x[0])
        if out.state_error is None or first[0] < out.state_error[0]:
            out.state_error = first
    out.step_errors += chunk.step_errors
    if deadlock and (out.dead is None or out.dead > chunk.start):
        failed = {sid for sid, _, _ in chunk.step_errors} | {sid for sid, _ in chunk.state_errors}
        for row in np.flatnonzero(chunk.counts == 0).tolist():
            sid = chunk.start + row
            if sid not in failed and not ex.c.ends_validly(ex.state(sid)):
                out.dead = sid if out.dead is None else min(out.dead, sid)
                break
