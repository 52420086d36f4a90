"""Expanding a frontier level on several cores (`--jobs N`): forked worker processes.

With N jobs, the visited store's hash table is cut into R regions (R the largest power of
two not above N), in memory shared with forked processes (fito/check/frontier/visited.py,
`partition`); a state belongs to the region of its home slot. At the start of a large level
the search forks R - 1 workers, each an exact copy of the search at that moment (compiled
groups, codebook, visited keys), and owning one region; the parent owns region 0. The
level's chunks are handed out one at a time (`Chunks`, a counter shared by the processes).
Each process expands the chunks it takes and inserts the candidates of its own region into
the shared table; a new state gets a provisional handle and is kept, with its least
discovery key and slot, by the process that found it (`Provisional`). Candidates of other
regions go to their owners: a worker sends them to the parent, with what the chunk showed
(transitions, errors, the first deadlock), and the parent inserts those of its region and
forwards the rest. When every chunk is done and forwarded, each worker sends its new
states, and the parent numbers them all (`StateStore.adopt`). The search renumbers the
level's new states by discovery key afterwards, so verdicts, state counts, numbering and
counterexamples are the same for every N.

A worker's chunk is used only if its copy of the network had learnt nothing new when the
chunk was done: a location or a mode first met by a worker would get a code the parent does
not know. When it had, when a region fills, or when a worker fails in any way (a model error
is not a failure: errors are noted as on one core), the level is given back to the parent,
which forgets the level's inserts and expands it alone. Workers are forked per level; the
interpreter lock of one process never serialises another. Without `os.fork` (Windows),
every level runs in one process.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import queue
import select
import signal
import struct
import threading
from dataclasses import dataclass

import numpy as np

from fito.check.frontier.expand import Expander
from fito.check.frontier.level import Fresh, Outcome, expand_chunk, expand_range
from fito.check.frontier.visited import Provisional, RegionFull, StateStore

PARALLEL_MIN = 1 << 16  # rows of a level below which one process expands it
PARALLEL_CHUNK = 1 << 15  # rows taken at once by a process (smaller chunks share better)
PARENT = 0  # the parent's region of the table
GROWTH = 4  # room made before a level: its rows times this, new states
QUEUED = 2  # chunks a worker may have in flight beyond the one being inserted


def available() -> bool:
    return hasattr(os, "fork")


def fingerprint(ex: Expander) -> tuple:
    """What a worker must not have learnt: the network's modes and each position's codes."""
    return ex.packed.fingerprint()


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


def regions_for(jobs: int) -> int:
    """Processes of a parallel level: the largest power of two not above jobs (the table's
    regions, one per process)."""
    return 1 << (max(2, jobs).bit_length() - 1)


def expand_level(
    ex: Expander, lo: int, hi: int, deadlock: bool, first: int
) -> tuple[Outcome, np.ndarray]:
    """As one process would: the level's outcome and the least discovery key of each new
    state (numbered from `first`, in any order: the search renumbers them)."""
    store = ex.store
    regions = regions_for(ex.jobs)
    if store.regions != regions:
        store.partition(regions)
    store.room(first + GROWTH * (hi - lo))
    got = _together(ex, store, lo, hi, deadlock, first)
    if got is not None:
        return got
    store.truncate(first)  # a worker gave up: the parent expands the level alone
    out, sink = Outcome(), Fresh(store, first)
    expand_range(ex, lo, hi, deadlock, out, sink)
    return out, sink.best


def _together(
    ex: Expander, store: StateStore, lo: int, hi: int, deadlock: bool, first: int
) -> tuple[Outcome, np.ndarray] | None:
    """The level expanded by the parent (region 0) and a worker per other region (None if
    a worker gave up). Workers send the candidates of other regions to the parent, which
    inserts those of its region and forwards the rest to their owners."""
    chunks = Chunks(lo, hi, PARALLEL_CHUNK)
    inbox: queue.Queue = queue.Queue()
    outboxes: list[queue.Queue] = [queue.Queue() for _ in range(store.regions)]
    workers: list[Worker] = []
    threads: list[threading.Thread] = []
    mine, out = Provisional(store.words, first), Outcome()
    theirs: list = []
    try:
        for region in range(1, store.regions):
            workers.append(_fork(ex, chunks, deadlock, first, region))
            w = workers[-1]
            threads += [
                threading.Thread(target=w.messages, args=(inbox,), daemon=True),
                threading.Thread(target=w.send, args=(outboxes[region],), daemon=True),
            ]
            threads[-2].start()
            threads[-1].start()
        taking, busy, closed = True, len(workers), False  # busy: workers taking chunks
        while len(theirs) < len(workers):
            if not taking and not busy and not closed:
                for box in outboxes[1:]:
                    box.put(None)  # nothing more comes for any worker: they may finish
                closed = True
            try:
                msg = inbox.get_nowait()
            except queue.Empty:
                taken = chunks.take() if taking else None
                if taken is not None:
                    block, disc = expand_chunk(ex, taken[0], taken[1], deadlock, out)
                    _deal(store, block, disc, store.home(block), mine, outboxes)
                    continue
                if taking:
                    taking = False
                    continue  # once more round: the workers may be told to finish
                msg = inbox.get()
            if msg is None or msg[0][0] == "abort":
                return None
            (kind, *rest), arrays = msg
            if kind == "chunk":
                out.merge(rest[0])
                _deal(store, *arrays, mine, outboxes)
            elif kind == "taken":
                busy -= 1
            elif kind == "new":
                theirs.append(arrays)
    except (RegionFull, OSError):  # a region filled; no fork or pipe to be had
        return None
    finally:
        for box in outboxes[1:]:
            box.put(None)
        for w in workers:
            w.end()
        for t in threads:
            t.join()
        for w in workers:
            w.close()
    parts = [mine.taken()] + [tuple(t) for t in theirs]
    store.adopt(first, np.concatenate([p[0] for p in parts]), np.concatenate([p[2] for p in parts]))
    return out, np.concatenate([p[1] for p in parts])


def _deal(
    store: StateStore,
    block: np.ndarray,
    disc: np.ndarray,
    slots: np.ndarray,
    mine: Provisional,
    outboxes: list,
) -> None:
    """The parent's share of candidates: insert those of region 0, forward each other
    region's to its worker."""
    if not block.shape[0]:
        return
    region = store.region(slots)
    for r in range(store.regions):
        here = region == r
        if not here.any():
            continue
        if r == PARENT:
            store.insert_owned(block[here], disc[here], slots[here], mine)
        else:
            outboxes[r].put((block[here], disc[here], slots[here]))


