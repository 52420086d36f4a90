"""Checkpoints of a distributed search, and resuming from the last committed one.

Every N levels (`--checkpoint-every N`) or once T minutes have passed (`--checkpoint-minutes
T`), at the end of a level, each rank writes its shard (its visited rows, their global
numbers and parent links, its frontier) to DIR/search-K/level-L/rank-R.bin, and rank 0 the
state every rank shares (figures, answers so far, the rows every rank learnt codes from) to
common.bin. Only when every rank's files are durable (fito.runtime's discipline: a
temporary name, fsync, rename, fsync of the directory) does rank 0 write MANIFEST.json,
last, with the SHA-256 of every file: a level is a checkpoint once its manifest is there.
Older levels are removed after the new manifest is durable.

`--resume DIR` continues each search from its last committed level (a search without one
starts afresh) and refuses, before touching anything, a checkpoint written for another spec
(the SHA-256 of its canonical text), another number of ranks or another partition of the
states, and a shard whose bytes are not those its manifest names. The ranks' packed codes
are rebuilt by expanding again, in order, the rows every rank learnt codes from; a rebuilt
codebook that differs from the one the checkpoint was written with is refused too.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fito.check.distributed.speculate import learn, replicate
from fito.check.frontier.visited import StateStore
from fito.errors import FitoError
from fito.lang.printer.canonical import print_spec
from fito.runtime.durable import make_dir, write_durably
from fito.semantics.packed import Overflow

FORMAT = "fito-distributed-checkpoint/1"
PARTITION = "owner = hash_rows(field values of the store, mode, first {p} positions) >> 40 mod R"
IDENTITY = "IDENTITY.json"
MANIFEST = "MANIFEST.json"
COMMON = "common.bin"

_searches: dict[str, int] = {}  # per spec: distributed searches started in this process


class CheckpointRefused(FitoError):
    """A checkpoint directory that --resume cannot continue from (C304)."""


def spec_hash(c: Any) -> str:
    """The SHA-256 of the spec's canonical text (comments and layout do not count)."""
    return hashlib.sha256(print_spec(c.model.spec).encode("utf-8")).hexdigest()


def _identity(c: Any, ranks: int, positions: int) -> dict:
    return {
        "format": FORMAT,
        "spec_sha256": spec_hash(c),
        "ranks": ranks,
        "partition": PARTITION.format(p=positions),
    }


@dataclass(slots=True)
class Plan:
    """When and where one search writes its checkpoints (nothing when `folder` is None)."""

    folder: Path | None = None
    every: int | None = None
    seconds: float | None = None
    identity: dict = field(default_factory=dict)
    last: float = field(default_factory=time.monotonic)
    since: int = 0  # levels since the last checkpoint

    @staticmethod
    def of(limits: Any, comm: Any, c: Any, positions: int) -> Plan:
        """The plan of the next search of c under these limits (searches are numbered in
        the order a spec's assertions are checked: the same numbers when resumed)."""
        identity = _identity(c, int(comm.Get_size()), positions)
        key = identity["spec_sha256"]
        number = _searches.get(key, 0)
        _searches[key] = number + 1
        root = limits.checkpoint_dir or limits.resume
        if root is None:
            return Plan()
        minutes = limits.checkpoint_minutes
        every = limits.checkpoint_every
        if every is None and minutes is None:
            every = 1  # --checkpoint-dir or --resume alone: every level
        return Plan(
            Path(root) / f"search-{number}",
            every,
            None if minutes is None else minutes * 60.0,
            identity,
        )

    def due(self) -> bool:
        if self.folder is None or (self.every is None and self.seconds is None):
            return False
        self.since += 1
        if self.every is not None and self.since >= self.every:
            return True
        return self.seconds is not None and time.monotonic() - self.last >= self.seconds

    def after_level(self, shard: Any, answers: Any) -> None:
        """Write a checkpoint of the level just finished, if one is due (every rank alike:
        the levels counted and rank 0's clock)."""
        if not shard.comm.bcast(self.due(), root=0):
            return
        self.since, self.last = 0, time.monotonic()
        write(self, shard, answers)


def write(plan: Plan, shard: Any, answers: Any) -> None:
    """Shards first (each rank its own), then the shared state, then the manifest."""
    comm, me = shard.comm, shard.me
    assert plan.folder is not None
    level = plan.folder / f"level-{shard.depth:08d}"
    if me == 0:
        root = plan.folder.parent
        root.mkdir(parents=True, exist_ok=True)
        _write_json(root / IDENTITY, plan.identity)
        if not plan.folder.exists():
            make_dir(plan.folder)
        make_dir(level)
    comm.Barrier()
    n = shard.ex.store.n
    mine = {
        "keys": shard.ex.store.keys[:n].copy(),
        "gid": shard.gid[:n].copy(),
        "prank": shard.prank[:n].copy(),
        "plid": shard.plid[:n].copy(),
        "lo": shard.lo,
        "hi": shard.hi,
    }
    name = f"rank-{me}.bin"
    digest, size = _write_pickle(level / name, mine)
    records = comm.gather({"rank": me, "file": name, "sha256": digest, "bytes": size}, root=0)
    if me == 0:  # every shard is durable: the gather returned after each rank's fsync
        common = {
            "states": shard.states,
            "transitions": shard.transitions,
            "depth": shard.depth,
            "glo": shard.glo,
            "width": shard.width,
            "learnt": shard.learnt,
            "where": shard.where,
            "exchanged": shard.exchanged,
            "got": [None if d is None else _decided(d) for d in answers.got],
            "fingerprint": _fingerprint(shard.ex),
        }
        digest, size = _write_pickle(level / COMMON, common)
        manifest = dict(plan.identity, level=shard.depth, shards=records)
        manifest["common"] = {"file": COMMON, "sha256": digest, "bytes": size}
        _write_json(level / MANIFEST, manifest)  # last: the level is now a checkpoint
        for old in sorted(plan.folder.glob("level-*")):
            if old != level:
                _remove(old)
    comm.Barrier()


