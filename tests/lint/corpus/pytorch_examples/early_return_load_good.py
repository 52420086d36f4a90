"""The same `load_checkpoint`: a checkpoint without optimizer state is refused, not resumed."""

import argparse

import torch
import torch.nn as nn


def load_checkpoint(path, model, optimizer):
    checkpoint = torch.load(path, map_location="cpu")
    if "optimizer" not in checkpoint:
        raise ValueError(f"'{path}' holds weights only: it cannot resume a run")
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    return checkpoint["epoch"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    args = parser.parse_args()
    model = nn.Linear(10, 10)
    optimizer = torch.optim.Adam(model.parameters())
    start_epoch = 0
    if args.resume:
        start_epoch = load_checkpoint(args.resume, model, optimizer)
    for epoch in range(start_epoch, 90):
        optimizer.step()
        torch.save(
            {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
            f"checkpoint_{epoch}.pth.tmp",
        )