def _route(
    store: StateStore, block: np.ndarray, disc: np.ndarray, mine: Provisional, me: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A worker's candidates: insert those of its own region, return the others."""
    slots = store.home(block)
    ours = store.region(slots) == me
    store.insert_owned(block[ours], disc[ours], slots[ours], mine)
    theirs = ~ours
    return block[theirs], disc[theirs], slots[theirs]


def _fork(ex: Expander, chunks: Chunks, deadlock: bool, first: int, region: int) -> Worker:
    r, w = os.pipe()
    fr, fw = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (r, w, fr, fw):
            os.close(fd)
        raise
    if pid:
        os.close(w)
        os.close(fr)
        return Worker(pid, r, fw)
    os.close(r)  # the worker: never returns
    os.close(fw)
    gc.disable()  # a collection would touch (and so copy) every page of the parent's objects
    try:
        _work(ex, chunks, deadlock, first, region, w, fr)
    finally:
        os._exit(0)


def _work(
    ex: Expander, chunks: Chunks, deadlock: bool, first: int, region: int, fd: int, forwarded: int
) -> None:
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
            _send(fd, ("chunk", out), _route(store, block, disc, mine, region))
        _send(fd, ("taken",), ())
        while (got := _receive(forwarded)) is not None:
            store.insert_owned(*got[1], mine)
        _send(fd, ("new",), mine.taken())
    except BaseException:  # noqa: BLE001 - the parent expands the level alone
        try:
            _send(fd, ("abort",), ())
        except OSError:
            pass


def _send(fd: int, header: object, arrays: tuple[np.ndarray, ...]) -> None:
    arrays = tuple(np.ascontiguousarray(a) for a in arrays)
    blob = pickle.dumps(
        (header, [(a.dtype.str, a.shape) for a in arrays]), protocol=pickle.HIGHEST_PROTOCOL
    )
    _write(fd, struct.pack("<Q", len(blob)) + blob)
    for a in arrays:
        if a.nbytes:
            _write(fd, memoryview(a).cast("B"))


def _write(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view.nbytes:
        view = view[os.write(fd, view) :]


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
