"""The same sharded save, with a barrier between the shards and rank 0's commit marker."""
import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import StateDictType


def atomic_save(obj, path):
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(os.path.dirname(path), os.O_RDONLY)
    os.fsync(dir_fd)
    os.close(dir_fd)


def save_sharded(model, optimizer, step, ckpt_dir):
    rank = dist.get_rank()
    step_dir = os.path.join(ckpt_dir, f"step_{step:08d}")
    os.makedirs(step_dir, exist_ok=True)
    with FSDP.state_dict_type(model, StateDictType.LOCAL_STATE_DICT):
        state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
    atomic_save(state, os.path.join(step_dir, f"shard_rank{rank:05d}.pt"))
    dist.barrier()  # every shard of this step is durable from here on
    if rank == 0:
        with open(os.path.join(step_dir, "COMPLETE"), "w") as f:
            f.write(str(step))
            f.flush()
            os.fsync(f.fileno())
    dist.barrier()


def train(model, optimizer, loader, ckpt_dir, save_every=1000):
    for step, batch in enumerate(loader):
        loss = model(batch).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % save_every == 0:
            save_sharded(model, optimizer, step, ckpt_dir)
