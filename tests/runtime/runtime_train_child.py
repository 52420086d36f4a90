"""A small CPU training run that checkpoints through fito.runtime and resumes from it.

`python runtime_train_child.py DIR LOG STEPS EVERY [DIE_AFTER_STEP]` (or `train(...)` in a
process set to one thread and deterministic algorithms): restores the newest
consistent epoch in DIR (if any), trains up to STEPS steps, saving the model, optimizer,
scheduler, RNG and data-loader position every EVERY steps (epoch = step), and appends
`step S <loss as float.hex>`, `commit S`, and at the end `final <sha256 of the parameters
and optimizer state>` to LOG. DIE_AFTER_STEP: SIGKILL itself right after that step.
FITO_RUNTIME_KILL_AT kills it inside the writer instead. `--serve`: a fork server (below).
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from fito.runtime import (
    CheckpointWriter,
    NoConsistentEpoch,
    capture_rng,
    faults,
    restore,
    restore_rng,
)
from fito.runtime.layout import CheckpointError


def build():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(40, 8, generator=g)
    y = x.sum(dim=1, keepdim=True) + 0.1 * torch.randn(40, 1, generator=g)
    shuffle = torch.Generator().manual_seed(2)
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True, generator=shuffle)
    return model, opt, sched, loader, shuffle


def batches(loader, shuffle, position):
    """(pass, batch index, generator state at the pass's start, batch) from a position."""
    p, skip, state = position
    while True:
        if state is not None:
            shuffle.set_state(state)
        state = shuffle.get_state()
        for b, batch in enumerate(loader):
            if b >= skip:
                yield p, b, state, batch
        p, skip, state = p + 1, 0, None


def log_line(log: str, text: str, sync: bool = False) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (text + "\n").encode())
    if sync:
        os.fsync(fd)
    os.close(fd)


def digest(model, opt) -> str:
    h = hashlib.sha256()
    for t in list(model.state_dict().values()) + [
        v for s in opt.state_dict()["state"].values() for v in s.values()
    ]:
        h.update(t.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def train(root: str, log: str, steps: int, every: int, die_after: int | None = None) -> int:
    """Resume from root if it holds a consistent epoch, train to `steps`, log as it goes."""
    model, opt, sched, loader, shuffle = build()
    start, position = 0, (0, 0, None)
    try:
        r = restore(root)
        model.load_state_dict(r.states["model"])
        opt.load_state_dict(r.states["optimizer"])
        sched.load_state_dict(r.states["scheduler"])
        restore_rng(r.states["rng"])
        d = r.states["data"]
        start, position = r.epoch, (d["pass"], d["next_batch"], d["generator"])
    except (NoConsistentEpoch, CheckpointError):
        pass
    log_line(log, f"resumed {start}")
    stream = batches(loader, shuffle, position)
    with CheckpointWriter(root, keep=2, resume_from=start) as writer:
        for step in range(start + 1, steps + 1):
            p, b, pass_state, (x, y) = next(stream)
            model.train()
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            log_line(log, f"step {step} {loss.item().hex()}")
            if step % every == 0:
                writer.save(
                    step,
                    {
                        "model": model.state_dict(),
                        "optimizer": opt.state_dict(),
                        "scheduler": sched.state_dict(),
                        "rng": capture_rng(),
                        "data": {"pass": p, "next_batch": b + 1, "generator": pass_state},
                    },
                )
                log_line(log, f"commit {step}", sync=True)
            if step == die_after:
                os.kill(os.getpid(), signal.SIGKILL)
    log_line(log, f"final {digest(model, opt)}")
    log_line(log, f"points {faults.points_passed()}")
    return 0


def serve() -> int:
    """Fork server: per request line `DIR LOG STEPS EVERY DIE_AFTER KILL_AT` (tab-separated,
    `-` for none; KILL_AT as `N:F`), fork a child that trains, answer its wait status. torch
    is imported once, and no parallel region ever ran in this parent before a fork."""
    for line in sys.stdin:
        root, log, steps, every, die_after, kill_at = line.rstrip("\n").split("\t")
        pid = os.fork()
        if pid == 0:
            code = 99
            try:
                if kill_at != "-":
                    at, _, frac = kill_at.partition(":")
                    faults.arm(int(at), float(frac or 0))
                code = train(
                    root, log, int(steps), int(every), None if die_after == "-" else int(die_after)
                )
            finally:
                os._exit(code)
        print(os.waitpid(pid, 0)[1], flush=True)
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    if a == ["--serve"]:
        sys.exit(serve())
    sys.exit(train(a[0], a[1], int(a[2]), int(a[3]), int(a[4]) if len(a) > 4 else None))
