"""Overhead of fito.runtime's checkpoint writer over a plain `torch.save` of the same state.

    python bench/runtime.py [--mb 200] [--rounds 5] [--dir PATH]

The state is a real model, its Adam optimizer state (after one step), an LR scheduler, the
RNG states and a data-loader position, about --mb megabytes in all. Per round, each method
saves one new epoch into its own directory, keeping two epochs, as a training loop would:
- fito: `CheckpointWriter(keep=2).save(epoch, {model, optimizer, scheduler, rng, data})`:
  one shard per domain, each written to a temporary name, hashed (SHA-256), fsynced,
  renamed and its directory fsynced; then the commit manifest the same way; then old
  epochs collected;
- torch.save + fsync (the fair peer): `torch.save(state, "ckpt-<epoch>.pt")`, fsync of the
  file and of the directory, the epoch before last deleted;
- torch.save, no fsync (what most loops do, and not durable): the same without the fsyncs;
- torch.save + fsync, CRC32 off: the fair peer without torch's per-record CRC32, which the
  fito writer skips too (its SHA-256 covers every byte): the ratio against it is the cost of
  fito's own work (hashing, five files, the manifest) alone.
Dirty pages are flushed (`os.sync`) outside the timed region between measurements. Prints
the median seconds of each method, throughput, and the ratios fito / peer.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

NO_CRC = "torch.save + fsync, no CRC"


def build_state(megabytes: int):
    """A model + Adam + StepLR whose state totals about `megabytes` MB, and the extras."""
    import torch

    from fito.runtime import capture_rng

    torch.manual_seed(0)
    width = 2048
    layers = max(1, round(megabytes * 2**20 / (3 * 4 * (width * width + width))))
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(layers)])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
    model(torch.randn(2, width)).sum().backward()
    opt.step()
    sched.step()
    return {"model": model.state_dict(), "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(), "rng": capture_rng(),
            "data": {"pass": 3, "next_batch": 17, "seed": 1234}}


def state_bytes(state) -> int:
    import torch

    total = 0
    stack = [state]
    while stack:
        x = stack.pop()
        if isinstance(x, torch.Tensor):
            total += x.numel() * x.element_size()
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return total


def fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class PlainSaver:
    """torch.save of the whole state to one new file per epoch, keeping two."""

    def __init__(self, root: Path, fsync: bool, crc32: bool = True) -> None:
        self.root, self.fsync, self.crc32 = root, fsync, crc32
        root.mkdir(parents=True)

    def save(self, epoch: int, state) -> None:
        import torch

        path = self.root / f"ckpt-{epoch}.pt"
        if self.crc32:
            torch.save(state, path)
        else:
            torch.serialization.set_crc32_options(False)
            try:
                torch.save(state, path)
            finally:
                torch.serialization.set_crc32_options(True)
        if self.fsync:
            fsync_path(path)
        old = self.root / f"ckpt-{epoch - 2}.pt"
        if old.exists():
            old.unlink()
        if self.fsync:
            fsync_path(self.root)


class FitoSaver:
    """fito.runtime's writer, keeping two epochs."""

    def __init__(self, root: Path) -> None:
        from fito.runtime import CheckpointWriter

        self.writer = CheckpointWriter(root, keep=2)

    def save(self, epoch: int, state) -> None:
        self.writer.save(epoch, state)


def timed(saver, epoch: int, state) -> float:
    os.sync()  # start every measurement with no dirty pages from the previous one
    start = time.perf_counter()
    saver.save(epoch, state)
    elapsed = time.perf_counter() - start
    return elapsed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mb", type=int, default=200, help="state size in MB (default 200)")
    p.add_argument("--rounds", type=int, default=5, help="saves per method (default 5)")
    p.add_argument("--dir", help="where to write (default: a temporary directory in .)")
    args = p.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("bench/runtime.py needs torch (pip install torch)", file=sys.stderr)
        return 2
    state = build_state(args.mb)
    size = state_bytes(state)
    with tempfile.TemporaryDirectory(dir=args.dir or ".") as tmp:
        root = Path(tmp)
        savers = {"fito": FitoSaver(root / "fito"),
                  "torch.save + fsync": PlainSaver(root / "plain-fsync", True),
                  "torch.save, no fsync": PlainSaver(root / "plain", False)}
        if hasattr(torch.serialization, "set_crc32_options"):
            savers[NO_CRC] = PlainSaver(root / "plain-nocrc", True, crc32=False)
        times: dict[str, list[float]] = {name: [] for name in savers}
        for epoch in range(1, args.rounds + 1):
            order = list(savers) if epoch % 2 else list(reversed(savers))
            for name in order:
                times[name].append(timed(savers[name], epoch, state))
        savers["fito"].writer.close()
    report(size, times)
    return 0


def report(size: int, times: dict[str, list[float]]) -> None:
    mb = size / 2**20
    med = {name: statistics.median(ts) for name, ts in times.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"state: {mb:.1f} MiB of tensors; {len(times['fito'])} saves per method, each a new "
          f"epoch, two kept; {os.cpu_count()} CPUs, load average {load:.1f}")
    for name, t in med.items():
        spread = f"{min(times[name]):.3f}..{max(times[name]):.3f}"
        print(f"  {name:26} median {t:7.3f} s  (range {spread})  {mb / t:7.1f} MiB/s")
    for peer, note in (("torch.save + fsync", "durable, the fair peer; target <= 1.10"),
                       ("torch.save, no fsync", "not durable: data may still be in the page cache"),
                       (NO_CRC, "fito's own work alone: hashing, files, manifest")):
        if peer not in times:
            continue
        paired = statistics.median(f / p for f, p in zip(times["fito"], times[peer]))
        print(f"ratio fito / ({peer}): {med['fito'] / med[peer]:.3f} of medians, "
              f"{paired:.3f} median of paired rounds ({note})")


if __name__ == "__main__":
    sys.exit(main())
