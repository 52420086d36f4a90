"""Overhead of fito.runtime's checkpoint writer over `torch.save` and PyTorch DCP's own save
of the same state, and the training step time that asynchronous saves cost.

    python bench/runtime.py [--mb 200] [--rounds 5] [--steps 20] [--every 5] [--dir PATH]

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
  fito's own work (hashing, five files, the manifest) alone;
- DCP (torch.distributed.checkpoint.save, single process): its FileSystemWriter, files
  fsynced (it does not fsync the directory), one directory per epoch, the epoch before last
  removed; and the same `dcp.save` call with fito's storage writer (`fito.runtime.dcp`):
  the ratio fito-DCP / DCP is what a DCP user pays for epoch manifests (target <= 1.10).
Dirty pages are flushed (`os.sync`) outside the timed region between measurements. Prints
the median seconds of each method, throughput, and the ratios fito / peer.

Then (--steps > 0) a training loop of the same model (Adam, batch 8) checkpoints every
--every steps, in turn with no checkpoint, fito's `save`, fito's `async_save`, DCP's
`async_save` (its writer) and DCP's `async_save` with fito's writer; it prints the mean
step time of each and its overhead over the loop without checkpoints (the save's wait at
the end is counted once, apart). One run; the figures are indicative on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

NO_CRC = "torch.save + fsync, no CRC"
DCP, FITO_DCP = "DCP save (FileSystemWriter)", "DCP save, fito writer"


WIDTH = 2048


def build_training(megabytes: int):
    """A model + Adam + StepLR whose state totals about `megabytes` MB, after one step."""
    import torch

    torch.manual_seed(0)
    layers = max(1, round(megabytes * 2**20 / (3 * 4 * (WIDTH * WIDTH + WIDTH))))
    model = torch.nn.Sequential(*[torch.nn.Linear(WIDTH, WIDTH) for _ in range(layers)])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
    train_step(model, opt, sched)
    return model, opt, sched


def train_step(model, opt, sched) -> None:
    import torch

    opt.zero_grad()
    model(torch.randn(8, WIDTH)).pow(2).mean().backward()
    opt.step()
    sched.step()


def state_of(model, opt, sched, step: int = 1):
    """The checkpoint of a training job: model, optimizer, scheduler, RNG, data position."""
    from fito.runtime import capture_rng

    return {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "scheduler": sched.state_dict(),
        "rng": capture_rng(),
        "data": {"pass": 3, "next_batch": 17 + step, "seed": 1234},
    }


def build_state(megabytes: int):
    """The checkpointed state of a model whose state totals about `megabytes` MB."""
    return state_of(*build_training(megabytes))


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
    """torch.save of the whole state to one new file per epoch, keeping two; with fsync, the
    durable way: a temporary name, fsync, rename, fsync of the folder."""

    def __init__(self, root: Path, fsync: bool, crc32: bool = True) -> None:
        self.root, self.fsync, self.crc32 = root, fsync, crc32
        root.mkdir(parents=True)

    def save(self, epoch: int, state) -> None:
        import torch

        path = self.root / f"ckpt-{epoch}.pt"
        target = path.with_name(path.name + ".tmp") if self.fsync else path
        if self.crc32:
            torch.save(state, target)
        else:
            torch.serialization.set_crc32_options(False)
            try:
                torch.save(state, target)
            finally:
                torch.serialization.set_crc32_options(True)
        if self.fsync:  # the durable peer: fsync, rename over the final name, fsync the folder
            fsync_path(target)
            os.replace(target, path)
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


class DcpSaver:
    """torch.distributed.checkpoint.save in one process: its own FileSystemWriter (one
    directory per epoch, the epoch before last removed), or fito's storage writer."""

    def __init__(self, root: Path, fito: bool) -> None:
        from fito.runtime.dcp import FitoStorageWriter

        self.root, self.fito = root, fito
        self.writer = FitoStorageWriter(root, keep=2) if fito else None

    def save(self, epoch: int, state) -> None:
        self.async_save(epoch, state, asynchronous=False)

    def async_save(self, epoch: int, state, asynchronous: bool = True):
        import torch.distributed.checkpoint as dcp

        call = dcp.async_save if asynchronous else dcp.save
        if self.writer is not None:
            return call(state, storage_writer=self.writer, checkpoint_id=epoch)
        shutil.rmtree(self.root / f"step-{epoch - 2}", ignore_errors=True)
        return call(
            state, storage_writer=dcp.FileSystemWriter(self.root / f"step-{epoch}", sync_files=True)
        )


def timed(saver, epoch: int, state) -> float:
    os.sync()  # start every measurement with no dirty pages from the previous one
    start = time.perf_counter()
    saver.save(epoch, state)
    elapsed = time.perf_counter() - start
    return elapsed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mb", type=int, default=300, help="state size in MB (default 300)")
    p.add_argument("--rounds", type=int, default=5, help="saves per method (default 5)")
    p.add_argument(
        "--steps",
        type=int,
        default=20,
        help="training steps per loop of the async section (0: skip it)",
    )
    p.add_argument("--every", type=int, default=5, help="checkpoint every N steps (default 5)")
    p.add_argument("--dir", help="where to write (default: a temporary directory in .)")
    args = p.parse_args(argv)
    # DCP warns, on every call and from its background threads, that it runs in one process
    warnings.filterwarnings("ignore", message="torch.distributed is disabled")
    try:
        import torch
    except ImportError:
        print("bench/runtime.py needs torch (pip install torch)", file=sys.stderr)
        return 2
    training = build_training(args.mb)
    state = state_of(*training)
    size = state_bytes(state)
    with tempfile.TemporaryDirectory(dir=args.dir or ".") as tmp:
        root = Path(tmp)
        savers = {
            "fito": FitoSaver(root / "fito"),
            "torch.save+fsync+rename": PlainSaver(root / "plain-fsync", True),
            "torch.save, no fsync": PlainSaver(root / "plain", False),
        }
        if hasattr(torch.serialization, "set_crc32_options"):
            savers[NO_CRC] = PlainSaver(root / "plain-nocrc", True, crc32=False)
        savers[DCP] = DcpSaver(root / "dcp", fito=False)
        savers[FITO_DCP] = DcpSaver(root / "fito-dcp", fito=True)
        times: dict[str, list[float]] = {name: [] for name in savers}
        for epoch in range(1, args.rounds + 1):
            order = list(savers) if epoch % 2 else list(reversed(savers))
            for name in order:
                times[name].append(timed(savers[name], epoch, state))
        savers["fito"].writer.close()
        report(size, times)
        report_verification(root, args.rounds)
        if args.steps > 0:
            report_steps(step_overheads(training, root / "async", args.steps, args.every))
    return 0


