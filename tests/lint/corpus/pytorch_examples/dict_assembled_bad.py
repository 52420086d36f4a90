"""The training state assembled in a dictionary, written to a temporary name and renamed,
but never fsynced; the RNG state goes to a file of its own."""
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
    final = os.path.join(ckpt_dir, "train_state.pt")
    tmp = final + ".tmp"
    torch.save(ckpt, tmp)  # expect: FITOL001
    os.rename(tmp, final)  # expect: FITOL004
    rng = {"python": random.getstate(), "numpy": np.random.get_state(),
           "torch": torch.get_rng_state()}
    torch.save(rng, os.path.join(ckpt_dir, "rng_state.pt"))  # expect: FITOL003


def train(model, optimizer, scaler, loader, ckpt_dir, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda"):
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        save_checkpoint(model, optimizer, scaler, epoch, ckpt_dir)
