"""The training loop saves the model and the optimizer through the checkpoint manager, and
never commits the step: a crash between the two calls leaves a step of one component."""

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
                self.checkpointer.save_model(step, self.model)  # expect: FITOL001, FITOL050
                self.checkpointer.save_optimizer(step, self.optimizer)  # expect: FITOL050
