"""The same ZeRO-sharded run, with each epoch in its own directory, a barrier once every
rank's files are durable, and rank 0's commit marker naming the epoch."""
import os

import torch
import torch.distributed as dist
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP


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


def checkpoint(ddp_model, optimizer, epoch, out_dir):
    rank = dist.get_rank()
    epoch_dir = os.path.join(out_dir, f"epoch_{epoch:04d}")
    os.makedirs(epoch_dir, exist_ok=True)
    if rank == 0:
        save_durably({"model": ddp_model.module.state_dict(), "epoch": epoch},
                     os.path.join(epoch_dir, "model.pt"))
    save_durably(optimizer.state_dict(), os.path.join(epoch_dir, f"optim.{rank}.pt"))
    dist.barrier()
    if rank == 0:
        save_durably({"epoch": epoch}, os.path.join(out_dir, "latest.pt"))


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
