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
import select
import signal
import struct
import threading
from dataclasses import dataclass

import numpy as np

from fito.check.expand import Expander
from fito.check.level import Fresh, Outcome, expand_chunk, expand_range
from fito.check.visited import Provisional, RegionFull, StateStore

PARALLEL_MIN = 1 << 16   # rows of a level below which one process expands it
PARALLEL_CHUNK = 1 << 15  # rows taken at once by a process (smaller chunks share better)
REGIONS = 2               # the table's regions: the parent's and the worker's
PARENT, WORKER = 0, 1     # their regions
GROWTH = 4                # room made before a level: its rows times this, new states
QUEUED = 2               # chunks a worker may have in flight beyond the one being inserted


def available() -> bool:
    return hasattr(os, "fork")


def fingerprint(ex: Expander) -> tuple:
    """What a worker must not have learnt: the network's modes and each position's codes."""
    return (len(ex.c.network.modes),) + tuple(len(t) for t in ex.codebook.terms)


@dataclass(slots=True)
class Worker:
    """The forked worker: its process, the read end of its pipe and the write end of the
    pipe that forwards it the candidates of its regions."""

    pid: int
    fd: int
    forward: int

    def messages(self, into: queue.Queue) -> None:
        """Read the worker's messages into the queue, then None (on a reader thread)."""
        try:
            while (got := _receive(self.fd)) is not None:
                into.put(got)
        except (EOFError, OSError, pickle.UnpicklingError, ValueError):
            pass
        finally:
            into.put(None)

    def send(self, outbox: queue.Queue) -> None:
        """Forward what the parent puts in the outbox, until None (on a writer thread)."""
        try:
            while (item := outbox.get()) is not None:
                _send(self.forward, ("rows",), item)
        except OSError:
            pass
        finally:
            self.close_forward()

    def close_forward(self) -> None:
        if self.forward >= 0:
            os.close(self.forward)
            self.forward = -1

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
    state (numbered from `first`, in any order: the search renumbers them)."""
    store = ex.store
    if store.regions != REGIONS:
        store.partition(REGIONS)
    store.room(first + GROWTH * (hi - lo))
    got = _together(ex, store, lo, hi, deadlock, first)
    if got is not None:
        return got
    store.truncate(first)  # the worker gave up: the parent expands the level alone
    out, sink = Outcome(), Fresh(store, first)
    expand_range(ex, lo, hi, deadlock, out, sink)
    return out, sink.best


def _together(ex: Expander, store: StateStore, lo: int, hi: int, deadlock: bool,
              first: int) -> tuple[Outcome, np.ndarray] | None:
    """The level expanded by the parent and a worker (None if the worker gave up)."""
    chunks = Chunks(lo, hi, PARALLEL_CHUNK)
    inbox: queue.Queue = queue.Queue()
    outbox: queue.Queue = queue.Queue()
    worker = _fork(ex, chunks, deadlock, first)
    threads = [threading.Thread(target=worker.messages, args=(inbox,), daemon=True),
               threading.Thread(target=worker.send, args=(outbox,), daemon=True)]
    for t in threads:
        t.start()
    mine, out = Provisional(store.words, first), Outcome()
    theirs, closed = None, False
    try:
        while theirs is None:
            try:
                msg = inbox.get_nowait()
            except queue.Empty:
                taken = None if closed else chunks.take()
                if taken is not None:
                    block, disc = expand_chunk(ex, taken[0], taken[1], deadlock, out)
                    _route(store, block, disc, mine, outbox, PARENT)
                    continue
                if not closed:
                    outbox.put(None)  # every chunk is taken: the worker may finish
                    closed = True
                msg = inbox.get()
            if msg is None or msg[0][0] == "abort":
                return None
            (kind, *rest), arrays = msg
            if kind == "chunk":
                out.merge(rest[0])
                store.insert_owned(*arrays, mine)
            elif kind == "new":
                theirs = arrays
    except RegionFull:
        return None
    finally:
        outbox.put(None)
        worker.end()
        for t in threads:
            t.join()
        worker.close()
    rows = [*mine.taken(), *theirs]
    store.adopt(first, np.concatenate((rows[0], rows[3])), np.concatenate((rows[2], rows[5])))
    return out, np.concatenate((rows[1], rows[4]))


def _route(store: StateStore, block: np.ndarray, disc: np.ndarray, mine: Provisional,
           outbox: queue.Queue | None, me: int) -> tuple | None:
    """Insert the candidates of this process's region; the others' go to the outbox (or
    are returned when there is none)."""
    if not block.shape[0]:
        return None
    slots = store.home(block)
    ours = store.region(slots) == me
    store.insert_owned(block[ours], disc[ours], slots[ours], mine)
    theirs = ~ours
    item = (block[theirs], disc[theirs], slots[theirs])
    if outbox is not None:
        outbox.put(item)
        return None
    return item


def _fork(ex: Expander, chunks: Chunks, deadlock: bool, first: int) -> Worker:
    r, w = os.pipe()
    fr, fw = os.pipe()
    pid = os.fork()
    if pid:
        os.close(w)
        os.close(fr)
        return Worker(pid, r, fw)
    os.close(r)  # the worker: never returns
    os.close(fw)
    gc.disable()  # a collection would touch (and so copy) every page of the parent's objects
    try:
        _work(ex, chunks, deadlock, first, w, fr)
    finally:
        os._exit(0)


def _work(ex: Expander, chunks: Chunks, deadlock: bool, first: int, fd: int,
          forwarded: int) -> None:
    """Take chunks while the network has learnt nothing new: insert the candidates of the
    worker's region, send the others to the parent; then insert what the parent forwards;
    then send the level's new states of the region."""
    before = fingerprint(ex)
    store = ex.store
    mine = Provisional(store.words, first)
    try:
        while (taken := chunks.take()) is not None:
            while select.select([forwarded], [], [], 0)[0]:  # what the parent forwarded
                got = _receive(forwarded)
                if got is None:
                    break
                store.insert_owned(*got[1], mine)
            out = Outcome()
            block, disc = expand_chunk(ex, taken[0], taken[1], deadlock, out)
            if fingerprint(ex) != before:  # a code the parent lacks: give the level up
                _send(fd, ("abort",), ())
                return
            item = _route(store, block, disc, mine, None, WORKER)
            _send(fd, ("chunk", out), item or _empty(store.words))
        while (got := _receive(forwarded)) is not None:
            store.insert_owned(*got[1], mine)
        _send(fd, ("new",), mine.taken())
    except BaseException:  # noqa: BLE001 - the parent expands the level alone
        try:
            _send(fd, ("abort",), ())
        except OSError:
            pass


def _empty(words: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.zeros((0, words), np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64))


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


def _receive(fd: int) -> tuple[tuple, list[np.ndarray]] | None:
    """One message: (header, arrays); None at the end of the pipe."""
    size = _read(fd, 8)
    if size is None:
        return None
    blob = _read(fd, struct.unpack("<Q", size)[0])
    if blob is None:
        return None
    header, specs = pickle.loads(blob)
    arrays = []
    for dtype, shape in specs:
        a = np.empty(shape, dtype=dtype)
        if a.nbytes and not _read_into(fd, memoryview(a).cast("B")):
            return None
        arrays.append(a)
    return header, arrays


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
