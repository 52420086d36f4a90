"""PyTorch DCP storage on fito.runtime: epoch manifests and mixed-restore refusal for users of
`torch.distributed.checkpoint.save` and `load`, who change only the storage they pass.

```python
import torch.distributed.checkpoint as dcp
from fito.runtime.dcp import FitoStorageReader, FitoStorageWriter
dcp.save(state_dict, storage_writer=FitoStorageWriter(ckpt_dir), checkpoint_id=step)
dcp.load(state_dict, storage_reader=FitoStorageReader(ckpt_dir))  # newest epoch that verifies
```
DCP's own save is already bilateral, and fito makes each step durable: every rank's
`write_data` writes its items into one shard, `shards/dcp@<rank>/e<epoch>.shard`, and
returns its WriteResults (its reflection) only once that shard is durable; DCP gathers them
on the coordinator, whose `finish` writes DCP's metadata as `shards/dcp-metadata/...`, then
the commit manifest naming every shard, last; then old epochs are collected (`keep`).
Loading takes the newest committed epoch whose every shard verifies (the ranks share the
hashing and agree, when torch.distributed is initialized), else an older one, never a mix.
DCP wraps every error in its CheckpointException (a BaseException, not an Exception): the
reader keeps its own as `reader.error` (a NoConsistentEpoch when nothing restores), and
`reader.epoch`, `reader.skipped` say what was loaded and what was refused.
Tensors are stored as raw bytes (64-byte aligned); other values as DCP serializes them,
and they are loaded only if `torch.load(weights_only=True)` accepts them (DCP's own planner
would unpickle them: fito refuses a payload that needs pickle). DCP's metadata is loaded
with `weights_only=True` and DCP's metadata classes allowed, never unpickled freely.
"""

from __future__ import annotations

import dataclasses
import io
import os
import pickle
import sys
import threading
import uuid
import warnings
from pathlib import Path
from types import MappingProxyType
from typing import Any

import torch
import torch.distributed as dist
from torch.distributed.checkpoint import metadata as dcp_metadata
from torch.distributed.checkpoint.planner import (
    LoadItemType,
    LoadPlan,
    LoadPlanner,
    SavePlan,
    SavePlanner,
)
from torch.distributed.checkpoint.storage import StorageReader, StorageWriter, WriteResult
from torch.futures import Future

from fito.runtime import commit, durable, layout
from fito.runtime.codec import parse_header
from fito.runtime.distributed import Collective
from fito.runtime.durable import seal, write_durably
from fito.runtime.layout import CheckpointError
from fito.runtime.manifest import Manifest, ShardRecord
from fito.runtime.reader import NoConsistentEpoch, NothingToRestore
from fito.runtime.verify import UNDECODABLE, Skip, check_epoch, check_shard, read_manifest
from fito.runtime.writer import check_keep

DOMAIN, METADATA = "dcp", "dcp-metadata"
STANDARD_METADATA = ".metadata"  # DCP's own file name: what plain dcp.load reads
TORCH_SAVE = "torch.save"  # the dtype field of an item stored as DCP stores tensors
ALIGN = 64  # raw tensors of checkpoints written before the standard layout
_SAFE: list[Any] = [
    dcp_metadata.Metadata,
    dcp_metadata.TensorStorageMetadata,
    dcp_metadata.BytesStorageMetadata,
    dcp_metadata.ChunkStorageMetadata,
    dcp_metadata.TensorProperties,
    dcp_metadata.MetadataIndex,
    dcp_metadata.StorageMeta,
]
_SAFE += (
    [dcp_metadata._MEM_FORMAT_ENCODING] if hasattr(dcp_metadata, "_MEM_FORMAT_ENCODING") else []
)


def epoch_of(checkpoint_id: Any) -> int:
    """The epoch a DCP checkpoint_id names: an int, or a string of digits."""
    if isinstance(checkpoint_id, str) and checkpoint_id.isdigit():
        checkpoint_id = int(checkpoint_id)
    return layout.check_epoch(checkpoint_id)


