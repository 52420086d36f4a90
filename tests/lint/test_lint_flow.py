"""Control flow: branches are alternatives, a `@contextmanager` or `try`/`finally` that renames
a staging directory after a barrier is a commit, restores that an existence test, a handler or
an early return can skip are partial, and which ranks run a write is known at each marker."""

from __future__ import annotations

from pathlib import Path

from fito.lint.run import LintOptions, lint_path


def lint(tmp_path: Path, text: str) -> list[tuple[int, str]]:
    p = tmp_path / "t.py"
    p.write_text(text, encoding="utf-8")
    return sorted(
        (d.span.line, d.code) for d in lint_path(str(p), LintOptions()).report.diagnostics
    )


def test_the_arms_of_an_if_are_two_protocols_not_one(tmp_path: Path) -> None:
    got = lint(
        tmp_path,
        """import torch
from safetensors.torch import save_file


def save(args, model, optimizer, scheduler, step):
    out = f"{args.out}/checkpoint-{step}"
    if args.safe:
        save_file(model.state_dict(), f"{out}/model.safetensors")
    else:
        torch.save(model.state_dict(), f"{out}/pytorch_model.bin")
    torch.save(optimizer.state_dict(), f"{out}/optimizer.pt")
    torch.save(scheduler.state_dict(), f"{out}/scheduler.pt")
""",
    )
    assert got == [(8, "FITOL001"), (10, "FITOL001")]


def test_an_early_return_makes_what_follows_the_other_arm(tmp_path: Path) -> None:
    got = lint(
        tmp_path,
        """import torch


def save(model, optimizer, step, args):
    if args.full:
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "f.pt.tmp")
        return
    torch.save(model.state_dict(), f"ckpt/model_{step}.pt")
""",
    )
    assert got == []


CONTEXT_MANAGER = """import os
from contextlib import contextmanager

import torch
import torch.distributed as dist


@contextmanager
def staged(final):
    tmp = final + ".tmp"
    try:
        yield tmp
    finally:
        {barrier}
        if dist.get_rank() == 0:
            os.rename(tmp, final)


def save(model, optimizer, step):
    rank = dist.get_rank()
    with staged(f"ckpt/step_{{step}}") as d:
        torch.save(model.state_dict(), f"{{d}}/model_rank{{rank}}.pt")
        torch.save(optimizer.state_dict(), f"{{d}}/optim_rank{{rank}}.pt")
"""


def test_a_context_manager_renaming_after_a_barrier_is_a_commit(tmp_path: Path) -> None:
    # no split, no in-place save: only the missing fsyncs of the rename, a code of its own
    assert lint(tmp_path, CONTEXT_MANAGER.format(barrier="dist.barrier()")) == [(16, "FITOL004")]
    # without the barrier, rank 0's rename commits while the other ranks write
    assert lint(tmp_path, CONTEXT_MANAGER.format(barrier="pass")) == [
        (16, "FITOL004"),
        (16, "FITOL006"),
    ]


def test_restores_an_existence_test_a_handler_or_an_early_return_can_skip(
    tmp_path: Path,
) -> None:
    got = lint(
        tmp_path,
        """import os

import torch


def resume(model, optimizer, scheduler, d):
    model.load_state_dict(torch.load(f"{d}/model.pt"))
    if os.path.isfile(f"{d}/optimizer.pt"):
        optimizer.load_state_dict(torch.load(f"{d}/optimizer.pt"))
    try:
        scheduler.load_state_dict(torch.load(f"{d}/scheduler.pt"))
    except FileNotFoundError:
        print("no scheduler state")


def load(model, optimizer, path):
    ckpt = torch.load(path)
    model.load_state_dict(ckpt["model"])
    if "optimizer" not in ckpt:
        print("warning: no optimizer state")
        return 0
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["step"]


def all_or_nothing(model, optimizer, d):
    if not os.path.exists(f"{d}/optimizer.pt"):
        return
    model.load_state_dict(torch.load(f"{d}/model.pt"))
    try:
        optimizer.load_state_dict(torch.load(f"{d}/optimizer.pt"))
    except RuntimeError:
        print("bad optimizer state")
        raise
""",
    )
    assert got == [(9, "FITOL008"), (11, "FITOL008"), (22, "FITOL008")]


