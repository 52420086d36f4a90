"""Expanding a frontier level on several cores (`--jobs N`): forked worker processes.

At the start of a large level the search forks N - 1 workers. Each is an exact copy of the
search at that moment (compiled groups, codebook, visited store) and expands its own range
of the level's rows, keeping the successors its copy of the store does not hold (once each,
with the least discovery key they were found by: fito/check/level.py, `Unseen`). Meanwhile
the parent expands the first range itself, inserting as it goes. Then it reads each
worker's rows and keys through a pipe and inserts them. The search renumbers the level's
new states by discovery key afterwards, so verdicts, state counts, numbering and
counterexamples are the same for every N.

A worker's answer is used only if its copy of the network learnt nothing new: a location
or a mode first met by a worker would get a code the parent does not know. When it did (or
the worker failed in any way: a model error is not a failure, since errors are noted as on
one core), the parent expands that range itself. Workers are forked per level, so nothing
is shared between processes but the pipe; the interpreter lock of one process never
serialises another. Without `os.fork` (Windows), every level runs on one core.
"""
from __future__ import annotations

import gc
import os
import pickle
import signal
import struct
import time
from dataclasses import dataclass

import numpy as np

from fito.check.expand import Expander
from fito.check.level import Fresh, Outcome, Unseen, expand_range

PARALLEL_MIN = 1 << 13   # rows of a level below which one process expands it
SHARE_BOUNDS = (0.1, 0.9)


def available() -> bool:
    return hasattr(os, "fork")


def fingerprint(ex: Expander) -> tuple:
    """What a worker must not have learnt: the network's modes and each position's codes."""
    return (len(ex.c.network.modes),) + tuple(len(t) for t in ex.codebook.terms)


@dataclass(slots=True)
class Worker:
    """One forked worker: the rows it expands, its process and the read end of its pipe."""

    lo: int
    hi: int
    pid: int
    fd: int

    def result(self) -> tuple[Outcome, np.ndarray, np.ndarray, float] | None:
        """(outcome, rows, keys, seconds of work), or None when the parent must redo it."""
        try:
            got = _receive(self.fd)
        except (EOFError, OSError, pickle.UnpicklingError):
            got = None
        finally:
            os.close(self.fd)
            self.fd = -1
            os.waitpid(self.pid, 0)
            self.pid = 0
        return got

    def stop(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = 0


def expand_level(ex: Expander, lo: int, hi: int, deadlock: bool, first: int
                 ) -> tuple[Outcome, np.ndarray]:
    """As one process would: the level's outcome and the least discovery key of each new
    state (numbered from `first`), with ex.jobs - 1 workers expanding most of the rows."""
    n = hi - lo
    own = lo + max(1, int(n * ex.share))
    cuts = np.linspace(own, hi, ex.jobs, dtype=np.int64).tolist()
    workers: list[Worker] = []
    try:
        for a, b in zip(cuts, cuts[1:]):
            if b > a:
                workers.append(_fork(ex, a, b, deadlock))
        out, sink = Outcome(), Fresh(ex.store, first)
        began = time.perf_counter()
        expand_range(ex, lo, own, deadlock, out, sink)
        mine = (time.perf_counter() - began) / (own - lo)
        theirs = []
        for w in workers:
            got = w.result()
            if got is None:
                expand_range(ex, w.lo, w.hi, deadlock, out, sink)
                continue
            found, rows, keys, seconds = got
            out.merge(found)
            if rows.shape[0]:
                sink.add(rows, keys)
            theirs.append(seconds / (w.hi - w.lo))
        _rebalance(ex, mine, theirs)
        return out, sink.best
    finally:
        for w in workers:
            w.stop()


def _rebalance(ex: Expander, mine: float, theirs: list[float]) -> None:
    """The parent's share of the next level: even wall times for its range and each worker's."""
    if not theirs or mine <= 0:
        return
    k, per = len(theirs), sum(theirs) / len(theirs)
    target = per / (k * mine + per)
    lo, hi = SHARE_BOUNDS
    ex.share = min(hi, max(lo, (ex.share + target) / 2))


def _fork(ex: Expander, lo: int, hi: int, deadlock: bool) -> Worker:
    r, w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(w)
        return Worker(lo, hi, pid, r)
    os.close(r)  # the worker: never returns
    gc.disable()  # a collection would touch (and so copy) every page of the parent's objects
    try:
        _work(ex, lo, hi, deadlock, w)
    finally:
        os._exit(0)


def _work(ex: Expander, lo: int, hi: int, deadlock: bool, fd: int) -> None:
    before = fingerprint(ex)
    began = time.perf_counter()
    try:
        out, sink = Outcome(), Unseen(ex.store)
        expand_range(ex, lo, hi, deadlock, out, sink)
        if fingerprint(ex) != before:
            return  # closing the pipe early tells the parent to redo the range
        rows, keys = sink.rows()
        _send(fd, (out, time.perf_counter() - began), (rows, keys))
    except BaseException:  # noqa: BLE001 - the parent redoes the range and meets it itself
        return


def _send(fd: int, header: object, arrays: tuple[np.ndarray, ...]) -> None:
    arrays = tuple(np.ascontiguousarray(a) for a in arrays)
    blob = pickle.dumps((header, [(a.dtype.str, a.shape) for a in arrays]),
                        protocol=pickle.HIGHEST_PROTOCOL)
    _write(fd, struct.pack("<Q", len(blob)) + blob)
    for a in arrays:
        _write(fd, memoryview(a).cast("B"))


def _write(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view.nbytes:
        view = view[os.write(fd, view):]


def _receive(fd: int) -> tuple[Outcome, np.ndarray, np.ndarray, float] | None:
    size = _read(fd, 8)
    if size is None:
        return None
    blob = _read(fd, struct.unpack("<Q", size)[0])
    if blob is None:
        return None
    (out, seconds), specs = pickle.loads(blob)
    arrays = []
    for dtype, shape in specs:
        a = np.empty(shape, dtype=dtype)
        if a.nbytes and not _read_into(fd, memoryview(a).cast("B")):
            return None
        arrays.append(a)
    return out, arrays[0], arrays[1], seconds


def _read(fd: int, n: int) -> bytes | None:
    buf = bytearray(n)
    return bytes(buf) if _read_into(fd, memoryview(buf)) else None


def _read_into(fd: int, view: memoryview) -> bool:
    """Fill the view from the pipe; False at an early end of file."""
    while view.nbytes:
        got = os.readv(fd, [view])
        if not got:
            return False
        view = view[got:]
    return True