def check_identity(limits: Any, comm: Any, c: Any, positions: int) -> None:
    """Refuse (every rank alike) a --resume directory of another spec, number of ranks or
    partition, or one that holds no distributed checkpoint."""
    if limits.resume is None:
        return
    problem = None
    if comm.Get_rank() == 0:
        problem = _identity_problem(Path(limits.resume), _identity(c, comm.Get_size(), positions))
    problem = comm.bcast(problem, root=0)
    if problem is not None:
        raise CheckpointRefused(problem)


def _identity_problem(root: Path, wanted: dict) -> str | None:
    try:
        found = json.loads((root / IDENTITY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"{root}: not a distributed checkpoint of fito (no readable {IDENTITY})"
    if found.get("format") != FORMAT:
        return f"{root}: checkpoint format {found.get('format')!r}, expected {FORMAT!r}"
    if found.get("spec_sha256") != wanted["spec_sha256"]:
        return f"{root}: the checkpoint was written for another spec (its SHA-256 differs)"
    if found.get("ranks") != wanted["ranks"]:
        return (
            f"{root}: the checkpoint was written by {found.get('ranks')} ranks, "
            f"this run has {wanted['ranks']}"
        )
    if found.get("partition") != wanted["partition"]:
        return f"{root}: the checkpoint partitions the states otherwise ({found.get('partition')})"
    return None


def resume(plan: Plan, shard: Any, answers: Any, root: tuple) -> bool:
    """Continue from the search's last committed level: True if there was one (the shard,
    the figures and the answers so far restored), False to start afresh."""
    comm = shard.comm
    found = _latest(plan.folder) if shard.me == 0 else None
    found = comm.bcast(found, root=0)
    if isinstance(found, str):
        raise CheckpointRefused(found)
    if found is None:
        return False
    level, manifest = found
    if {k: manifest.get(k) for k in plan.identity} != plan.identity:
        raise CheckpointRefused(f"{level}: its manifest names another spec, ranks or partition")
    record = next(r for r in manifest["shards"] if r["rank"] == shard.me)
    mine = _read_pickle(level / record["file"], record["sha256"])
    common = _read_pickle(level / COMMON, manifest["common"]["sha256"])
    _rebuild_codes(shard, root, common)
    ex = shard.ex
    keys = mine["keys"]
    ex.store = StateStore.of(keys, 1 << max(12, (2 * keys.shape[0]).bit_length()))
    shard.gid, shard.prank, shard.plid = mine["gid"], mine["prank"], mine["plid"]
    shard.lo, shard.hi = mine["lo"], mine["hi"]
    for name in ("states", "transitions", "depth", "glo", "width", "learnt", "where"):
        setattr(shard, name, common[name])
    shard.exchanged = list(common["exchanged"])
    for i, d in enumerate(common["got"]):
        if d is not None:
            answers.decide(i, *d)
    return True


def _rebuild_codes(shard: Any, root: tuple, common: dict) -> None:
    """The codes every rank had at the checkpoint: pack the root, then expand again what
    every rank learnt codes from, in order (speculate.learn and replicate do the same on
    every rank, so they give the same codes again)."""
    ex = shard.ex
    while True:
        try:
            ex.packed.pack(root)
            break
        except Overflow:
            ex.widen()
    for kind, rows, deadlock in common["learnt"]:
        if kind == "learn":
            learn(ex, rows)
        else:
            replicate(ex, rows, (0, 0), 0, deadlock)
    if _fingerprint(ex) != common["fingerprint"]:
        raise CheckpointRefused(
            "the codes of the checkpoint's packed states could not be rebuilt "
            "(the spec or fito changed since it was written)"
        )


def _fingerprint(ex: Any) -> tuple:
    return (ex.packed.fingerprint(), ex.packed.packing)


def _decided(d: Any) -> tuple:
    return (d.found, d.states, d.transitions, d.depth)


def _latest(folder: Path | None) -> tuple[Path, dict] | str | None:
    """The newest level with a manifest (a level without one was never committed); a
    message if its files are not those the manifest names (never an older level instead:
    a damaged checkpoint is refused, not silently replaced)."""
    if folder is None or not folder.is_dir():
        return None
    for level in sorted(folder.glob("level-*"), reverse=True):
        try:
            manifest = json.loads((level / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not committed: the run stopped before its manifest
        files = [manifest["common"]] + list(manifest["shards"])
        for f in files:
            if _sha256(level / f["file"]) != f["sha256"]:
                return f"{level / f['file']}: missing, or not the bytes its manifest names"
        return level, manifest
    return None


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _write_pickle(path: Path, value: object) -> tuple[str, int]:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return write_durably(path, lambda sink: sink.write(data))


def _read_pickle(path: Path, sha256: str) -> Any:
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise CheckpointRefused(f"{path}: its bytes are not those its manifest names")
    return pickle.loads(data)  # noqa: S301 - written by fito's own checkpoint, hash checked


def _write_json(path: Path, value: dict) -> None:
    data = (json.dumps(value, indent=1, sort_keys=True) + "\n").encode("utf-8")
    write_durably(path, lambda sink: sink.write(data))


def _remove(level: Path) -> None:
    for f in level.iterdir():
        f.unlink()
    level.rmdir()


__all__ = ["CheckpointRefused", "Plan", "check_identity", "resume", "write"]
