"""The first hour with fito (issue 32): what a newcomer meets first says what fito is and
how to try it, the commands leave the checkout as they found it, and the reports explain
themselves."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fito.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------------- the README
def first_screen() -> str:
    return "\n".join(README.split("\n")[:50])


def test_the_first_screen_shows_a_spec_its_command_and_the_tutorial() -> None:
    screen = first_screen()
    (spec,) = re.findall(r"```fito\n(.*?)```", screen, re.S)
    assert spec == (ROOT / "docs" / "first.fito").read_text(encoding="utf-8")
    assert len(spec.strip().split("\n")) <= 10
    # the output under it is the real one: tests/docs/test_readme.py runs every console block
    assert "```console\n$ fito check docs/first.fito\n" in screen
    assert "docs/tutorial.md" in screen
    assert "CSP" not in screen  # nothing to know beforehand


def test_no_report_file_is_tracked_in_the_root() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(
        ["git", "ls-files", "trace.json"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    assert tracked == ""
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "trace.json"], cwd=ROOT, capture_output=True
    )
    assert ignored.returncode == 0  # the README's own `-o trace.json` leaves git status clean


def test_writing_a_report_to_a_file_says_so(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "trace.json"
    status = main(
        ["check", "--no-progress", "--format", "json", "-o", str(target)]
        + [str(ROOT / "specs" / "checkpoint_naive.fito")]
    )
    out = capsys.readouterr()
    assert status == 1 and out.out == "" and target.exists()
    assert out.err == f"wrote {target} (3 assertions: 2 holds, 1 fails, 0 unknown)\n"


# ---------------------------------------------------------------------- lint --model
SPLIT = """import torch


def train(model, optimizer, steps):
    for step in range(steps):
        torch.save(model.state_dict(), "model.pt")
        torch.save(optimizer.state_dict(), "optimizer.pt")
"""


def test_lint_model_leaves_nothing_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "split.py").write_text(SPLIT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["lint", "--model", "split.py"]) == 1
    out = capsys.readouterr().out
    assert "model-checked in split_L6.fito:" in out and "fails in 4" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["split.py"]
    assert main(["lint", "--model-dir", "specs", "split.py"]) == 1  # implies --model
    assert "model-checked in specs/split_L6.fito:" in capsys.readouterr().out
    assert (tmp_path / "specs" / "split_L6.fito").is_file()


# ---------------------------------------------------------------------- inspect
def test_inspect_says_why_a_restore_is_below_the_lattice_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fito.runtime import CheckpointWriter  # lazy-import: torch-free, but not for every test
    from fito.runtime.layout import manifest_relpath

    root = tmp_path / "ckpt"
    with CheckpointWriter(root, keep=5) as w:
        for e in (1, 2, 3):
            w.save(e, {d: {"x": np.arange(3) * e} for d in ("model", "optim")})
    (root / manifest_relpath(3)).unlink()
    assert main(["inspect", str(root)]) == 1
    out = capsys.readouterr().out
    durable, restore, why = [
        line for line in out.split("\n") if line.startswith(("durable", "restore"))
    ]
    assert durable.endswith(
        "lattice best recovery point 3 (a bound from the shards alone: a restore also needs "
        "the commit and the hashes)"
    )
    assert restore.startswith("restore: epoch 2: committed")
    assert why == "restore takes epoch 2, not the lattice point 3: epoch 3 is uncommitted"


def test_growing_choice_is_said_before_the_search(tmp_path) -> None:
    """T601 reaches standard error while the search that may not close is still running."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    spec = tmp_path / "pick.fito"
    spec.write_text(
        "type Val = 0..2\n"
        "domain c[i: 0..2]: Val = 0 volatile\n"
        "process Init(i: 0..3) =\n"
        "  if i == 3 then STOP else ([] v: Val @ {c[i] := v} -> Init(i + 1))\n"
        "system Init(0)\n"
        "assert :[deadlock free]\n"
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "fito", "check", "--timeout", "60", str(spec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(root)),
    )
    try:
        first = proc.stderr.readline() if proc.stderr else ""
        assert "T601" in first
        assert proc.poll() is None  # still searching: the warning came first
    finally:
        proc.kill()
        proc.communicate()
