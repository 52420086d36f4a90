"""Checkpoints of the distributed search (`--checkpoint-dir`, `--resume`): a rank SIGKILLed
in the middle of a checkpoint leaves the last committed level, and the resumed run gives the
answers of an uninterrupted one-process run; checkpoints of another spec, number of ranks
or partition, and damaged ones, are refused (C304)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.distributed.mpirun import ROOT, mpiexec
from tests.oracles.family import spec

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.skipif(mpiexec() is None, reason="needs mpiexec (the mpich wheel)")

FITO = [sys.executable, "-m", "fito", "check", "--format", "json", "--no-progress"]
POINTS = 5  # durability points of a rank's shard: create, write, fsync, rename, fsync-dir


def _run(cmd: list[str], tmp: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("FITO_RUNTIME_KILL_AT", None)
    return subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=600)


def _answers(stdout: str) -> list[dict]:
    files = json.loads(stdout)["files"]
    drop = ("seconds", "engine")
    return [{k: v for k, v in a.items() if k not in drop} for f in files for a in f["assertions"]]


def _distributed(ranks: int, args: list[str], tmp: Path, kill_rank1_at: int = 0):
    exe = mpiexec()
    assert exe is not None
    if not kill_rank1_at:
        return _run([exe, "-n", str(ranks), *FITO, "--distributed", *args], tmp)
    cmd = [exe, "-n", "1", *FITO, "--distributed", *args, ":", "-n", "1"]
    cmd += ["-env", "FITO_RUNTIME_KILL_AT", str(kill_rank1_at), *FITO, "--distributed", *args]
    return _run(cmd, tmp)


def test_a_rank_killed_mid_checkpoint_resumes_to_the_same_answers(tmp_path: Path) -> None:
    f = tmp_path / "family.fito"
    f.write_text(spec(3, 3, "naive").replace("assert always true\n", "") + "assert always true\n")
    one = _run([*FITO, str(f)], tmp_path)
    ckpt = str(tmp_path / "ckpt")
    args = ["--checkpoint-dir", ckpt, "--checkpoint-every", "1", str(f)]
    # rank 1 dies at the fsync of its 4th shard: levels 1-3 are committed, 4 is torn
    killed = _distributed(2, args, tmp_path, kill_rank1_at=3 * POINTS + 3)
    assert killed.returncode != 0
    levels = sorted(p.name for p in (tmp_path / "ckpt" / "search-0").iterdir())
    assert levels == ["level-00000003", "level-00000004"], levels
    assert not (tmp_path / "ckpt" / "search-0" / "level-00000004" / "MANIFEST.json").exists()
    resumed = _distributed(2, ["--resume", ckpt, str(f)], tmp_path)
    assert resumed.returncode == one.returncode, resumed.stderr
    assert _answers(resumed.stdout) == _answers(one.stdout)
    engines = [a["engine"] for x in json.loads(resumed.stdout)["files"] for a in x["assertions"]]
    assert "resumed after level 3" in engines[0]


@pytest.mark.slow
def test_checkpoints_of_another_spec_ranks_or_partition_or_damaged_are_refused(
    tmp_path: Path,
) -> None:
    f = tmp_path / "family.fito"
    f.write_text(spec(2, 2, "2pc"))
    ckpt = tmp_path / "ckpt"
    done = _distributed(2, ["--checkpoint-dir", str(ckpt), str(f)], tmp_path)
    assert done.returncode == 0, done.stderr
    other = tmp_path / "other.fito"
    other.write_text(spec(2, 2, "naive"))
    refusals = [
        (2, other, "written for another spec"),
        (3, f, "written by 2 ranks, this run has 3"),
    ]
    for ranks, path, words in refusals:
        got = _distributed(ranks, ["--resume", str(ckpt), str(path)], tmp_path)
        assert got.returncode == 2
        assert words in got.stderr and "[C304 checkpoint-refused]" in got.stderr
        assert got.stderr.count("C304") == 1  # rank 0 says it once
    identity = ckpt / "IDENTITY.json"
    saved = identity.read_text()
    identity.write_text(saved.replace("hash_rows", "modulo"))
    got = _distributed(2, ["--resume", str(ckpt), str(f)], tmp_path)
    assert got.returncode == 2 and "partitions the states otherwise" in got.stderr
    identity.write_text(saved)
    (level,) = (ckpt / "search-0").iterdir()
    shard = level / "rank-1.bin"
    shard.write_bytes(shard.read_bytes()[:-1] + b"\0")
    got = _distributed(2, ["--resume", str(ckpt), str(f)], tmp_path)
    assert got.returncode == 2 and "not the bytes its manifest names" in got.stderr
    assert _run([*FITO, "--resume", str(ckpt), str(f)], tmp_path).returncode == 2  # C001


def test_a_checkpoint_is_due_every_n_levels_or_after_t_minutes(tmp_path: Path) -> None:
    from fito.check.distributed.checkpoint import Plan

    every = Plan(tmp_path, every=3)
    due = []
    for _ in range(6):
        due.append(every.due())
        if due[-1]:
            every.since = 0  # what after_level does once it has written the checkpoint
    assert due == [False, False, True, False, False, True]
    timed = Plan(tmp_path, seconds=3600.0)
    assert not timed.due()
    timed.last -= 3601.0  # as if the hour had passed since the last checkpoint
    assert timed.due()
    assert not Plan().due()  # no directory: never
