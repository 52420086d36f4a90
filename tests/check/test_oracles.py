"""Differential tests against independent models of the oracles' checkpoint family
(tests/oracles: a plain-Python reference BFS, SPIN, TLC), issue #3 point 7.

fito's encoding (tests/oracles/family.py) has exactly the reference's variables: the control
term is the running network or STOP after the crash, standing for the `crashed` flag, so the
state counts are compared directly, without projection.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fito.check.result import FAILS, HOLDS
from tests.helpers.check import run_spec
from tests.oracles.family import closed_form, spec

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
SIZES = [(k, e) for k in (2, 3, 4, 5) for e in (2, 3)]


def _reference_bfs():  # type: ignore[no-untyped-def]
    spec_ = importlib.util.spec_from_file_location("oracle_bfs", ORACLES / "reference" / "bfs.py")
    module = importlib.util.module_from_spec(spec_)  # type: ignore[arg-type]
    spec_.loader.exec_module(module)  # type: ignore[union-attr]
    return module


BFS = _reference_bfs()


@pytest.mark.parametrize("k,e", SIZES)
@pytest.mark.parametrize("variant", ["naive", "2pc"])
def test_family_matches_reference(k: int, e: int, variant: str) -> None:
    report = run_spec(spec(k, e, variant))
    atomic, everything = report.verdicts
    n, transitions, violation, trace = BFS.bfs(k, e, variant == "2pc")
    assert everything.verdict == HOLDS
    assert everything.states == n == closed_form(k, e, variant)
    assert everything.transitions == transitions
    if variant == "2pc":
        assert atomic.verdict == HOLDS and violation is None
    else:
        assert atomic.verdict == FAILS and violation is not None
        assert len(atomic.trace) == len(trace) == 3
        assert atomic.trace[-1] == "fail"


def _run(cmd: list[str], cwd: Path) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    return proc.stdout + proc.stderr


@pytest.mark.spin
@pytest.mark.skipif(
    shutil.which("spin") is None or shutil.which("gcc") is None, reason="SPIN or gcc not installed"
)
@pytest.mark.parametrize("k,e,variant", [(3, 3, "naive"), (4, 2, "2pc"), (5, 3, "2pc")])
def test_family_matches_spin(k: int, e: int, variant: str, tmp_path: Path) -> None:
    pml = _run(
        [sys.executable, str(ORACLES / "spin" / "gen.py"), str(k), str(e), variant], tmp_path
    )
    (tmp_path / "m.pml").write_text(pml)
    _run(["spin", "-a", "m.pml"], tmp_path)
    _run(["gcc", "-O2", "-DNOREDUCE", "-DSAFETY", "-o", "pan", "pan.c"], tmp_path)
    counted = _run(["./pan", "-A", "-w20"], tmp_path)
    spin_states = int(re.search(r"(\d+) states, stored", counted).group(1))  # type: ignore[union-attr]
    report = run_spec(spec(k, e, variant))
    atomic, everything = report.verdicts
    assert everything.states == spin_states
    checked = _run(["./pan", "-w20"], tmp_path)
    spin_fails = "assertion violated" in checked
    assert spin_fails == (atomic.verdict == FAILS)
    if spin_fails:
        _run(["gcc", "-O2", "-DNOREDUCE", "-DSAFETY", "-DBFS", "-o", "panbfs", "pan.c"], tmp_path)
        _run(["./panbfs"], tmp_path)
        replay = _run(["spin", "-t", "-p", "m.pml"], tmp_path)
        steps = int(re.search(r"trail ends after (\d+) steps", replay).group(1))  # type: ignore[union-attr]
        assert len(atomic.trace) == steps
