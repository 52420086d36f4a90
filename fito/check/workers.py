"""Expanding a frontier level on several cores (`--jobs N`): forked worker processes.

At the start of a large level the search forks N - 1 workers, each an exact copy of the
search at that moment (compiled groups, codebook, the level's rows) but for the visited
store, whose pages are not inherited (fito/check/visited.py: MADV_DONTFORK). The level's
chunks are handed out one at a time (`Chunks`, a counter shared by the processes). A worker
expands each chunk it takes and sends, through its pipe, the candidates it had not met
before in this level, once each, with the least discovery key, and what the chunk showed
(transitions, errors, the first deadlock). The parent inserts what arrives into the store,
and when nothing waits it takes and expands a chunk itself. Since the workers never map the
store, the parent's writes to it copy no page. The search renumbers the level's new states
by discovery key afterwards, so verdicts, state counts, numbering and counterexamples are
the same for every N.

A worker's chunk is used only if its copy of the network had learnt nothing new when the
chunk was done: a location or a mode first met by a worker would get a code the parent does
not know. When it had (or the worker failed in any way; a model error is not a failure,
since errors are noted as on one core), the worker stops, and the parent expands the chunks
it took and did not send. Workers are forked per level, so nothing is shared between
processes but the pipes and the counter; the interpreter lock of one process never
serialises another. Without `os.fork` (Windows), every level runs in one process.
"""
from __future__ import annotations

import gc
import os
import pickle
import queue
import signal
import struct
import threading
from dataclasses import dataclass

import numpy as np

from fito.check.expand import Expander
from fito.check.level import NO_KEY, Fresh, Outcome, expand_chunk, expand_range
from fito.check.visited import StateStore

PARALLEL_MIN = 1 << 13   # rows of a level below which one process expands it
PARALLEL_CHUNK = 1 << 15  # rows taken at once by a process (smaller chunks share better)
QUEUED = 2               # chunks a worker may have in flight beyond the one being inserted


def available() -> bool:
    return hasattr(os, "fork")


def fingerprint(ex: Expander) -> tuple:
    """What a worker must not have learnt: the network's modes and each position's codes."""
    return (len(ex.c.network.modes),) + tuple(len(t) for t in ex.codebook.terms)


class LevelRows:
    """A worker's stand-in for the visited store: the level's rows, by state number."""

    def __init__(self, rows: np.ndarray, lo: int) -> None:
        self.rows = rows
        self.lo = lo

    @property
    def keys(self) -> LevelRows:
        return self

    def __getitem__(self, i: int | slice) -> np.ndarray:
        if isinstance(i, slice):
            return self.rows[i.start - self.lo:i.stop - self.lo]
        return self.rows[i - self.lo]


