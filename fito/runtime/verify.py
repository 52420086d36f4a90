"""Checking one epoch of a checkpoint directory: its manifest, then every shard it names.

An epoch is consistent when its commit manifest is complete and every shard it names
exists, says it belongs to that domain and epoch, and matches its recorded size and
SHA-256. Every problem is a `Skip` with a reason from `REASONS`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from fito.runtime import layout
from fito.runtime.codec import HEADER_LIMIT, BadShard, parse_header
from fito.runtime.manifest import MAX_BYTES, Manifest, ShardRecord, TornManifest, parse_manifest
from fito.runtime.safeio import NotRegular, hash_fd, open_regular, read_exact

MISSING_SHARD, HASH_MISMATCH, EPOCH_MISMATCH = "missing-shard", "hash-mismatch", "epoch-mismatch"
DOMAIN_MISMATCH, MISSING_DOMAIN = "domain-mismatch", "missing-domain"
TORN_MANIFEST, UNCOMMITTED, UNDECODABLE = "torn-manifest", "uncommitted", "undecodable"
NOT_REGULAR, CONFLICTING_MANIFESTS = "not-regular", "conflicting-manifests"
REASONS = (
    MISSING_SHARD,
    HASH_MISMATCH,
    EPOCH_MISMATCH,
    DOMAIN_MISMATCH,
    MISSING_DOMAIN,
    TORN_MANIFEST,
    UNCOMMITTED,
    UNDECODABLE,
    NOT_REGULAR,
    CONFLICTING_MANIFESTS,
)
CONSISTENT, MIXED, TORN = "consistent", "mixed", "torn"
STATUSES = (CONSISTENT, MIXED, TORN, UNCOMMITTED)
_TORN_REASONS = frozenset(
    {HASH_MISMATCH, TORN_MANIFEST, UNDECODABLE, NOT_REGULAR, CONFLICTING_MANIFESTS}
)


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


def read_manifest(
    root: Path, epoch: int, listing: Mapping[int, tuple[str, ...]] | None = None
) -> tuple[Manifest | None, list[Skip]]:
    """The manifest of epoch, or None and why not: torn, not a regular file, or two
    different files (`e3.json`, `e0000000003.json`) for the one epoch. listing: what
    `layout.manifest_files(root)` gives, when the caller has it (read once per directory,
    not once per epoch)."""
    if listing is None:
        listing = layout.manifest_files(root)
    names = listing.get(epoch) or (layout.manifest_relpath(epoch),)
    contents: list[bytes] = []
    for name in names:
        try:
            contents.append(_read_bounded(root, name))
        except TornManifest as exc:
            return None, [Skip(epoch, TORN_MANIFEST, None, f"{name}: {exc}")]
        except NotRegular as exc:
            return None, [Skip(epoch, NOT_REGULAR, None, exc.message)]
        except OSError as exc:
            return None, [Skip(epoch, TORN_MANIFEST, None, f"{name}: unreadable: {exc.strerror}")]
    if any(c != contents[0] for c in contents[1:]):
        return None, [
            Skip(
                epoch,
                CONFLICTING_MANIFESTS,
                None,
                f"{' and '.join(names)} differ: which one commits is unknown",
            )
        ]
    try:
        return parse_manifest(contents[0], epoch), []
    except TornManifest as exc:
        return None, [Skip(epoch, TORN_MANIFEST, None, str(exc))]


def _read_bounded(root: Path, relpath: str) -> bytes:
    with open_regular(root, relpath) as (fd, size):
        if size > MAX_BYTES:
            raise TornManifest(f"{size} bytes, more than the {MAX_BYTES} a manifest may hold")
        return bytes(read_exact(fd, size))


def check_epoch(
    root: Path,
    epoch: int,
    required: Iterable[str] = (),
    *,
    keep_bytes: bool = False,
    only: Collection[str] | None = None,
    listing: Mapping[int, tuple[str, ...]] | None = None,
) -> tuple[Manifest | None, list[Skip], dict[str, bytearray]]:
    """The manifest of epoch, every problem found, and (keep_bytes) the verified shard bytes.

    only: verify just these domains' shards (default: all the manifest names). With
    keep_bytes each shard is read once into memory and those very bytes are hashed, so what
    is later decoded is what was verified.
    """
    manifest, problems = read_manifest(root, epoch, listing)
    if manifest is None:
        return None, problems, {}
    for domain in sorted(set(required) - set(manifest.domains)):
        problems.append(Skip(epoch, MISSING_DOMAIN, domain, "not in the commit manifest"))
    blobs: dict[str, bytearray] = {}
    for record in manifest.shards:
        if only is not None and record.domain not in only:
            continue
        found, data = check_shard(root, epoch, record, keep_bytes)
        problems.extend(found)
        if data is not None and not found:
            blobs[record.domain] = data
    return manifest, problems, blobs


def check_shard(
    root: Path, epoch: int, rec: ShardRecord, keep_bytes: bool
) -> tuple[list[Skip], bytearray | None]:
    """The problems of one shard a manifest names, and (keep_bytes) its verified bytes.

    Only a regular file is opened; its header is read and checked, then its size, and only
    then is the rest read (a file of the wrong size is never read whole)."""
    if rec.epoch != epoch:
        return [
            Skip(
                epoch,
                EPOCH_MISMATCH,
                rec.domain,
                f"the manifest of epoch {epoch} records a shard of epoch {rec.epoch}",
            )
        ], None
    try:
        with open_regular(root, rec.file) as (fd, size):
            head = bytes(read_exact(fd, min(size, HEADER_LIMIT)))
            try:
                header = parse_header(head)[0]
            except BadShard as exc:
                return [
                    Skip(epoch, HASH_MISMATCH, rec.domain, f"{_size_note(size, rec)}; {exc}")
                ], None
            problems = _compare(epoch, rec, header.domain, header.epoch, size, header.codec)
            if problems:
                return problems, None
            data = read_exact(fd, size) if keep_bytes else None
            digest = hashlib.sha256(data).hexdigest() if data is not None else hash_fd(fd, size)
    except FileNotFoundError:
        return [Skip(epoch, MISSING_SHARD, rec.domain, f"{rec.file} does not exist")], None
    except NotRegular as exc:
        return [Skip(epoch, NOT_REGULAR, rec.domain, exc.message)], None
    except OSError as exc:
        return [Skip(epoch, MISSING_SHARD, rec.domain, f"{rec.file}: {exc.strerror}")], None
    if digest != rec.sha256:
        return [Skip(epoch, HASH_MISMATCH, rec.domain, _size_note(size, rec))], None
    return [], data


def _compare(
    epoch: int, rec: ShardRecord, domain: str, held: int, size: int, codec: str
) -> list[Skip]:
    if held != epoch:
        return [
            Skip(epoch, EPOCH_MISMATCH, rec.domain, f"{rec.file} holds epoch {held}, not {epoch}")
        ]
    if domain != rec.domain:
        return [Skip(epoch, DOMAIN_MISMATCH, rec.domain, f"{rec.file} holds domain {domain!r}")]
    if size != rec.bytes:
        return [Skip(epoch, HASH_MISMATCH, rec.domain, _size_note(size, rec))]
    if codec != rec.codec:  # a re-signed manifest: what would decode it is not what wrote it
        return [
            Skip(
                epoch,
                UNDECODABLE,
                rec.domain,
                f"the manifest records codec {rec.codec!r}, {rec.file} was written with {codec!r}",
            )
        ]
    return []


def _size_note(size: int, rec: ShardRecord) -> str:
    if size < rec.bytes:
        return f"truncated: {size} of {rec.bytes} bytes"
    if size > rec.bytes:
        return f"{size} bytes, {rec.bytes} recorded"
    return "content differs from the recorded SHA-256"
