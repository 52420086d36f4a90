"""Restoring: the newest committed epoch whose shards all verify, never a mixed state.

`restore` walks the commit manifests from the newest down, verifies every shard an epoch
names (existence, domain, epoch, size, SHA-256) before decoding any of them, and rolls back
past each epoch that fails, recording why. `scan` does the same for every epoch on disk
without decoding, for `fito inspect` and the metrics.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from fito import budget
from fito.runtime import layout
from fito.runtime.codec import decode_payload, parse_header
from fito.runtime.layout import CheckpointError
from fito.runtime.manifest import Manifest
from fito.runtime.verify import (
    CONSISTENT,
    UNCOMMITTED,
    UNDECODABLE,
    Skip,
    check_epoch,
    read_manifest,
    status_of,
)


@dataclass(frozen=True, slots=True)
class Restored:
    """A restored epoch: one state per domain, all of that epoch, and what was skipped."""

    epoch: int
    states: Mapping[str, Any]
    manifest: Manifest
    skipped: tuple[Skip, ...]


class NoConsistentEpoch(CheckpointError):
    """No committed epoch verifies; `skipped` says why each candidate was refused."""

    def __init__(self, root: Path, skipped: tuple[Skip, ...]) -> None:
        self.skipped = skipped
        why = "; ".join(f"epoch {s.epoch}: {s.describe()}" for s in skipped[:4])
        more = f" (and {len(skipped) - 4} more)" if len(skipped) > 4 else ""
        super().__init__(
            f"no consistent committed epoch in {root}" + (f": {why}{more}" if why else "")
        )


class NothingToRestore(NoConsistentEpoch):
    """The first run: the directory does not exist yet, is empty, or holds no epoch at all
    (neither a commit nor a shard). A `NoConsistentEpoch`, so the first-run pattern of
    docs/runtime.md (`except NoConsistentEpoch: start = 0`) covers it."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, ())
        self.args = (f"nothing to restore in {root}: no checkpoint was written there yet",)


def restore(
    root: str | os.PathLike[str],
    *,
    domains: Iterable[str] | None = None,
    epoch: int | None = None,
    map_location: Any = None,
) -> Restored:
    """Load the newest consistent committed epoch (or exactly `epoch`); never a mixed state.

    domains: the domains that must be present (and the only ones decoded); default all.
    NothingToRestore (a NoConsistentEpoch) when nothing was ever written under root.
    """
    if layout.is_first_run(root):
        raise NothingToRestore(Path(root))
    path = layout.checkpoint_dir(root)
    required = tuple(layout.check_stored_domain(d) for d in domains) if domains is not None else ()
    listing = layout.manifest_files(path)  # read once: a directory may hold 10^5 manifests
    candidates = sorted(listing)
    if epoch is not None:
        candidates = [e for e in candidates if e == layout.check_epoch(epoch)]
    skipped: list[Skip] = []
    for e in reversed(candidates):
        budget.check()  # the command's deadline and memory (none outside a command)
        manifest, states, problems = load_epoch(path, e, required, map_location, listing=listing)
        if manifest is not None and states is not None:
            return Restored(
                e, MappingProxyType(states), manifest, with_uncommitted(path, skipped, e, epoch)
            )
        skipped.extend(problems)
    refused = with_uncommitted(path, skipped, -1, epoch)
    if not refused and not candidates and epoch is None:
        raise NothingToRestore(path)
    raise NoConsistentEpoch(path, refused)


def load_epoch(
    root: Path,
    epoch: int,
    required: Iterable[str] = (),
    map_location: Any = None,
    only: Collection[str] | None = None,
    listing: Mapping[int, tuple[str, ...]] | None = None,
) -> tuple[Manifest | None, dict[str, Any] | None, list[Skip]]:
    """Verify epoch (the shards of `only`, default all) and decode the required domains
    (default all verified ones): (manifest, states or None, problems). What `restore` and
    `scan` both do to an epoch, so that they never disagree on it. A CheckpointError (torch
    missing) is raised: it is about the environment, not the epoch."""
    manifest, problems, blobs = check_epoch(
        root, epoch, required, keep_bytes=True, only=only, listing=listing
    )
    if manifest is None or problems:
        return manifest, None, problems
    wanted = required or tuple(d for d in manifest.domains if only is None or d in only)
    states, problems = _decode(epoch, manifest, blobs, wanted, map_location)
    return manifest, (None if problems else states), problems


def with_uncommitted(
    root: Path, skipped: list[Skip], chosen: int, only: int | None
) -> tuple[Skip, ...]:
    """skipped plus the epochs newer than chosen that have shards but no manifest."""
    if only is None:
        committed = set(layout.manifest_epochs(root))
        held = {e for d in layout.shard_domains(root) for e in layout.shard_epochs(root, d)}
        skipped = skipped + [
            Skip(e, UNCOMMITTED, None, "shards without a commit manifest")
            for e in held - committed
            if e > chosen
        ]
    return tuple(sorted(skipped, key=lambda s: (-s.epoch, s.reason, s.domain or "")))


