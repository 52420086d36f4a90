"""Running `fito` as users do: a subprocess, its exit status, stdout and stderr."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: `file:line:col: severity: message [CODE name]`
DIAGNOSTIC_LINE = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|note): "
    r"(?P<message>.+) \[(?P<code>[A-Z]+W?\d+) (?P<name>[a-z0-9-]+)\]$"
)
USAGE_LINE = re.compile(r"^fito: error: .+ \[C001 bad-usage\]$")


def fito(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """`python -m fito ARGS...` from the repository root, without a progress line."""
    return subprocess.run(
        [sys.executable, "-m", "fito", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


def first_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The first line of what the command printed (stdout, else stderr)."""
    text = proc.stdout if proc.stdout.strip() else proc.stderr
    return text.splitlines()[0]


def assert_no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-2000:]