def test_a_group_rank_is_a_subset_and_a_barrier_under_rank_0_orders_nothing(
    tmp_path: Path,
) -> None:
    text = """import torch
from megatron.core import mpu


def save(iteration, model, args):
    tp = mpu.get_tensor_model_parallel_rank()
    name = f"{{args.save}}/iter_{{iteration}}/mp_rank_{{tp:02d}}/model.pt.tmp"
    if mpu.get_data_parallel_rank() == 0:
        torch.save(model.state_dict(), name)
    {before}
    if torch.distributed.get_rank() == 0:
        {inside}
        with open(f"{{args.save}}/latest_checkpointed_iteration.txt", "w") as f:
            f.write(str(iteration))
"""
    barrier = "torch.distributed.barrier()"
    assert lint(tmp_path, text.format(before="pass", inside="pass")) == [(13, "FITOL006")]
    assert lint(tmp_path, text.format(before="pass", inside=barrier)) == [(13, "FITOL006")]
    assert lint(tmp_path, text.format(before=barrier, inside="pass")) == []


def test_what_a_resume_does_on_purpose_is_not_a_skipped_restore(tmp_path: Path) -> None:
    got = lint(
        tmp_path,
        """import os
import sys

import torch


def load(model, optimizer, scheduler, d):
    tracker = os.path.join(d, "latest_checkpointed_iteration.txt")
    iteration = 0
    if os.path.isfile(tracker):  # which step to read: the tracker, not the step counter
        with open(tracker) as f:
            iteration = int(f.read())
    sd = torch.load(os.path.join(d, f"iter_{iteration}", "model.pt"))
    model.load_state_dict(sd["model"])
    try:
        optimizer.load_state_dict(sd["optimizer"])
    except KeyError:
        print("the checkpoint has no optimizer state")
        sys.exit(1)  # the resume stops: nothing goes on without it
    if "lr_scheduler" in sd:  # an older key: both arms restore the scheduler
        scheduler.load_state_dict(sd["lr_scheduler"])
    else:
        scheduler.load_state_dict(sd["opt_param_scheduler"])
    return iteration
""",
    )
    assert got == []


def test_a_full_checkpoint_as_weights_needs_the_load_in_view(tmp_path: Path) -> None:
    text = """import torch


def helper_load(path):
    return torch.load(path)


def resume(model, optimizer, path):
    ckpt = {load}
    model.load_state_dict(ckpt, strict=False)
    optimizer.load_state_dict(ckpt["optimizer"])
"""
    assert lint(tmp_path, text.format(load="torch.load(path)")) == [(10, "FITOL054")]
    # loaded by a helper: what it returns is not seen as a whole checkpoint
    assert lint(tmp_path, text.format(load="helper_load(path)")) == []


def test_a_bare_parameter_path_is_not_judged_but_a_run_wide_name_is(tmp_path: Path) -> None:
    text = """import torch


class Optimizer:
    def save_parameter_state(self, filename):
        torch.save(self.state_dict(), {path})
"""
    assert lint(tmp_path, text.format(path="filename")) == []  # the caller's choice, unseen
    assert lint(tmp_path, text.format(path="self.args.save_path")) == [(6, "FITOL003")]


def test_a_handle_assigned_on_two_arms_is_returned_on_both(tmp_path: Path) -> None:
    got = lint(
        tmp_path,
        """import torch.distributed.checkpoint as dcp


def save(state, path, pinned, stager):
    if pinned:
        ret = dcp.async_save(state, checkpoint_id=path, async_stager=stager)
    else:
        ret = dcp.async_save(state, checkpoint_id=path)
    return ret  # the caller waits for whichever was started
""",
    )
    assert got == []