class FitoStorageWriter(StorageWriter):
    """A DCP StorageWriter writing epochs of a fito checkpoint directory.

    epoch: the epoch to write (or `checkpoint_id=` of dcp.save); default: one above the
    newest commit. resume_from: as for CheckpointWriter, commits above it are superseded
    before the first save. keep: commits kept after each save."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        epoch: int | None = None,
        keep: int = 2,
        resume_from: int | None = None,
    ) -> None:
        super().__init__()
        self.root, self.keep = Path(root), check_keep(keep)
        self._epoch = None if epoch is None else layout.check_epoch(epoch)
        self._resume_from = resume_from
        self._lock_fd: int | None = None
        self._save_id = uuid.uuid4().hex

    @property
    def checkpoint_id(self) -> str:
        return str(self.root)

    def reset(self, checkpoint_id: Any = None) -> None:
        _refuse_async_on_default_group()  # DCP calls reset before any collective
        if checkpoint_id is not None:
            self._epoch = epoch_of(checkpoint_id)
        self._save_id = uuid.uuid4().hex

    def set_up_storage_writer(self, is_coordinator: bool, *args: Any, **kwargs: Any) -> None:
        self.is_coordinator = is_coordinator

    def prepare_local_plan(self, plan: SavePlan) -> SavePlan:
        return plan

    def prepare_global_plan(self, plans: list[SavePlan]) -> list[SavePlan]:
        """Coordinator: lock the directory, supersede if asked, choose the epoch."""
        self._release()
        self._lock_fd = commit.open_root(self.root)
        if self._resume_from is not None and (self.root / STANDARD_METADATA).exists():
            durable.unlink(self.root / STANDARD_METADATA)  # no plain reader sees a superseded epoch
            durable.fsync_dir(self.root)
        newest = commit.resume(self.root, self._resume_from, self.keep)
        self._resume_from = None
        epoch = self._epoch if self._epoch is not None else (newest or 0) + 1
        if newest is not None and epoch <= newest:
            self._release()
            raise CheckpointError(
                f"epoch {epoch} is not newer than the committed epoch "
                f"{newest} in {self.root}; pass resume_from=<epoch> to go back"
            )
        return [dataclasses.replace(p, storage_data=(epoch, rank)) for rank, p in enumerate(plans)]

    def write_data(self, plan: SavePlan, planner: SavePlanner) -> Future[list[WriteResult]]:
        """This rank's items into its shard, durable before the results (its reflection)."""
        epoch, rank = plan.storage_data
        results: list[WriteResult] = []
        if plan.items:
            domain = layout.rank_domain(DOMAIN, rank)
            try:
                results = _write_items(self.root, domain, epoch, plan, planner)
            except BaseException:
                commit.discard_epoch(self.root, epoch, [domain], manifest=False)
                raise
        future: Future[list[WriteResult]] = Future()
        future.set_result(results)
        return future

    def finish(self, metadata: dcp_metadata.Metadata, results: list[list[WriteResult]]) -> None:
        """Coordinator, after every rank's reflection: DCP's metadata, then the commit."""
        epoch = self._epoch_of_results(results)
        try:
            self._commit(epoch, metadata, results)
        except BaseException:
            domains = [
                METADATA,
                *(d for d in layout.shard_domains(self.root) if layout.split_rank(d)[0] == DOMAIN),
            ]
            commit.discard_epoch(self.root, epoch, domains, manifest=True)
            raise
        finally:
            self._release()
        try:  # the commit is durable: a failure from here on is a warning, not a lost epoch
            _write_standard_metadata(self.root, metadata)
        except (OSError, CheckpointError) as exc:
            warnings.warn(
                f"epoch {epoch} is committed, but plain dcp.load cannot see it: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )
        commit.collect_after(self.root, epoch, self.keep)

    def _epoch_of_results(self, results: list[list[WriteResult]]) -> int:
        epochs = {wr.storage_data[5] for rank in results for wr in rank}
        if len(epochs) > 1:
            raise CheckpointError(f"ranks wrote different epochs: {sorted(epochs)}")
        return epochs.pop() if epochs else (self._epoch or 0)

    def _commit(
        self, epoch: int, metadata: dcp_metadata.Metadata, results: list[list[WriteResult]]
    ) -> None:
        records = {}
        storage = {}
        for wr in (wr for rank in results for wr in rank):
            file, offset, length, dtype, shape, _, digest, size = wr.storage_data
            storage[wr.index] = (file, offset, length, dtype, shape)
            domain = Path(file).parent.name
            records[domain] = ShardRecord(domain, epoch, file, digest, size, DOMAIN)
        metadata.storage_data = storage
        metadata.storage_meta = dcp_metadata.StorageMeta(
            checkpoint_id=str(self.root), save_id=self._save_id
        )
        buffer = io.BytesIO()
        torch.save(metadata, buffer)
        payload = buffer.getvalue()
        staged = commit.stage_shard(
            self.root, METADATA, epoch, METADATA, lambda sink: sink.write(payload)
        )
        digest, size = seal(staged)
        records[METADATA] = ShardRecord(
            METADATA, epoch, layout.shard_relpath(METADATA, epoch), digest, size, METADATA
        )
        manifest = Manifest(
            epoch,
            tuple(records[d] for d in sorted(records)),
            MappingProxyType({"dcp_save_id": self._save_id}),
        )
        commit.commit(self.root, manifest)

    def _release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __del__(self) -> None:
        self._release()

    def storage_meta(self) -> dcp_metadata.StorageMeta | None:
        return dcp_metadata.StorageMeta(checkpoint_id=str(self.root), save_id=self._save_id)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id: Any) -> bool:
        return False  # chosen explicitly, never guessed from a checkpoint_id


