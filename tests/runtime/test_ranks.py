"""Many ranks: a torch.distributed job (gloo on CPU, 2 to 4 ranks) whose every rank writes
its shards and whose coordinator commits only after every rank's reflection. One rank at a
time is killed at a random durability point (seeded), with fito's synchronous and
asynchronous saves, and with PyTorch DCP's save and async_save through fito's storage
writer (loaded with its reader); after each kill the directory must restore one committed
epoch whose every rank's every shard is exactly that epoch's state (the reference run's
digest), no older than the newest commit any rank saw complete, and the next launch must
resume every rank at the same epoch and finish bit-identically to the reference.

The suite runs KILLS kills; the full run is 200, in two commands of a few minutes each:
`FITO_RANK_TRIALS=100 FITO_RANK_SEED=1 python -m pytest -q -s -m slow
tests/runtime/test_ranks.py -k kill`
and the same with FITO_RANK_SEED=2."""

from __future__ import annotations

import collections
import os
import random
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.runtime.runtime_helpers import fork_server_of

torch = pytest.importorskip("torch", exc_type=ImportError)
pytest.importorskip("torch.distributed", exc_type=ImportError)
if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)

from fito.runtime import NoConsistentEpoch, restore, scan  # noqa: E402
from fito.runtime.layout import split_rank  # noqa: E402

pytestmark = pytest.mark.torch
CHILD = Path(__file__).with_name("runtime_ranks_child.py")
SEED = int(os.environ.get("FITO_RANK_SEED", "20261201"))
KILLS = int(os.environ.get("FITO_RANK_TRIALS", "8"))
STEPS = 4
MODES = ("sync", "async", "dcp", "dcp-async")


@pytest.fixture(scope="module")
def ranks_server() -> Iterator[subprocess.Popen[str]]:
    with fork_server_of(CHILD, timeout=60) as proc:
        yield proc


@dataclass(frozen=True, slots=True)
class Launch:
    """What one launch of the job did: each rank's wait status and log."""

    statuses: tuple[int, ...]
    logs: tuple[list[tuple[str, ...]], ...]

    @property
    def finished(self) -> bool:
        return all(os.WIFEXITED(s) and os.WEXITSTATUS(s) == 0 for s in self.statuses)

    def values(self, key: str) -> list[int]:
        return [int(row[1]) for log in self.logs for row in log if row[0] == key]


def launch(
    server: subprocess.Popen[str],
    root: Path,
    world: int,
    mode: str,
    victim: int = -1,
    kill_at: int = 0,
    fraction: float = 0.0,
) -> Launch:
    """Run the job once (each rank's log starts empty); the victim dies at kill_at."""
    assert server.stdin is not None and server.stdout is not None
    log = Path(f"{root}.log")
    for r in range(world):
        Path(f"{log}.{r}").unlink(missing_ok=True)
    store = Path(f"{root}.store")
    store.unlink(missing_ok=True)
    fields = (root, log, STEPS, world, mode, victim, kill_at, fraction, store)
    server.stdin.write("\t".join(map(str, fields)) + "\n")
    server.stdin.flush()
    answer = server.stdout.readline()
    assert answer, "the ranks server died"
    logs = tuple(
        [tuple(line.split(" ")) for line in Path(f"{log}.{r}").read_text().splitlines()]
        if Path(f"{log}.{r}").exists()
        else []
        for r in range(world)
    )
    return Launch(tuple(int(s) for s in answer.split()), logs)


def full_digest(states: dict, epoch: int, world: int) -> str:
    """The reference digest of the whole state rebuilt from every rank's slice."""
    import hashlib

    vectors = []
    for domain, key in (("model", "params"), ("optimizer", "momentum")):
        parts = [states[f"{domain}@{r}"][key] for r in range(world)]
        full = torch.empty(sum(p.numel() for p in parts))
        for r, p in enumerate(parts):
            full[r::world] = p
        vectors.append(full.numpy().tobytes())
    for r in range(world):
        assert states[f"data@{r}"] == {"step": epoch, "rank": r}, (r, states[f"data@{r}"])
    return hashlib.sha256(b"".join(vectors)).hexdigest()


def check_restore(
    root: Path,
    reference: dict[int, str],
    world: int,
    completed: int,
    started: int,
    dcp: bool = False,
) -> int:
    """One committed epoch, every rank's shards of it, completed <= epoch <= started."""
    try:
        epoch, digest = load_dcp(root, world) if dcp else load_fito(root, world)
    except NoConsistentEpoch:
        assert completed == 0, f"commit {completed} had completed, yet nothing restores"
        return 0
    assert completed <= epoch <= started, (completed, epoch, started)
    assert digest == reference[epoch], epoch
    assert scan(root).restore_epoch == epoch
    return epoch


def load_fito(root: Path, world: int) -> tuple[int, str]:
    r = restore(root)
    assert {split_rank(d)[1] for d in r.states} == set(range(world))
    return r.epoch, full_digest(dict(r.states), r.epoch, world)


def load_dcp(root: Path, world: int) -> tuple[int, str]:
    """dcp.load in this process (no process group) with fito's reader: every rank's items."""
    import hashlib
    import warnings

    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.api import CheckpointException

    from fito.runtime.dcp import FitoStorageReader

    size = 6 * 5 + 5 + 5 * 2 + 2
    sd = {
        "model": {"params": torch.zeros(size)},
        "optimizer": {"momentum": torch.zeros(size)},
        **{f"data{r}": {"step": -1, "rank": -1} for r in range(world)},
    }
    reader = FitoStorageReader(root)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dcp.load(sd, storage_reader=reader)
    except CheckpointException:
        if isinstance(reader.error, NoConsistentEpoch):
            raise reader.error from None
        raise
    assert reader.epoch is not None
    assert all(sd[f"data{r}"] == {"step": reader.epoch, "rank": r} for r in range(world))
    raw = sd["model"]["params"].numpy().tobytes() + sd["optimizer"]["momentum"].numpy().tobytes()
    return reader.epoch, hashlib.sha256(raw).hexdigest()


