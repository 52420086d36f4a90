"""Two ways to save, chosen by a flag: the arms of the `if` are alternatives, never one
protocol over four files."""

import os

import torch


def atomic_save(obj, path):
    with open(path + ".tmp", "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(path + ".tmp", path)
    fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def save(args, model, optimizer, scheduler, step):
    if args.single_file:
        atomic_save(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "step": step,
            },
            os.path.join(args.out, "last.pt"),
        )
    else:
        d = os.path.join(args.out, f"step_{step}")
        atomic_save(model.state_dict(), os.path.join(d, "model.pt"))
        atomic_save(optimizer.state_dict(), os.path.join(d, "optimizer.pt"))
        atomic_save(scheduler.state_dict(), os.path.join(d, "scheduler.pt"))
        with open(os.path.join(args.out, "latest"), "w") as f:
            f.write(str(step))


def save_or_skip(args, model, optimizer, step):
    if args.dry_run:
        atomic_save(model.state_dict(), os.path.join(args.out, "dry_model.pt"))
        return
    atomic_save(
        {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step},
        os.path.join(args.out, "full.pt"),
    )
