"""The same async checkpointing, done right: the previous save is awaited before the next one
starts, the marker is written only once a save is complete, and the last save is awaited."""
import os

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from model import GPT, GPTConfig
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

out_dir = os.environ.get("OUT_DIR", "out")
save_interval = 1000
max_iters = 100_000

dist.init_process_group("nccl")
rank = dist.get_rank()
model = GPT(GPTConfig())
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)

iter_num = 0
latest = os.path.join(out_dir, "latest")
if os.path.exists(latest):
    with open(latest) as f:
        iter_num = int(f.read())
    model_sd, optim_sd = get_state_dict(model, optimizer)
    state = {"model": model_sd, "optimizer": optim_sd}
    dcp.load(state, checkpoint_id=os.path.join(out_dir, f"iter_{iter_num:07d}"))
    set_state_dict(model, optimizer, model_state_dict=state["model"],
                   optim_state_dict=state["optimizer"])


def commit(step):
    dist.barrier()
    if rank == 0:
        tmp = latest + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(step))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, latest)
        fd = os.open(out_dir, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)


pending, pending_step = None, None
while iter_num < max_iters:
    loss = model(torch.randint(0, 50304, (8, 1024))).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    iter_num += 1
    if iter_num % save_interval == 0:
        if pending is not None:
            pending.result()
            commit(pending_step)
        model_sd, optim_sd = get_state_dict(model, optimizer)
        pending = dcp.async_save({"model": model_sd, "optimizer": optim_sd},
                                 checkpoint_id=os.path.join(out_dir, f"iter_{iter_num:07d}"))
        pending_step = iter_num

if pending is not None:
    pending.result()
    commit(pending_step)
dist.destroy_process_group()
