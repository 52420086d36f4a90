"""One method per component: each writes its file of the step, durably."""

import os

import torch


def _write(obj, path):
    with open(path, "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())


class CheckpointManager:
    def __init__(self, folder):
        self.folder = folder

    def step_dir(self, step):
        return os.path.join(self.folder, f"step-{step}")

    def save_model(self, step, model):
        _write(model.state_dict(), os.path.join(self.step_dir(step), "model.pt"))

    def save_optimizer(self, step, optimizer):
        _write(optimizer.state_dict(), os.path.join(self.step_dir(step), "optimizer.pt"))

    def commit(self, step):
        with open(os.path.join(self.folder, "latest"), "w") as f:
            f.write(str(step))
            f.flush()
            os.fsync(f.fileno())
