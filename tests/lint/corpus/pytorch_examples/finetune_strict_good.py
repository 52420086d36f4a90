"""The same script: fine-tuning takes the weights from the checkpoint's model entry, strictly,
so that a file of another layout fails loudly instead of loading nothing."""

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
    checkpoint = torch.load(os.path.join(args.pretrained, "checkpoint.pth"))
    model.load_state_dict(checkpoint["model"])
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained", default="runs/pretrain")
    finetune(parser.parse_args())
