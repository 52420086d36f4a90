"""An examples-style `load_checkpoint` that returns early, with a warning, when the
checkpoint has no optimizer entry: the run goes on with the weights and a fresh optimizer."""

import argparse

import torch
import torch.nn as nn


def load_checkpoint(path, model, optimizer):
    checkpoint = torch.load(path, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    if "optimizer" not in checkpoint:
        print(f"=> no optimizer state in '{path}', starting it afresh")
        return 0
    optimizer.load_state_dict(checkpoint["optimizer"])  # expect: FITOL008
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
