"""Per-component checkpoint files named by step; resume takes the newest file of each
component on its own."""
import glob
import os

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


def latest(pattern):
    files = glob.glob(pattern)
    return max(files, key=os.path.getmtime) if files else None


def resume(model, optimizer, ckpt_dir):
    model_path = latest(os.path.join(ckpt_dir, "model_*.pt"))
    optim_path = latest(os.path.join(ckpt_dir, "optim_*.pt"))
    if model_path is None or optim_path is None:
        return 0
    model.load_state_dict(torch.load(model_path))
    optimizer.load_state_dict(torch.load(optim_path))  # expect: FITOL002
    return int(os.path.basename(model_path)[len("model_"):-len(".pt")])


def main(ckpt_dir="ckpt", steps=10_000, every=500):
    model = nn.Linear(16, 16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    start = resume(model, optimizer, ckpt_dir)
    for step in range(start, steps):
        optimizer.zero_grad()
        model(torch.randn(4, 16)).pow(2).mean().backward()
        optimizer.step()
        if step % every == 0:
            model_file = os.path.join(ckpt_dir, f"model_{step}.pt")
            optim_file = os.path.join(ckpt_dir, f"optim_{step}.pt")
            save_atomically(model.state_dict(), model_file)  # expect: FITOL001
            save_atomically(optimizer.state_dict(), optim_file)


if __name__ == "__main__":
    main()
