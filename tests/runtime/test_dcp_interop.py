"""Interop both ways: a checkpoint saved through fito's DCP writer loads with plain
`dcp.load` (the standard `.metadata` the commit writes) and still carries fito's epoch
manifest with content hashes; resharding on load (saved by 2 ranks, loaded by 1 or 3)
works through fito's reader and through plain DCP's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

import torch.distributed.checkpoint as dcp  # noqa: E402

from fito.runtime import scan  # noqa: E402
from fito.runtime.dcp import FitoStorageReader, FitoStorageWriter  # noqa: E402

CHILD = Path(__file__).with_name("runtime_reshard_child.py")
ROOT = Path(__file__).resolve().parents[2]


def _job(tmp_path: Path, world: int, mode: str) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    store = tmp_path / f"store-{mode}-{world}"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(CHILD),
                str(tmp_path / "ckpt"),
                str(store),
                str(r),
                str(world),
                mode,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for r in range(world)
    ]
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=240)
            assert p.returncode == 0, err[-3000:]
            outs.append(out.strip())
    finally:
        for p in procs:
            p.kill()
    return outs


def _state(scale: float) -> dict:
    return {
        "model": {"w": torch.arange(8.0) * scale, "b": torch.ones(2, 3) * scale},
        "step": int(scale),
    }


def _blank() -> dict:
    return {"model": {"w": torch.zeros(8), "b": torch.zeros(2, 3)}, "step": 0}


def test_plain_dcp_load_reads_the_newest_commit(tmp_path: Path) -> None:
    root = tmp_path / "ckpt"
    for epoch in (1, 2):
        dcp.save(_state(epoch), storage_writer=FitoStorageWriter(root), checkpoint_id=epoch)
    plain = _blank()
    dcp.load(plain, checkpoint_id=str(root))  # DCP's own FileSystemReader
    guarded, reader = _blank(), FitoStorageReader(root)
    dcp.load(guarded, storage_reader=reader)
    expected = _state(2)
    for got in (plain, guarded):
        assert got["step"] == 2 and all(
            torch.equal(got["model"][k], expected["model"][k]) for k in "wb"
        )
    assert reader.epoch == 2 and scan(root).restore_epoch == 2  # fito's manifest is there too
    manifest = scan(root).epochs[0]
    assert manifest.committed and manifest.status == "consistent"


def test_resume_hides_the_superseded_epoch_from_plain_readers(tmp_path: Path) -> None:
    root = tmp_path / "ckpt"
    for epoch in (1, 2):
        dcp.save(_state(epoch), storage_writer=FitoStorageWriter(root), checkpoint_id=epoch)
    dcp.save(_state(5), storage_writer=FitoStorageWriter(root, resume_from=1), checkpoint_id=3)
    plain = _blank()
    dcp.load(plain, checkpoint_id=str(root))
    assert plain["step"] == 5


@pytest.mark.slow
def test_reshard_2_to_1_and_3_through_both_readers(tmp_path: Path) -> None:
    assert _job(tmp_path, 2, "save") == ["ok 276.0"] * 2
    for world in (1, 3):
        for mode in ("fito", "plain"):
            assert _job(tmp_path, world, mode) == ["ok 276.0"] * world, (world, mode)
