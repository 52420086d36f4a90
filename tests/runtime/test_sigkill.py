"""SIGKILL the writer at random durability points (seeded), `save` and `async_save` (every
other directory). After every kill, a restore must give one committed epoch whose every
domain holds exactly that epoch's content, no older than the last commit whose manifest
rename and directory fsync had both happened."""

from __future__ import annotations

import collections
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fito.runtime import NoConsistentEpoch, restore, scan
from fito.runtime.layout import CheckpointError, manifest_epochs, shard_domains, shard_epochs
from tests.runtime.runtime_crash_child import DOMAINS, expected_state
from tests.runtime.runtime_helpers import child_env, fork_server_of

SEED = 20260308
KILLS = 200
TARGET, KEEP = 4, 2
CHILD = Path(__file__).with_name("runtime_crash_child.py")


@pytest.fixture(scope="module")
def fork_server() -> Iterator[subprocess.Popen[str]]:
    """A separate interpreter that forks one writer per request (see runtime_crash_child)."""
    with fork_server_of(CHILD, timeout=30) as proc:
        yield proc


def _fork(
    server: subprocess.Popen[str],
    root: Path,
    log: Path,
    kill_at: int,
    fraction: float,
    trace: Path,
    mode: str = "sync",
) -> int:
    """Run one writer in a child of the fork server; its raw wait status."""
    assert server.stdin is not None and server.stdout is not None
    fields = (root, log, TARGET, KEEP, kill_at, fraction, trace, mode)
    server.stdin.write("\t".join(map(str, fields)) + "\n")
    server.stdin.flush()
    answer = server.stdout.readline()
    assert answer, "the fork server died"
    return int(answer)


def _trace(path: Path) -> list[tuple[int, str, Path]]:
    if not path.exists():
        return []
    rows = [line.split("\t") for line in path.read_text().splitlines()]
    return [(int(i), op, Path(p)) for i, op, p in rows]


def _commit_progress(ops: list[tuple[int, str, Path]], root: Path) -> tuple[int, int]:
    """(completed, renamed): newest manifest renamed and then covered by a directory fsync,
    and newest manifest renamed at all, among the operations that happened."""
    commits = root / "commits"
    last = completed = renamed = 0
    for _, op, path in ops:
        if op == "rename" and path.parent == commits:
            last = int(path.name[1:].split(".")[0])
            renamed = max(renamed, last)
        elif op == "fsync-dir" and path == commits and last:
            completed = max(completed, last)
    return completed, renamed


def _logged(log: Path) -> int:
    lines = log.read_text().split() if log.exists() else []
    return int(lines[-1]) if lines else 0


def check_restore(root: Path, completed: int, renamed: int) -> int:
    """Restore and check it: consistent, uncorrupted, completed <= epoch <= renamed."""
    try:
        r = restore(root)
    except (NoConsistentEpoch, CheckpointError):
        assert completed == 0, f"commit {completed} had completed, yet nothing restores"
        return 0
    assert completed <= r.epoch <= renamed, (completed, r.epoch, renamed)
    assert set(r.states) == set(DOMAINS)
    for d in DOMAINS:
        assert r.states[d] == expected_state(d, r.epoch), f"domain {d} is not epoch {r.epoch}"
    assert scan(root).restore_epoch == r.epoch
    return r.epoch


def check_clean_finish(root: Path) -> None:
    """After an uninterrupted run: the target epoch, `keep` commits, no leftovers."""
    s = scan(root)
    assert s.restore_epoch == TARGET and s.newest is not None and s.newest.epoch == TARGET
    kept = list(range(TARGET - KEEP + 1, TARGET + 1))
    assert manifest_epochs(root) == kept
    assert shard_domains(root) == sorted(DOMAINS)
    assert all(shard_epochs(root, d) == kept for d in DOMAINS)
    assert s.temp_files == ()


def _count_points(server: subprocess.Popen[str], tmp: Path) -> int:
    trace = tmp / "count.trace"
    status = _fork(server, tmp / "count", tmp / "count.log", 0, 0.0, trace)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    check_clean_finish(tmp / "count")
    return len(_trace(trace))


@pytest.mark.slow
def test_sigkill_at_200_random_points(ram_path: Path, fork_server) -> None:
    total = _count_points(fork_server, ram_path)
    rng = random.Random(SEED)
    kills, finishes, trial = 0, 0, 0
    at_op: collections.Counter[str] = collections.Counter()
    restored: collections.Counter[str] = collections.Counter()
    while kills < KILLS:
        root, log, trace = (
            ram_path / f"t{trial}",
            ram_path / f"t{trial}.log",
            ram_path / f"t{trial}.trace",
        )
        completed = renamed = 0
        mode = ("sync", "async")[trial % 2]
        while kills < KILLS:
            kill_at, fraction = rng.randint(1, total), rng.random()
            trace.unlink(missing_ok=True)
            status = _fork(fork_server, root, log, kill_at, fraction, trace, mode)
            ops = _trace(trace)
            killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            assert killed or (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0), status
            if killed:
                kills += 1
                at_op[f"{mode} {ops[-1][1]}"] += 1
                ops = [o for o in ops if o[0] < kill_at]
            c, rn = _commit_progress(ops, root)
            completed, renamed = max(completed, c), max(renamed, rn)
            assert _logged(log) <= completed
            epoch = check_restore(root, completed, renamed)
            restored["newer than completed" if epoch > completed else "completed"] += 1
            if not killed:
                finishes += 1
                check_clean_finish(root)
                break
        trial += 1
    print(
        f"\nsigkill: {kills} kills at random points of {total} in {trial} directories, "
        f"{finishes} runs finished; killed before: {dict(sorted(at_op.items()))}; "
        f"restored: {dict(restored)}"
    )
    assert kills == KILLS
    assert {k.split()[1] for k in at_op} >= {"write", "fsync", "rename", "fsync-dir", "unlink"}
    assert {k.split()[0] for k in at_op} == {"sync", "async"}


@pytest.mark.slow
def test_external_sigkill_of_a_real_subprocess(ram_path: Path) -> None:
    """Separate interpreters killed from outside after a random delay (seeded), twice per
    directory, then left to finish; the log of completed commits is the oracle."""
    env = child_env()
    rng = random.Random(SEED + 1)
    duration = _run(ram_path / "clean", env, None)[1]
    check_clean_finish(ram_path / "clean")
    kills = 0
    for i in range(4):
        root = ram_path / f"x{i}"
        for delay in [rng.uniform(0, duration) for _ in range(2)] + [None]:
            killed = _run(root, env, delay)[0]
            kills += killed
            logged = _logged(Path(f"{root}.log"))
            assert check_restore(root, logged, TARGET) >= logged
        check_clean_finish(root)
    assert kills >= 1


def _run(root: Path, env: dict[str, str], delay: float | None) -> tuple[bool, float]:
    """Run the child; kill it `delay` seconds after its imports are done (None: never).
    Returns whether SIGKILL ended it and how long it ran after its imports."""
    proc = subprocess.Popen(
        [sys.executable, str(CHILD), str(root), f"{root}.log", str(TARGET), str(KEEP)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    start = time.perf_counter()
    if delay is not None:
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    return proc.returncode == -signal.SIGKILL, time.perf_counter() - start
