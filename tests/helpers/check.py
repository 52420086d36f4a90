"""Check a spec text in-process or through the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    """`python -m fito ARGS...` from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "fito", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
        timeout=600,
    )