def reference_run(
    server: subprocess.Popen[str], tmp: Path, world: int, cache: dict, mode: str = "sync"
) -> tuple[dict[int, str], list[int]]:
    """The uninterrupted run: the state digest after each step, each rank's point count."""
    kind = "dcp" if mode.startswith("dcp") else "sync"
    if (world, kind) not in cache:
        run = launch(server, tmp / f"ref{world}{kind}", world, kind)
        assert run.finished, run.statuses
        digests = {int(row[1]): row[2] for row in run.logs[0] if row[0] == "state"}
        assert all(
            {int(row[1]): row[2] for row in log if row[0] == "state"} == digests for log in run.logs
        )
        points = [max(int(row[1]) for row in log if row[0] == "points") for log in run.logs]
        cache[world, kind] = (digests, points)
        assert (
            check_restore(
                tmp / f"ref{world}{kind}", digests, world, STEPS, STEPS, dcp=kind == "dcp"
            )
            == STEPS
        )
    return cache[world, kind]


@pytest.mark.slow
def test_kill_one_rank_at_random_points(ram_path: Path, ranks_server) -> None:
    """KILLS kills, each of one rank of a job of 2 to 4 ranks, in one of MODES; every job
    directory is killed until a launch finishes."""
    rng = random.Random(SEED)
    cache: dict = {}
    kills = trial = 0
    seen: collections.Counter[str] = collections.Counter()
    while kills < KILLS:
        world, mode = rng.choice((2, 3, 4)), rng.choice(MODES)
        reference, points = reference_run(ranks_server, ram_path, world, cache, mode)
        root = ram_path / f"t{trial}"
        completed = started = restored = 0
        while True:
            victim = rng.randrange(world)
            run = launch(
                ranks_server,
                root,
                world,
                mode,
                victim,
                rng.randint(1, points[victim]),
                rng.random(),
            )
            resumed = set(run.values("resumed"))
            assert resumed == {restored}, (resumed, restored)  # every rank, the same epoch
            completed = max([completed, *run.values("commit")])
            started = max([started, *run.values("saving")])
            assert all(
                reference[int(row[1])] == row[2]
                for log in run.logs
                for row in log
                if row[0] == "state"
            )  # the resumed training is bit-identical
            restored = check_restore(
                root, reference, world, completed, started, dcp=mode.startswith("dcp")
            )
            if run.finished:
                assert restored == STEPS
                break
            dying = [row for row in run.logs[victim] if row[0] == "dying"]
            assert dying, f"rank {victim} was not the one that died: {run.statuses}"
            assert os.WTERMSIG(run.statuses[victim]) == signal.SIGKILL
            kills += 1
            seen[f"{mode} {dying[0][2]}{' coordinator' if victim == 0 else ''}"] += 1
            seen[
                "restored newer than completed"
                if restored > completed
                else "restored the completed commit"
            ] += 1
        trial += 1
    print(
        f"\nranks: {kills} kills of one rank in {trial} jobs of 2 to 4 ranks: "
        f"{dict(sorted(seen.items()))}"
    )
    ops = {k.split()[1] for k in seen if k.startswith(MODES)}
    if KILLS >= 100:  # the full run: every kind of durability point was hit
        assert ops >= {"write", "fsync", "rename", "fsync-dir"}, ops


def _files_of(root: Path, epoch: int) -> list[str]:
    tag = f"e{epoch:010d}."
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.name.startswith(tag) or p.name.endswith(".tmp")
    )


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["sync-enospc", "async-enospc"])
def test_a_full_disk_on_one_rank_fails_the_epoch_on_every_rank(
    tmp_path: Path, ranks_server, mode: str
) -> None:
    world = 3
    _, points = reference_run(ranks_server, tmp_path, world, {})
    run = launch(ranks_server, tmp_path / "c", world, mode, 1, points[1] // 2, 0.5)
    errors = [[row for row in log if row[0] == "error"] for log in run.logs]
    assert all(errors) and not run.finished, run.statuses
    failed = min(set(run.values("saving")) - set(run.values("commit")))  # async: seen later
    assert "disk full" in " ".join(errors[1][0])
    assert all("not committed" in " ".join(e[0]) for e in errors)
    assert restore(tmp_path / "c").epoch == max(run.values("commit")) == failed - 1
    assert _files_of(tmp_path / "c", failed) == []


@pytest.mark.slow
def test_ranks_agree_when_one_rank_holds_a_damaged_shard(tmp_path: Path, ranks_server) -> None:
    world, root = 3, tmp_path / "c"
    reference, _ = reference_run(ranks_server, tmp_path, world, {})
    assert launch(ranks_server, root, world, "sync").finished
    shard = root / "shards" / "model@2" / f"e{STEPS:010d}.shard"
    data = bytearray(shard.read_bytes())
    data[-3] ^= 0xFF
    shard.write_bytes(bytes(data))
    run = launch(ranks_server, root, world, "async")
    assert run.finished and set(run.values("resumed")) == {STEPS - 1}  # ranks 0, 1 too
    assert all(reference[int(r[1])] == r[2] for log in run.logs for r in log if r[0] == "state")
    refused = launch(ranks_server, root, 2, "sync")  # a job of another size
    assert all(
        any(r[0] == "error" and "saved by ranks [0, 1, 2]" in " ".join(r) for r in log)
        for log in refused.logs
    )
    assert check_restore(root, reference, world, STEPS, STEPS) == STEPS
