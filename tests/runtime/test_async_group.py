"""dcp.async_save through fito's storage writer while training runs collectives on the
default group: fito's async_save works (a gloo group of its own); plain dcp.async_save on
the default group is refused on every rank before any collective, never a hang."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CHILD = Path(__file__).with_name("runtime_async_child.py")
ROOT = Path(__file__).resolve().parents[2]


def _job(tmp_path: Path, mode: str, world: int = 2, steps: int = 30) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    store = tmp_path / "store"
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
                str(steps),
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
