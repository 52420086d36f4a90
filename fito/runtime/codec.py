"""Shard files: a two-line header (magic, then JSON: domain, epoch, codec) and a payload.

Payload codecs: `json` and `npz` (the pickle-free tree codec of `fito.runtime.tree`, for
Python and numpy state) and `torch` (`torch.save`, loaded back with `weights_only=True`).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fito.errors import FitoError
from fito.runtime import boundedjson, tree
from fito.runtime.layout import CheckpointError, is_epoch

MAGIC = b"FITO-SHARD 1\n"
HEADER_LIMIT = 4096
CODECS = ("json", "npz", "torch")
DCP_CODECS = ("dcp", "dcp-metadata")  # shards of fito.runtime.dcp, read by its storage reader


@dataclass(frozen=True, slots=True)
class ShardHeader:
    """What a shard file says about itself: its domain, epoch and payload codec."""

    domain: str
    epoch: int
    codec: str


class BadShard(FitoError, ValueError):
    """A shard file whose header cannot be read (torn or not a shard)."""


def header_bytes(header: ShardHeader) -> bytes:
    """The header of a shard file as written."""
    body = {"codec": header.codec, "domain": header.domain, "epoch": header.epoch}
    return MAGIC + json.dumps(body, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def parse_header(data: bytes | bytearray | memoryview) -> tuple[ShardHeader, int]:
    """The header of a shard file's bytes and the offset of its payload, or BadShard."""
    head = bytes(data[:HEADER_LIMIT])
    if not head.startswith(MAGIC):
        raise BadShard("no shard header")
    end = head.find(b"\n", len(MAGIC))
    if end < 0:
        raise BadShard("header line is cut short")
    try:
        body = boundedjson.loads(head[len(MAGIC) : end], max_depth=1)
    except ValueError as exc:
        raise BadShard(f"unreadable header ({str(exc)[:80]})") from None
    if not isinstance(body, dict):
        raise BadShard("malformed header")
    domain, epoch, codec = body.get("domain"), body.get("epoch"), body.get("codec")
    if not (isinstance(domain, str) and isinstance(codec, str) and is_epoch(epoch)):
        raise BadShard("malformed header fields")
    return ShardHeader(domain, int(epoch), codec), end + 1  # type: ignore[arg-type]


def encoder(
    state: Any, codec: str | None = None, *, torch_crc32: bool = False
) -> tuple[str, Callable[[Any], None]]:
    """The codec for state (given, or chosen: `torch` when it holds torch tensors, else `npz`
    with numpy arrays, else `json`) and a function writing its payload to a sink.

    What the codec could not load back is refused here, before anything is written.
    torch_crc32: keep torch's per-record CRC32, which the shard's SHA-256 makes redundant.
    """
    if codec is None and _holds_torch(state):
        codec = "torch"
    if codec == "torch":
        _check_torch_safe(state, "state")
        return codec, lambda sink: _torch_save(state, sink, torch_crc32)
    if codec not in (None, *CODECS):
        raise CheckpointError(f"unknown codec {codec!r}; known: {', '.join(CODECS)}")
    text, arrays = tree.encode(state)
    if codec == "json" and arrays:
        raise CheckpointError("the json codec cannot hold numpy arrays; use npz")
    if codec == "npz" or arrays:
        return "npz", lambda sink: tree.write_npz(sink, text, arrays)
    data = text.encode("utf-8")
    return "json", lambda sink: sink.write(data)


def decode_payload(codec: str, payload: bytes | memoryview, map_location: Any = None) -> Any:
    """Deserialize a verified payload; never unpickles arbitrary objects."""
    if codec == "json":
        return tree.decode_json(payload)
    if codec == "npz":
        return tree.decode_npz(payload)
    if codec == "torch":
        try:
            import torch  # lazy-import: torch is optional and slow to load
        except ImportError:
            raise CheckpointError(
                "this shard was written with torch, which is not installed (pip install torch)"
            ) from None
        return torch.load(io.BytesIO(payload), map_location=map_location, weights_only=True)
    if codec in DCP_CODECS:
        raise CheckpointError(
            "a PyTorch DCP checkpoint: load it with torch.distributed."
            "checkpoint.load(..., storage_reader=fito.runtime.dcp."
            "FitoStorageReader(DIR))"
        )
    raise ValueError(f"unknown codec {codec!r}")


def _torch_save(state: Any, sink: Any, crc32: bool) -> None:
    """torch.save, without its per-record CRC32 unless asked (torch >= 2.6 can skip it; the
    switch is process-wide, so it is set for this call only)."""
    import torch  # lazy-import: torch is optional and slow to load

    ser = torch.serialization
    get, put = getattr(ser, "get_crc32_options", None), getattr(ser, "set_crc32_options", None)
    if crc32 or get is None or put is None or not get():
        torch.save(state, sink)
        return
    put(False)
    try:
        torch.save(state, sink)
    finally:
        put(True)


def _holds_torch(value: Any) -> bool:
    if isinstance(value, _TORCH_LEAVES):
        return False
    if type(value).__module__.startswith("torch"):
        return True
    if isinstance(value, dict):
        return any(_holds_torch(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_torch(v) for v in value)
    return False


_TORCH_LEAVES = (str, int, float, bool, complex, bytes, type(None))


def _check_torch_safe(value: Any, where: str) -> None:
    """Refuse, at save time, what `torch.load(weights_only=True)` could not load back."""
    import torch  # lazy-import: torch is optional and slow to load

    if isinstance(value, dict):
        for k, v in value.items():
            _check_torch_safe(k, where)
            _check_torch_safe(v, f"{where}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_torch_safe(v, f"{where}[{i}]")
    elif not isinstance(
        value, (torch.Tensor, torch.Size, torch.dtype, torch.device, *_TORCH_LEAVES)
    ):
        raise CheckpointError(
            f"{where}: a {type(value).__name__} cannot be loaded back with "
            "torch.load(weights_only=True); convert it to tensors or plain "
            "Python values"
        )
