"""The steps of the commit protocol on a checkpoint directory, shared by every writer.

Shards first, each durable (temporary name, fsync, rename, directory fsync); the commit
manifest only once every shard of the epoch is durable; garbage collection only after the
commit is durable, manifests before the shards they name. `CheckpointWriter` runs them in
one process; `fito.runtime.distributed` and `fito.runtime.dcp` run the shard steps on every
rank and the commit on the coordinator, after every rank's reflection.
"""

from __future__ import annotations

import fcntl
import os
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from typing import Any

from fito.runtime import codec as codecs
from fito.runtime import layout
from fito.runtime.durable import Staged, fsync_dir, make_dir, seal, stage, unlink, write_durably
from fito.runtime.layout import CheckpointError
from fito.runtime.manifest import Manifest, ShardRecord, dump_manifest
from fito.runtime.safeio import is_real_dir

Encoded = Mapping[str, tuple[str, Callable[[Any], None]]]


def open_root(root: Path, *, lock: bool = True) -> int | None:
    """Create the directory layout (durably); with lock, take the writer's exclusive flock
    on `.fito-lock` and return its fd (released when closed or when the process dies)."""
    if root.is_symlink() and not root.is_dir():
        raise CheckpointError(f"{root} is a dangling symbolic link")
    if root.exists() and not root.is_dir():
        raise CheckpointError(f"{root} exists and is not a directory")
    if root.is_dir() and any(root.iterdir()) and not layout.is_checkpoint_dir(root):
        raise CheckpointError(f"{root} is not empty and not a fito checkpoint directory")
    if not root.is_dir():
        root.parent.mkdir(parents=True, exist_ok=True)
        make_dir(root)
    for sub in (layout.SHARDS, layout.COMMITS):
        if not is_real_dir(root / sub):
            make_dir(root / sub)
    if not lock:
        return None
    try:
        fd = os.open(
            root / layout.LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644
        )
    except OSError as exc:
        raise CheckpointError(f"cannot open {root / layout.LOCK}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise CheckpointError(f"another writer holds {root / layout.LOCK}") from None
    return fd


def resume(root: Path, resume_from: int | None, keep: int) -> int | None:
    """Open a new timeline at resume_from (None: carry on): commits above it are removed
    durably, then their shards, then old epochs collected as after a commit (which finishes
    a collection a crash interrupted). The newest commit left."""
    if resume_from is not None:
        supersede_after(root, layout.check_epoch(resume_from))
    epochs = layout.manifest_epochs(root)
    if resume_from is not None and resume_from in epochs:
        collect(root, resume_from, keep)
    return epochs[-1] if epochs else None


def write_shards(root: Path, epoch: int, encoded: Encoded) -> tuple[ShardRecord, ...]:
    """Write every domain's shard durably; each is sealed (hashed while fsynced, renamed, its
    directory fsynced) on a worker thread while the next one is being written. On failure,
    the shards of this epoch already written are removed and the error raised."""
    sealing = []
    try:
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="fito-seal") as pool:
            for domain, (codec, payload) in encoded.items():
                staged = stage_shard(root, domain, epoch, codec, payload)
                sealing.append((domain, codec, pool.submit(seal, staged)))
            sealed = [(d, codec, future.result()) for d, codec, future in sealing]
    except BaseException:
        discard_epoch(root, epoch, encoded, manifest=False)
        raise
    return tuple(
        ShardRecord(d, epoch, layout.shard_relpath(d, epoch), digest, size, codec)
        for d, codec, (digest, size) in sealed
    )


def stage_shard(
    root: Path, domain: str, epoch: int, codec: str, write_payload: Callable[[Any], None]
) -> Staged:
    """Write the shard of domain and epoch (header, then the payload write_payload gives the
    sink) to its temporary name; `durable.seal` makes it durable."""
    folder = root / layout.SHARDS / domain
    if not is_real_dir(folder):
        make_dir(folder)
    head = codecs.header_bytes(codecs.ShardHeader(domain, epoch, codec))

    def produce(sink: Any) -> None:
        sink.write(head)
        write_payload(sink)

    return stage(root / layout.shard_relpath(domain, epoch), produce)


