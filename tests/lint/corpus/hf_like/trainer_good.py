"""The same Trainer, writing each checkpoint into a temporary directory that is fsynced and
renamed into place as the commit, and restoring the scheduler with the optimizer."""
import json
import os
import re
import shutil

import torch
from transformers import AutoModelForCausalLM, get_linear_schedule_with_warmup

PREFIX_CHECKPOINT_DIR = "checkpoint"
_re_checkpoint = re.compile(r"^" + PREFIX_CHECKPOINT_DIR + r"\-(\d+)$")


def get_last_checkpoint(folder):
    checkpoints = [p for p in os.listdir(folder) if _re_checkpoint.search(p) is not None]
    if not checkpoints:
        return None
    return os.path.join(folder, max(checkpoints,
                                    key=lambda x: int(_re_checkpoint.search(x).groups()[0])))


def fsync_tree(directory):
    for name in os.listdir(directory):
        fd = os.open(os.path.join(directory, name), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Trainer:
    def __init__(self, model, args, train_dataloader):
        self.model = model
        self.args = args
        self.train_dataloader = train_dataloader
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self.lr_scheduler = get_linear_schedule_with_warmup(
            self.optimizer, num_warmup_steps=args.warmup_steps, num_training_steps=args.max_steps)
        self.global_step = 0

    def _save_checkpoint(self):
        name = f"{PREFIX_CHECKPOINT_DIR}-{self.global_step}"
        final_dir = os.path.join(self.args.output_dir, name)
        staging_dir = final_dir + ".tmp"
        shutil.rmtree(staging_dir, ignore_errors=True)
        os.makedirs(staging_dir)
        self.model.save_pretrained(staging_dir)
        torch.save(self.optimizer.state_dict(), os.path.join(staging_dir, "optimizer.pt"))
        torch.save(self.lr_scheduler.state_dict(), os.path.join(staging_dir, "scheduler.pt"))
        with open(os.path.join(staging_dir, "trainer_state.json"), "w") as f:
            json.dump({"global_step": self.global_step}, f)
        fsync_tree(staging_dir)
        os.rename(staging_dir, final_dir)  # the commit: the directory appears whole or not at all
        fsync_tree(self.args.output_dir)

    def _load_checkpoint(self, checkpoint):
        self.model = AutoModelForCausalLM.from_pretrained(checkpoint)
        self.optimizer.load_state_dict(
            torch.load(os.path.join(checkpoint, "optimizer.pt"), map_location="cpu"))
        self.lr_scheduler.load_state_dict(torch.load(os.path.join(checkpoint, "scheduler.pt")))
        with open(os.path.join(checkpoint, "trainer_state.json")) as f:
            self.global_step = json.load(f)["global_step"]

    def train(self, resume_from_checkpoint=None):
        if resume_from_checkpoint is not None:
            self._load_checkpoint(resume_from_checkpoint)
        self.model.train()
        while self.global_step < self.args.max_steps:
            for batch in self.train_dataloader:
                loss = self.model(**batch).loss
                loss.backward()
                self.optimizer.step()
                self.lr_scheduler.step()
                self.optimizer.zero_grad()
                self.global_step += 1
                if self.global_step % self.args.save_steps == 0:
                    self._save_checkpoint()
                if self.global_step >= self.args.max_steps:
                    break


def main(args, train_dataloader):
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)
    trainer = Trainer(model, args, train_dataloader)
    last = get_last_checkpoint(args.output_dir) if os.path.isdir(args.output_dir) else None
    trainer.train(resume_from_checkpoint=last)
