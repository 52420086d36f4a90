"""Checking one epoch of a checkpoint directory: its manifest, then every shard it names.

An epoch is consistent when its commit manifest is complete and every shard it names
exists, says it belongs to that domain and epoch, and matches its recorded size and
SHA-256. Every problem is a `Skip` with a reason from `REASONS`.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fito.runtime import layout
from fito.runtime.codec import HEADER_LIMIT, BadShard, parse_header
from fito.runtime.durable import sha256_file
from fito.runtime.manifest import Manifest, ShardRecord, TornManifest, parse_manifest

MISSING_SHARD, HASH_MISMATCH, EPOCH_MISMATCH = "missing-shard", "hash-mismatch", "epoch-mismatch"
DOMAIN_MISMATCH, MISSING_DOMAIN = "domain-mismatch", "missing-domain"
TORN_MANIFEST, UNCOMMITTED, UNDECODABLE = "torn-manifest", "uncommitted", "undecodable"
REASONS = (MISSING_SHARD, HASH_MISMATCH, EPOCH_MISMATCH, DOMAIN_MISMATCH, MISSING_DOMAIN,
           TORN_MANIFEST, UNCOMMITTED, UNDECODABLE)
CONSISTENT, MIXED, TORN = "consistent", "mixed", "torn"
STATUSES = (CONSISTENT, MIXED, TORN, UNCOMMITTED)
_TORN_REASONS = frozenset({HASH_MISMATCH, TORN_MANIFEST, UNDECODABLE})


@dataclass(frozen=True, slots=True)
class Skip:
    """Why an epoch cannot be restored: a reason code, the domain concerned, details."""

    epoch: int
    reason: str
    domain: str | None = None
    detail: str = ""

    def describe(self) -> str:
        where = f" in {self.domain}" if self.domain else ""
        return f"{self.reason}{where}" + (f" ({self.detail})" if self.detail else "")


def status_of(committed: bool, problems: Iterable[Skip], complete: bool) -> str:
    """consistent, torn (bytes damaged), mixed (domains disagree) or uncommitted."""
    reasons = {p.reason for p in problems}
    if not committed:
        return UNCOMMITTED if complete else MIXED
    if reasons & _TORN_REASONS:
        return TORN
    return MIXED if reasons else CONSISTENT


def read_manifest(root: Path, epoch: int) -> tuple[Manifest | None, list[Skip]]:
    """The manifest of epoch, or None and the torn-manifest problem."""
    try:
        data = (root / layout.manifest_relpath(epoch)).read_bytes()
        return parse_manifest(data, epoch), []
    except TornManifest as exc:
        return None, [Skip(epoch, TORN_MANIFEST, None, str(exc))]
    except OSError as exc:
        return None, [Skip(epoch, TORN_MANIFEST, None, f"unreadable: {exc.strerror}")]


def check_epoch(root: Path, epoch: int, required: Iterable[str] = (), *,
                keep_bytes: bool = False) -> tuple[Manifest | None, list[Skip], dict[str, bytes]]:
    """The manifest of epoch, every problem found, and (keep_bytes) the verified shard bytes.

    With keep_bytes each shard is read once into memory and those very bytes are hashed,
    so what is later decoded is what was verified.
    """
    manifest, problems = read_manifest(root, epoch)
    if manifest is None:
        return None, problems, {}
    for domain in sorted(set(required) - set(manifest.domains)):
        problems.append(Skip(epoch, MISSING_DOMAIN, domain, "not in the commit manifest"))
    blobs: dict[str, bytes] = {}
    for record in manifest.shards:
        found, data = _check_shard(root, epoch, record, keep_bytes)
        problems.extend(found)
        if data is not None and not found:
            blobs[record.domain] = data
    return manifest, problems, blobs


def _check_shard(root: Path, epoch: int, rec: ShardRecord,
                 keep_bytes: bool) -> tuple[list[Skip], bytes | None]:
    path = root / rec.file
    digest, size, data = "", 0, None
    try:
        if keep_bytes:
            data = path.read_bytes()
            digest, size, head = hashlib.sha256(data).hexdigest(), len(data), data
        else:
            digest, size, head = sha256_file(path, keep_head=HEADER_LIMIT)
        header = parse_header(head)[0]
    except FileNotFoundError:
        return [Skip(epoch, MISSING_SHARD, rec.domain, f"{rec.file} does not exist")], None
    except OSError as exc:
        return [Skip(epoch, MISSING_SHARD, rec.domain, f"{rec.file}: {exc.strerror}")], None
    except BadShard as exc:
        return [Skip(epoch, HASH_MISMATCH, rec.domain, f"{_size_note(size, rec)}; {exc}")], None
    return _compare(epoch, rec, header.domain, header.epoch, digest, size), data


def _compare(epoch: int, rec: ShardRecord, domain: str, held: int, digest: str,
             size: int) -> list[Skip]:
    if rec.epoch != epoch:
        return [Skip(epoch, EPOCH_MISMATCH, rec.domain,
                     f"the manifest of epoch {epoch} records a shard of epoch {rec.epoch}")]
    if held != epoch:
        return [Skip(epoch, EPOCH_MISMATCH, rec.domain,
                     f"{rec.file} holds epoch {held}, not {epoch}")]
    if domain != rec.domain:
        return [Skip(epoch, DOMAIN_MISMATCH, rec.domain,
                     f"{rec.file} holds domain {domain!r}")]
    if digest != rec.sha256 or size != rec.bytes:
        return [Skip(epoch, HASH_MISMATCH, rec.domain, _size_note(size, rec))]
    return []


def _size_note(size: int, rec: ShardRecord) -> str:
    if size < rec.bytes:
        return f"truncated: {size} of {rec.bytes} bytes"
    if size > rec.bytes:
        return f"{size} bytes, {rec.bytes} recorded"
    return "content differs from the recorded SHA-256"
