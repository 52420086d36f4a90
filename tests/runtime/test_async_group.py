"""dcp.async_save through fito's storage writer while training runs collectives on the
default group: fito's async_save works (a gloo group of its own); plain dcp.async_save on
the default group is refused on every rank before any collective, never a hang."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

from tests.runtime.runtime_helpers import run_ranks  # noqa: E402

CHILD = Path(__file__).with_name("runtime_async_child.py")


def _job(tmp_path: Path, mode: str, world: int = 2, steps: int = 30) -> list[str]:
    ckpt, store = str(tmp_path / "ckpt"), str(tmp_path / "store")
    return run_ranks(CHILD, world, lambda r: [ckpt, store, str(r), str(world), mode, str(steps)])


@pytest.mark.slow
def test_fito_async_save_beside_training_collectives(tmp_path: Path) -> None:
    outs = _job(tmp_path, "fito")
    assert len(set(outs)) == 1 and outs[0].startswith("ok 30 "), outs
    # the weights are the sum over steps of the all-reduced gradients: independent formula
    expected = sum(64 * sum(r + s for r in range(2)) for s in range(1, 31))
    assert float(outs[0].split()[2]) == expected


def test_plain_async_save_on_default_group_is_refused(tmp_path: Path) -> None:
    outs = _job(tmp_path, "plain", steps=4)
    assert outs == ["refused AsyncOnDefaultGroup"] * 2, outs
