"""DDP with ZeRO-sharded optimizer state: each rank saves its optimizer shard, rank 0 the
model, overwriting the same files every time, and nothing commits the step."""
import os

import torch
import torch.distributed as dist
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP


def checkpoint(ddp_model, optimizer, epoch, out_dir):
    rank = dist.get_rank()
    if rank == 0:
        model_file = os.path.join(out_dir, "model.pt")
        state = {"model": ddp_model.module.state_dict(), "epoch": epoch}
        torch.save(state, model_file)  # expect: FITOL001 FITOL003
    optim_file = os.path.join(out_dir, f"optim.{rank}.pt")
    torch.save(optimizer.state_dict(), optim_file)  # expect: FITOL003


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = torch.nn.Linear(1024, 1024).cuda(local_rank)
    ddp_model = DDP(model, device_ids=[local_rank])
    optimizer = ZeroRedundancyOptimizer(ddp_model.parameters(), optimizer_class=torch.optim.Adam,
                                        lr=1e-4)
    for epoch in range(10):
        optimizer.zero_grad()
        ddp_model(torch.randn(8, 1024).cuda(local_rank)).sum().backward()
        optimizer.step()
        checkpoint(ddp_model, optimizer, epoch, "/checkpoints/run")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