def _write_items(
    root: Path, domain: str, epoch: int, plan: SavePlan, planner: SavePlanner
) -> list[WriteResult]:
    """Stage and seal the shard: each item's bytes as DCP's own FileSystemWriter lays them
    (a tensor as its torch.save, a value as DCP serialized it), so that plain `dcp.load`
    reads the shard through the standard `.metadata` the commit writes."""
    placed: list[tuple[Any, int, int, str | None, tuple[int, ...] | None]] = []

    def produce(sink: Any) -> None:
        for item in plan.items:
            data = planner.resolve_data(item)
            start = sink.size
            if isinstance(data, io.BytesIO):
                sink.write(data.getbuffer())
                dtype, shape = None, None
            else:  # straight into the shard, as DCP's writer does: no copy in between
                tensor = data.detach().to("cpu").contiguous()
                torch.save(tensor, sink)
                dtype, shape = TORCH_SAVE, tuple(tensor.shape)
            placed.append((item.index, start, sink.size - start, dtype, shape))

    digest, size = seal(commit.stage_shard(root, domain, epoch, DOMAIN, produce))
    file = layout.shard_relpath(domain, epoch)
    return [
        WriteResult(
            index=index,
            size_in_bytes=length,
            storage_data=(file, offset, length, dtype, shape, epoch, digest, size),
        )
        for index, offset, length, dtype, shape in placed
    ]


def _write_standard_metadata(root: Path, metadata: dcp_metadata.Metadata) -> None:
    """DCP's own `.metadata` (a pickle, as FileSystemWriter writes it) naming the byte
    ranges of the committed epoch's shards, written durably after the commit manifest: plain
    `dcp.load(state, checkpoint_id=DIR)` then loads the newest commit (and sees no epoch
    that is not committed). fito's own reader never reads it."""
    from torch.distributed.checkpoint.filesystem import (  # lazy-import: private DCP class
        _StorageInfo,
    )

    standard = dataclasses.replace(
        metadata,
        storage_data={
            index: _StorageInfo(relative_path=file, offset=offset, length=length)
            for index, (file, offset, length, _dtype, _shape) in metadata.storage_data.items()
        },
    )
    payload = pickle.dumps(standard)
    write_durably(root / STANDARD_METADATA, lambda sink: sink.write(payload))


