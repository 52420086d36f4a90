"""The training loop saves the model and the optimizer through the checkpoint manager, then
commits the step: the `latest` file is written once both files are."""

import torch

from .checkpoint import CheckpointManager


class Trainer:
    def __init__(self, model, optimizer, folder):
        self.model = model
        self.optimizer = optimizer
        self.checkpointer = CheckpointManager(folder)

    def train(self, batches, every=1000):
        for step, batch in enumerate(batches):
            self.model(batch).sum().backward()
            self.optimizer.step()
            if step % every == 0:
                self.checkpointer.save_model(step, self.model)
                self.checkpointer.save_optimizer(step, self.optimizer)
                self.checkpointer.commit(step)
