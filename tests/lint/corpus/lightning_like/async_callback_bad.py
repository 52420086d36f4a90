"""A Lightning-style callback that saves every N steps on a background thread, to stay off
the training loop's critical path; nothing waits for the thread."""
import os
import threading

import torch
from lightning.pytorch.callbacks import Callback


class AsyncStepCheckpoint(Callback):
    def __init__(self, dirpath, every_n_steps=500):
        self.dirpath = dirpath
        self.every_n_steps = every_n_steps
        self._thread = None

    def _write(self, state, path):
        tmp = path + ".tmp"
        torch.save(state, tmp)
        os.replace(tmp, path)  # expect: FITOL004

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if trainer.global_step % self.every_n_steps != 0 or not trainer.is_global_zero:
            return
        state = {
            "model": {k: v.detach().cpu().clone() for k, v in pl_module.state_dict().items()},
            "global_step": trainer.global_step,
        }
        path = os.path.join(self.dirpath, f"step-{trainer.global_step:09d}.pt")
        job = (state, path)
        worker = threading.Thread(target=self._write, args=job, daemon=True)  # expect: FITOL005
        self._thread = worker
        self._thread.start()
