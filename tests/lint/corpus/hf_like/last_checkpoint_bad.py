"""A Trainer-like loop that commits each `checkpoint-N` folder by writing `trainer_state.json`
last and a `latest` file after it, but resumes from the newest folder it finds by listing the
output directory: after a crash mid-save that is a folder nobody committed."""

import json
import os
import re

import torch
from transformers import PreTrainedModel

PREFIX_CHECKPOINT_DIR = "checkpoint"
_re_checkpoint = re.compile(r"^" + PREFIX_CHECKPOINT_DIR + r"\-(\d+)$")


def get_last_checkpoint(folder):
    content = os.listdir(folder)
    checkpoints = [path for path in content if _re_checkpoint.search(path) is not None]
    if len(checkpoints) == 0:
        return None
    latest = max(checkpoints, key=lambda x: int(_re_checkpoint.search(x).groups()[0]))
    return os.path.join(folder, latest)


class Trainer:
    def __init__(self, model: PreTrainedModel, optimizer, output_dir):
        self.model = model
        self.optimizer = optimizer
        self.output_dir = output_dir
        self.global_step = 0

    def _save_checkpoint(self):
        out = os.path.join(self.output_dir, f"{PREFIX_CHECKPOINT_DIR}-{self.global_step}")
        state = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}
        with open(os.path.join(out, "state.pt"), "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        with open(os.path.join(out, "trainer_state.json"), "w") as f:
            json.dump({"global_step": self.global_step}, f)
        with open(os.path.join(self.output_dir, "latest"), "w") as f:
            f.write(str(self.global_step))

    def resume(self):
        last = get_last_checkpoint(self.output_dir)
        if last is None:
            return
        state = torch.load(os.path.join(last, "state.pt"))
        self.model.load_state_dict(state["model"])  # expect: FITOL053
        self.optimizer.load_state_dict(state["optimizer"])
        with open(os.path.join(last, "trainer_state.json")) as f:
            self.global_step = json.load(f)["global_step"]
