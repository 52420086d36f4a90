"""The command line of the symbolic engine: counterexamples replay, certificates re-check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.check import ROOT, cli
from tests.symbolic.test_unbounded import FROM


@pytest.mark.slow
def test_a_symbolic_counterexample_replays(tmp_path: Path) -> None:
    spec = ROOT / "specs" / "checkpoint_commit_early.fito"
    done = cli("check", "--engine", "symbolic", "--format", "json", str(spec))
    assert done.returncode == 1
    saved = tmp_path / "report.json"
    saved.write_text(done.stdout, encoding="utf-8")
    replay = cli("replay", str(saved), str(spec))
    assert replay.returncode == 1 and "as saved" in replay.stdout, replay.stdout


def test_certificates_are_written_and_recheck(tmp_path: Path) -> None:
    spec = tmp_path / "from.fito"
    spec.write_text(FROM.replace("STEP", "1"), encoding="utf-8")
    folder = tmp_path / "certs"
    done = cli("check", "--engine", "symbolic", "--certificates", str(folder), str(spec))
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = folder.glob("*.json")
    assert path.name == "from.line9.json"
    assert json.loads(path.read_text(encoding="utf-8"))["verdict"] == "proved"
    again = cli("recheck", str(folder))
    assert again.returncode == 0 and "1 accepted" in again.stdout, again.stdout
