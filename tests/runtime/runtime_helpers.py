"""Helpers shared by the runtime tests that fork writers and trainers."""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def fork_server_of(child: Path, timeout: float) -> Iterator[subprocess.Popen[str]]:
    """A separate interpreter running `child --serve`: it imports once and forks one run per
    request line (see runtime_crash_child and runtime_train_child)."""
    env = {k: v for k, v in os.environ.items() if k != "FITO_RUNTIME_KILL_AT"}
    proc = subprocess.Popen([sys.executable, str(child), "--serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=timeout)
