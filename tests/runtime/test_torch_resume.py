"""PyTorch: state_dicts through the writer, and a CPU training run killed with SIGKILL that
resumes bit-identically (same losses, same final parameters and optimizer state) as an
uninterrupted run, RNG state and data-loader position included."""

from __future__ import annotations

import os
import random
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.runtime.runtime_helpers import fork_server_of

torch = pytest.importorskip("torch", exc_type=ImportError)  # absent or broken: skip

from fito.runtime import CheckpointError, CheckpointWriter, faults, restore  # noqa: E402
from tests.runtime.runtime_train_child import train  # noqa: E402 - needs torch

pytestmark = pytest.mark.torch
CHILD = Path(__file__).with_name("runtime_train_child.py")
STEPS, EVERY = 14, 3


def test_state_dicts_round_trip_exactly(tmp_path: Path) -> None:
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(5, 4)).sum().backward()
    opt.step()
    with CheckpointWriter(tmp_path / "c") as w:
        m = w.save(1, {"model": model.state_dict(), "optimizer": opt.state_dict()})
    assert {s.codec for s in m.shards} == {"torch"}
    r = restore(tmp_path / "c")
    for k, v in model.state_dict().items():
        assert torch.equal(r.states["model"][k], v) and r.states["model"][k].dtype == v.dtype
    got, want = r.states["optimizer"], opt.state_dict()
    assert got["param_groups"] == want["param_groups"]
    for i, s in want["state"].items():
        assert torch.equal(got["state"][i]["momentum_buffer"], s["momentum_buffer"])


def test_states_torch_cannot_load_safely_are_refused(tmp_path: Path) -> None:
    with (
        CheckpointWriter(tmp_path / "c") as w,
        pytest.raises(CheckpointError, match="weights_only"),
    ):
        w.save(1, {"model": {"w": torch.zeros(2), "f": object()}})


@pytest.fixture()
def deterministic():
    """One thread and deterministic kernels, as the child script sets them; restored after."""
    threads, det = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    yield
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(det)


@pytest.fixture(scope="module")
def train_server() -> Iterator[subprocess.Popen[str]]:
    """A separate interpreter that imports torch once and forks one training run per request."""
    with fork_server_of(CHILD, timeout=60) as proc:
        yield proc


def _killed_run(
    server: subprocess.Popen[str], root: Path, log: Path, die_after: int | None, kill_at: str | None
) -> int:
    """Train in a child of the server that SIGKILLs itself right after step die_after, or
    that the writer's fault hook kills at point kill_at; the child's raw wait status."""
    assert server.stdin is not None and server.stdout is not None
    fields = (root, log, STEPS, EVERY, die_after or "-", kill_at or "-")
    server.stdin.write("\t".join(map(str, fields)) + "\n")
    server.stdin.flush()
    answer = server.stdout.readline()
    assert answer, "the training server died"
    return int(answer)


def _parse(log: Path) -> list[tuple[str, str]]:
    return [tuple(line.split(" ", 1)) for line in log.read_text().splitlines()]


def _steps(rows: list[tuple[str, str]]) -> dict[int, str]:
    return {int(s): loss for k, v in rows if k == "step" for s, loss in [v.split(" ")]}


@pytest.mark.slow
def test_training_resumes_bit_identically_after_sigkill(
    tmp_path: Path, deterministic, train_server
) -> None:
    faults.arm(0)  # count the reference run's durability points from zero
    assert train(str(tmp_path / "ref"), str(tmp_path / "ref.log"), STEPS, EVERY) == 0
    ref = _parse(tmp_path / "ref.log")
    losses, final, points = _steps(ref), dict(ref)["final"], int(dict(ref)["points"])
    assert sorted(losses) == list(range(1, STEPS + 1))
    rng = random.Random(11)
    kill_at = f"{rng.randint(1, points)}:{rng.random()}"
    cases = [
        ("between checkpoints", 8, None),
        ("right after a commit", 9, None),
        (f"inside the writer at {kill_at}", None, kill_at),
    ]
    for name, die_after, at in cases:
        root, log = tmp_path / name.replace(" ", "_"), tmp_path / f"{name}.log"
        status = _killed_run(train_server, root, log, die_after, at)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (name, status)
        before = _parse(log)
        assert all(losses[s] == loss for s, loss in _steps(before).items()), name
        committed = max([int(v) for k, v in before if k == "commit"], default=0)
        log.write_text("")
        assert train(str(root), str(log), STEPS, EVERY) == 0
        after = _parse(log)
        resumed = int(after[0][1])
        assert committed <= resumed <= STEPS, (name, committed, resumed)
        got = _steps(after)
        assert sorted(got) == list(range(resumed + 1, STEPS + 1)), name
        assert all(got[s] == losses[s] for s in got), name
        assert dict(after)["final"] == final, name


@pytest.mark.parametrize("keep_crc", [False, True])
def test_torch_crc32_is_skipped_for_the_save_only(tmp_path: Path, keep_crc: bool) -> None:
    import io
    import zipfile

    from fito.runtime.codec import parse_header
    from fito.runtime.layout import shard_relpath

    if not hasattr(torch.serialization, "get_crc32_options"):
        pytest.skip("this torch always writes CRC32")
    with CheckpointWriter(tmp_path / "c", torch_crc32=keep_crc) as w:
        w.save(1, {"model": {"w": torch.arange(1000.0)}})
    assert torch.serialization.get_crc32_options() is True
    data = (tmp_path / "c" / shard_relpath("model", 1)).read_bytes()
    with zipfile.ZipFile(io.BytesIO(data[parse_header(data)[1] :])) as z:
        crcs = [i.CRC for i in z.infolist() if i.file_size]
    assert crcs and all((c != 0) == keep_crc for c in crcs)
    assert torch.equal(restore(tmp_path / "c").states["model"]["w"], torch.arange(1000.0))
