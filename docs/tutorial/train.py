"""A small training loop that checkpoints with fito.runtime (docs/tutorial.md, step 7).

Plain numpy: a linear model fitted by SGD with momentum, three persistence domains (the
weights, the optimizer's momentum, the data position). Every epoch is committed with a
manifest written after every shard is durable; a restart restores the newest committed
epoch whose shards all verify, never a mix.

    python train.py CKPT EPOCHS [--power-loss-before-commit E]

--power-loss-before-commit E kills the process (SIGKILL, as a power loss would) while it
saves epoch E: every shard of E is on disk, the commit manifest that certifies them is not.
"""

from __future__ import annotations

import argparse
import os
import signal

import numpy as np

from fito.runtime import CheckpointError, CheckpointWriter, NoConsistentEpoch, faults, restore


def batches(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(64, 3))
    return x, x @ np.array([1.5, -2.0, 0.5]) + 0.1


def power_loss_before_commit(epoch: int) -> None:
    """SIGKILL this process just before it creates the commit manifest of `epoch`."""
    name = f"e{epoch:010d}."

    def observe(_n: int, op: str, path: str) -> None:
        if (
            op == "create"
            and os.path.basename(os.path.dirname(path)) == "commits"
            and os.path.basename(path).startswith(name)
        ):
            os.kill(os.getpid(), signal.SIGKILL)

    faults.arm(0, observer=observe)  # fito.runtime's fault-injection hook (docs/runtime.md)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("ckpt")
    p.add_argument("epochs", type=int)
    p.add_argument("--power-loss-before-commit", type=int, metavar="E")
    args = p.parse_args()
    w, m, start = np.zeros(3), np.zeros(3), 0
    try:
        r = restore(args.ckpt)  # the newest committed epoch whose shards verify
        w, m = r.states["model"]["w"], r.states["optim"]["momentum"]
        start = r.epoch
        print(
            f"restored epoch {r.epoch}; skipped: "
            + (", ".join(f"{s.epoch} ({s.reason})" for s in r.skipped) or "nothing")
        )
    except (NoConsistentEpoch, CheckpointError):  # nothing committed yet, or no directory
        print("no committed epoch: starting from scratch")
    if args.power_loss_before_commit is not None:
        power_loss_before_commit(args.power_loss_before_commit)
    x, y = batches()
    with CheckpointWriter(args.ckpt, keep=2, resume_from=start) as writer:
        for epoch in range(start + 1, args.epochs + 1):
            grad = 2 * x.T @ (x @ w - y) / len(x)
            m = 0.9 * m + grad
            w = w - 0.05 * m
            loss = float(np.mean((x @ w - y) ** 2))
            writer.save(
                epoch,
                {
                    "model": {"w": w},
                    "optim": {"momentum": m},
                    "data": {"next_batch": epoch * len(x)},
                },
            )
            print(f"epoch {epoch}: loss {loss:.4f}, committed")


if __name__ == "__main__":
    main()
