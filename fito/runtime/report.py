"""Text and JSON reports of a scanned checkpoint directory (what `fito inspect` prints)."""

from __future__ import annotations

from typing import Any

from fito.runtime.manifest import FORMAT, VERSION
from fito.runtime.reader import CheckpointScan, EpochVerdict
from fito.runtime.verify import CONSISTENT, Skip


def restore_reason(scan: CheckpointScan) -> str:
    """One sentence: which epoch a restore takes and why."""
    refused = sorted({s.epoch for s in scan.skipped}, reverse=True)
    status = {v.epoch: v.status for v in scan.epochs}
    listed = ", ".join(f"{e} ({status[e]})" for e in refused)
    if scan.restore_epoch is None:
        return (
            "no committed epoch is consistent" + (f"; refused: {listed}" if listed else "")
            if scan.epochs
            else "the directory holds no epoch yet"
        )
    n = len(next(v for v in scan.epochs if v.epoch == scan.restore_epoch).domains)
    head = (
        f"epoch {scan.restore_epoch}: committed, and its {n} shard{'s' * (n != 1)} all "
        "match their recorded domain, epoch, size and SHA-256"
    )
    return head + (f"; newer epochs refused: {listed}" if listed else "")


def below_lattice_point(scan: CheckpointScan) -> str:
    """Why a restore takes an older epoch than the lattice's best recovery point ("" when
    it does not): the epochs from that point down to the restored one that were refused."""
    point, taken = scan.best_recovery_point, scan.restore_epoch
    if point is None or (taken is not None and taken >= point):
        return ""
    status = {v.epoch: v.status for v in scan.epochs}
    refused = [
        e for e in sorted(status, reverse=True) if e <= point and (taken is None or e > taken)
    ]
    why = ", ".join(f"epoch {e} is {status[e]}" for e in refused)
    target = "no epoch" if taken is None else f"epoch {taken}"
    return f"restore takes {target}, not the lattice point {point}: " + (
        why or f"no epoch {point} is on disk"
    )


def newest_is_consistent(scan: CheckpointScan) -> bool:
    """True when the directory is empty or its newest epoch is committed and consistent."""
    return scan.newest is None or scan.newest.status == CONSISTENT


def to_text(scan: CheckpointScan) -> str:
    """The human-readable report."""
    out = [f"checkpoint directory {scan.root}"]
    width = max([len("domain")] + [len(d) for d, _ in scan.holdings])
    out.append(f"  {'domain'.ljust(width)}  epochs held")
    for d, epochs in scan.holdings:
        out.append(f"  {d.ljust(width)}  {' '.join(map(str, epochs)) or '-'}")
    if scan.epochs:
        out.append(f"  {'epoch':>10}  {'commit':6}  {'status':11}  domains / problems")
    for v in scan.epochs:
        out.append(_epoch_line(v))
        out.extend(f"  {'':>10}  {'':6}  {'':11}  {p.describe()}" for p in v.problems)
    if scan.durable_kind is not None:
        x = " ".join(f"{d}={e}" for d, e in scan.durable_vector)
        out.append(
            f"durable vector (newest shard per domain): {x}: {scan.durable_kind}; "
            f"lattice best recovery point {scan.best_recovery_point} (a bound from the shards "
            "alone: a restore also needs the commit and the hashes)"
        )
    out.append("restore: " + restore_reason(scan))
    below = below_lattice_point(scan)
    if below:
        out.append(below)
    if scan.newest is not None and scan.newest.status != CONSISTENT:
        out.append(f"newest epoch {scan.newest.epoch} is {scan.newest.status}")
    if scan.temp_files:
        out.append("temporary files left by an interrupted writer: " + " ".join(scan.temp_files))
    return "\n".join(out)


def _epoch_line(v: EpochVerdict) -> str:
    commit = "yes" if v.committed else "no"
    return f"  {v.epoch:>10}  {commit:6}  {v.status:11}  {' '.join(v.domains) or '-'}"


def to_json(scan: CheckpointScan) -> dict[str, Any]:
    """The machine-readable report (stable keys, see docs/runtime.md)."""
    return {
        "dir": scan.root,
        "format": FORMAT,
        "version": VERSION,
        "domains": {d: list(epochs) for d, epochs in scan.holdings},
        "epochs": [
            {
                "epoch": v.epoch,
                "committed": v.committed,
                "status": v.status,
                "domains": list(v.domains),
                "problems": [_skip(p) for p in v.problems],
            }
            for v in scan.epochs
        ],
        "restore": {
            "epoch": scan.restore_epoch,
            "why": restore_reason(scan),
            "skipped": [_skip(s) for s in scan.skipped],
        },
        "newest": None
        if scan.newest is None
        else {"epoch": scan.newest.epoch, "status": scan.newest.status},
        "durable": {
            "vector": dict(scan.durable_vector),
            "kind": scan.durable_kind,
            "best_recovery_point": scan.best_recovery_point,
        },
        "temp_files": list(scan.temp_files),
    }


def _skip(s: Skip) -> dict[str, Any]:
    return {"epoch": s.epoch, "reason": s.reason, "domain": s.domain, "detail": s.detail}
