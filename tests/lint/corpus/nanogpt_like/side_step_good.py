"""The iteration number saved inside the checkpoint it belongs to, read back with it."""

import os

import torch

out_dir = "out"
init_from = "resume"


def resume(model, optimizer):
    ckpt_path = os.path.join(out_dir, "ckpt.pt")
    checkpoint = torch.load(ckpt_path, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    iter_num = checkpoint["iter_num"]
    return iter_num
