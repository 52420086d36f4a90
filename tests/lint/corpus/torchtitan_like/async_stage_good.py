"""The same checkpointer, waiting for staging to end before the next optimizer step; the
upload goes on in the background and is waited for before the next save."""

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.staging import DefaultStager


class CheckpointManager:
    def __init__(self, folder, model, optimizer):
        self.folder = folder
        self.model = model
        self.optimizer = optimizer
        self.stager = DefaultStager()
        self.pending = None

    def state(self):
        return {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}

    def train(self, batches):
        for step, batch in enumerate(batches):
            self.model(batch).sum().backward()
            self.optimizer.step()
            if step % 500 == 0:
                if self.pending is not None:
                    self.pending.upload_completion.result()
                self.pending = dcp.async_save(
                    self.state(),
                    checkpoint_id=f"{self.folder}/step-{step}",
                    async_stager=self.stager,
                )
                self.pending.staging_completion.result()
        if self.pending is not None:
            self.pending.upload_completion.result()
