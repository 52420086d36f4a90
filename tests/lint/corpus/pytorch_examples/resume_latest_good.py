"""The same per-component files, committed by a marker naming the step, and resumed from the
committed step only; an unfinished step is never read."""
import glob
import os
import re

import torch
import torch.nn as nn


def save_atomically(obj, path):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(path), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def committed_step(ckpt_dir):
    try:
        with open(os.path.join(ckpt_dir, "latest")) as f:
            return int(f.read())
    except FileNotFoundError:
        return None


def resume(model, optimizer, ckpt_dir):
    step = committed_step(ckpt_dir)
    if step is None:
        return 0
    model.load_state_dict(torch.load(os.path.join(ckpt_dir, f"model_{step}.pt")))
    optimizer.load_state_dict(torch.load(os.path.join(ckpt_dir, f"optim_{step}.pt")))
    return step + 1


def newest_complete_step(ckpt_dir):
    """The newest step for which both files exist (for runs without a marker)."""
    steps = [set(int(m.group(1)) for p in glob.glob(os.path.join(ckpt_dir, f"{kind}_*.pt"))
                 if (m := re.search(r"_(\d+)\.pt$", p))) for kind in ("model", "optim")]
    common = steps[0] & steps[1]
    return max(common) if common else None


def main(ckpt_dir="ckpt", steps=10_000, every=500):
    model = nn.Linear(16, 16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    start = resume(model, optimizer, ckpt_dir)
    for step in range(start, steps):
        optimizer.zero_grad()
        model(torch.randn(4, 16)).pow(2).mean().backward()
        optimizer.step()
        if step % every == 0:
            save_atomically(model.state_dict(), os.path.join(ckpt_dir, f"model_{step}.pt"))
            save_atomically(optimizer.state_dict(), os.path.join(ckpt_dir, f"optim_{step}.pt"))
            save_atomically(str(step).encode(), os.path.join(ckpt_dir, "latest"))


if __name__ == "__main__":
    main()
