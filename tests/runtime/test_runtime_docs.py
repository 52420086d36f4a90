"""docs/runtime.md runs as written: each Python example, in a fresh process, on a
directory that does not exist yet (the first run) and again on what it left (the resume);
each test command it shows selects tests."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "runtime.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def _block(marker: str) -> str:
    found = [b for b in _blocks() if marker in b]
    assert len(found) == 1, f"one example of docs/runtime.md uses {marker}"
    return found[0]


def _run(program: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


# Stand-ins for the names the examples leave to the reader: a model and an optimizer with
# state_dicts, the training loop's counters. The example itself is pasted unchanged.
_SINGLE = """
import numpy as np
class Stateful:
    def __init__(self): self.s = {"w": np.arange(4.0)}
    def state_dict(self): return self.s
    def load_state_dict(self, s): self.s = dict(s)
model, opt, sched = Stateful(), Stateful(), Stateful()
ckpt_dir = "ckpt"
step, p, b, g_state = int(open("step").read()), 0, 0, [1, 2]
"""


def test_single_process_example_first_run_then_resume(tmp_path: Path) -> None:
    example = _block("with CheckpointWriter(ckpt_dir")
    program = _SINGLE + example + "\nprint('start', start)\n"
    (tmp_path / "step").write_text("1")
    assert _run(program, tmp_path).split() == ["start", "0"]  # the first run: no checkpoint
    (tmp_path / "step").write_text("2")
    assert _run(program, tmp_path).split() == ["start", "1"]  # resumed from what it saved


_DIST = """
import torch, torch.distributed as dist
dist.init_process_group("gloo", init_method="file://" + __import__("os").path.abspath("store"),
                        rank=0, world_size=1)
ckpt_dir, steps = "ckpt", int(open("steps").read())
sharded_model_state = {"w": torch.arange(4.0)}
sharded_optim_state = {"m": torch.zeros(4)}
loader_position = {"batch": 3}
"""


@pytest.mark.torch
def test_distributed_example_first_run_then_resume(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    example = _block("DistributedCheckpointWriter(ckpt_dir")
    program = _DIST + example + "\nprint('start', start)\ndist.destroy_process_group()\n"
    (tmp_path / "steps").write_text("2")
    assert _run(program, tmp_path).split() == ["start", "0"]
    (tmp_path / "store").unlink(missing_ok=True)
    (tmp_path / "steps").write_text("3")
    assert _run(program, tmp_path).split() == ["start", "2"]


_DCP = """
import torch
ckpt_dir, step = "ckpt", 5
state_dict = {"w": torch.arange(8.0), "step": 5}
"""


@pytest.mark.torch
def test_dcp_example(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    example = _block("FitoStorageWriter(ckpt_dir")
    program = _DCP + example + "\nprint('loaded', reader.epoch)\n"
    assert _run(program, tmp_path).split() == ["loaded", "5"]


def test_first_run_pattern_nothing_to_restore(tmp_path: Path) -> None:
    from fito.runtime import (
        CheckpointWriter,
        NoConsistentEpoch,
        NotACheckpointDir,
        NothingToRestore,
        restore,
    )

    for where in (tmp_path / "missing", tmp_path / "empty"):
        if where.name == "empty":
            where.mkdir()
        with pytest.raises(NothingToRestore) as caught:
            restore(where)
        assert isinstance(caught.value, NoConsistentEpoch) and caught.value.skipped == ()
    with CheckpointWriter(tmp_path / "opened"):  # a writer that never saved: only its lock
        pass
    with pytest.raises(NothingToRestore):
        restore(tmp_path / "opened")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    with pytest.raises(NotACheckpointDir) as other:  # a wrong path is not a first run
        restore(tmp_path / "other")
    assert not isinstance(other.value, NoConsistentEpoch)


def test_test_commands_select_tests() -> None:
    """Every `python -m pytest` command the page shows selects at least one test."""
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    commands = re.findall(r"`(?:[A-Z_]+=\S+ )*python -m pytest ([^`]*)`", text)
    assert commands, "docs/runtime.md shows its test commands"
    for args in commands:
        argv = [a for a in args.split() if a not in ("-q", "-s")]
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        selected = [line for line in done.stdout.splitlines() if "::" in line]
        assert done.returncode == 0 and selected, (args, done.stdout[-2000:])


@pytest.mark.slow
@pytest.mark.torch
def test_bench_command_runs(tmp_path: Path) -> None:
    """The page's bench, at a small size: it runs and prints every ratio it promises."""
    pytest.importorskip("torch")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "runtime.py"),
            "--mb",
            "8",
            "--rounds",
            "2",
            "--steps",
            "4",
            "--every",
            "2",
            "--dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("ratio (") == 5 and "verify plain DCP directory" in done.stdout
