"""Each rank saves its shard and then its own done file; the reader requires every rank's
done file for a step before it loads that step."""
import os

import torch
import torch.distributed as dist


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


def save_shard(model, optimizer, step, root):
    rank, world = dist.get_rank(), dist.get_world_size()
    step_dir = os.path.join(root, f"step{step}")
    os.makedirs(step_dir, exist_ok=True)
    save_durably({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                 os.path.join(step_dir, f"shard{rank}-of-{world}.pt"))
    save_durably(b"", os.path.join(step_dir, f"done.{rank}"))


def complete_steps(root, world):
    steps = []
    for name in os.listdir(root):
        d = os.path.join(root, name)
        if all(os.path.exists(os.path.join(d, f"done.{r}")) for r in range(world)):
            steps.append(int(name[len("step"):]))
    return sorted(steps)
