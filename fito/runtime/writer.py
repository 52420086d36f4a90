"""The checkpoint writer: one shard per domain, each durable before the commit manifest.

`save(epoch, states)` writes, for every domain in name order, `shards/<d>/e<epoch>.shard`
through a temporary name (write, fsync, rename, fsync the directory), then the commit
manifest `commits/e<epoch>.json` the same way, last. Only then are old epochs collected,
keeping the `keep` newest commits. One writer per directory (an exclusive flock).
`async_save` does the same on a background thread from a private copy of the state.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import MappingProxyType
from typing import Any, Self

from fito.runtime import codec as codecs
from fito.runtime import commit, layout
from fito.runtime.commit import Encoded
from fito.runtime.layout import CheckpointError
from fito.runtime.manifest import Manifest, check_metadata
from fito.runtime.staging import snapshot


class AsyncWriterBase:
    """What every writer shares: the checks of a save, encoding, and asynchronous saves on
    one background thread (one save in flight; its error raised by the next call)."""

    root: Path
    keep: int
    torch_crc32: bool
    _newest: int | None
    _lock_fd: int | None

    def _init_async(self) -> None:
        self._accepted = self._newest
        self._background: ThreadPoolExecutor | None = None
        self._inflight: Future[Manifest] | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Wait for an asynchronous save in flight (raising its error), release the lock."""
        try:
            self.wait()
        finally:
            if self._background is not None:
                self._background.shutdown()
                self._background = None
            self._release()

    def _release(self) -> None:
        self._closed = True
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def save(
        self,
        epoch: int,
        states: Mapping[str, Any],
        *,
        codecs_by_domain: Mapping[str, str] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Manifest:
        """Write one shard per domain, then commit epoch; returns the manifest once durable."""
        self.wait()
        job = self._job(epoch, states, codecs_by_domain, metadata)
        try:
            return self._write(epoch, *job)
        except BaseException:
            self._accepted = self._newest
            raise

    def async_save(
        self,
        epoch: int,
        states: Mapping[str, Any],
        *,
        codecs_by_domain: Mapping[str, str] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Future[Manifest]:
        """Copy states (tensors and arrays included) and return at once; a background thread
        writes the shards and commits, as `save` does. The future gives the manifest once
        the commit is durable. One save is in flight at a time: this first waits for the
        previous one, and raises its error if it failed (as `wait` and `close` do)."""
        self.wait()
        job = self._job(epoch, snapshot(dict(states)), codecs_by_domain, metadata)
        return self._submit(self._write, epoch, *job)

    def _job(
        self,
        epoch: int,
        states: Mapping[str, Any],
        chosen: Mapping[str, str] | None,
        metadata: Mapping[str, Any] | None,
    ) -> tuple[Any, ...]:
        """The arguments of `_write` after epoch: the encoded shards and the metadata."""
        return self._prepare(epoch, states, chosen, metadata)

    def _write(self, epoch: int, *job: Any) -> Manifest:
        raise NotImplementedError

    @property
    def newest_commit(self) -> int | None:
        """The newest epoch with a commit manifest (written by this writer or found)."""
        return self._newest

    def wait(self) -> Manifest | None:
        """Block until the asynchronous save in flight (if any) is durable; its manifest, or
        its error raised (the epoch is then not committed, and may be saved again)."""
        inflight, self._inflight = self._inflight, None
        if inflight is None:
            return None
        try:
            return inflight.result()
        except BaseException:
            self._accepted = self._newest
            raise

    def _submit(self, task: Any, *args: Any) -> Future[Manifest]:
        if self._background is None:
            self._background = ThreadPoolExecutor(1, thread_name_prefix="fito-async-save")
        self._inflight = self._background.submit(task, *args)
        return self._inflight

    def _prepare(
        self,
        epoch: int,
        states: Mapping[str, Any],
        chosen: Mapping[str, str] | None,
        metadata: Mapping[str, Any] | None,
        stored: Any = lambda d: d,
    ) -> tuple[Encoded, dict[str, Any]]:
        """Check the request and encode every domain (refusing what cannot be stored)
        before anything is written; stored(d) is the name a domain is stored under."""
        self._check_save(epoch, states)
        meta = dict(metadata or {})
        try:
            check_metadata(meta)
        except (TypeError, ValueError) as exc:
            raise CheckpointError(f"metadata must be plain JSON: {exc}") from None
        chosen = dict(chosen or {})
        encoded = {
            stored(d): codecs.encoder(states[d], chosen.get(d), torch_crc32=self.torch_crc32)
            for d in sorted(states)
        }
        self._accepted = epoch
        return encoded, meta

    def _check_save(self, epoch: int, states: Mapping[str, Any]) -> None:
        if getattr(self, "_closed", False):
            raise CheckpointError("the writer is closed")
        layout.check_epoch(epoch)
        if not states:
            raise CheckpointError("nothing to save: give at least one domain")
        for d in states:
            layout.check_domain(d)
        if self._accepted is not None and epoch <= self._accepted:
            raise CheckpointError(
                f"epoch {epoch} is not newer than the committed epoch {self._accepted} in "
                f"{self.root}; to go back, open the writer with resume_from=<epoch>"
            )


class CheckpointWriter(AsyncWriterBase):
    """Writes epochs of several persistence domains into one checkpoint directory."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        keep: int = 2,
        resume_from: int | None = None,
        torch_crc32: bool = False,
    ) -> None:
        """resume_from: the epoch training resumed from (as `restore` returned it): newer
        commits are superseded and removed, and old epochs beyond `keep` collected.
        torch_crc32: keep torch.save's per-record CRC32 (redundant with each shard's SHA-256,
        and costly: off by default, for the duration of each torch.save)."""
        self.keep = check_keep(keep)
        self.root = Path(root)
        self.torch_crc32 = torch_crc32
        self._lock_fd: int | None = commit.open_root(self.root)
        self._closed = False
        self._newest = commit.resume(self.root, resume_from, self.keep)
        self._init_async()

    def _write(self, epoch: int, *job: Any) -> Manifest:
        encoded, meta = job
        records = commit.write_shards(self.root, epoch, encoded)
        manifest = Manifest(epoch, records, MappingProxyType(meta))
        commit.commit(self.root, manifest, encoded)
        self._newest = epoch
        commit.collect_after(self.root, epoch, self.keep)
        return manifest


def check_keep(keep: int) -> int:
    """keep itself, or CheckpointError unless it is an integer >= 1."""
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
        raise CheckpointError(f"keep must be an integer >= 1, not {keep!r}")
    return keep
