"""Checkpoints of a torch.distributed job: every rank writes its shards, one global commit.

Paper A's claim 5, bilateral convergence instead of a snapshot, between ranks:
1. tentative: every rank writes its domains of epoch e as shards `shards/<d>@<rank>/...`,
   each durable (temporary name, fsync, rename, directory fsync), keeping e - 1;
2. reflection: once all its shards are durable, and only then, a rank reports their
   records (file, size, SHA-256) to the others (an all_gather on the writer's own process
   group); a rank that failed reports its error instead;
3. commit: the coordinator writes the commit manifest of e, naming every rank's shards,
   only after every rank's reflection, then tells every rank (a broadcast); `save` returns
   on any rank only then, and old epochs are collected only after it;
4. recovery: `restore_distributed` takes e on every rank if its manifest is intact and
   every rank's shards verify, else an older epoch on every rank: each rank verifies its
   own shards, and the ranks agree (an all_gather of their verdicts) before any returns.
`specs/runtime_commit.fito` model-checks the protocol with a crash at every point.
torch is imported only when this module's functions are called.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from fito.runtime import commit, layout
from fito.runtime.commit import Encoded
from fito.runtime.layout import CheckpointError, rank_domain, split_rank
from fito.runtime.manifest import Manifest, ShardRecord
from fito.runtime.reader import (
    NoConsistentEpoch,
    NothingToRestore,
    Restored,
    load_epoch,
    with_uncommitted,
)
from fito.runtime.verify import Skip, read_manifest
from fito.runtime.writer import AsyncWriterBase, check_keep


def _dist() -> Any:
    import torch.distributed as dist  # lazy-import: torch is optional and slow to load

    if not dist.is_available() or not dist.is_initialized():
        raise CheckpointError("torch.distributed is not initialized (init_process_group)")
    return dist


class Collective:
    """The few collectives the protocol needs, on one process group, coordinator rank 0."""

    def __init__(self, group: Any = None) -> None:
        self.dist = _dist()
        self.group = group if group is not None else self.dist.group.WORLD
        self.rank = self.dist.get_rank(self.group)
        self.size = self.dist.get_world_size(self.group)
        self._root = self.dist.get_global_rank(self.group, 0)

    @property
    def is_coordinator(self) -> bool:
        return self.rank == 0

    def all_gather(self, value: Any) -> list[Any]:
        out: list[Any] = [None] * self.size
        self.dist.all_gather_object(out, value, group=self.group)
        return out

    def broadcast(self, value: Any) -> Any:
        box = [value]
        self.dist.broadcast_object_list(box, src=self._root, group=self.group)
        return box[0]


class DistributedCheckpointWriter(AsyncWriterBase):
    """Every rank of a torch.distributed job calls `save` (or `async_save`), collectively,
    with its own domains; the coordinator (rank 0 of the group) commits once every rank's
    shards are durable, and every rank's save returns (its future completes) only then, or
    raises a CheckpointError on every rank if any rank failed. The collectives run on a
    process group of the writer's own (gloo, created here on every rank, unless `group` is
    given), so that an asynchronous save never interleaves with training's collectives."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        keep: int = 2,
        resume_from: int | None = None,
        group: Any = None,
        torch_crc32: bool = False,
    ) -> None:
        """Collective: every rank constructs it, with the same arguments."""
        self.keep, self.root, self.torch_crc32 = check_keep(keep), Path(root), torch_crc32
        dist = _dist()
        self._comm = Collective(group if group is not None else dist.new_group(backend="gloo"))
        self.rank, self.world_size = self._comm.rank, self._comm.size
        self._lock_fd: int | None = None
        self._closed = False
        outcome: tuple[str | None, int | None] = (None, None)
        if self._comm.is_coordinator:
            try:
                self._lock_fd = commit.open_root(self.root)
                outcome = (None, commit.resume(self.root, resume_from, self.keep))
            except (CheckpointError, OSError) as exc:
                outcome = (str(exc), None)
        error, self._newest = self._comm.broadcast(outcome)  # the supersede is done now
        if error is not None:
            self._release()
            raise CheckpointError(error)
        self._init_async()

    def _job(
        self, epoch: int, states: Mapping[str, Any], chosen: Any, metadata: Any
    ) -> tuple[Encoded, dict[str, Any], str | None]:
        """The encoded shards, or this rank's error: it is reported at the reflection, so
        that every rank still meets every collective and fails together."""
        try:
            encoded, meta = self._prepare(
                epoch, states, chosen, metadata, stored=lambda d: rank_domain(d, self.rank)
            )
            return encoded, meta, None
        except CheckpointError as exc:
            return {}, {}, str(exc)

    def _write(self, epoch: int, *job: Any) -> Manifest:
        """Collective: write this rank's shards, reflect, and return once the coordinator's
        commit is durable; CheckpointError on every rank if any rank failed."""
        encoded, meta, error = job
        reflected: tuple[ShardRecord, ...] | str = error or ()
        if error is None:
            try:
                reflected = commit.write_shards(self.root, epoch, encoded)  # durable
            except (CheckpointError, OSError) as exc:
                reflected = str(exc)
        reflections = self._comm.all_gather(reflected)
        failed = [f"rank {r}: {x}" for r, x in enumerate(reflections) if isinstance(x, str)]
        records = tuple(
            sorted(
                (rec for x in reflections if not isinstance(x, str) for rec in x),
                key=lambda rec: rec.domain,
            )
        )
        manifest = Manifest(epoch, records, MappingProxyType(meta))
        verdict = "; ".join(failed) or None
        if verdict is None and self._comm.is_coordinator:
            verdict = self._commit(manifest)
        verdict = self._comm.broadcast(verdict)
        if verdict is not None:
            commit.discard_epoch(self.root, epoch, encoded, manifest=False)
            raise CheckpointError(f"epoch {epoch} was not committed: {verdict}")
        self._newest = epoch
        if self._comm.is_coordinator:
            commit.collect_after(self.root, epoch, self.keep)
        return manifest

    def _commit(self, manifest: Manifest) -> str | None:
        """The coordinator's commit, after every rank's reflection; its error, if any."""
        try:
            commit.commit(self.root, manifest)
        except (CheckpointError, OSError) as exc:
            return f"commit: {exc}"
        return None