def _decode(
    epoch: int,
    manifest: Manifest,
    blobs: Mapping[str, bytearray],
    wanted: Iterable[str],
    map_location: Any,
) -> tuple[dict[str, Any], list[Skip]]:
    codec = {s.domain: s.codec for s in manifest.shards}
    states: dict[str, Any] = {}
    for d in wanted:
        data = blobs[d]
        offset = parse_header(data)[1]
        try:
            states[d] = decode_payload(codec[d], memoryview(data)[offset:], map_location)
        except CheckpointError:
            raise
        except Exception as exc:  # noqa: BLE001 - any decoder failure refuses the epoch
            return {}, [Skip(epoch, UNDECODABLE, d, f"{type(exc).__name__}: {exc}"[:200])]
    return states, []


# ---------------------------------------------------------------------------- scan
@dataclass(frozen=True, slots=True)
class EpochVerdict:
    """One epoch on disk: which domains hold it, whether it is committed, and its status."""

    epoch: int
    committed: bool
    status: str
    domains: tuple[str, ...]
    problems: tuple[Skip, ...]


@dataclass(frozen=True, slots=True)
class CheckpointScan:
    """Everything `fito inspect` reports about a checkpoint directory."""

    root: str
    holdings: tuple[tuple[str, tuple[int, ...]], ...]
    epochs: tuple[EpochVerdict, ...]
    restore_epoch: int | None
    skipped: tuple[Skip, ...]
    temp_files: tuple[str, ...]
    durable_kind: str | None  # the guardrail's verdict on the durable vector
    best_recovery_point: int | None  # (min x, ..., min x) of the epoch lattice

    @property
    def durable_vector(self) -> tuple[tuple[str, int], ...]:
        """x: the newest epoch each domain holds a shard for."""
        return tuple((d, es[-1]) for d, es in self.holdings if es)

    @property
    def newest(self) -> EpochVerdict | None:
        """The newest epoch present on disk, committed or not."""
        return self.epochs[0] if self.epochs else None


def scan(root: str | os.PathLike[str]) -> CheckpointScan:
    """Verify every epoch on disk and say which one a restore takes: the epochs newer than
    it and it are checked as `restore` checks them (decoded too), older ones verified only."""
    path = layout.checkpoint_dir(root)
    holdings = tuple((d, tuple(layout.shard_epochs(path, d))) for d in layout.shard_domains(path))
    listing = layout.manifest_files(path)  # read once: a directory may hold 10^5 manifests
    committed = set(listing)
    held = tuple((d, frozenset(es)) for d, es in holdings)
    all_epochs = sorted(committed.union(*(es for _, es in held)), reverse=True)
    known = _known_domains(path, sorted(committed), holdings, listing)
    verdicts: list[EpochVerdict] = []
    chosen: int | None = None
    for e in all_epochs:
        budget.check()  # the command's deadline and memory (none outside a command)
        verdict = _verdict(path, e, listing, held, known, decode=chosen is None)
        verdicts.append(verdict)
        if chosen is None and verdict.status == CONSISTENT:
            chosen = e
    skipped = tuple(p for v in verdicts if chosen is None or v.epoch > chosen for p in v.problems)
    temps = tuple(str(p.relative_to(path)) for p in layout.temp_files(path))
    kind, best = _classify_durable(holdings)
    return CheckpointScan(str(path), holdings, tuple(verdicts), chosen, skipped, temps, kind, best)


def _classify_durable(
    holdings: tuple[tuple[str, tuple[int, ...]], ...],
) -> tuple[str | None, int | None]:
    """The guardrail's classification of x (consistent or mixed) and its best recovery point."""
    from fito.models.epochs.guardrail import classify  # lazy-import: only a scan classifies

    vector = {d: es[-1] for d, es in holdings if es}
    if not vector:
        return None, None
    verdict = classify(vector)
    return verdict.kind, verdict.rollback


def _verdict(
    root: Path,
    epoch: int,
    listing: Mapping[int, tuple[str, ...]],
    held: tuple[tuple[str, frozenset[int]], ...],
    known: tuple[str, ...],
    decode: bool,
) -> EpochVerdict:
    present = tuple(d for d, es in held if epoch in es)
    committed = epoch in listing
    if committed and decode:
        try:
            problems = load_epoch(root, epoch, map_location="cpu", listing=listing)[2]
        except CheckpointError:  # not decodable here (torch missing): verified only
            problems = check_epoch(root, epoch, listing=listing)[1]
        complete = True
    elif committed:
        problems = check_epoch(root, epoch, listing=listing)[1]
        complete = True
    else:
        problems = [Skip(epoch, UNCOMMITTED, None, "shards without a commit manifest")]
        complete = set(known) <= set(present)
    return EpochVerdict(
        epoch, committed, status_of(committed, problems, complete), present, tuple(problems)
    )


def _known_domains(
    root: Path,
    committed: list[int],
    holdings: tuple[tuple[str, tuple[int, ...]], ...],
    listing: Mapping[int, tuple[str, ...]],
) -> tuple[str, ...]:
    """The domains of the newest readable manifest, else every domain directory."""
    for e in reversed(committed):
        budget.check()
        manifest, _ = read_manifest(root, e, listing)
        if manifest is not None:
            return manifest.domains
    return tuple(d for d, _ in holdings)
