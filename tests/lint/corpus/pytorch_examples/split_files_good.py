"""The same loop, with all components of an epoch saved as one commit by fito.runtime."""
import os

import torch
import torch.nn as nn

from fito.runtime import CheckpointWriter, NoConsistentEpoch, restore

CKPT_DIR = os.environ.get("CKPT_DIR", "checkpoints")


def train(model, optimizer, scheduler, loader, start, epochs):
    with CheckpointWriter(CKPT_DIR, keep=2, resume_from=start) as writer:
        for epoch in range(start + 1, epochs):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            scheduler.step()
            writer.save(epoch, {"model": model.state_dict(),
                                "optimizer": optimizer.state_dict(),
                                "scheduler": scheduler.state_dict()})


def main():
    model = nn.Linear(8, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)
    try:
        r = restore(CKPT_DIR)
        model.load_state_dict(r.states["model"])
        optimizer.load_state_dict(r.states["optimizer"])
        scheduler.load_state_dict(r.states["scheduler"])
        start = r.epoch
    except NoConsistentEpoch:
        start = None
    train(model, optimizer, scheduler, [], start, 100)


if __name__ == "__main__":
    main()
