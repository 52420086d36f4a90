"""The writer and reader on numpy and plain Python state: layout, garbage collection,
resume, locking, refusals, and restores that roll back past each kind of damage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from fito.runtime import (
    CheckpointError,
    CheckpointWriter,
    NoConsistentEpoch,
    capture_rng,
    faults,
    restore,
    restore_rng,
    scan,
)
from fito.runtime.layout import manifest_epochs, manifest_relpath, shard_epochs, shard_relpath
from fito.runtime.manifest import canonical


def states(epoch: int) -> dict:
    return {
        "model": {
            "w": np.full((3, 4), float(epoch), dtype=np.float64),
            "b": np.arange(epoch, dtype=np.int32),
        },
        "optimizer": {
            "state": {0: {"m": np.ones(2) * epoch}},
            "lr": 0.1 / epoch,
            "betas": (0.9, 0.999),
        },
        "data": {"epoch": epoch, "batch": 7, "order": [3, 1, 2]},
    }


def write(root: Path, epochs, keep: int = 10, make=states) -> None:
    with CheckpointWriter(root, keep=keep) as w:
        for e in epochs:
            w.save(e, make(e), metadata={"step": 10 * e})


def assert_is_epoch(restored, epoch: int) -> None:
    want = states(epoch)
    assert restored.epoch == epoch
    np.testing.assert_array_equal(restored.states["model"]["w"], want["model"]["w"])
    assert restored.states["model"]["b"].dtype == np.int32
    assert restored.states["optimizer"]["state"][0]["m"][0] == epoch
    assert restored.states["optimizer"]["betas"] == (0.9, 0.999)
    assert restored.states["data"] == want["data"]


def test_round_trip_keeps_types(tmp_path: Path) -> None:
    value = {
        "t": (1, (2.5, None)),
        "ints": {1: "a", 2: b"\x00\xff"},
        "s": np.float32(1.5),
        "big": 2**100,
        "nan": float("inf"),
        "nested": [[np.int8(-3)], {"k": True}],
    }
    write(tmp_path / "c", [1], make=lambda e: {"x": value})
    got = restore(tmp_path / "c").states["x"]
    assert got["t"] == (1, (2.5, None)) and got["ints"] == {1: "a", 2: b"\x00\xff"}
    assert type(got["s"]) is np.float32 and got["s"] == np.float32(1.5)
    assert got["big"] == 2**100 and got["nan"] == float("inf")
    assert type(got["nested"][0][0]) is np.int8


def test_layout_and_garbage_collection(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, [1, 2, 5, 9], keep=2)
    assert manifest_epochs(root) == [5, 9]
    assert all(shard_epochs(root, d) == [5, 9] for d in ("data", "model", "optimizer"))
    manifest = json.loads((root / manifest_relpath(9)).read_text())
    assert manifest["version"] == 1 and manifest["epoch"] == 9
    assert manifest["metadata"] == {"step": 90}
    assert manifest["domains"]["model"]["file"] == shard_relpath("model", 9)
    assert manifest["domains"]["model"]["codec"] == "npz"
    assert manifest["domains"]["data"]["codec"] == "json"
    assert not list(root.rglob("*.tmp"))
    assert_is_epoch(restore(root), 9)
    assert_is_epoch(restore(root, epoch=5), 5)


def test_epochs_must_grow_unless_resumed(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, [1, 2, 3])
    with CheckpointWriter(root) as w, pytest.raises(CheckpointError, match="not newer"):
        w.save(3, states(3))
    with CheckpointWriter(root, keep=10, resume_from=1) as w:
        assert manifest_epochs(root) == [1] and shard_epochs(root, "model") == [1]
        w.save(2, states(2))
    assert_is_epoch(restore(root), 2)


def test_one_writer_per_directory(tmp_path: Path) -> None:
    root = tmp_path / "c"
    with CheckpointWriter(root), pytest.raises(CheckpointError, match="another writer"):
        CheckpointWriter(root)
    CheckpointWriter(root).close()


@pytest.mark.parametrize(
    "bad",
    [
        lambda w: w.save(1, {"../x": 1}),
        lambda w: w.save(1, {}),
        lambda w: w.save(-1, {"a": 1}),
        lambda w: w.save(1, {"a": np.array([object()])}),
        lambda w: w.save(1, {"a": {1, 2}}),
        lambda w: w.save(1, {"a": 1}, metadata={"x": object()}),
        lambda w: w.save(1, {"a": 1}, codecs_by_domain={"a": "pickle"}),
        lambda w: w.save(1, {"a": np.ones(2), "b": {1, 2}}),
    ],
)
def test_bad_saves_are_refused_before_any_write(tmp_path: Path, bad) -> None:
    with CheckpointWriter(tmp_path / "c") as w, pytest.raises(CheckpointError):
        bad(w)
    assert not list((tmp_path / "c" / "shards").iterdir())
    assert not list((tmp_path / "c" / "commits").iterdir())


def test_bad_roots_are_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    for root in (tmp_path / "file", tmp_path / "other"):
        with pytest.raises(CheckpointError):
            CheckpointWriter(root)
    with pytest.raises(CheckpointError):
        CheckpointWriter(tmp_path / "c", keep=0)
    for root in (tmp_path / "missing", tmp_path / "file", tmp_path / "other"):
        with pytest.raises(CheckpointError):
            restore(root)


def damaged_copy(src: Path, dst: Path, how) -> Path:
    shutil.copytree(src, dst)
    how(dst)
    return dst


@pytest.mark.parametrize(
    "reason, how",
    [
        ("missing-shard", lambda r: (r / shard_relpath("optimizer", 3)).unlink()),
        ("hash-mismatch", lambda r: _truncate(r / shard_relpath("model", 3), 40)),
        ("hash-mismatch", lambda r: _flip(r / shard_relpath("model", 3), -5)),
        (
            "epoch-mismatch",
            lambda r: shutil.copyfile(r / shard_relpath("data", 2), r / shard_relpath("data", 3)),
        ),
        (
            "domain-mismatch",
            lambda r: shutil.copyfile(r / shard_relpath("data", 3), r / shard_relpath("model", 3)),
        ),
        ("torn-manifest", lambda r: _truncate(r / manifest_relpath(3), 100)),
        (
            "torn-manifest",
            lambda r: _edit_manifest(r, 3, lambda m: m["domains"]["model"].update(bytes=1)),
        ),
        ("torn-manifest", lambda r: _edit_manifest(r, 3, lambda m: m.update(version=2), True)),
        ("uncommitted", lambda r: (r / manifest_relpath(3)).unlink()),
    ],
)
def test_each_damage_rolls_back_one_epoch(tmp_path: Path, reason: str, how) -> None:
    write(tmp_path / "src", [1, 2, 3])
    root = damaged_copy(tmp_path / "src", tmp_path / "c", how)
    r = restore(root)
    assert_is_epoch(r, 2)
    assert [s.reason for s in r.skipped] == [reason] and r.skipped[0].epoch == 3
    s = scan(root)
    assert s.restore_epoch == 2 and s.newest is not None and s.newest.epoch == 3
    assert s.newest.status != "consistent"


def test_required_domains_and_subsets(tmp_path: Path) -> None:
    root = tmp_path / "c"
    with CheckpointWriter(root) as w:
        w.save(1, states(1))
        w.save(2, {"model": states(2)["model"]})
    assert restore(root).epoch == 2
    r = restore(root, domains=["model", "data"])
    assert r.epoch == 1 and set(r.states) == {"model", "data"}
    assert [(s.epoch, s.reason, s.domain) for s in r.skipped] == [(2, "missing-domain", "data")]
    with pytest.raises(NoConsistentEpoch, match="missing-domain"):
        restore(root, domains=["rng"])


def test_partial_newer_epoch_is_reported_and_never_loaded(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, [1, 2])
    shutil.copyfile(root / shard_relpath("model", 2), root / shard_relpath("model", 3))
    r = restore(root)
    assert r.epoch == 2 and [(s.epoch, s.reason) for s in r.skipped] == [(3, "uncommitted")]
    assert scan(root).newest.status == "mixed"


def test_nothing_consistent(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root, [1])
    (root / shard_relpath("model", 1)).unlink()
    with pytest.raises(NoConsistentEpoch) as info:
        restore(root)
    assert [s.reason for s in info.value.skipped] == ["missing-shard"]
    assert scan(root).restore_epoch is None


def test_rng_domain_round_trip(tmp_path: Path) -> None:
    import random

    random.seed(5)
    np.random.seed(6)
    with CheckpointWriter(tmp_path / "c") as w:
        w.save(1, {"rng": capture_rng()})
    expected = (random.random(), np.random.standard_normal(3))
    restore_rng(restore(tmp_path / "c").states["rng"])
    assert random.random() == expected[0]
    assert np.array_equal(np.random.standard_normal(3), expected[1])


def test_fault_spec_is_checked() -> None:
    with pytest.raises(ValueError):
        faults.arm(3, 1.5)
    faults.arm(0)


def _truncate(path: Path, size: int) -> None:
    with open(path, "r+b") as f:
        f.truncate(size)


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))


def _edit_manifest(root: Path, epoch: int, change, fix_checksum: bool = False) -> None:
    path = root / manifest_relpath(epoch)
    body = json.loads(path.read_text())
    change(body)
    if fix_checksum:
        import hashlib

        body.pop("checksum")
        body["checksum"] = hashlib.sha256(canonical(body)).hexdigest()
    path.write_text(json.dumps(body))