class FitoStorageReader(StorageReader):
    """A DCP StorageReader loading the newest epoch of a fito checkpoint directory whose every
    shard verifies (or exactly `epoch`, or `checkpoint_id=` of dcp.load).

    group: the process group the ranks agree on (default: the whole job, when
    torch.distributed is initialized)."""

    def __init__(
        self, root: str | os.PathLike[str], *, epoch: int | None = None, group: Any = None
    ) -> None:
        super().__init__()
        self.root = Path(root)
        self._wanted = None if epoch is None else layout.check_epoch(epoch)
        self._group = group
        self.epoch: int | None = None
        self.skipped: list[Any] = []
        self.error: CheckpointError | None = None
        self._manifest: Manifest | None = None

    @property
    def checkpoint_id(self) -> str:
        return str(self.root)

    def reset(self, checkpoint_id: Any = None) -> None:
        if checkpoint_id is not None:
            self._wanted = epoch_of(checkpoint_id)

    def read_metadata(self, *args: Any) -> dcp_metadata.Metadata:
        """Choose the epoch (every rank the same one) and decode its DCP metadata. (No
        **kwargs: DCP then never falls back to rank-local metadata, which fito has not.)"""
        self.error = None
        try:
            return self._choose()
        except CheckpointError as exc:
            self.error = exc
            raise

    def _choose(self) -> dcp_metadata.Metadata:
        comm = _collective(self._group)
        first = layout.is_first_run(self.root) if comm is None or comm.is_coordinator else None
        if first if comm is None else comm.broadcast(first):
            raise NothingToRestore(Path(self.root))
        path = layout.checkpoint_dir(self.root)
        listed = layout.manifest_epochs(path) if comm is None or comm.is_coordinator else []
        candidates: list[int] = listed if comm is None else comm.broadcast(listed)
        if self._wanted is not None:
            candidates = [e for e in candidates if e == self._wanted]
        self.skipped = []
        for e in reversed(candidates):
            metadata, problems = _verify_share(path, e, comm)
            verdicts = (
                [(metadata is not None, problems)]
                if comm is None
                else comm.all_gather((metadata is not None, problems))
            )
            if all(ok for ok, _ in verdicts):
                assert metadata is not None
                self.epoch, self._manifest = e, read_manifest(path, e)[0]
                metadata.storage_meta.load_id = uuid.uuid4().hex
                return metadata
            self.skipped += [p for _, found in verdicts for p in found if p not in self.skipped]
        if not self.skipped and not candidates and self._wanted is None:
            raise NothingToRestore(path)
        raise NoConsistentEpoch(path, tuple(self.skipped))

    def set_up_storage_reader(
        self, metadata: dcp_metadata.Metadata, is_coordinator: bool, *args: Any, **kwargs: Any
    ) -> None:
        self.storage_data = metadata.storage_data

    def prepare_local_plan(self, plan: LoadPlan) -> LoadPlan:
        return plan

    def prepare_global_plan(self, plans: list[LoadPlan]) -> list[LoadPlan]:
        return plans

    def read_data(self, plan: LoadPlan, planner: LoadPlanner) -> Future[None]:
        """Each file read once and hashed again (what is loaded is what was verified)."""
        by_file: dict[str, list[Any]] = {}
        for item in plan.items:
            by_file.setdefault(self.storage_data[item.storage_index][0], []).append(item)
        for file, items in by_file.items():
            data = self._verified(file)
            for item in items:
                _load_item(item, self.storage_data[item.storage_index], data, planner)
        future: Future[None] = Future()
        future.set_result(None)
        return future

    def _verified(self, file: str) -> bytearray:
        assert self._manifest is not None and self.epoch is not None
        record = next((r for r in self._manifest.shards if r.file == file), None)
        if record is None:
            raise CheckpointError(f"{file} is not named by the commit of epoch {self.epoch}")
        problems, data = check_shard(self.root, self.epoch, record, keep_bytes=True)
        if problems or data is None:
            raise CheckpointError(
                f"{file} changed after it was verified: "
                + "; ".join(p.describe() for p in problems)
            )
        return data

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id: Any) -> bool:
        return False


class AsyncOnDefaultGroup(CheckpointError):
    """`dcp.async_save` on the default process group of a job of several ranks."""


_OWN_GROUPS: dict[int, Any] = {}


def async_save(
    state_dict: Any,
    *,
    storage_writer: FitoStorageWriter,
    checkpoint_id: Any = None,
    process_group: Any = None,
    **kwargs: Any,
) -> Any:
    """`torch.distributed.checkpoint.async_save` through fito's storage writer, on a gloo
    process group of fito's own unless `process_group` is given: an asynchronous save runs
    DCP's collectives on a background thread, and on the group the training loop uses
    (`all_reduce` on the main thread) the two threads' collectives interleave differently
    on different ranks and both hang. Every rank calls it, as `dcp.async_save`; the group is
    made on the first call (a collective, on the calling thread) and reused."""
    import torch.distributed.checkpoint as dcp  # lazy-import: this module loads without dcp's saver

    if process_group is None and dist.is_available() and dist.is_initialized():
        world = dist.get_world_size()
        if world > 1:
            if world not in _OWN_GROUPS:
                _OWN_GROUPS[world] = dist.new_group(backend="gloo")
            process_group = _OWN_GROUPS[world]
    return dcp.async_save(
        state_dict,
        storage_writer=storage_writer,
        checkpoint_id=checkpoint_id,
        process_group=process_group,
        **kwargs,
    )


