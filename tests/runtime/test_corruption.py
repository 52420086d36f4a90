"""Random damage to shards and manifests (seeded): truncation, flipped bytes, zeroed ranges,
appended bytes, deletion, stale copies from another epoch or domain. The expected outcome is
derived from the damage alone: a restore takes the newest epoch none of whose files was
touched, with that epoch's exact content, and reports each newer epoch's damage."""

from __future__ import annotations

import argparse
import collections
import io
import json
import random
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from fito.cli.commands import inspect_dir as inspect
from fito.runtime import CheckpointWriter, NoConsistentEpoch, restore, scan
from fito.runtime.codec import parse_header
from fito.runtime.layout import manifest_relpath, shard_relpath

SEED = 8
TRIALS = 200
EPOCHS = (1, 2, 3, 4, 5)
RECENT_FIRST = (1, 1, 2, 3, 4)  # damage weights: rollbacks past several epochs happen too
DOMAINS = ("data", "model", "optimizer", "rng", "scheduler")
SHARD_DAMAGE = ("truncate", "flip", "zero", "append", "delete", "stale", "other-domain")
MANIFEST_DAMAGE = ("truncate", "flip", "delete", "stale")


def state(domain: str, epoch: int) -> object:
    """Deterministic content that differs for every (domain, epoch)."""
    g = np.random.default_rng(DOMAINS.index(domain) * 100 + epoch)
    if domain in ("model", "optimizer"):
        return {
            "w": g.standard_normal(400).astype(np.float32),
            "step": np.int64(epoch),
            "shape": (20, 20),
        }
    return {"epoch": epoch, "domain": domain, "seq": [int(x) for x in g.integers(0, 10**6, 50)]}


def same(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine") / "ckpt"
    with CheckpointWriter(root, keep=len(EPOCHS)) as w:
        for e in EPOCHS:
            w.save(e, {d: state(d, e) for d in DOMAINS})
    return root


def damage(
    root: Path, pristine: Path, rng: random.Random, done: set[tuple[int, str | None]]
) -> tuple[int, str | None, str, set[str]]:
    """Damage one file not damaged before; returns (epoch, domain or None for the manifest,
    kind, the reasons that may report it). Stale copies come from the pristine tree."""

    def pick() -> tuple[int, str | None]:
        return rng.choices(EPOCHS, RECENT_FIRST)[0], rng.choice((None,) + DOMAINS)

    epoch, domain = pick()
    while (epoch, domain) in done:
        epoch, domain = pick()
    done.add((epoch, domain))
    if domain is None:
        kind = rng.choice(MANIFEST_DAMAGE)
        _apply(root / manifest_relpath(epoch), pristine, kind, rng, epoch, None)
        return epoch, None, kind, {"uncommitted"} if kind == "delete" else {"torn-manifest"}
    kind = rng.choice(SHARD_DAMAGE)
    in_header = _apply(root / shard_relpath(domain, epoch), pristine, kind, rng, epoch, domain)
    reasons = {
        "delete": {"missing-shard"},
        "stale": {"epoch-mismatch"},
        "other-domain": {"domain-mismatch"},
    }.get(kind, {"hash-mismatch"})
    if in_header:
        reasons = {"hash-mismatch", "epoch-mismatch", "domain-mismatch"}
    return epoch, domain, kind, reasons


def _apply(
    path: Path, pristine: Path, kind: str, rng: random.Random, epoch: int, domain: str | None
) -> bool:
    """Damage path in place; True when the change falls inside a shard's header."""
    data = bytearray(path.read_bytes())
    if kind == "delete":
        path.unlink()
        return False
    header = parse_header(bytes(data))[1] if domain is not None else 0
    if kind == "truncate":
        cut = rng.randrange(len(data))
        path.write_bytes(data[:cut])
        return cut < header
    if kind in ("flip", "zero"):
        at = rng.randrange(len(data))
        while kind == "zero" and data[at] == 0:
            at = rng.randrange(len(data))
        data[at] = data[at] ^ rng.randrange(1, 256) if kind == "flip" else 0
        path.write_bytes(data)
        return at < header
    if kind == "append":
        path.write_bytes(data + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))))
        return False
    other = rng.choice([e for e in EPOCHS if e != epoch])
    if kind == "stale":
        src = manifest_relpath(other) if domain is None else shard_relpath(domain, other)
    else:
        src = shard_relpath(rng.choice([d for d in DOMAINS if d != domain]), epoch)
    shutil.copyfile(pristine / src, path)
    return False


