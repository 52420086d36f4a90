"""A torch.distributed (gloo, CPU) training job whose every rank checkpoints its own shards
(through fito.runtime.distributed, or PyTorch DCP with fito's storage), and a fork server
that launches it and kills it.

Each rank holds a replica of a tiny model; gradients are averaged over the ranks with
`all_reduce` and applied by SGD with momentum (what DistributedDataParallel and
torch.optim.SGD do: neither is used, because the first DDP or optimizer built in a process
imports torch._dynamo, tens of seconds per forked rank on a busy machine). A rank's shards
are an FSDP-like slice of the flattened parameters and momentum (every `world`-th value
from its rank on) and its data position. A run restores with `restore_distributed` (every
rank the same epoch), rebuilds the full model from all ranks' slices, trains up to STEPS
steps, saving every step (`save`, or `async_save` while the next steps go on), and appends
to LOG.<rank>: `resumed E`, `saving E`, `commit E` (fsynced, once the commit is durable),
`state E <sha256>` (the full state after step E), `dying N OP PATH` (the victim, just
before its kill) and at the end `points N` (its durability points).

MODE: `sync` or `async` (fito.runtime.distributed's save or async_save), `dcp` or
`dcp-async` (torch.distributed.checkpoint's save or async_save with fito's storage writer,
and load with its reader: the shards are then DCP's, the replicated parameters and
momentum written once, and each rank's position); `sync-enospc`, `async-enospc`: below.

`--serve`: per request line `DIR LOG STEPS WORLD MODE VICTIM KILL_AT FRACTION STORE`
(tab-separated), fork WORLD ranks, arm rank VICTIM to SIGKILL itself at its KILL_AT-th
durability point (0: never; MODE `sync-enospc` or `async-enospc`: to fail there with
ENOSPC instead); as soon as one rank dies by a signal, SIGKILL the others (what torchrun's
agent does), and answer with the ranks' raw wait statuses, space-separated. A rank that
fails logs `error <message>` and exits with 98.
"""

from __future__ import annotations

import datetime
import errno
import hashlib
import logging
import os
import signal
import sys
import traceback
from typing import NoReturn

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp  # imported once here, not in every forked rank
from runtime_train_child import log_line
from torch import nn

from fito.runtime import NoConsistentEpoch, faults
from fito.runtime.dcp import FitoStorageReader, FitoStorageWriter
from fito.runtime.distributed import DistributedCheckpointWriter, restore_distributed

LR, BETA = 0.05, 0.9