@dataclass(slots=True)
class Worker:
    """One forked worker: its process and the read end of its pipe."""

    pid: int
    fd: int

    def messages(self, into: queue.Queue) -> None:
        """Read the worker's chunks into the queue, then None (on a reader thread)."""
        try:
            while True:
                got = _receive(self.fd)
                if got is None:
                    break
                into.put((self, got))
        except (EOFError, OSError, pickle.UnpicklingError, ValueError):
            pass
        finally:
            into.put((self, None))

    def end(self) -> None:
        """Kill the worker if it still runs, and reap it (its reader then meets the end)."""
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = 0

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class Chunks:
    """The chunks of a level, handed out one at a time to whichever process asks first
    (a counter in memory shared by the forked processes, under a lock)."""

    def __init__(self, lo: int, hi: int, size: int) -> None:
        import multiprocessing

        self.lo, self.hi, self.size = lo, hi, size
        self.count = -(-(hi - lo) // size)
        self.lock = multiprocessing.get_context("fork").Lock()
        self.next = multiprocessing.get_context("fork").RawValue("q", 0)

    def take(self) -> tuple[int, int] | None:
        with self.lock:
            i = self.next.value
            if i >= self.count:
                return None
            self.next.value = i + 1
        start = self.lo + i * self.size
        return start, min(self.hi, start + self.size)


def expand_level(ex: Expander, lo: int, hi: int, deadlock: bool, first: int
                 ) -> tuple[Outcome, np.ndarray]:
    """As one process would: the level's outcome and the least discovery key of each new
    state (numbered from `first`). ex.jobs - 1 workers and the parent take chunks in turn;
    the parent inserts what the workers send, and expands a chunk itself when nothing waits."""
    rows = ex.store.keys[lo:hi].copy()  # what the workers see of the store
    chunks = Chunks(lo, hi, PARALLEL_CHUNK)
    workers: list[Worker] = []
    inbox: queue.Queue = queue.Queue(maxsize=QUEUED * ex.jobs)
    readers: list[threading.Thread] = []
    done: set[int] = set()  # starts of the chunks expanded
    try:
        for _ in range(ex.jobs - 1):
            workers.append(_fork(ex, rows, lo, chunks, deadlock))
        for w in workers:
            readers.append(threading.Thread(target=w.messages, args=(inbox,), daemon=True))
            readers[-1].start()
        out, sink = Outcome(), Fresh(ex.store, first)
        open_workers = len(workers)
        while open_workers:
            try:
                w, got = inbox.get_nowait()
            except queue.Empty:
                mine = chunks.take()
                if mine is None:
                    w, got = inbox.get()
                else:
                    block, keys = expand_chunk(ex, mine[0], mine[1], deadlock, out)
                    done.add(mine[0])
                    if block.shape[0]:
                        sink.add(block, keys)
                    continue
            if got is None:
                open_workers -= 1
                continue
            found, start, _, block, keys = got
            out.merge(found)
            done.add(start)
            if block.shape[0]:
                sink.add(block, keys)
        for start in range(lo, hi, PARALLEL_CHUNK):  # taken by a worker that gave up
            if start not in done:
                expand_range(ex, start, min(hi, start + PARALLEL_CHUNK), deadlock, out, sink)
        return out, sink.best
    finally:
        for w in workers:
            w.end()
        for t in readers:  # a reader may wait to put a chunk nobody takes any more
            while t.is_alive():
                try:
                    inbox.get(timeout=0.01)
                except queue.Empty:
                    pass
        for w in workers:
            w.close()


def _fork(ex: Expander, rows: np.ndarray, level_lo: int, chunks: Chunks, deadlock: bool
          ) -> Worker:
    r, w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(w)
        return Worker(pid, r)
    os.close(r)  # the worker: never returns
    gc.disable()  # a collection would touch (and so copy) every page of the parent's objects
    try:
        ex.store = LevelRows(rows, level_lo)  # type: ignore[assignment]
        _work(ex, chunks, deadlock, w)
    finally:
        os._exit(0)


def _work(ex: Expander, chunks: Chunks, deadlock: bool, fd: int) -> None:
    """Take chunks and send each while the network has learnt nothing new: the candidates
    this worker had not met before in the level, once each, with the least key (chunks are
    taken in order, so a candidate met again later has a greater key: its parent is later)."""
    before = fingerprint(ex)
    met = StateStore(ex.packing.words)
    try:
        while (taken := chunks.take()) is not None:
            start, stop = taken
            out = Outcome()
            block, keys = expand_chunk(ex, start, stop, deadlock, out)
            if fingerprint(ex) != before:
                return  # the parent expands the chunks taken and not sent
            first = met.n
            sid = met.insert(block)
            best = np.full(met.n - first, NO_KEY, dtype=np.int64)
            new = sid >= first
            np.minimum.at(best, sid[new] - first, keys[new])
            _send(fd, (out, start, stop), (met.keys[first:met.n], best))
    except BaseException:  # noqa: BLE001 - the parent redoes the rest and meets it itself
        return


def _send(fd: int, header: object, arrays: tuple[np.ndarray, ...]) -> None:
    arrays = tuple(np.ascontiguousarray(a) for a in arrays)
    blob = pickle.dumps((header, [(a.dtype.str, a.shape) for a in arrays]),
                        protocol=pickle.HIGHEST_PROTOCOL)
    _write(fd, struct.pack("<Q", len(blob)) + blob)
    for a in arrays:
        if a.nbytes:
            _write(fd, memoryview(a).cast("B"))


def _write(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view.nbytes:
        view = view[os.write(fd, view):]


def _receive(fd: int) -> tuple | None:
    """One chunk: (outcome, start, stop, rows, keys); None at the end of the pipe."""
    size = _read(fd, 8)
    if size is None:
        return None
    blob = _read(fd, struct.unpack("<Q", size)[0])
    if blob is None:
        return None
    (out, start, stop), specs = pickle.loads(blob)
    arrays = []
    for dtype, shape in specs:
        a = np.empty(shape, dtype=dtype)
        if a.nbytes and not _read_into(fd, memoryview(a).cast("B")):
            return None
        arrays.append(a)
    return out, start, stop, arrays[0], arrays[1]


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
