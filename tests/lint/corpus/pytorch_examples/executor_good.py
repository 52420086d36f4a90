"""Checkpoints written by a single background worker: saves run one at a time, in order, and
leaving the `with` block waits for the last one. The worker gets copies of the tensors (the
optimizer's moments too), so the next optimizer step cannot change what it writes."""
import copy
import os
from concurrent.futures import ThreadPoolExecutor

import torch


def save_durably(state, path):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(path), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def train(model, optimizer, batches, out_dir, every=100):
    with ThreadPoolExecutor(max_workers=1) as saver:
        for step, batch in enumerate(batches):
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
            if step % every == 0:
                state = {"model": {k: v.cpu().clone() for k, v in model.state_dict().items()},
                         "optimizer": copy.deepcopy(optimizer.state_dict()), "step": step}
                saver.submit(save_durably, state, os.path.join(out_dir, f"step{step}.pt"))