def step_overheads(training, root: Path, steps: int, every: int) -> dict[str, tuple]:
    """Per loop: (mean step time, the final wait for the last save) over `steps` steps."""
    from fito.runtime import CheckpointWriter

    loops = {
        "no checkpoint": None,
        "fito save": lambda e, s: writer("fito-sync").save(e, s),
        "fito async_save": lambda e, s: writer("fito-async").async_save(e, s),
        "DCP async_save": lambda e, s: dcp_savers["dcp"].async_save(e, s),
        "DCP async_save, fito writer": lambda e, s: dcp_savers["fito"].async_save(e, s),
    }
    writers: dict[str, CheckpointWriter] = {}

    def writer(name: str) -> CheckpointWriter:
        if name not in writers:
            writers[name] = CheckpointWriter(root / name, keep=2)
        return writers[name]

    dcp_savers = {
        "dcp": DcpSaver(root / "dcp-async", False),
        "fito": DcpSaver(root / "fito-dcp-async", True),
    }
    results = {}
    for name, checkpoint in loops.items():
        results[name] = training_loop(training, checkpoint, steps, every)
    for w in writers.values():
        w.close()
    return results


def training_loop(training, checkpoint, steps: int, every: int) -> tuple[float, float]:
    """Mean seconds per step (the checkpoint call included) and the wait at the end."""
    pending, spent = None, []
    for step in range(1, steps + 1):
        start = time.perf_counter()
        train_step(*training)
        if checkpoint is not None and step % every == 0:
            if pending is not None and hasattr(pending, "result"):
                pending.result()  # one save in flight, as DCP and fito ask
            pending = checkpoint(step, state_of(*training, step=step))
        spent.append(time.perf_counter() - start)
    start = time.perf_counter()
    if pending is not None and hasattr(pending, "result"):
        pending.result()
    return statistics.mean(spent), time.perf_counter() - start


def report_steps(results: dict[str, tuple[float, float]]) -> None:
    base = results["no checkpoint"][0]
    print("training steps (mean seconds per step, checkpoint calls included):")
    for name, (mean, tail) in results.items():
        print(
            f"  {name:28} {mean:7.3f} s/step  overhead {100 * (mean / base - 1):+6.1f}%  "
            f"(final wait {tail:.3f} s)"
        )
    for a, b in (
        ("fito async_save", "DCP async_save"),
        ("DCP async_save, fito writer", "DCP async_save"),
    ):
        print(f"ratio of step times ({a}) / ({b}): {results[a][0] / results[b][0]:.3f}")


def report_verification(root: Path, rounds: int) -> None:
    """`fito inspect` of the plain DCP directory just written (completeness against its
    metadata, no hashes to check) and of fito's DCP directory (every shard hashed)."""
    from fito.runtime import formats, scan

    plain = root / "dcp" / f"step-{rounds}"
    size = sum(f.stat().st_size for f in plain.iterdir()) / 2**20
    for name, run in (
        (f"plain DCP directory ({size:.0f} MiB)", lambda: formats.inspect_checkpoint(plain)),
        ("fito's DCP directory (shards hashed)", lambda: scan(root / "fito-dcp")),
    ):
        os.sync()
        start = time.perf_counter()
        run()
        print(f"verify {name}: {time.perf_counter() - start:.3f} s")
    print("target: a plain DCP directory of 300 MiB verified in under 1 s")


def report(size: int, times: dict[str, list[float]]) -> None:
    mb = size / 2**20
    med = {name: statistics.median(ts) for name, ts in times.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"state: {mb:.1f} MiB of tensors; {len(times['fito'])} saves per method, each a new "
        f"epoch, two kept; {os.cpu_count()} CPUs, load average {load:.1f}"
    )
    for name, t in med.items():
        spread = f"{min(times[name]):.3f}..{max(times[name]):.3f}"
        print(f"  {name:26} median {t:7.3f} s  (range {spread})  {mb / t:7.1f} MiB/s")
    for ours, peer, note in (
        (
            "fito",
            "torch.save+fsync+rename",
            "durable (tmp, fsync, rename), the fair peer; target <= 1",
        ),
        ("fito", "torch.save, no fsync", "not durable: data may still be in the page cache"),
        ("fito", NO_CRC, "fito's own work alone: hashing, files, manifest"),
        (FITO_DCP, DCP, "what a DCP user pays for epoch manifests; target <= 1"),
        ("fito", DCP, "fito's own writer against DCP's"),
    ):
        if peer not in times:
            continue
        paired = statistics.median(f / p for f, p in zip(times[ours], times[peer]))
        print(
            f"ratio ({ours}) / ({peer}): {med[ours] / med[peer]:.3f} of medians, "
            f"{paired:.3f} median of paired rounds ({note})"
        )


if __name__ == "__main__":
    sys.exit(main())
