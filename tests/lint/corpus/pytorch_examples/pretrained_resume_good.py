"""Fine-tuning: the backbone starts from pretrained weights; a resume then restores the whole
training state (weights included) from one checkpoint."""
import argparse

import torch
import torchvision


def build(args):
    model = torchvision.models.resnet18(num_classes=10)
    if args.pretrained:
        state = torch.load(args.pretrained, map_location="cpu")
        state = {k: v for k, v in state.items() if not k.startswith("fc.")}
        model.load_state_dict(state, strict=False)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
    start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["lr_scheduler"])
        start_epoch = ckpt["epoch"] + 1
    return model, optimizer, scheduler, start_epoch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained", default="")
    parser.add_argument("--resume", default="")
    args = parser.parse_args()
    model, optimizer, scheduler, start_epoch = build(args)
    for epoch in range(start_epoch, 90):
        optimizer.step()
        scheduler.step()


if __name__ == "__main__":
    main()
