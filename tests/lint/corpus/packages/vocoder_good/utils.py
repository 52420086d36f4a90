import glob
import os

import torch


def save_checkpoint(filepath, obj):
    tmp = filepath + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, filepath)
    fd = os.open(os.path.dirname(filepath) or ".", os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def scan_checkpoint(cp_dir, prefix):
    pattern = os.path.join(cp_dir, prefix + "????????")
    cp_list = glob.glob(pattern)
    if len(cp_list) == 0:
        return None
    return sorted(cp_list)[-1]


def load_checkpoint(filepath, device):
    checkpoint_dict = torch.load(filepath, map_location=device)
    return checkpoint_dict
