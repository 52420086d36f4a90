"""The same training state, RNG state included, assembled in one dictionary and published as
one file: written to a temporary name, fsynced, renamed, and the directory fsynced."""
import os
import random

import numpy as np
import torch


def save_checkpoint(model, optimizer, scaler, epoch, ckpt_dir):
    ckpt = {}
    ckpt["model"] = model.state_dict()
    ckpt["optimizer"] = optimizer.state_dict()
    ckpt["scaler"] = scaler.state_dict()
    ckpt["epoch"] = epoch
    ckpt["rng"] = {"python": random.getstate(), "numpy": np.random.get_state(),
                   "torch": torch.get_rng_state()}
    final = os.path.join(ckpt_dir, "train_state.pt")
    tmp = final + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(ckpt, f)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, final)
    dir_fd = os.open(ckpt_dir, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def train(model, optimizer, scaler, loader, ckpt_dir, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda"):
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        save_checkpoint(model, optimizer, scaler, epoch, ckpt_dir)
