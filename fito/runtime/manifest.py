"""The commit manifest (versioned JSON): which shard of each domain makes up an epoch.

```
{"checksum": "<sha256 of the canonical JSON of every other field>",
 "domains": {"<domain>": {"bytes": N, "codec": "torch", "epoch": E,
                          "file": "shards/<domain>/e<E>.shard", "sha256": "<hex>"}, ...},
 "epoch": E, "format": "fito-checkpoint", "metadata": {...}, "version": 1}
```
Canonical JSON: keys sorted, no spaces, ASCII only. The checksum makes a manifest that still
parses after a torn write or a flipped byte count as torn, not as a commit.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fito.errors import FitoError
from fito.runtime import boundedjson
from fito.runtime.layout import STORED_DOMAIN, is_epoch, shard_relpath

FORMAT, VERSION = "fito-checkpoint", 1
MAX_BYTES = 16 << 20  # a manifest larger than this is refused unread
MAX_DEPTH = 64  # nesting of the whole manifest, metadata included
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class ShardRecord:
    """One domain's shard in a commit: its epoch, file, size, SHA-256 and codec."""

    domain: str
    epoch: int
    file: str
    sha256: str
    bytes: int
    codec: str


@dataclass(frozen=True, slots=True)
class Manifest:
    """A commit record: epoch e is certified across these domains."""

    epoch: int
    shards: tuple[ShardRecord, ...]
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def domains(self) -> tuple[str, ...]:
        return tuple(s.domain for s in self.shards)


class TornManifest(FitoError, ValueError):
    """A manifest file that is not a complete, well-formed, checksummed commit record."""


def canonical(obj: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no whitespace, ASCII."""
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode("ascii")


def dump_manifest(m: Manifest) -> bytes:
    """The file content of a manifest, checksum included."""
    body: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "epoch": m.epoch,
        "domains": {
            s.domain: {
                "epoch": s.epoch,
                "file": s.file,
                "sha256": s.sha256,
                "bytes": s.bytes,
                "codec": s.codec,
            }
            for s in m.shards
        },
        "metadata": dict(m.metadata),
    }
    body["checksum"] = hashlib.sha256(canonical(body)).hexdigest()
    return canonical(body) + b"\n"


def check_metadata(metadata: Any) -> None:
    """ValueError unless metadata is JSON that a reader accepts back (see parse_manifest)."""
    boundedjson.loads(canonical(metadata), max_depth=MAX_DEPTH - 1, int_digits=100)


def parse_manifest(data: bytes | bytearray, epoch: int) -> Manifest:
    """The manifest in data, named for epoch; TornManifest says what is wrong with it."""
    try:
        bytes(data).decode("ascii")
        body = boundedjson.loads(data, max_depth=MAX_DEPTH, int_digits=100)
    except ValueError as exc:  # UnicodeDecodeError included
        raise TornManifest(f"not valid JSON ({_short(exc)}), {len(data)} bytes") from None
    if not isinstance(body, dict) or "checksum" not in body:
        raise TornManifest("no checksum field")
    claimed = body.pop("checksum")
    if body.get("format") != FORMAT:
        raise TornManifest(f"format is {body.get('format')!r}, not {FORMAT!r}")
    if type(body.get("version")) is not int or body["version"] != VERSION:  # true is not 1
        raise TornManifest(f"unsupported manifest version {body.get('version')!r}")
    try:
        actual = hashlib.sha256(canonical(body)).hexdigest()
    except ValueError:
        raise TornManifest("unrepresentable value") from None
    if claimed != actual:
        raise TornManifest("checksum does not match the content")
    return _validated(body, epoch)


def _validated(body: dict[str, Any], epoch: int) -> Manifest:
    if not is_epoch(body.get("epoch")) or body["epoch"] != epoch:
        raise TornManifest(f"names epoch {body.get('epoch')!r} but is the file of epoch {epoch}")
    domains, metadata = body.get("domains"), body.get("metadata", {})
    if not isinstance(domains, dict) or not domains or not isinstance(metadata, dict):
        raise TornManifest("no domains")
    shards = []
    for name in sorted(domains):
        shards.append(_record(name, domains[name]))
    return Manifest(epoch, tuple(shards), MappingProxyType(metadata))


def _record(name: str, entry: Any) -> ShardRecord:
    ok = (
        STORED_DOMAIN.fullmatch(name) is not None
        and isinstance(entry, dict)
        and is_epoch(entry.get("epoch"))
        and is_epoch(entry.get("bytes"))
        and isinstance(entry.get("sha256"), str)
        and _HEX64.fullmatch(entry["sha256"])
        and isinstance(entry.get("codec"), str)
    )
    if not ok:
        raise TornManifest(f"malformed entry for domain {name!r}")
    if entry.get("file") != shard_relpath(name, entry["epoch"]):
        raise TornManifest(
            f"domain {name!r} names file {entry.get('file')!r}, "
            f"not {shard_relpath(name, entry['epoch'])!r}"
        )
    return ShardRecord(
        name, entry["epoch"], entry["file"], entry["sha256"], entry["bytes"], entry["codec"]
    )


def _short(exc: Exception) -> str:
    return str(exc).split(":")[0]
