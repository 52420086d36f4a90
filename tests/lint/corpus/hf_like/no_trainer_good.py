"""The same script with Accelerate managing the whole state: `save_state` and `load_state`
write and read model, optimizer, scheduler and RNG state of one step together."""
import argparse
import os

import torch
from accelerate import Accelerator
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
    accelerator = Accelerator()
    model = AutoModelForSequenceClassification.from_pretrained(args.model_name_or_path)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    lr_scheduler = get_scheduler("linear", optimizer=optimizer, num_warmup_steps=0,
                                 num_training_steps=1000)
    model, optimizer, lr_scheduler = accelerator.prepare(model, optimizer, lr_scheduler)
    starting_epoch = 0
    if args.resume_from_checkpoint:
        accelerator.load_state(args.resume_from_checkpoint)
        starting_epoch = int(os.path.basename(args.resume_from_checkpoint).split("_")[1]) + 1

    for epoch in range(starting_epoch, args.num_train_epochs):
        model.train()
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()
        accelerator.save_state(os.path.join(args.output_dir, f"epoch_{epoch}"))


if __name__ == "__main__":
    main()
