"""One rank of a job that trains (an all_reduce per step on the default gloo group) while
DCP's async_save writes through fito's storage writer every other step.

argv: ROOT STORE RANK WORLD MODE STEPS; MODE `fito` (fito.runtime.dcp.async_save) or
`plain` (dcp.async_save on the default group). Prints one line: `ok EPOCH SUM` or
`refused NAME`."""

from __future__ import annotations

import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp

from fito.runtime.dcp import FitoStorageReader, FitoStorageWriter, async_save


def main() -> None:
    root, store, rank, world, mode, steps = sys.argv[1:7]
    rank_i, world_i, steps_i = int(rank), int(world), int(steps)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank_i, world_size=world_i)
    weights = torch.zeros(64)
    writer = FitoStorageWriter(root, keep=2)
    pending = None
    refused = None
    for step in range(1, steps_i + 1):
        grad = torch.full((64,), float(rank_i + step))
        dist.all_reduce(grad)  # the training loop's collective, on the default group
        weights += grad
        if step % 2 == 0:
            if pending is not None:
                pending.result()
            state = {"w": weights.clone()}
            if mode == "fito":
                pending = async_save(state, storage_writer=writer, checkpoint_id=step)
            else:
                pending = dcp.async_save(state, storage_writer=writer, checkpoint_id=step)
                try:
                    pending.result(timeout=60)
                except Exception as exc:  # the refusal, raised in the background thread
                    refused = type(exc).__name__
                    break
    if refused is not None:
        print("refused", refused, flush=True)
    else:
        if pending is not None:
            pending.result()
        dist.barrier()
        loaded = {"w": torch.zeros(64)}
        reader = FitoStorageReader(root)
        dcp.load(loaded, storage_reader=reader)
        assert torch.equal(loaded["w"], weights)
        print("ok", reader.epoch, float(weights.sum()), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
