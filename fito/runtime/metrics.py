"""Epoch skew per domain as Prometheus metrics (text exposition format 0.0.4).

The durable vector x holds, per domain d, the newest epoch x_d it has a shard for. Its skew
x_d - min(x) is zero in every domain exactly when x lies on the diagonal of the epoch
lattice (paper A, claim 2); x_d - r, with r the epoch a restore would take, is how far each
domain runs ahead of what can be recovered.
"""

from __future__ import annotations

from collections.abc import Iterable

from fito.runtime.reader import CheckpointScan
from fito.runtime.verify import CONSISTENT, REASONS, STATUSES

Sample = tuple[dict[str, str], float]

_FAMILIES = (
    (
        "fito_checkpoint_domain_epoch",
        "Newest epoch for which the domain holds a shard file (the durable vector x).",
    ),
    (
        "fito_checkpoint_domain_epoch_skew",
        "Domain's newest epoch minus the smallest newest epoch over all domains (x_d - min x).",
    ),
    (
        "fito_checkpoint_domain_epochs_ahead_of_restore",
        "Domain's newest epoch minus the epoch a restore would take.",
    ),
    (
        "fito_checkpoint_restore_epoch",
        "The epoch a restore would take (absent when none is consistent).",
    ),
    ("fito_checkpoint_restorable", "1 when some committed epoch is consistent, else 0."),
    ("fito_checkpoint_newest_epoch", "Newest epoch present on disk, committed or not."),
    (
        "fito_checkpoint_newest_epoch_consistent",
        "1 when the newest epoch on disk is committed and consistent, else 0.",
    ),
    ("fito_checkpoint_epochs", "Epochs on disk by status (consistent, mixed, torn, uncommitted)."),
    (
        "fito_checkpoint_restore_skips",
        "Problems found in the epochs newer than the one a restore takes, by reason.",
    ),
)


def prometheus_text(scan: CheckpointScan) -> str:
    """The metrics of a scanned checkpoint directory, with HELP and TYPE lines."""
    samples = _samples(scan)
    lines: list[str] = []
    for name, help_text in _FAMILIES:
        lines.append(f"# HELP {name} {_escape_help(help_text)}")
        lines.append(f"# TYPE {name} gauge")
        for labels, value in samples[name]:
            lines.append(f"{name}{_labels(labels)} {_number(value)}")
    return "\n".join(lines) + "\n"


def _samples(scan: CheckpointScan) -> dict[str, list[Sample]]:
    base = {"dir": scan.root}
    out: dict[str, list[Sample]] = {name: [] for name, _ in _FAMILIES}
    newest = {d: es[-1] for d, es in scan.holdings if es}
    low = min(newest.values(), default=0)
    for d, x in newest.items():
        labels = {**base, "domain": d}
        out["fito_checkpoint_domain_epoch"].append((labels, x))
        out["fito_checkpoint_domain_epoch_skew"].append((labels, x - low))
        if scan.restore_epoch is not None:
            out["fito_checkpoint_domain_epochs_ahead_of_restore"].append(
                (labels, x - scan.restore_epoch)
            )
    if scan.restore_epoch is not None:
        out["fito_checkpoint_restore_epoch"].append((base, scan.restore_epoch))
    out["fito_checkpoint_restorable"].append((base, int(scan.restore_epoch is not None)))
    if scan.newest is not None:
        out["fito_checkpoint_newest_epoch"].append((base, scan.newest.epoch))
    ok = scan.newest is not None and scan.newest.status == CONSISTENT
    out["fito_checkpoint_newest_epoch_consistent"].append((base, int(ok)))
    for status in STATUSES:
        count = sum(1 for v in scan.epochs if v.status == status)
        out["fito_checkpoint_epochs"].append(({**base, "status": status}, count))
    for reason in REASONS:
        count = sum(1 for s in scan.skipped if s.reason == reason)
        out["fito_checkpoint_restore_skips"].append(({**base, "reason": reason}, count))
    return out


def _labels(labels: dict[str, str]) -> str:
    return "{" + ",".join(f'{k}="{_escape_label(v)}"' for k, v in labels.items()) + "}"


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def metric_names() -> Iterable[str]:
    """The metric families this module exports."""
    return (name for name, _ in _FAMILIES)
