"""nanoGPT-like resume whose iteration number lives in a side file, read only if it is there:
without it, the weights and optimizer resume at iteration 0 (warmup and the LR schedule
start over)."""

import os

import torch

out_dir = "out"
init_from = "resume"


def resume(model, optimizer):
    ckpt_path = os.path.join(out_dir, "ckpt.pt")
    checkpoint = torch.load(ckpt_path, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    iter_num = 0
    if os.path.exists(os.path.join(out_dir, "iter.txt")):
        with open(os.path.join(out_dir, "iter.txt")) as f:
            iter_num = int(f.read())  # expect: FITOL008
    return iter_num
