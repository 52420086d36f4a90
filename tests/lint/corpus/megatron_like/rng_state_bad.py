"""A Megatron-like checkpoint that saves the RNG states (Python, NumPy, torch, CUDA) with the
weights, while the loader restores the weights, optimizer and iteration only."""

import os
import random

import numpy as np
import torch
from megatron.core import mpu


def save_checkpoint(iteration, model, optimizer, args):
    tp = mpu.get_tensor_model_parallel_rank()
    name = os.path.join(args.save, f"iter_{iteration:07d}", f"mp_rank_{tp:02d}", "model_rng.pt")
    state_dict = {
        "iteration": iteration,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "rng_state": {
            "random_rng_state": random.getstate(),
            "np_rng_state": np.random.get_state(),
            "torch_rng_state": torch.get_rng_state(),
            "cuda_rng_state": torch.cuda.get_rng_state(),
        },
    }
    with open(name + ".tmp", "wb") as f:
        torch.save(state_dict, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(name + ".tmp", name)
    fd = os.open(os.path.dirname(name), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    torch.distributed.barrier()
    if torch.distributed.get_rank() == 0:
        with open(os.path.join(args.save, "latest_checkpointed_iteration.txt"), "w") as f:
            f.write(str(iteration))


def load_checkpoint(model, optimizer, args, iteration):
    tp = mpu.get_tensor_model_parallel_rank()
    name = os.path.join(args.load, f"iter_{iteration:07d}", f"mp_rank_{tp:02d}", "model_rng.pt")
    state_dict = torch.load(name, map_location="cpu")
    model.load_state_dict(state_dict["model"])  # expect: FITOL008
    optimizer.load_state_dict(state_dict["optimizer"])
    return state_dict["iteration"]
