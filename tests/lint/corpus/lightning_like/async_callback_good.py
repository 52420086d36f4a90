"""The same background save, waited for before the next one starts and before training ends,
and published with an fsync of the file and of its directory."""
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
        with open(tmp, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fd = os.open(self.dirpath, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def _wait(self):
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if trainer.global_step % self.every_n_steps != 0 or not trainer.is_global_zero:
            return
        state = {
            "model": {k: v.detach().cpu().clone() for k, v in pl_module.state_dict().items()},
            "global_step": trainer.global_step,
        }
        path = os.path.join(self.dirpath, f"step-{trainer.global_step:09d}.pt")
        self._wait()
        self._thread = threading.Thread(target=self._write, args=(state, path), daemon=True)
        self._thread.start()

    def on_train_end(self, trainer, pl_module):
        self._wait()

    def on_exception(self, trainer, pl_module, exception):
        self._wait()
