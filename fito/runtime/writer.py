"""The checkpoint writer: one shard per domain, each durable before the commit manifest.

`save(epoch, states)` writes, for every domain in name order, `shards/<d>/e<epoch>.shard`
through a temporary name (write, fsync, rename, fsync the directory), then the commit
manifest `commits/e<epoch>.json` the same way, last. Only then are old epochs collected,
keeping the `keep` newest commits. One writer per directory (an exclusive flock).
"""
from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import MappingProxyType
from typing import Any, Self

from fito.runtime import codec as codecs
from fito.runtime import layout
from fito.runtime.durable import Staged, fsync_dir, make_dir, seal, stage, unlink, write_durably
from fito.runtime.layout import CheckpointError
from fito.runtime.manifest import Manifest, ShardRecord, canonical, dump_manifest


class CheckpointWriter:
    """Writes epochs of several persistence domains into one checkpoint directory."""

    def __init__(self, root: str | os.PathLike[str], *, keep: int = 2,
                 resume_from: int | None = None, torch_crc32: bool = False) -> None:
        """resume_from: the epoch training resumed from (as `restore` returned it): newer
        commits are superseded and removed, and old epochs beyond `keep` collected.
        torch_crc32: keep torch.save's per-record CRC32 (redundant with each shard's SHA-256,
        and costly: off by default, for the duration of each torch.save)."""
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise CheckpointError(f"keep must be an integer >= 1, not {keep!r}")
        self.root = Path(root)
        self.keep = keep
        self.torch_crc32 = torch_crc32
        self._lock_fd: int | None = _open_root(self.root)
        if resume_from is not None:
            self._supersede_after(layout.check_epoch(resume_from))
        epochs = layout.manifest_epochs(self.root)
        self._newest: int | None = epochs[-1] if epochs else None
        if resume_from is not None and resume_from in epochs:
            self._collect(resume_from)  # finish a collection a crash interrupted

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the directory lock."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    @property
    def newest_commit(self) -> int | None:
        """The newest epoch with a commit manifest (written by this writer or found)."""
        return self._newest

    def save(self, epoch: int, states: Mapping[str, Any], *,
             codecs_by_domain: Mapping[str, str] | None = None,
             metadata: Mapping[str, Any] | None = None) -> Manifest:
        """Write one shard per domain, then commit epoch; returns the manifest once durable."""
        self._check_save(epoch, states)
        meta = dict(metadata or {})
        try:
            canonical(meta)
        except (TypeError, ValueError) as exc:
            raise CheckpointError(f"metadata must be plain JSON: {exc}") from None
        records = self._write_shards(epoch, states, dict(codecs_by_domain or {}))
        manifest = Manifest(epoch, records, MappingProxyType(meta))
        data = dump_manifest(manifest)
        write_durably(self.root / layout.manifest_relpath(epoch), lambda sink: sink.write(data))
        self._newest = epoch
        self._collect(epoch)
        return manifest

    def _check_save(self, epoch: int, states: Mapping[str, Any]) -> None:
        if self._lock_fd is None:
            raise CheckpointError("the writer is closed")
        layout.check_epoch(epoch)
        if not states:
            raise CheckpointError("nothing to save: give at least one domain")
        for d in states:
            layout.check_domain(d)
        if self._newest is not None and epoch <= self._newest:
            raise CheckpointError(
                f"epoch {epoch} is not newer than the committed epoch {self._newest} in "
                f"{self.root}; to go back, open the writer with resume_from=<epoch>")

    def _write_shards(self, epoch: int, states: Mapping[str, Any],
                      chosen: Mapping[str, str]) -> tuple[ShardRecord, ...]:
        """Write every domain's shard; each is sealed (hashed while fsynced, renamed, its
        directory fsynced) on a worker thread while the next one is being written."""
        # every domain is encoded (and refused if it cannot be stored) before any write
        encoded = {d: codecs.encoder(states[d], chosen.get(d), torch_crc32=self.torch_crc32)
                   for d in sorted(states)}
        sealing = []
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="fito-seal") as pool:
            for domain, (codec, payload) in encoded.items():
                staged = self._stage_shard(domain, epoch, codec, payload)
                sealing.append((domain, codec, pool.submit(seal, staged)))
            sealed = [(d, codec, future.result()) for d, codec, future in sealing]
        return tuple(ShardRecord(d, epoch, layout.shard_relpath(d, epoch), digest, size, codec)
                     for d, codec, (digest, size) in sealed)

    def _stage_shard(self, domain: str, epoch: int, codec: str,
                     write_payload: Callable[[Any], None]) -> Staged:
        folder = self.root / layout.SHARDS / domain
        if not folder.is_dir():
            make_dir(folder)
        head = codecs.header_bytes(codecs.ShardHeader(domain, epoch, codec))

        def produce(sink: Any) -> None:
            sink.write(head)
            write_payload(sink)

        return stage(self.root / layout.shard_relpath(domain, epoch), produce)

    def _collect(self, committed: int) -> None:
        """Drop commits beyond the `keep` newest, then shards no kept commit names."""
        epochs = [e for e in layout.manifest_epochs(self.root) if e <= committed]
        dropped = epochs[:-self.keep]
        for e in dropped:
            unlink(self.root / layout.manifest_relpath(e))
        if dropped:
            fsync_dir(self.root / layout.COMMITS)
        kept = set(epochs[-self.keep:])
        # no directory fsync: should a deletion be undone by a power loss, the old shard is
        # garbage again, named by no kept commit, and collected after the next one
        self._remove_shards(lambda e: e <= committed and e not in kept, durably=False)

    def _supersede_after(self, epoch: int) -> None:
        """Remove commits newer than epoch (durably), then their shards: a new timeline."""
        newer = [e for e in layout.manifest_epochs(self.root) if e > epoch]
        for e in newer:
            unlink(self.root / layout.manifest_relpath(e))
        if newer:
            fsync_dir(self.root / layout.COMMITS)
        self._remove_shards(lambda e: e > epoch, durably=True)

    def _remove_shards(self, is_garbage: Callable[[int], bool], durably: bool) -> None:
        for tmp in layout.temp_files(self.root):
            unlink(tmp)
        touched = set()
        for domain in layout.shard_domains(self.root):
            for e in layout.shard_epochs(self.root, domain):
                if is_garbage(e):
                    unlink(self.root / layout.shard_relpath(domain, e))
                    touched.add(domain)
        for domain in sorted(touched) if durably else ():
            fsync_dir(self.root / layout.SHARDS / domain)


def _open_root(root: Path) -> int:
    """Create the directory layout (durably) and take the writer's exclusive lock."""
    if root.exists() and not root.is_dir():
        raise CheckpointError(f"{root} exists and is not a directory")
    if root.is_dir() and any(root.iterdir()) and not layout.is_checkpoint_dir(root):
        raise CheckpointError(f"{root} is not empty and not a fito checkpoint directory")
    if not root.is_dir():
        root.parent.mkdir(parents=True, exist_ok=True)
        make_dir(root)
    for sub in (layout.SHARDS, layout.COMMITS):
        if not (root / sub).is_dir():
            make_dir(root / sub)
    fd = os.open(root / layout.LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise CheckpointError(f"another writer holds {root / layout.LOCK}") from None
    return fd
