"""A Lightning-style callback that writes its own checkpoint at the end of each epoch: the
weights in one file, the optimizer and scheduler state in another, both overwritten."""
import os

import torch
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.utilities import rank_zero_only


class EpochCheckpoint(Callback):
    def __init__(self, dirpath, every_n_epochs=1):
        super().__init__()
        self.dirpath = dirpath
        self.every_n_epochs = every_n_epochs

    @rank_zero_only
    def on_train_epoch_end(self, trainer, pl_module):
        if trainer.current_epoch % self.every_n_epochs:
            return
        os.makedirs(self.dirpath, exist_ok=True)
        weights = os.path.join(self.dirpath, "weights.pt")
        torch.save(pl_module.state_dict(), weights)  # expect: FITOL001 FITOL003
        trainer_state = {
            "optimizers": [opt.state_dict() for opt in trainer.optimizers],
            "lr_schedulers": [cfg.scheduler.state_dict() for cfg in trainer.lr_scheduler_configs],
            "epoch": trainer.current_epoch,
            "global_step": trainer.global_step,
        }
        state_file = os.path.join(self.dirpath, "trainer_state.pt")
        torch.save(trainer_state, state_file)  # expect: FITOL003

    def on_fit_start(self, trainer, pl_module):
        path = os.path.join(self.dirpath, "weights.pt")
        if not os.path.exists(path):
            return
        pl_module.load_state_dict(torch.load(path, map_location="cpu"))
        state = torch.load(os.path.join(self.dirpath, "trainer_state.pt"), map_location="cpu")
        for opt, opt_state in zip(trainer.optimizers, state["optimizers"]):
            opt.load_state_dict(opt_state)
        for cfg, sched_state in zip(trainer.lr_scheduler_configs, state["lr_schedulers"]):
            cfg.scheduler.load_state_dict(sched_state)
        trainer.fit_loop.epoch_progress.current.completed = state["epoch"] + 1
