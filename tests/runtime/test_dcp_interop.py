"""Interop both ways: a checkpoint saved through fito's DCP writer loads with plain
`dcp.load` (the standard `.metadata` the commit writes) and still carries fito's epoch
manifest with content hashes; resharding on load (saved by 2 ranks, loaded by 1 or 3)
works through fito's reader and through plain DCP's."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

import torch.distributed.checkpoint as dcp  # noqa: E402

from fito.runtime import scan  # noqa: E402
from fito.runtime.dcp import FitoStorageReader, FitoStorageWriter  # noqa: E402
from tests.runtime.runtime_helpers import run_ranks  # noqa: E402

CHILD = Path(__file__).with_name("runtime_reshard_child.py")


def _job(tmp_path: Path, world: int, mode: str) -> list[str]:
    ckpt, store = str(tmp_path / "ckpt"), str(tmp_path / f"store-{mode}-{world}")
    return run_ranks(CHILD, world, lambda r: [ckpt, store, str(r), str(world), mode])


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
