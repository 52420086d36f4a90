"""A conversion script that writes a tensor-parallel checkpoint from one process: `rank` is a
loop variable here, not the rank of a running process, and the tracker file is written last."""
import os

import torch


def save_durably(obj, path):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(path), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def split_for_tensor_parallel(state_dict, num_shards):
    return [{k: v.chunk(num_shards)[i] for k, v in state_dict.items()} for i in range(num_shards)]


def convert(state_dict, out_dir, num_shards=4, iteration=0):
    step_dir = os.path.join(out_dir, f"iter_{iteration:07d}")
    os.makedirs(step_dir, exist_ok=True)
    for rank, shard in enumerate(split_for_tensor_parallel(state_dict, num_shards)):
        save_durably({"model": shard, "iteration": iteration},
                     os.path.join(step_dir, f"mp_rank_{rank:02d}.pt"))
    with open(os.path.join(out_dir, "latest_checkpointed_iteration.txt"), "w") as f:
        f.write(str(iteration))
        f.flush()
        os.fsync(f.fileno())
