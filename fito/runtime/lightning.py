"""Lightning's checkpoints through fito.runtime: a `CheckpointIO` plug-in whose every
checkpoint is an epoch-aware fito directory, so a resume never loads a mixed or torn one.

```python
import lightning.pytorch as pl
from fito.runtime.lightning import FitoCheckpointIO
trainer = pl.Trainer(plugins=[FitoCheckpointIO()], ...)   # ModelCheckpoint works unchanged
trainer.fit(model, ckpt_path="last")                     # refuses a mixed checkpoint
```
Each path Lightning saves to (`epoch=1-step=40.ckpt`, `last.ckpt`) is a checkpoint
directory: the checkpoint's `state_dict` is the domain `model`, `optimizer_states`
`optimizer`, `lr_schedulers` `scheduler`, the rest (`global_step`, `loops`, `callbacks`,
hyperparameters...) `trainer`, committed together at epoch `global_step` after all four
are durable (docs/runtime.md). Saving the same step to the same path again (Lightning
does, at the end of an epoch and of validation) replaces that epoch: through `resume_from`
when an older epoch is kept, else by writing a sibling directory and swapping the two (a
crash between the two renames leaves the path absent and `<path>.fito-new` complete).
Loading takes the newest committed epoch whose every shard verifies and raises `NoConsistentEpoch`
otherwise: Lightning then stops instead of resuming from a mixed state. What fito's codecs
cannot store safely (a custom class among the hyperparameters) is refused at save time.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from lightning.pytorch.plugins.io import CheckpointIO

from fito.runtime import layout
from fito.runtime.durable import fsync_dir
from fito.runtime.reader import restore
from fito.runtime.writer import CheckpointWriter

DOMAINS = {"state_dict": "model", "optimizer_states": "optimizer", "lr_schedulers": "scheduler"}
TRAINER = "trainer"


class FitoCheckpointIO(CheckpointIO):
    """Lightning's CheckpointIO on fito.runtime. keep: epochs kept per path."""

    def __init__(self, keep: int = 1) -> None:
        super().__init__()
        self.keep = keep

    def save_checkpoint(
        self, checkpoint: dict[str, Any], path: Any, storage_options: Any = None
    ) -> None:
        if storage_options is not None:
            raise TypeError("FitoCheckpointIO takes no storage_options")
        root = Path(path)
        step = checkpoint.get("global_step", 0)
        epoch = layout.check_epoch(step)
        states: dict[str, Any] = {DOMAINS[k]: v for k, v in checkpoint.items() if k in DOMAINS}
        states[TRAINER] = {k: v for k, v in checkpoint.items() if k not in DOMAINS}
        committed = layout.manifest_epochs(root) if layout.is_checkpoint_dir(root) else []
        root.parent.mkdir(parents=True, exist_ok=True)
        meta = {"global_step": epoch, "format": "lightning"}
        if committed and committed[-1] >= epoch:  # the same step saved again: replace it
            older = [e for e in committed if e < epoch]
            if older:
                with CheckpointWriter(root, keep=self.keep, resume_from=older[-1]) as writer:
                    writer.save(epoch, states, metadata=meta)
                return
            # nothing older to fall back to: write beside it, then swap the two directories
            fresh, stale = (
                root.with_name(root.name + ".fito-new"),
                root.with_name(root.name + ".fito-old"),
            )
            for leftover in (fresh, stale):
                if leftover.is_dir() and not leftover.is_symlink():
                    shutil.rmtree(leftover)
            with CheckpointWriter(fresh, keep=self.keep) as writer:
                writer.save(epoch, states, metadata=meta)
            os.replace(root, stale)
            os.replace(fresh, root)
            fsync_dir(root.parent)
            shutil.rmtree(stale)
            return
        with CheckpointWriter(root, keep=self.keep) as writer:
            writer.save(epoch, states, metadata=meta)

    def load_checkpoint(
        self, path: Any, map_location: Any = None, weights_only: bool | None = None
    ) -> dict[str, Any]:
        restored = restore(Path(path), map_location=map_location)
        checkpoint = dict(restored.states.get(TRAINER, {}))
        for key, domain in DOMAINS.items():
            if domain in restored.states:
                checkpoint[key] = restored.states[domain]
        return checkpoint

    def remove_checkpoint(self, path: Any) -> None:
        root = Path(path)
        if root.is_dir() and not root.is_symlink() and layout.is_checkpoint_dir(root):
            shutil.rmtree(root)
        elif root.is_file() or root.is_symlink():
            root.unlink()
