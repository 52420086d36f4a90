"""A LightningModule-like resume written by hand: each component in its own try/except, so a
missing or unreadable optimizer file lets the run go on with fresh Adam moments."""

import logging

import torch
import lightning as L

log = logging.getLogger(__name__)


class LitModel(L.LightningModule):
    def __init__(self, net, lr=1e-3):
        super().__init__()
        self.net = net
        self.lr = lr

    def configure_optimizers(self):
        self.optimizer = torch.optim.AdamW(self.net.parameters(), lr=self.lr)
        return self.optimizer

    def resume_from(self, folder):
        self.net.load_state_dict(torch.load(f"{folder}/net.pt"))
        try:
            self.optimizer.load_state_dict(torch.load(f"{folder}/optimizer.pt"))  # expect: FITOL008
        except (OSError, RuntimeError) as exc:
            log.warning("optimizer state not restored: %s", exc)