def flat(model: nn.Module, moms: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    params = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    return params, torch.cat([m.reshape(-1) for m in moms])


def sgd_step(model: nn.Module, moms: list[torch.Tensor], world: int) -> None:
    """Average the gradients over the ranks, then m = beta m + g, theta = theta - lr m."""
    with torch.no_grad():
        for p, m in zip(model.parameters(), moms):
            dist.all_reduce(p.grad)
            m.mul_(BETA).add_(p.grad / world)
            p.sub_(LR * m)
            p.grad = None


def digest(params: torch.Tensor, mom: torch.Tensor) -> str:
    return hashlib.sha256(params.numpy().tobytes() + mom.numpy().tobytes()).hexdigest()


def load_full(
    model: nn.Module, moms: list[torch.Tensor], params: torch.Tensor, mom: torch.Tensor
) -> None:
    offset = 0
    with torch.no_grad():
        for p, m in zip(model.parameters(), moms):
            n = p.numel()
            p.copy_(params[offset : offset + n].reshape(p.shape))
            m.copy_(mom[offset : offset + n].reshape(p.shape))
            offset += n


def gather_slices(part: torch.Tensor, world: int, total: int) -> torch.Tensor:
    """The full vector from every rank's slice (rank r holds values r, r + world, ...)."""
    parts: list[torch.Tensor] = [None] * world  # type: ignore[list-item]
    dist.all_gather_object(parts, part)
    full = torch.empty(total)
    for r, p in enumerate(parts):
        full[r::world] = p
    return full


def batch(step: int, rank: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(1000 * step + rank)
    return torch.randn(8, 6, generator=g)


class FitoBackend:
    """fito.runtime.distributed: each rank saves its slices (`save`, or `async_save`)."""

    def __init__(self, root: str, world: int, rank: int, asynchronous: bool) -> None:
        self.root, self.world, self.rank, self.asynchronous = root, world, rank, asynchronous

    def resume(self, model: nn.Module, moms: list[torch.Tensor]) -> int:
        try:
            r = restore_distributed(self.root)
        except NoConsistentEpoch:
            return 0
        total = sum(p.numel() for p in model.parameters())
        params = gather_slices(r.states["model"]["params"], self.world, total)
        mom = gather_slices(r.states["optimizer"]["momentum"], self.world, total)
        load_full(model, moms, params, mom)
        assert r.states["data"] == {"step": r.epoch, "rank": self.rank}
        return r.epoch

    def open(self, start: int) -> None:
        self.writer = DistributedCheckpointWriter(self.root, keep=2, resume_from=start)

    def save(self, step: int, params: torch.Tensor, mom: torch.Tensor, committed) -> None:
        shards = {
            "model": {"params": params[self.rank :: self.world].clone()},
            "optimizer": {"momentum": mom[self.rank :: self.world].clone()},
            "data": {"step": step, "rank": self.rank},
        }
        if self.asynchronous:
            self.writer.async_save(step, shards).add_done_callback(
                lambda f: f.exception() is None and committed(step)
            )
        else:
            self.writer.save(step, shards)
            committed(step)

    def close(self, committed) -> None:
        last = self.writer.wait()  # the callback may not have run yet: log it here too
        if last is not None:
            committed(last.epoch)
        self.writer.close()


class DcpBackend(FitoBackend):
    """torch.distributed.checkpoint.save / async_save / load with fito's storage: the
    replicated parameters and momentum (DCP writes each once) and each rank's position."""

    def resume(self, model: nn.Module, moms: list[torch.Tensor]) -> int:
        from torch.distributed.checkpoint.api import CheckpointException

        total = sum(p.numel() for p in model.parameters())
        sd = dcp_state(torch.zeros(total), torch.zeros(total), -1, self.rank)
        reader = FitoStorageReader(self.root)
        try:
            dcp.load(sd, storage_reader=reader)
        except CheckpointException:
            if isinstance(reader.error, NoConsistentEpoch):
                return 0
            raise
        load_full(model, moms, sd["model"]["params"], sd["optimizer"]["momentum"])
        assert sd[f"data{self.rank}"] == {"step": reader.epoch, "rank": self.rank}
        assert reader.epoch is not None
        return reader.epoch

    def open(self, start: int) -> None:
        self.writer = FitoStorageWriter(self.root, keep=2, resume_from=start)
        self.group = dist.new_group(backend="gloo") if self.asynchronous else None
        self.pending = None

    def save(self, step: int, params: torch.Tensor, mom: torch.Tensor, committed) -> None:
        sd = dcp_state(params, mom, step, self.rank)
        if not self.asynchronous:
            dcp.save(sd, storage_writer=self.writer, checkpoint_id=step)
            committed(step)
            return
        self.close(committed)  # one async save in flight, as DCP asks
        self.pending = (
            step,
            dcp.async_save(
                sd, storage_writer=self.writer, checkpoint_id=step, process_group=self.group
            ),
        )
        self.pending[1].add_done_callback(lambda f: f.exception() is None and committed(step))

    def close(self, committed) -> None:
        if getattr(self, "pending", None) is not None:
            step, future = self.pending
            self.pending = None
            future.result()
            committed(step)


def dcp_state(params: torch.Tensor, mom: torch.Tensor, step: int, rank: int) -> dict:
    return {
        "model": {"params": params},
        "optimizer": {"momentum": mom},
        f"data{rank}": {"step": step, "rank": rank},
    }


def train_rank(root: str, log: str, steps: int, world: int, mode: str) -> int:
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 5), nn.Tanh(), nn.Linear(5, 2))
    moms = [torch.zeros_like(p) for p in model.parameters()]
    kind = DcpBackend if mode.startswith("dcp") else FitoBackend
    backend = kind(root, world, rank, "async" in mode)
    start = backend.resume(model, moms) if os.path.isdir(root) else 0
    log_line(log, f"resumed {start}")

    def committed(epoch: int) -> None:
        log_line(log, f"commit {epoch}", sync=True)

    backend.open(start)
    try:
        for step in range(start + 1, steps + 1):
            model(batch(step, rank)).pow(2).mean().backward()
            sgd_step(model, moms, world)
            params, mom = flat(model, moms)
            log_line(log, f"state {step} {digest(params, mom)}")
            log_line(log, f"saving {step}")
            backend.save(step, params, mom, committed)
    finally:
        backend.close(committed)
    log_line(log, f"points {faults.points_passed()}")
    return 0


def run_rank(rank: int, fields: list[str]) -> NoReturn:
    """Body of a forked rank: join the group, arm the kill if it is the victim, train."""
    root, log, steps, world, mode, victim, kill_at, fraction, store = fields
    code = 99
    try:
        torch.set_num_threads(1)
        logging.getLogger("torch.distributed.checkpoint").setLevel(logging.CRITICAL)
        if int(victim) == rank:

            def observe(index: int, op: str, path: str) -> None:
                if index == int(kill_at):
                    log_line(f"{log}.{rank}", f"dying {index} {op} {path}")

            fail = errno.ENOSPC if mode.endswith("-enospc") else None
            faults.arm(int(kill_at), float(fraction), observe, fail=fail)
        else:
            faults.arm(0)
        dist.init_process_group(
            "gloo",
            store=dist.FileStore(store, int(world)),
            rank=rank,
            world_size=int(world),
            timeout=datetime.timedelta(seconds=60),
        )
        code = train_rank(root, f"{log}.{rank}", int(steps), int(world), mode)
        dist.destroy_process_group()
    except BaseException as exc:  # noqa: BLE001 - report and leave at once
        log_line(f"{log}.{rank}", f"error {type(exc).__name__}: {exc}".replace("\n", " "))
        if os.environ.get("FITO_RANKS_VERBOSE"):
            traceback.print_exc()
        code = 98
    finally:
        os._exit(code)


def launch(fields: list[str]) -> list[int]:
    """Fork the ranks; when one is killed, kill the rest; their raw wait statuses."""
    world = int(fields[3])
    pids = []
    for rank in range(world):
        pid = os.fork()
        if pid == 0:
            run_rank(rank, fields)
        pids.append(pid)
    statuses: dict[int, int] = {}
    while len(statuses) < world:
        pid, status = os.wait()
        statuses[pid] = status
        if os.WIFSIGNALED(status):
            for other in pids:
                if other not in statuses:
                    os.kill(other, signal.SIGKILL)
    return [statuses[p] for p in pids]


def serve() -> int:
    """No torch op runs in this process, so forks start clean (no thread pools)."""
    for line in sys.stdin:
        fields = line.rstrip("\n").split("\t")
        print(" ".join(map(str, launch(fields))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(serve())
