"""FITOL006 commit-before-barrier: a rank-0-only commit or done marker written with no
barrier after the other ranks' shards.

Every rank writes its shard; rank 0 writes the marker as soon as its own shard is written,
while the other ranks may still be writing theirs. A crash then leaves a step marked complete
whose shards are missing or torn: the commit certifies an epoch that was never converged.
"""

from __future__ import annotations

from fito.lint.events import Barrier, Event, Rename, Trace
from fito.lint.rules.common import (
    Finding,
    Protocol,
    first_after,
    frame_site,
    is_marker,
    is_rank_shard,
    line,
    saves_of,
    shown,
)
from fito.lint.values import INFERRED, UNKNOWN, Value

CODE = "FITOL006"
HINT = (
    "call torch.distributed.barrier() after the shard saves and before rank 0 writes the "
    "marker, so that it is written only once every rank's shard is; fito.runtime writes "
    "its commit manifest only after every shard is durable"
)
Analysis = tuple[Finding | None, Protocol, int]


def check(trace: Trace) -> list[Finding]:
    return [f for f, _, _ in analyse(trace) if f is not None]


def analyse(trace: Trace) -> list[Analysis]:
    shards = [(i, s) for i, s in saves_of(trace) if is_rank_shard(s)]
    out: list[Analysis] = []
    seen: set[int] = set()
    for i, shard in shards:
        j = first_after(
            trace,
            i,
            shard,
            lambda e, shard=shard: is_marker(e, [shard]) and not _marker_path(e).is_rank_dependent,
        )
        if j is not None and INFERRED in _marker_path(trace.events[j]).flags:
            continue  # a call of another module named like a commit: its barrier is not seen
        if j is None or j in seen:
            continue
        seen.add(j)
        marker = trace.events[j]
        barrier = first_after(trace, i, shard, _all_ranks_barrier, stop=j)
        protocol = Protocol(
            True, ("shard",), shard.path.is_versioned, True, barrier=barrier is not None
        )
        if barrier is not None:
            out.append((None, protocol, line(marker.site)))
            continue
        who = "rank 0 writes" if marker.ctx.rank0 else "the first rank to get here writes"
        notes = (
            f"line {line(frame_site(shard, [marker]))} runs on "
            f"{'one rank of each parallel group' if shard.ctx.subset else 'every rank'} "
            f"and saves its shard to {shown(shard.path)}",
            f"{who} the marker while the other ranks may still be saving; a crash then "
            "leaves a step marked complete with missing or torn shards",
        )
        message = (
            f"{'rank 0' if marker.ctx.rank0 else 'every rank'} writes the commit "
            "marker with no barrier after the other ranks' shards"
        )
        out.append(
            (
                Finding(CODE, marker.site, message, notes, HINT, protocol),
                protocol,
                line(marker.site),
            )
        )
    return out


def _all_ranks_barrier(e: Event) -> bool:
    """A barrier every rank reaches: one under `if rank == 0:` (or a group's rank 0) does
    not order the other ranks' shards before anything."""
    return isinstance(e, Barrier) and not e.ctx.rank0 and not e.ctx.subset


def _marker_path(e: Event) -> Value:
    """The name a marker event writes: a write's or save's path, a rename's destination."""
    if isinstance(e, Rename):
        return e.dst
    return getattr(e, "path", UNKNOWN)
