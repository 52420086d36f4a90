"""Resume restores weights and optimizer but not the epoch it saved: training, and the
schedule keyed on the epoch, start again from zero."""
import argparse
import os

import torch
import torch.nn as nn


def save_durably(state, path):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])  # expect: FITOL008
    for epoch in range(args.epochs):
        for g in optimizer.param_groups:
            g["lr"] = 1e-3 * (0.95 ** epoch)
        optimizer.step()
        save_durably({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                      "epoch": epoch}, "checkpoint.pt")


if __name__ == "__main__":
    main()
