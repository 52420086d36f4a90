"""Every `-- expect:` comment of specs/ holds (issue #3 point 3), in-process and through the
contract's own checker (`tools/expect.py` of ../shared, when it is there)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fito.check.options import CheckOptions
from fito.expect import compare, expectations
from fito.pipeline import check_file

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted((ROOT / "specs").glob("*.fito"))
SHARED_TOOL = ROOT.parent / "shared" / "tools" / "expect.py"


@pytest.mark.parametrize("path", SPECS, ids=[p.name for p in SPECS])
def test_spec_meets_its_expectations(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert expectations(text), f"{path.name} states no expectations"
    problems = compare(check_file(str(path), CheckOptions()))
    assert not problems, "\n".join(f"{path.name}:{p.line}: {p.message}" for p in problems)


@pytest.mark.skipif(not SHARED_TOOL.exists(), reason="../shared/tools/expect.py not present")
def test_contract_checker_accepts_the_shipped_specs() -> None:
    proc = subprocess.run(
        [sys.executable, str(SHARED_TOOL), "--fito", f"{sys.executable} -m fito", *map(str, SPECS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_main_job_exits_zero() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "fito", "check", "--expect", *map(str, SPECS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(SPECS)} passed, 0 failed" in proc.stdout
