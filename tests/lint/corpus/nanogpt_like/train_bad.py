"""A nanoGPT-style single-file trainer. The checkpoint is one file overwritten in place, and
resuming restores the weights and the iteration but not the optimizer it saved."""
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
warmup_iters = 2000
lr_decay_iters = 600000
min_lr = 6e-5
init_from = "scratch"  # 'scratch' or 'resume'
always_save_checkpoint = True

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
if master_process:
    os.makedirs(out_dir, exist_ok=True)

iter_num = 0
best_val_loss = 1e9
model_args = dict(n_layer=12, n_head=12, n_embd=768, block_size=1024, bias=False,
                  vocab_size=50304, dropout=0.0)
if init_from == "scratch":
    model = GPT(GPTConfig(**model_args))
elif init_from == "resume":
    ckpt_path = os.path.join(out_dir, "ckpt.pt")
    checkpoint = torch.load(ckpt_path, map_location=device)
    model = GPT(GPTConfig(**checkpoint["model_args"]))
    state_dict = checkpoint["model"]
    unwanted_prefix = "_orig_mod."
    for k in list(state_dict.keys()):
        if k.startswith(unwanted_prefix):
            state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
    model.load_state_dict(state_dict)  # expect: FITOL008
    iter_num = checkpoint["iter_num"]
    best_val_loss = checkpoint["best_val_loss"]
model.to(device)

optimizer = model.configure_optimizers(0.1, learning_rate, (0.9, 0.95), "cuda")
checkpoint = None
if ddp:
    model = DDP(model, device_ids=[ddp_local_rank])


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * it / warmup_iters
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * decay_ratio)) * (learning_rate - min_lr)


raw_model = model.module if ddp else model
t0 = time.time()
while True:
    lr = get_lr(iter_num)
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    if iter_num % eval_interval == 0 and master_process:
        losses = {"val": 0.0}
        if losses["val"] < best_val_loss or always_save_checkpoint:
            best_val_loss = losses["val"]
            if iter_num > 0:
                checkpoint = {
                    "model": raw_model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "model_args": model_args,
                    "iter_num": iter_num,
                    "best_val_loss": best_val_loss,
                }
                print(f"saving checkpoint to {out_dir}")
                torch.save(checkpoint, os.path.join(out_dir, "ckpt.pt"))  # expect: FITOL003
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    iter_num += 1
    if iter_num > max_iters:
        break

if ddp:
    destroy_process_group()
