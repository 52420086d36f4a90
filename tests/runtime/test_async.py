"""Asynchronous saves (`async_save`, like torch.distributed.checkpoint.async_save): the
state is copied before the call returns, so training may change it in place at once; the
commit happens on a background thread with the same protocol; one save is in flight at a
time; a failure is raised by the next call and leaves nothing behind. (Kills of an
asynchronous writer: test_sigkill.py and test_ranks.py.)"""

from __future__ import annotations

import errno
import threading

import numpy as np
import pytest

from fito.runtime import CheckpointError, CheckpointWriter, faults, restore, scan
from fito.runtime.durable import DiskFull


def test_the_saved_state_is_the_state_at_the_call(tmp_path) -> None:
    w_ = np.zeros(1000)
    state = {"model": {"w": w_, "tied": w_}, "data": {"seen": [1, 2]}}
    with CheckpointWriter(tmp_path / "c") as w:
        future = w.async_save(1, state)
        w_ += 1.0  # the next training step, in place, while the save runs
        state["data"]["seen"].append(3)
        assert future.result().epoch == 1 and w.newest_commit == 1
    got = restore(tmp_path / "c").states
    assert not got["model"]["w"].any() and got["data"] == {"seen": [1, 2]}


def test_torch_tensors_are_copied_and_ties_kept(tmp_path) -> None:
    torch = pytest.importorskip("torch", exc_type=ImportError)
    model = torch.nn.Linear(4, 4)
    state = {"model": model.state_dict(), "tied": {"a": model.weight, "b": model.weight}}
    before = model.weight.detach().clone()
    with CheckpointWriter(tmp_path / "c") as w:
        w.async_save(1, {"model": state["model"]})
        with torch.no_grad():
            model.weight.add_(1.0)
        w.wait()
    assert torch.equal(restore(tmp_path / "c").states["model"]["weight"], before)
    from fito.runtime.staging import snapshot

    copied = snapshot(state)
    assert copied["tied"]["a"] is copied["tied"]["b"] and copied["tied"]["a"] is not model.weight
    assert copied["model"]._metadata == state["model"]._metadata  # load_state_dict needs it


def test_a_failure_is_raised_by_the_next_call_and_leaves_nothing(tmp_path) -> None:
    root = tmp_path / "c"
    with CheckpointWriter(root) as w:
        w.save(1, {"a": {"x": 1}})
        faults.arm(3, 0.5, fail=errno.ENOSPC)  # a write of the shard of epoch 2
        try:
            future = w.async_save(2, {"a": {"x": 2}})
            assert isinstance(future.exception(), DiskFull)
        finally:
            faults.arm(0)
        with pytest.raises(DiskFull, match="disk full"):
            w.async_save(3, {"a": {"x": 3}})  # waits for the previous save first
        assert not list(root.rglob("*.tmp")) and restore(root).epoch == 1
        w.async_save(2, {"a": {"x": 2}})  # the failed epoch may be saved again
    assert restore(root).states["a"] == {"x": 2} and scan(root).newest.status == "consistent"


def test_epochs_must_grow_across_saves_in_flight(tmp_path) -> None:
    with CheckpointWriter(tmp_path / "c") as w:
        w.async_save(5, {"a": 1})
        with pytest.raises(CheckpointError, match="not newer"):
            w.async_save(5, {"a": 2})
        w.async_save(6, {"a": 3})
    assert restore(tmp_path / "c").epoch == 6


def test_training_goes_on_while_the_writer_writes(tmp_path) -> None:
    """The call returns before the commit: the background thread is held at its first
    durability point, and the save completes once it is released."""
    gate, reached = threading.Event(), threading.Event()

    def hold(_index: int, _op: str, _path: str) -> None:
        if threading.current_thread() is not threading.main_thread():
            reached.set()
            gate.wait(10)

    with CheckpointWriter(tmp_path / "c") as w:
        faults.arm(0, observer=hold)
        try:
            future = w.async_save(1, {"a": np.arange(10)})
            assert reached.wait(10) and not future.done()
            assert not (tmp_path / "c" / "commits" / f"e{1:010d}.json").exists()
            gate.set()
            assert future.result().epoch == 1
        finally:
            gate.set()
            faults.arm(0)
    assert restore(tmp_path / "c").epoch == 1
