"""Checkpoints handed to a pool of writer threads: two saves can run at once, the "latest"
pointer can name a file still being written, and the pool is shut down without waiting."""
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
    writers = ThreadPoolExecutor(max_workers=4)
    for step, batch in enumerate(batches):
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()
        if step % every == 0:
            state = {"model": {k: v.cpu().clone() for k, v in model.state_dict().items()},
                     "optimizer": optimizer.state_dict(), "step": step}
            path = os.path.join(out_dir, f"step{step}.pt")
            writers.submit(save_durably, state, path)  # expect: FITOL005, FITOL051
            with open(os.path.join(out_dir, "latest.txt"), "w") as f:
                f.write(f"step{step}.pt")
    writers.shutdown(wait=False)
