"""Three files per epoch, none of them a piece of another: the full training state (last.pt),
and two copies of weights for evaluation (best.pt, ema.pt). Each is published durably."""
import copy
import os

import torch
import torch.nn as nn


def publish(obj, path):
    tmp = f"{path}.partial"
    with open(tmp, "wb") as fh:
        torch.save(obj, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


class EMA:
    def __init__(self, model, decay=0.999):
        self.module = copy.deepcopy(model)
        self.decay = decay

    def update(self, model):
        with torch.no_grad():
            for e, p in zip(self.module.parameters(), model.parameters()):
                e.mul_(self.decay).add_(p, alpha=1 - self.decay)


def fit(model, optimizer, loader, out, epochs=10):
    ema = EMA(model)
    best = float("inf")
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            ema.update(model)
        val = evaluate(model)
        publish({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                 "epoch": epoch, "best": best}, os.path.join(out, "last.pt"))
        if val < best:
            best = val
            publish(model.state_dict(), os.path.join(out, "best.pt"))
        publish(ema.module.state_dict(), os.path.join(out, "ema.pt"))


def evaluate(model):
    return 0.0
