"""Small shapes of real code that decide a warning either way, one case each: the codes a
snippet must give (sorted), often none. Each case stands for a pattern met in public
training code while the rules were checked against it."""

from __future__ import annotations

import pytest

from fito.lint.run import LintOptions, lint_source
from fito.source import Source

CASES = {
    "a checkpoint under a logs/ directory is still a checkpoint": (
        """
import torch
def save(model, args):
    torch.save(model.state_dict(), f"{args.logs}/run/checkpoints/model.pt")
""",
        ["FITOL003"],
    ),
    "gradients dumped for analysis are not a checkpoint": (
        """
import torch
def save_grads(state_dict, save_dir, grad_label, iteration):
    torch.save(dict(state_dict), f"{save_dir}/{grad_label}/iter_{iteration}/grads.pt")
""",
        [],
    ),
    "a loop variable named rank is not a process rank": (
        """
import torch
def convert(states, out):
    for rank in range(4):
        torch.save({"model": states[rank]}, f"{out}/mp_rank_{rank:02d}.pt")
""",
        ["FITOL003"],
    ),
    "tuple assignment binds each name to its own path": (
        """
import torch
def save(ckpt, w):
    last, best = w / "last.pt", w / "best.pt"
    torch.save({"model": ckpt}, last)
""",
        ["FITOL003"],
    ),
    "*args of a same-file wrapper carry the payload and the path": (
        """
import torch
def save_on_master(*args, **kwargs):
    torch.save(*args, **kwargs)
def save(model, epoch):
    save_on_master({"model": model.state_dict(), "epoch": epoch}, "checkpoint.pth")
""",
        ["FITOL003"],
    ),
    "an async save whose handle is returned is the caller's to wait for": (
        """
import torch.distributed.checkpoint as dcp
def start_save(state, path):
    return dcp.async_save(state, checkpoint_id=path)
""",
        [],
    ),
    "a versioned save committed by a tracker file is not in place": (
        """
import torch
def save(model, optimizer, iteration, root):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
               f"{root}/iter_{iteration:07d}/model_optim_rng.pt")
    with open(f"{root}/latest_checkpointed_iteration.txt", "w") as f:
        f.write(str(iteration))
""",
        [],
    ),
    "a commit by a helper of another module is trusted for the split": (
        """
import torch
from ckpt_utils import finalize_checkpoint
def save(model, optimizer, step, d, atomic_save):
    atomic_save(model.state_dict(), f"{d}/step{step}/model.pt")
    atomic_save(optimizer.state_dict(), f"{d}/step{step}/optim.pt")
    finalize_checkpoint(d, step)
""",
        [],
    ),
    "the same copied to best.pt is not a second component": (
        """
import os, torch
def save(state, model, is_best, write):
    write(state, "last.pt")
    if is_best:
        torch.save(model.state_dict(), "best.tmp")
        os.replace("best.tmp", "best.pt")
""",
        ["FITOL004"],
    ),
    "a restore through another module's loader is not judged": (
        """
import torch
from utils import load_checkpoint
def resume(model, optimizer, args):
    load_checkpoint(model, args.resume)
    optimizer.load_state_dict(torch.load(args.pretrained_optim))
""",
        [],
    ),
    "torch.cuda.synchronize is not a barrier between ranks": (
        """
import os, torch
import torch.distributed as dist
def save(model, step):
    rank = dist.get_rank()
    torch.save(model.state_dict(), f"ckpt/{step}/shard{rank}.pt")
    torch.cuda.synchronize()
    if rank == 0:
        open(f"ckpt/{step}/COMPLETE", "w").close()
""",
        ["FITOL006"],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shape(name: str) -> None:
    source, codes = CASES[name]
    report = lint_source(Source("shape.py", source), LintOptions()).report
    assert sorted(d.code for d in report.diagnostics) == codes