def commit(root: Path, manifest: Manifest, domains: Iterable[str] = ()) -> None:
    """Write the commit manifest durably (every shard it names must be durable already).
    On failure, the manifest and the shards of domains for this epoch are removed."""
    data = dump_manifest(manifest)
    try:
        write_durably(root / layout.manifest_relpath(manifest.epoch), lambda sink: sink.write(data))
    except BaseException:
        discard_epoch(root, manifest.epoch, domains, manifest=True)
        raise


def discard_epoch(root: Path, epoch: int, domains: Iterable[str], *, manifest: bool) -> None:
    """Best effort after a failed save: remove the (uncommitted) epoch's manifest when
    asked, then its shards and temporary files in domains; errors are ignored."""
    names = [layout.manifest_relpath(epoch)] if manifest else []
    for d in domains:
        names += [layout.shard_relpath(d, epoch)]
    for name in names:
        for path in (root / name, root / (name + layout.TMP_SUFFIX)):
            with suppress(OSError):
                os.unlink(path)


def collect(
    root: Path,
    committed: int,
    keep: int,
    *,
    manifests: bool = True,
    domains: Collection[str] | None = None,
) -> None:
    """After commit `committed` is durable: drop manifests beyond the `keep` newest up to it
    (durably), then every shard no kept commit names (of `domains`, default all), and
    leftover temporary files."""
    epochs = [e for e in layout.manifest_epochs(root) if e <= committed]
    kept = set(epochs[-keep:])
    if manifests:
        _unlink_manifests(root, epochs[:-keep])
    # no directory fsync: should a deletion be undone by a power loss, the old shard is
    # garbage again, named by no kept commit, and collected after the next one
    remove_shards(
        root,
        lambda e: e <= committed and e not in kept,
        durably=False,
        domains=domains,
        commit_temps=manifests,
        dead_temp=lambda e: e <= committed,
    )


def collect_after(root: Path, committed: int, keep: int, **which: Any) -> None:
    """`collect` once the commit is durable: a failure there (an I/O error) is a warning, not
    a failed save; what was not collected is collected after the next commit."""
    try:
        collect(root, committed, keep, **which)
    except OSError as exc:
        warnings.warn(
            f"fito.runtime: epoch {committed} is committed, but collecting old "
            f"epochs in {root} failed ({exc.strerror or exc}); retried after the "
            "next commit",
            RuntimeWarning,
            stacklevel=2,
        )


def supersede_after(
    root: Path, epoch: int, *, manifests: bool = True, domains: Collection[str] | None = None
) -> None:
    """Remove commits newer than epoch (durably), then their shards: a new timeline."""
    if manifests:
        _unlink_manifests(root, [e for e in layout.manifest_epochs(root) if e > epoch])
    remove_shards(root, lambda e: e > epoch, durably=True, domains=domains, commit_temps=manifests)


def _unlink_manifests(root: Path, epochs: list[int]) -> None:
    files = layout.manifest_files(root)
    for e in epochs:
        for name in files.get(e, ()):
            unlink(root / name)
    if epochs:
        fsync_dir(root / layout.COMMITS)


def remove_shards(
    root: Path,
    is_garbage: Callable[[int], bool],
    *,
    durably: bool,
    domains: Collection[str] | None = None,
    commit_temps: bool = True,
    dead_temp: Callable[[int], bool] | None = None,
) -> None:
    """Unlink the shard files (every name, padded or not) of the epochs is_garbage picks, and
    the temporary files of the epochs dead_temp picks (default: is_garbage) or of no epoch,
    in domains (default all) and (commit_temps) in commits/. A save of a newer epoch in
    flight is never touched."""
    dead_temp = dead_temp or is_garbage
    for tmp in layout.temp_files(root):
        in_commits = tmp.parent == root / layout.COMMITS
        mine = commit_temps if in_commits else (domains is None or tmp.parent.name in domains)
        epoch = layout.temp_epoch(tmp)
        if mine and (epoch is None or dead_temp(epoch)):
            unlink(tmp)
    touched = set()
    for domain in layout.shard_domains(root):
        if domains is not None and domain not in domains:
            continue
        for e, names in sorted(layout.shard_files(root, domain).items()):
            if is_garbage(e):
                for name in names:
                    unlink(root / name)
                touched.add(domain)
    for domain in sorted(touched) if durably else ():
        fsync_dir(root / layout.SHARDS / domain)