def _refuse_async_on_default_group() -> None:
    """AsyncOnDefaultGroup when DCP is saving on a background thread (an async_save) with
    no process group of its own in a job of several ranks: that save would hang the
    training loop's collectives. Raised before DCP's first collective, on every rank."""
    if threading.current_thread() is threading.main_thread():
        return
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() < 2:
        return
    frame = sys._getframe(1)
    while frame is not None:  # DCP's save(..., process_group=...) on this thread's stack
        if frame.f_code.co_name == "save" and "torch/distributed/checkpoint" in (
            frame.f_code.co_filename.replace(os.sep, "/")
        ):
            if frame.f_locals.get("process_group") is None:
                raise AsyncOnDefaultGroup(
                    "dcp.async_save through FitoStorageWriter needs a process group of its "
                    "own: on the default group its collectives, on a background thread, "
                    "interleave with the training loop's and hang every rank. Use "
                    "fito.runtime.dcp.async_save(...), which makes a gloo group, or pass "
                    "process_group=dist.new_group(backend='gloo') to dcp.async_save"
                )
            return
        frame = frame.f_back  # type: ignore[assignment]


def _collective(group: Any) -> Any:
    if not (dist.is_available() and dist.is_initialized()):
        return None

    comm = Collective(group)
    return comm if comm.size > 1 else None


def _verify_share(path: Path, epoch: int, comm: Any) -> tuple[Any, list[Any]]:
    """Verify this rank's share of the epoch's shards (every shard when alone) and decode its
    DCP metadata: (metadata or None, problems)."""
    manifest, problems = read_manifest(path, epoch)
    if manifest is None:
        return None, problems
    files = [r.domain for r in manifest.shards]
    mine = (
        set(files)
        if comm is None
        else {d for i, d in enumerate(files) if i % comm.size == comm.rank} | {METADATA}
    )
    manifest, problems, blobs = check_epoch(
        path, epoch, (METADATA,), keep_bytes=False, only=mine - {METADATA}
    )
    found, data = (
        check_shard(path, epoch, next(r for r in manifest.shards if r.domain == METADATA), True)
        if manifest is not None and METADATA in manifest.domains
        else ([], None)
    )
    problems = problems + found
    if problems or data is None:
        return None, problems
    return _decode_metadata(path, epoch, data)


def _decode_metadata(path: Path, epoch: int, data: bytearray) -> tuple[Any, list[Any]]:
    try:
        with torch.serialization.safe_globals(_SAFE):
            metadata = torch.load(
                io.BytesIO(memoryview(data)[parse_header(data)[1] :]), weights_only=True
            )
        if not isinstance(metadata, dcp_metadata.Metadata):
            raise TypeError(f"a {type(metadata).__name__}, not DCP metadata")
    except Exception as exc:  # noqa: BLE001 - any failure refuses the epoch
        return None, [Skip(epoch, UNDECODABLE, METADATA, f"{type(exc).__name__}: {exc}"[:200])]
    return metadata, []


def _load_item(item: Any, stored: tuple, data: bytearray, planner: LoadPlanner) -> None:
    _, offset, length, dtype, shape = stored
    view = memoryview(data)[offset : offset + length]
    if item.type == LoadItemType.BYTE_IO:
        try:  # what DCP's planner would unpickle freely must load without pickle first
            torch.load(io.BytesIO(view), weights_only=True)
        except Exception as exc:  # noqa: BLE001
            raise CheckpointError(
                f"{item.storage_index.fqn}: a value that needs pickle to load "
                f"({type(exc).__name__}); fito does not unpickle"
            ) from None
        planner.load_bytes(item, io.BytesIO(view))
        return
    from torch.distributed._shard._utils import (  # lazy-import: private torch API: narrowed reads
        narrow_tensor_by_index,
    )

    if dtype == TORCH_SAVE:
        whole = torch.load(io.BytesIO(view), map_location="cpu", weights_only=True)
        if not isinstance(whole, torch.Tensor):
            raise CheckpointError(f"{item.storage_index.fqn}: the stored item is not a tensor")
    else:  # raw bytes, as fito wrote tensors before the standard layout
        raw = (
            torch.frombuffer(view, dtype=torch.uint8)
            if length
            else torch.empty(0, dtype=torch.uint8)
        )
        whole = raw.view(_dtype(dtype)).reshape(shape)
    tensor = narrow_tensor_by_index(whole, item.storage_offsets, item.lengths)
    target = planner.resolve_tensor(item).detach()
    if target.size() != tensor.size():
        raise CheckpointError(
            f"{item.storage_index.fqn}: stored {tuple(tensor.size())}, "
            f"expected {tuple(target.size())}"
        )
    target.copy_(tensor)
    planner.commit_tensor(item, target)


def _dtype(name: str) -> torch.dtype:
    value = getattr(torch, name.removeprefix("torch."), None)
    if not isinstance(value, torch.dtype):
        raise CheckpointError(f"unknown dtype {name!r}")
    return value
