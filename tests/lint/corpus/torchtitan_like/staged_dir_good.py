"""A DCP-style checkpointer: every rank writes into a staging directory, a barrier, then rank 0
renames the directory onto its step name (the commit), with fsyncs on both sides."""

import os
from contextlib import contextmanager

import torch
import torch.distributed as dist


def _fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def staged(final_dir):
    staging = final_dir + ".staging"
    os.makedirs(staging, exist_ok=True)
    try:
        yield staging
    finally:
        dist.barrier()
        if dist.get_rank() == 0:
            _fsync_dir(staging)
            os.rename(staging, final_dir)
            _fsync_dir(os.path.dirname(final_dir))
        dist.barrier()


class Checkpointer:
    def __init__(self, folder):
        self.folder = folder

    def _write(self, obj, path):
        with open(path, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())

    def save(self, step, model, optimizer):
        rank = dist.get_rank()
        with staged(os.path.join(self.folder, f"step-{step}")) as d:
            self._write(model.state_dict(), os.path.join(d, f"model_rank{rank}.pt"))
            self._write(optimizer.state_dict(), os.path.join(d, f"optim_rank{rank}.pt"))
