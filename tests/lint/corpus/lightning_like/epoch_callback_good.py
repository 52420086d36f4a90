"""The same callback, committing weights, optimizer and scheduler state as one epoch with
fito.runtime, and restoring only a committed epoch."""
import os

from lightning.pytorch.callbacks import Callback
from lightning.pytorch.utilities import rank_zero_only

from fito.runtime import CheckpointWriter, NoConsistentEpoch, restore


class EpochCheckpoint(Callback):
    def __init__(self, dirpath, every_n_epochs=1):
        super().__init__()
        self.dirpath = dirpath
        self.every_n_epochs = every_n_epochs
        self.writer = None

    @rank_zero_only
    def on_train_epoch_end(self, trainer, pl_module):
        if trainer.current_epoch % self.every_n_epochs:
            return
        if self.writer is None:
            self.writer = CheckpointWriter(self.dirpath, keep=2,
                                           resume_from=trainer.current_epoch - 1)
        self.writer.save(trainer.current_epoch, {
            "model": pl_module.state_dict(),
            "optimizers": [opt.state_dict() for opt in trainer.optimizers],
            "lr_schedulers": [cfg.scheduler.state_dict() for cfg in trainer.lr_scheduler_configs],
        }, metadata={"global_step": trainer.global_step})

    def on_fit_start(self, trainer, pl_module):
        if not os.path.isdir(self.dirpath):
            return
        try:
            r = restore(self.dirpath, map_location="cpu")
        except NoConsistentEpoch:
            return
        pl_module.load_state_dict(r.states["model"])
        for opt, opt_state in zip(trainer.optimizers, r.states["optimizers"]):
            opt.load_state_dict(opt_state)
        for cfg, sched_state in zip(trainer.lr_scheduler_configs, r.states["lr_schedulers"]):
            cfg.scheduler.load_state_dict(sched_state)
        trainer.fit_loop.epoch_progress.current.completed = r.epoch + 1

    def teardown(self, trainer, pl_module, stage):
        if self.writer is not None:
            self.writer.close()
