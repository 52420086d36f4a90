"""Helpers for model-checking tests: check a spec text in-process or through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fito.check.options import CheckOptions
from fito.outcome import FileReport
from fito.pipeline import check_source
from fito.source import Source

ROOT = Path(__file__).resolve().parents[2]


def run_spec(text: str, **options: object) -> FileReport:
    """Check a spec text in-process."""
    return check_source(Source("test.fito", text), CheckOptions(**options))  # type: ignore[arg-type]


def verdicts(text: str, **options: object) -> list[tuple[str, int]]:
    """(verdict, trace length) per assertion."""
    report = run_spec(text, **options)
    assert not [d for d in report.diagnostics if d.is_error], report.diagnostics
    return [(v.verdict, len(v.trace)) for v in report.verdicts]


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fito", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
        timeout=600,
    )


def cli_json(path: str, *args: str) -> tuple[int, dict]:
    proc = cli("check", "--format", "json", *args, path)
    return proc.returncode, json.loads(proc.stdout)


@pytest.fixture
def spec_file(tmp_path: Path):  # type: ignore[no-untyped-def]
    def write(text: str, name: str = "spec.fito") -> str:
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return str(p)

    return write
