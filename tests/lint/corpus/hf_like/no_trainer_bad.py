"""A `run_*_no_trainer.py`-style script: when resuming, the optimizer and scheduler come from
the checkpoint directory but the weights from the base model."""
import argparse
import os

import torch
from transformers import AutoModelForSequenceClassification, get_scheduler


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name_or_path", required=True)
    parser.add_argument("--resume_from_checkpoint", default=None)
    parser.add_argument("--output_dir", default="out")
    parser.add_argument("--num_train_epochs", type=int, default=3)
    return parser.parse_args()


def main():
    args = parse_args()
    model = AutoModelForSequenceClassification.from_pretrained(args.model_name_or_path)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    lr_scheduler = get_scheduler("linear", optimizer=optimizer, num_warmup_steps=0,
                                 num_training_steps=1000)
    starting_epoch = 0
    if args.resume_from_checkpoint:
        optimizer.load_state_dict(  # expect: FITOL007
            torch.load(os.path.join(args.resume_from_checkpoint, "optimizer.pt")))
        lr_scheduler.load_state_dict(
            torch.load(os.path.join(args.resume_from_checkpoint, "scheduler.pt")))
        starting_epoch = int(os.path.basename(args.resume_from_checkpoint).split("_")[1]) + 1

    for epoch in range(starting_epoch, args.num_train_epochs):
        model.train()
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()
        output_dir = os.path.join(args.output_dir, f"epoch_{epoch}")
        os.makedirs(output_dir, exist_ok=True)
        model.save_pretrained(output_dir)  # expect: FITOL001
        optimizer_file = os.path.join(output_dir, "optimizer.pt")
        scheduler_file = os.path.join(output_dir, "scheduler.pt")
        torch.save(optimizer.state_dict(), optimizer_file)  # expect: FITOL050
        torch.save(lr_scheduler.state_dict(), scheduler_file)  # expect: FITOL050


if __name__ == "__main__":
    main()