@pytest.mark.slow
def test_random_damage_rolls_back_to_the_newest_untouched_epoch(
    pristine: Path, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    kinds: collections.Counter[str] = collections.Counter()
    outcomes: collections.Counter[str] = collections.Counter()
    root = tmp_path / "work"
    shutil.copytree(pristine, root)
    for _ in range(TRIALS):
        damaged: dict[int, list[tuple[str | None, str, set[str]]]] = collections.defaultdict(list)
        done: set[tuple[int, str | None]] = set()
        for _ in range(rng.choice((1, 1, 2, 2, 3, 4, 6))):
            e, d, kind, reasons = damage(root, pristine, rng, done)
            damaged[e].append((d, kind, reasons))
            kinds[("manifest " if d is None else "shard ") + kind] += 1
        expected = max((e for e in EPOCHS if e not in damaged), default=None)
        outcomes[f"restored {expected}" if expected else "nothing restorable"] += 1
        _check(root, expected, damaged)
        for e, d in done:  # repair from the pristine copy for the next trial
            rel = manifest_relpath(e) if d is None else shard_relpath(d, e)
            shutil.copyfile(pristine / rel, root / rel)
    print(
        f"\ncorruption: {TRIALS} trials, damage {dict(sorted(kinds.items()))}; "
        f"{dict(sorted(outcomes.items()))}"
    )


def _check(
    root: Path, expected: int | None, damaged: dict[int, list[tuple[str | None, str, set[str]]]]
) -> None:
    try:
        r = restore(root)
        got, skipped = r.epoch, r.skipped
    except NoConsistentEpoch as exc:
        got, skipped, r = None, exc.skipped, None
    assert got == expected, (got, expected, dict(damaged))
    if r is not None:
        assert all(same(r.states[d], state(d, got)) for d in DOMAINS)
    for e, hits in damaged.items():
        if expected is not None and e < expected:
            continue
        _check_reasons(e, hits, [s for s in skipped if s.epoch == e])
    s = scan(root)
    assert s.restore_epoch == expected
    assert {v.epoch: v.status for v in s.epochs if v.epoch in damaged} == {
        e: _expected_status(hits) for e, hits in damaged.items()
    } | {v.epoch: v.status for v in s.epochs if v.epoch in damaged and _ambiguous(damaged[v.epoch])}
    out = io.StringIO()
    with redirect_stdout(out):
        status = inspect.run(argparse.Namespace(dir=str(root), format="json"))
    assert status == (1 if max(EPOCHS) in damaged else 0)
    assert json.loads(out.getvalue())["restore"]["epoch"] == expected


def _check_reasons(epoch: int, hits: list[tuple[str | None, str, set[str]]], found: list) -> None:
    """The reasons reported for a damaged epoch are those its damage implies."""
    manifest_hits = [h for h in hits if h[0] is None]
    got = {(s.domain, s.reason) for s in found}
    if manifest_hits:  # a damaged manifest hides its shards: they are not consulted
        assert {reason for _, reason in got} == manifest_hits[0][2], (got, hits)
        return
    allowed = {d: reasons for d, _, reasons in hits}
    assert {d for d, _ in got} == set(allowed), (got, hits)
    for d, reason in got:
        assert reason in allowed[d], (d, reason, hits)


def _expected_status(hits: list[tuple[str | None, str, set[str]]]) -> str:
    manifest = [kind for d, kind, _ in hits if d is None]
    if manifest == ["delete"]:
        shards_gone = any(k == "delete" for d, k, _ in hits if d is not None)
        return "mixed" if shards_gone else "uncommitted"
    if manifest:
        return "torn"
    return "torn" if any(r == {"hash-mismatch"} for _, _, r in hits) else "mixed"


def _ambiguous(hits: list[tuple[str | None, str, set[str]]]) -> bool:
    """A flipped header byte may read as another epoch or domain (mixed) or as garbage (torn)."""
    return any(len(reasons) > 1 for _, _, reasons in hits)
