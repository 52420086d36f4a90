"""The writer that the crash tests kill: epochs 1..T of four domains whose content encodes
the epoch, resumed from whatever `restore` finds, each completed commit appended to a log
that is fsynced. Run as a script (`python runtime_crash_child.py DIR LOG T KEEP`, honouring
FITO_RUNTIME_KILL_AT), or as a fork server (`--serve`): for each request line
`DIR LOG T KEEP KILL_AT FRACTION TRACE MODE` (tab-separated; MODE sync or async) on stdin
it forks a child that runs `run_child`, waits for it and answers with its raw wait status
on stdout."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import NoReturn

from fito.runtime import CheckpointWriter, NoConsistentEpoch, faults, restore
from fito.runtime.layout import CheckpointError

DOMAINS = ("data", "model", "optimizer", "rng")
VALUES = 600


def expected_state(domain: str, epoch: int) -> dict:
    """The state of a domain at an epoch: different for every (domain, epoch)."""
    salt = DOMAINS.index(domain) * 1009 + 17
    return {
        "domain": domain,
        "epoch": epoch,
        "values": [(epoch * 7919 + i * 31 + salt) % 65521 for i in range(VALUES)],
    }


def log_commit(log: Path, epoch: int) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, f"{epoch}\n".encode())
    os.fsync(fd)
    os.close(fd)


def write_epochs(root: Path, log: Path, target: int, keep: int, mode: str = "sync") -> int:
    """Resume from the newest consistent commit and write epochs up to target, with `save`
    or (mode async) `async_save`, each commit logged once it is known durable."""
    try:
        start = restore(root).epoch
    except NoConsistentEpoch:
        start = 0
    except CheckpointError:  # the directory does not exist yet
        start = 0
    with CheckpointWriter(root, keep=keep, resume_from=start) as writer:
        for epoch in range(start + 1, target + 1):
            states = {d: expected_state(d, epoch) for d in DOMAINS}
            if mode == "async":
                done = writer.wait()
                if done is not None:
                    log_commit(log, done.epoch)
                writer.async_save(epoch, states, metadata={"epoch": epoch})
            else:
                writer.save(epoch, states, metadata={"epoch": epoch})
                log_commit(log, epoch)
        done = writer.wait()
        if done is not None:
            log_commit(log, done.epoch)
    return 0


def run_child(
    root: Path,
    log: Path,
    target: int,
    keep: int,
    kill_at: int,
    fraction: float,
    trace: Path,
    mode: str,
) -> NoReturn:
    """Body of a forked child: arm the kill point, record every point, write; never returns."""
    code = 0
    try:
        fd = os.open(trace, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

        def observe(index: int, op: str, path: str) -> None:
            os.write(fd, f"{index}\t{op}\t{path}\n".encode())

        faults.arm(kill_at, fraction, observe)
        code = write_epochs(root, log, target, keep, mode)
    except BaseException:  # noqa: BLE001 - report and leave the forked child at once
        traceback.print_exc()
        code = 99
    finally:
        os._exit(code)


def serve() -> int:
    """The fork server: one child per request, so that forks stay cheap and clean."""
    for line in sys.stdin:
        root, log, target, keep, kill_at, fraction, trace, mode = line.rstrip("\n").split("\t")
        pid = os.fork()
        if pid == 0:
            run_child(
                Path(root),
                Path(log),
                int(target),
                int(keep),
                int(kill_at),
                float(fraction),
                Path(trace),
                mode,
            )
        print(os.waitpid(pid, 0)[1], flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        sys.exit(serve())
    d, lg, t, k = sys.argv[1:5]
    print("ready", flush=True)  # imports done: the parent's kill delay starts now
    sys.exit(write_epochs(Path(d), Path(lg), int(t), int(k)))