def restore_distributed(
    root: str | os.PathLike[str],
    *,
    domains: Iterable[str] | None = None,
    group: Any = None,
    map_location: Any = None,
) -> Restored:
    """Collective: the newest epoch committed by a job of this world size whose every rank's
    shards verify, the same epoch on every rank; `states` holds this rank's domains (named
    without their `@rank`). NoConsistentEpoch on every rank when there is none."""
    comm = Collective(group)
    if comm.broadcast(layout.is_first_run(root) if comm.is_coordinator else None):
        raise NothingToRestore(Path(root))
    path = layout.checkpoint_dir(root)
    wanted = tuple(layout.check_domain(d) for d in domains) if domains is not None else None
    candidates = comm.broadcast(layout.manifest_epochs(path) if comm.is_coordinator else None)
    skipped: list[Skip] = []
    for e in reversed(candidates):
        states, manifest, problems, error = _verify_own(path, e, comm, wanted, map_location)
        verdicts = comm.all_gather((states is not None, problems, error))
        errors = sorted({err for _, _, err in verdicts if err})
        if errors:
            raise CheckpointError("; ".join(errors))
        if all(ok for ok, _, _ in verdicts):
            assert states is not None and manifest is not None
            return Restored(
                e, MappingProxyType(states), manifest, with_uncommitted(path, skipped, e, None)
            )
        found = (p for _, problems, _ in verdicts for p in problems)  # a torn manifest: once
        skipped.extend(p for p in dict.fromkeys(found) if p not in skipped)
    refused = with_uncommitted(path, skipped, -1, None)
    if not refused and not candidates:
        raise NothingToRestore(path)
    raise NoConsistentEpoch(path, refused)


def _verify_own(
    path: Path, epoch: int, comm: Collective, wanted: tuple[str, ...] | None, map_location: Any
) -> tuple[dict[str, Any] | None, Manifest | None, list[Skip], str | None]:
    """This rank's part of epoch: (its states or None, the manifest, problems, an error
    that is not the epoch's fault: the epoch was saved by another number of ranks)."""
    manifest, problems = read_manifest(path, epoch)
    if manifest is None:
        return None, None, problems, None
    ranks = {split_rank(d)[1] for d in manifest.domains}
    if ranks != set(range(comm.size)):
        held = sorted(r for r in ranks if r is not None)
        return (
            None,
            manifest,
            [],
            (
                f"epoch {epoch} in {path} was saved by ranks {held or 'none'}"
                f", not by the {comm.size} ranks of this job"
            ),
        )
    own = {d for d in manifest.domains if split_rank(d)[1] == comm.rank}
    required = tuple(rank_domain(d, comm.rank) for d in wanted) if wanted is not None else ()
    _, states, problems = load_epoch(path, epoch, required, map_location, only=own)
    if states is None:
        return None, manifest, problems, None
    return {split_rank(d)[0]: v for d, v in states.items()}, manifest, [], None
