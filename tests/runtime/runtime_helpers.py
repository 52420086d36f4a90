"""Helpers shared by the runtime tests that fork writers and trainers."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def child_env() -> dict[str, str]:
    """The environment of a child interpreter: no kill point armed, and this checkout's
    fito first on the path (not another one installed in the environment)."""
    env = {k: v for k, v in os.environ.items() if k != "FITO_RUNTIME_KILL_AT"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


@contextmanager
def fork_server_of(child: Path, timeout: float) -> Iterator[subprocess.Popen[str]]:
    """A separate interpreter running `child --serve`: it imports once and forks one run per
    request line (see runtime_crash_child, runtime_train_child and runtime_ranks_child)."""
    proc = subprocess.Popen(
        [sys.executable, str(child), "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    try:
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=timeout)


def run_ranks(
    child: Path, world: int, args_of: Callable[[int], list[str]], timeout: float = 240
) -> list[str]:
    """Run `world` copies of a child script at once (rank r gets args_of(r)); each must exit
    0; their standard outputs, stripped, in rank order. Every copy is killed on the way out."""
    procs = [
        subprocess.Popen(
            [sys.executable, str(child), *args_of(r)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        for r in range(world)
    ]
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=timeout)
            assert p.returncode == 0, err[-3000:]
            outs.append(out.strip())
    finally:
        for p in procs:
            p.kill()
    return outs
