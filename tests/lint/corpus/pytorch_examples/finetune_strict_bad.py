"""An examples-style script whose fine-tuning entry point hands the whole training checkpoint
(model, optimizer and epoch under their keys) to the model with strict=False: nothing
matches, nothing is loaded, and fine-tuning starts from random weights."""

import argparse
import os

import torch
import torch.nn as nn


def save_checkpoint(model, optimizer, epoch, out_dir):
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}
    tmp = os.path.join(out_dir, "checkpoint.pth.tmp")
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(out_dir, "checkpoint.pth"))
    fd = os.open(out_dir, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def finetune(args):
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    model.load_state_dict(torch.load(os.path.join(args.pretrained, "checkpoint.pth")), strict=False)  # expect: FITOL054
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained", default="runs/pretrain")
    finetune(parser.parse_args())
