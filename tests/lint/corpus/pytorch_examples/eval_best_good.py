"""Train, keep the best weights, and evaluate them at the end: the final load is for testing,
not a resume, so the optimizer state it does not restore is not needed."""
import os

import torch
import torch.nn as nn


def save_durably(state, path):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def main(train_loader, test_loader, epochs=20):
    model = nn.Linear(10, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    best_acc = 0.0
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        acc = evaluate(model, test_loader)
        if acc > best_acc:
            best_acc = acc
            save_durably({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                          "epoch": epoch, "acc": acc}, "best.pt")
    best = torch.load("best.pt", map_location="cpu")
    model.load_state_dict(best["model"])
    print(f"best epoch {best['epoch']}: test accuracy {evaluate(model, test_loader):.3f}")


def evaluate(model, loader):
    return 0.0
