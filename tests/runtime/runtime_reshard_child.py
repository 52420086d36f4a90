"""One rank of a job that saves a row-sharded tensor through fito's DCP writer, or loads
one back into another number of ranks, through fito's reader or plain `dcp.load`.

argv: ROOT STORE RANK WORLD MODE; MODE `save`, `fito` or `plain`. WORLD 1 runs without
torch.distributed (a single process loading the whole tensor). Prints `ok SUM` on success
(the loaded tensor, gathered, summed) or `refused NAME`."""

from __future__ import annotations

import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp

from fito.runtime.dcp import FitoStorageReader, FitoStorageWriter

ROWS, COLS = 12, 2


def main() -> None:
    root, store, rank_s, world_s, mode = sys.argv[1:6]
    rank, world = int(rank_s), int(world_s)
    full = torch.arange(float(ROWS * COLS)).reshape(ROWS, COLS)
    if world > 1:
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor import Shard, distribute_tensor

        dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
        mesh = init_device_mesh("cpu", (world,))
        source = full if mode == "save" else torch.zeros(ROWS, COLS)
        tensor = distribute_tensor(source, mesh, [Shard(0)])
    else:
        tensor = full if mode == "save" else torch.zeros(ROWS, COLS)
    state = {"w": tensor, "step": 7 if mode == "save" else 0}
    if mode == "save":
        dcp.save(state, storage_writer=FitoStorageWriter(root), checkpoint_id=7)
        print("ok", float(full.sum()), flush=True)
    else:
        if mode == "fito":
            dcp.load(state, storage_reader=FitoStorageReader(root))
        else:
            dcp.load(state, checkpoint_id=root)
        loaded = state["w"].full_tensor() if world > 1 else state["w"]
        assert torch.equal(loaded, full), loaded
        assert state["step"] == 7
        print("ok", float(loaded.sum()), flush=True)
    if world > 1:
        dist.barrier()  # every rank has printed; then leave without gloo's teardown, which
        os._exit(
            0
        )  # can abort at interpreter exit ("terminate called without an active exception")


if __name__ == "__main__":
    main()
