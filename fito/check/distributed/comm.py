"""The ranks of an MPI run, as the distributed search uses them (mpi4py, the `[mpi]` extra).

`world()` is the communicator of every rank (MPI.COMM_WORLD); without mpiexec it is a run
of one rank. `exchange` sends every row of a block to the rank a destination array names,
with one `Alltoallv` per array on the raw numpy buffers (no pickling); `reply` sends values
back to where the received rows came from. Only small values (verdict candidates, flags)
go through mpi4py's pickling collectives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fito.semantics.packed import hash_rows

OWNER_SHIFT = np.uint64(40)  # the owner comes from high bits: the visited table uses the low


def load() -> Any:
    """mpi4py's MPI module, or None when mpi4py (or its MPI library) is not installed."""
    try:
        from mpi4py import MPI  # lazy-import: the optional [mpi] extra; starts MPI
    except ImportError:
        return None
    return MPI


def available() -> bool:
    """Whether the distributed search can run here (mpi4py imports)."""
    return load() is not None


def world() -> Any:
    """The communicator of every rank of this run."""
    MPI = load()
    if MPI is None:
        raise RuntimeError("mpi4py is not installed")  # the command line checks first
    return MPI.COMM_WORLD


def owners(packing: Any, rows: np.ndarray, ranks: int, positions: int) -> np.ndarray:
    """The rank that owns each packed row: the high bits of `hash_rows` of the row's field
    values (the store, the mode, and the location and region of the first `positions`
    positions) modulo the ranks. Field values, not words: widening the fields re-packs the
    rows but leaves every state with its owner."""
    if ranks == 1:
        return np.zeros(rows.shape[0], dtype=np.int64)
    fields = packing.fields
    picked = list(range(packing.cells + 1))
    picked += [packing.cells + 1 + p for p in range(positions)]
    base = packing.cells + 1 + packing.positions
    picked += [
        base + p * packing.region + j for p in range(positions) for j in range(packing.region)
    ]
    values = np.empty((rows.shape[0], max(1, len(picked))), dtype=np.uint64)
    values[:, 0] = 0
    for k, at in enumerate(picked):
        f = fields[at]
        values[:, k] = (rows[:, f.word] >> np.uint64(f.shift)) & np.uint64(f.mask)
    return ((hash_rows(values) >> OWNER_SHIFT) % np.uint64(ranks)).astype(np.int64)


@dataclass(slots=True)
class Sent:
    """How an exchange was routed: the order rows were sent in, and the counts each way
    (kept so that `reply` can send answers back)."""

    order: np.ndarray
    sent: np.ndarray
    received: np.ndarray
    bytes: int = 0  # sent to other ranks (a rank's rows for itself stay in memory)


def _mpi_type(a: np.ndarray) -> Any:
    MPI = load()
    return {np.dtype(np.uint64): MPI.UINT64_T, np.dtype(np.int64): MPI.INT64_T}[a.dtype]


def _alltoallv(comm: Any, data: np.ndarray, sent: np.ndarray, received: np.ndarray) -> np.ndarray:
    """One Alltoallv of a contiguous 1-d or 2-d array, counts in rows."""
    width = 1 if data.ndim == 1 else data.shape[1]
    out = np.empty((int(received.sum()),) + data.shape[1:], dtype=data.dtype)
    scounts, rcounts = sent * width, received * width
    sdispl = np.concatenate(([0], np.cumsum(scounts)[:-1])).astype(np.int64)
    rdispl = np.concatenate(([0], np.cumsum(rcounts)[:-1])).astype(np.int64)
    kind = _mpi_type(data)
    comm.Alltoallv(
        [np.ascontiguousarray(data).reshape(-1), scounts, sdispl, kind],
        [out.reshape(-1), rcounts, rdispl, kind],
    )
    return out


def exchange(
    comm: Any, dest: np.ndarray, arrays: list[np.ndarray]
) -> tuple[list[np.ndarray], np.ndarray, Sent]:
    """Send row i of every array to rank dest[i]: the rows received (grouped by source rank,
    in the order each source sent them), the source of each, and the routing."""
    ranks = comm.Get_size()
    order = np.argsort(dest, kind="stable")
    sent = np.bincount(dest, minlength=ranks).astype(np.int64)
    received = np.empty(ranks, dtype=np.int64)
    comm.Alltoall(sent, received)
    route = Sent(order, sent, received)
    out = []
    away = int(sent.sum() - sent[int(comm.Get_rank())])  # rows for other ranks
    for a in arrays:
        data = a[order]
        route.bytes += away * (data.itemsize * (1 if data.ndim == 1 else data.shape[1]))
        out.append(_alltoallv(comm, data, sent, received))
    source = np.repeat(np.arange(ranks, dtype=np.int64), received)
    return out, source, route


def reply(comm: Any, route: Sent, values: np.ndarray) -> np.ndarray:
    """Send one value per received row back to its sender: the values in the sender's
    original row order."""
    back = _alltoallv(comm, values, route.received, route.sent)
    out = np.empty_like(back)
    out[route.order] = back
    return out


def gather_rows(comm: Any, rows: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
    """Every rank's rows, in rank order, on every rank (Allgatherv), and where this rank's
    lie in them."""
    counts = np.array(comm.allgather(int(rows.shape[0])), dtype=np.int64)
    width = rows.shape[1]
    out = np.empty((int(counts.sum()), width), dtype=rows.dtype)
    displ = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    kind = _mpi_type(rows)
    comm.Allgatherv(
        [np.ascontiguousarray(rows).reshape(-1), kind],
        [out.reshape(-1), counts * width, displ * width, kind],
    )
    me = int(comm.Get_rank())
    return out, (int(displ[me]), int(displ[me] + counts[me]))
