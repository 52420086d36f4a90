"""A Hugging Face-style Trainer: checkpoint-<step> directories holding the model, the
optimizer, the scheduler and the trainer state as separate files, with no commit; resume
restores the optimizer but rebuilds the scheduler from scratch."""
import json
import os
import re

import torch
from transformers import AutoModelForCausalLM, get_linear_schedule_with_warmup

PREFIX_CHECKPOINT_DIR = "checkpoint"
_re_checkpoint = re.compile(r"^" + PREFIX_CHECKPOINT_DIR + r"\-(\d+)$")


def get_last_checkpoint(folder):
    content = os.listdir(folder)
    checkpoints = [path for path in content
                   if _re_checkpoint.search(path) is not None
                   and os.path.isdir(os.path.join(folder, path))]
    if len(checkpoints) == 0:
        return None
    return os.path.join(folder, max(checkpoints,
                                    key=lambda x: int(_re_checkpoint.search(x).groups()[0])))


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
        checkpoint_folder = f"{PREFIX_CHECKPOINT_DIR}-{self.global_step}"
        output_dir = os.path.join(self.args.output_dir, checkpoint_folder)
        os.makedirs(output_dir, exist_ok=True)
        self.model.save_pretrained(output_dir)  # expect: FITOL001
        optimizer_file = os.path.join(output_dir, "optimizer.pt")
        torch.save(self.optimizer.state_dict(), optimizer_file)  # expect: FITOL050
        scheduler_file = os.path.join(output_dir, "scheduler.pt")
        torch.save(self.lr_scheduler.state_dict(), scheduler_file)  # expect: FITOL050
        with open(os.path.join(output_dir, "trainer_state.json"), "w") as f:
            json.dump({"global_step": self.global_step}, f)

    def _load_checkpoint(self, checkpoint):
        self.model = AutoModelForCausalLM.from_pretrained(checkpoint)
        self.optimizer.load_state_dict(  # expect: FITOL008
            torch.load(os.path.join(checkpoint, "optimizer.pt"), map_location="cpu"))
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
