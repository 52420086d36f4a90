"""A classic training loop that saves each component to its own file, overwritten every
epoch, through a small helper."""
import os

import torch
import torch.nn as nn

CKPT_DIR = os.environ.get("CKPT_DIR", "checkpoints")


def save_component(obj, name):
    path = os.path.join(CKPT_DIR, f"{name}.pt")
    torch.save(obj, path)  # expect: FITOL003


def train(model, optimizer, scheduler, loader, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        save_component(model.state_dict(), "model")  # expect: FITOL001
        save_component(optimizer.state_dict(), "optimizer")
        save_component(scheduler.state_dict(), "scheduler")
        save_component({"epoch": epoch}, "progress")


def main():
    model = nn.Linear(8, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)
    start = 0
    if os.path.exists(os.path.join(CKPT_DIR, "model.pt")):
        model.load_state_dict(torch.load(os.path.join(CKPT_DIR, "model.pt")))
        optimizer.load_state_dict(torch.load(os.path.join(CKPT_DIR, "optimizer.pt")))
        scheduler.load_state_dict(torch.load(os.path.join(CKPT_DIR, "scheduler.pt")))
        start = torch.load(os.path.join(CKPT_DIR, "progress.pt"))["epoch"] + 1
    train(model, optimizer, scheduler, [], 100 - start)


if __name__ == "__main__":
    main()
