"""The same trainer: the checkpoint is staged, fsynced and renamed into place, and resuming
restores the weights, the optimizer and the iteration from it."""
import math
import os
import time

import torch
from model import GPT, GPTConfig
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP

out_dir = "out"
eval_interval = 2000
max_iters = 600000
learning_rate = 6e-4
init_from = "scratch"  # 'scratch' or 'resume'

ddp = int(os.environ.get("RANK", -1)) != -1
if ddp:
    init_process_group(backend="nccl")
    ddp_rank = int(os.environ["RANK"])
    ddp_local_rank = int(os.environ["LOCAL_RANK"])
    device = f"cuda:{ddp_local_rank}"
    master_process = ddp_rank == 0
else:
    master_process = True
    device = "cuda"


def save_checkpoint(checkpoint, path):
    tmp_path = path + ".tmp"
    with open(tmp_path, "wb") as f:
        torch.save(checkpoint, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp_path, path)
    dir_fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    os.fsync(dir_fd)
    os.close(dir_fd)


iter_num = 0
best_val_loss = 1e9
model_args = dict(n_layer=12, n_head=12, n_embd=768, block_size=1024, bias=False,
                  vocab_size=50304, dropout=0.0)
if init_from == "scratch":
    model = GPT(GPTConfig(**model_args))
elif init_from == "resume":
    checkpoint = torch.load(os.path.join(out_dir, "ckpt.pt"), map_location=device)
    model = GPT(GPTConfig(**checkpoint["model_args"]))
    model.load_state_dict(checkpoint["model"])
    iter_num = checkpoint["iter_num"]
    best_val_loss = checkpoint["best_val_loss"]
model.to(device)

optimizer = model.configure_optimizers(0.1, learning_rate, (0.9, 0.95), "cuda")
if init_from == "resume":
    optimizer.load_state_dict(checkpoint["optimizer"])
checkpoint = None
if ddp:
    model = DDP(model, device_ids=[ddp_local_rank])


def get_lr(it):
    return learning_rate * 0.5 * (1.0 + math.cos(math.pi * min(it, max_iters) / max_iters))


raw_model = model.module if ddp else model
t0 = time.time()
while True:
    for param_group in optimizer.param_groups:
        param_group["lr"] = get_lr(iter_num)
    if iter_num % eval_interval == 0 and master_process and iter_num > 0:
        save_checkpoint({
            "model": raw_model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "model_args": model_args,
            "iter_num": iter_num,
            "best_val_loss": best_val_loss,
        }, os.path.join(out_dir, "ckpt.pt"))
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    iter_num += 1
    if iter_num > max_iters:
        break

if ddp:
    destroy_process_group()
