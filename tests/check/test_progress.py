"""On a terminal, long runs print a progress line on stderr about once a second."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LONG = """channel a
type N = 0..3000
domain x: N = 0 volatile
domain y: N = 0 volatile
process P = x < 3000 & a {x := x + 1} -> P [] y < 3000 & a {y := y + 1} -> P
assert P |= always x >= 0
"""


def test_progress_line_on_a_terminal(tmp_path: Path) -> None:
    spec = tmp_path / "long.fito"
    spec.write_text(LONG)
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "fito", "check", "--timeout", "3", str(spec)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=follower,
        text=True,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data.decode(errors="replace"))
    proc.wait(timeout=120)
    os.close(leader)
    err = "".join(chunks)
    assert "states/s" in err and "depth" in err
    assert proc.returncode == 3  # the timeout ends it: unknown


def test_no_progress_line_when_not_a_terminal(tmp_path: Path) -> None:
    spec = tmp_path / "long.fito"
    spec.write_text(LONG)
    proc = subprocess.run(
        [sys.executable, "-m", "fito", "check", "--timeout", "2", str(spec)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "states/s" not in proc.stderr
