"""fito's CheckpointIO plug-in with the real Lightning: a Trainer saves through it, resumes
from `last` at the step it stopped, and refuses a checkpoint whose optimizer shard was
copied from another step, where Lightning's own TorchCheckpointIO cannot tell."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pl = pytest.importorskip("lightning.pytorch", reason="Lightning is not installed")
pytestmark = pytest.mark.torch

from fito.runtime import NoConsistentEpoch  # noqa: E402
from fito.runtime.lightning import FitoCheckpointIO  # noqa: E402


class Tiny(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(3, 1)

    def training_step(self, batch: tuple, _: int) -> torch.Tensor:
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.parameters(), lr=0.01)


def _loader() -> torch.utils.data.DataLoader:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(16, 3, generator=g)
    return torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4
    )


def _trainer(tmp_path: Path, epochs: int) -> pl.Trainer:
    return pl.Trainer(
        max_epochs=epochs,
        plugins=[FitoCheckpointIO()],
        callbacks=[
            pl.callbacks.ModelCheckpoint(dirpath=tmp_path / "ckpt", save_last=True, save_top_k=-1)
        ],
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        accelerator="cpu",
        default_root_dir=tmp_path,
    )


def test_save_resume_and_refuse_a_mixed_checkpoint(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = Tiny()
    _trainer(tmp_path, 2).fit(model, _loader())
    last = tmp_path / "ckpt" / "last.ckpt"
    assert (last / "commits").is_dir()  # a fito checkpoint directory
    io = FitoCheckpointIO()
    saved = io.load_checkpoint(last)
    assert saved["global_step"] == 8  # 2 epochs of 4 batches
    assert torch.equal(saved["state_dict"]["layer.weight"], model.layer.weight.detach())
    # resume: the trainer continues from step 8
    resumed = Tiny()
    trainer = _trainer(tmp_path, 3)
    trainer.fit(resumed, _loader(), ckpt_path=str(last))
    assert trainer.global_step == 12
    # an optimizer shard copied from the epoch-1 checkpoint: refused, never loaded
    first = next(p for p in (tmp_path / "ckpt").iterdir() if p.name.startswith("epoch=0"))
    src = next((first / "shards" / "optimizer").iterdir())
    dst_dir = last / "shards" / "optimizer"
    dst = next(dst_dir.iterdir())
    shutil.copy(src, dst)
    with pytest.raises(NoConsistentEpoch):
        io.load_checkpoint(last)
