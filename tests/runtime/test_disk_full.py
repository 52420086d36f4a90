"""A full disk: at every durability point of a save, an injected ENOSPC (and, where a small
tmpfs can be mounted, a real one) makes `save` raise DiskFull saying "disk full", leaves no
temporary file and no shard of the failed epoch, and the previous commit restores."""

from __future__ import annotations

import errno
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from fito.runtime import CheckpointWriter, faults, restore
from fito.runtime.durable import DiskFull

DOMAINS = ("data", "model", "optimizer")


def states(epoch: int, size: int = 64) -> dict:
    return {
        "data": {"epoch": epoch},
        "model": {"w": np.full(size, epoch, dtype=np.float64)},
        "optimizer": {"m": np.arange(size) * epoch, "step": epoch},
    }


def leftovers(root: Path, epoch: int) -> list[str]:
    """Temporary files anywhere, and any file of epoch."""
    tag = f"e{epoch:010d}."
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.name.endswith(".tmp") or p.name.startswith(tag)
    )


def points_of(root: Path, epoch: int, state: dict) -> list[tuple[str, str]]:
    """The durability points (operation, path) of one save of state into a copy of root."""
    ops: list[tuple[str, str]] = []
    shutil.copytree(root, root.with_name("count"))
    faults.arm(0, observer=lambda _i, op, path: ops.append((op, path)))
    try:
        with CheckpointWriter(root.with_name("count"), keep=2) as w:
            w.save(epoch, state)
    finally:
        faults.arm(0)
        shutil.rmtree(root.with_name("count"))
    return ops


def test_disk_full_at_every_point_of_a_save(tmp_path: Path) -> None:
    base = tmp_path / "base"
    with CheckpointWriter(base, keep=2) as w:
        w.save(1, states(1))
    ops = points_of(base, 2, states(2))
    committed = max(
        i for i, (op, path) in enumerate(ops, 1) if op == "fsync-dir" and path.endswith("commits")
    )
    rng = random.Random(5)
    for at, (op, _) in enumerate(ops, 1):
        root = tmp_path / f"at{at}"
        shutil.copytree(base, root)
        with CheckpointWriter(root, keep=2) as w:
            faults.arm(at, rng.random(), fail=errno.ENOSPC)
            try:
                if at <= committed:
                    with pytest.raises(DiskFull, match="disk full") as info:
                        w.save(2, states(2))
                    assert isinstance(info.value.__cause__, OSError)
                else:  # only collection is left: the commit stands, a warning says so
                    with pytest.warns(RuntimeWarning, match="is committed"):
                        w.save(2, states(2))
            finally:
                faults.arm(0)
            assert restore(root).epoch == (1 if at <= committed else 2), (at, op)
            if at <= committed:
                assert leftovers(root, 2) == [], (at, op)
                w.save(2, states(2))  # the failed epoch can be saved again
        assert restore(root).epoch == 2 and not list(root.rglob("*.tmp"))
    assert {op for op, _ in ops[:committed]} == {"create", "write", "fsync", "rename", "fsync-dir"}


def test_disk_full_inside_torch_save_says_so(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", exc_type=ImportError)
    root = tmp_path / "c"
    with CheckpointWriter(root) as w:
        w.save(1, {"model": {"w": torch.zeros(10)}})
    big = {"model": {"w": torch.arange(4096.0), "b": torch.ones(3)}}
    ops = points_of(root, 2, big)
    inside = [i for i, (op, path) in enumerate(ops, 1) if op == "write" and ".shard" in path][1:]
    assert len(inside) >= 3  # the header, then torch.save's own writes
    with CheckpointWriter(root) as w:
        for at in inside:
            faults.arm(at, 0.5, fail=errno.ENOSPC)
            try:
                with pytest.raises(DiskFull, match="disk full") as info:
                    w.save(2, big)
            finally:
                faults.arm(0)
            assert "inline_container" not in str(info.value)
            assert leftovers(root, 2) == [] and restore(root).epoch == 1


@pytest.fixture()
def tiny_fs(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs, when this process may mount one (root, outside a locked container)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if (
        shutil.which("mount") is None
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
            capture_output=True,
            check=False,
        ).returncode
        != 0
    ):
        pytest.skip("cannot mount a small tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_real_full_disk(tiny_fs: Path) -> None:
    root = tiny_fs / "c"
    with CheckpointWriter(root, keep=1) as w:
        w.save(1, states(1))
        with pytest.raises(DiskFull, match="disk full"):
            w.save(2, states(2, size=1 << 18))  # 2 MiB of float64 on a 1 MiB disk
        assert leftovers(root, 2) == [] and restore(root).epoch == 1
        w.save(2, states(2))
    assert restore(root).epoch == 2
