"""A single-file trainer that keeps a `latest.pt` symlink: the link is switched to the new
step's file before that file is written."""

import os

import torch

out_dir = "out"
eval_interval = 2000


def save(model, optimizer, iter_num, best_val_loss):
    ckpt_path = os.path.join(out_dir, f"ckpt_{iter_num:06d}.pt")
    link = os.path.join(out_dir, "latest.pt")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.basename(ckpt_path), link)  # expect: FITOL052
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "iter_num": iter_num,
        "best_val_loss": best_val_loss,
    }
    torch.save(checkpoint, ckpt_path)  # expect: FITOL050
