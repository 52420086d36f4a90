"""The same resume, checked once: a checkpoint directory without every file is refused."""

import os

import torch
from transformers import PreTrainedModel

OPTIMIZER_NAME = "optimizer.pt"
SCHEDULER_NAME = "scheduler.pt"


class Trainer:
    def __init__(self, model: PreTrainedModel, optimizer, lr_scheduler):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler

    def _load_from_checkpoint(self, checkpoint):
        state_dict = torch.load(os.path.join(checkpoint, "pytorch_model.bin"), map_location="cpu")
        self.model.load_state_dict(state_dict)

    def _load_optimizer_and_scheduler(self, checkpoint):
        self.optimizer.load_state_dict(
            torch.load(os.path.join(checkpoint, OPTIMIZER_NAME), map_location="cpu")
        )
        self.lr_scheduler.load_state_dict(torch.load(os.path.join(checkpoint, SCHEDULER_NAME)))

    def train(self, resume_from_checkpoint=None):
        if resume_from_checkpoint is not None:
            for name in ("pytorch_model.bin", OPTIMIZER_NAME, SCHEDULER_NAME):
                if not os.path.isfile(os.path.join(resume_from_checkpoint, name)):
                    raise FileNotFoundError(f"{resume_from_checkpoint} has no {name}")
            self._load_from_checkpoint(resume_from_checkpoint)
            self._load_optimizer_and_scheduler(resume_from_checkpoint)
        for step in range(1000):
            self.optimizer.step()
            self.lr_scheduler.step()
