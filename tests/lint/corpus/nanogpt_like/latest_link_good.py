"""The same trainer: the step's file is written first, then the `latest.pt` symlink is
replaced atomically (a new link under a temporary name, renamed over the old one)."""

import os

import torch

out_dir = "out"
eval_interval = 2000


def save(model, optimizer, iter_num, best_val_loss):
    ckpt_path = os.path.join(out_dir, f"ckpt_{iter_num:06d}.pt")
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "iter_num": iter_num,
        "best_val_loss": best_val_loss,
    }
    with open(ckpt_path, "wb") as f:
        torch.save(checkpoint, f)
        f.flush()
        os.fsync(f.fileno())
    tmp_link = os.path.join(out_dir, "latest.pt.tmp")
    os.symlink(os.path.basename(ckpt_path), tmp_link)
    os.replace(tmp_link, os.path.join(out_dir, "latest.pt"))
    fd = os.open(out_dir, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
