"""The on-disk layout of a checkpoint directory: where shards and commit manifests live.

```
DIR/
  .fito-lock                         taken (flock) by the one writer of DIR
  shards/<domain>/e<epoch>.shard     one shard per persistence domain and epoch
  commits/e<epoch>.json              the commit manifest of an epoch, written last
```
Epochs are written zero-padded to ten digits so that `ls` sorts them; names are parsed back
with their integer value (`e3.json` is the manifest of epoch 3 too). Temporary files end in
`.tmp` and are never read. Listing never follows a symbolic link: a linked `shards/<domain>`
is not a domain directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from fito.errors import FitoError
from fito.runtime.safeio import entries, is_real_dir

SHARDS, COMMITS, LOCK = "shards", "commits", ".fito-lock"
TMP_SUFFIX = ".tmp"
DOMAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# on disk, a domain of one rank of a distributed job is `<domain>@<rank>` (see distributed.py)
STORED_DOMAIN = re.compile(
    r"(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]{0,63})(?:@(?P<rank>0|[1-9]\d{0,5}))?"
)
_SHARD_FILE = re.compile(r"e(\d{1,18})\.shard")
_MANIFEST_FILE = re.compile(r"e(\d{1,18})\.json")
_TEMP_FILE = re.compile(r"e(\d{1,18})\.(?:shard|json)\.tmp")


class CheckpointError(FitoError):
    """A user-facing runtime error: bad arguments, an unusable directory, a locked writer."""


class NotACheckpointDir(CheckpointError):
    """A directory that exists but holds no fito checkpoint."""


def check_domain(name: str) -> str:
    """The domain name itself, or CheckpointError when it cannot be a file name."""
    if not isinstance(name, str) or DOMAIN_NAME.fullmatch(name) is None:
        raise CheckpointError(
            f"bad domain name {name!r}: use letters, digits, '_', '.', '-' "
            "(at most 64, starting with a letter or digit)"
        )
    return name


def check_stored_domain(name: str) -> str:
    """A domain name as stored (`model`, or `model@3` for rank 3), or CheckpointError."""
    if not isinstance(name, str) or STORED_DOMAIN.fullmatch(name) is None:
        raise CheckpointError(f"bad domain name {name!r}")
    return name


def rank_domain(domain: str, rank: int) -> str:
    """The stored name of a rank's domain: `model@3`."""
    return f"{check_domain(domain)}@{rank}"


def split_rank(stored: str) -> tuple[str, int | None]:
    """(domain, rank) of a stored domain name; rank None for a single-process domain."""
    m = STORED_DOMAIN.fullmatch(stored)
    if m is None:
        raise CheckpointError(f"bad stored domain name {stored!r}")
    return m["name"], None if m["rank"] is None else int(m["rank"])


def is_epoch(value: object) -> bool:
    """True for an int (not a bool) in 0..10^18-1."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**18


def check_epoch(epoch: int) -> int:
    """The epoch itself, or CheckpointError unless it is a non-negative integer."""
    if not is_epoch(epoch):
        raise CheckpointError(f"bad epoch {epoch!r}: epochs are integers in 0..10^18-1")
    return epoch


def shard_relpath(domain: str, epoch: int) -> str:
    """The shard file of a domain and epoch, relative to the checkpoint directory."""
    return f"{SHARDS}/{domain}/e{epoch:010d}.shard"


def manifest_relpath(epoch: int) -> str:
    """The commit manifest of an epoch, relative to the checkpoint directory."""
    return f"{COMMITS}/e{epoch:010d}.json"


def checkpoint_dir(root: str | os.PathLike[str]) -> Path:
    """root as a Path, or CheckpointError (NotACheckpointDir) saying why it is not one."""
    path = Path(root)
    if not path.exists():
        raise CheckpointError(f"{path}: no such directory")
    if not path.is_dir():
        raise CheckpointError(f"{path}: not a directory")
    if not is_checkpoint_dir(path):
        raise NotACheckpointDir(
            f"{path}: not a fito checkpoint directory (no {SHARDS}/ or {COMMITS}/)"
        )
    return path


def is_first_run(root: str | os.PathLike[str]) -> bool:
    """True when root does not exist yet, or is a directory holding nothing but a writer's
    lock file: no checkpoint was ever written there (the first run of a job)."""
    path = Path(root)
    if not path.exists():
        return not path.is_symlink()
    if not path.is_dir():
        return False
    with os.scandir(path) as it:
        for n, entry in enumerate(it):  # at most two entries are read
            if entry.name != LOCK or n > 0:
                return False
    return True


def is_checkpoint_dir(root: Path) -> bool:
    """True when root looks like a directory written by `fito.runtime`."""
    return is_real_dir(root / SHARDS) or is_real_dir(root / COMMITS)


def manifest_files(root: Path) -> dict[int, tuple[str, ...]]:
    """The manifest file names of each epoch (relative to root; `e3.json` and
    `e0000000003.json` are both epoch 3), whatever their file type."""
    return _names_by_epoch(root, COMMITS, _MANIFEST_FILE)


def manifest_epochs(root: Path) -> list[int]:
    """Epochs that have a commit manifest file (parsed from names only), ascending."""
    return sorted(manifest_files(root))


def shard_domains(root: Path) -> list[str]:
    """Domains that have a shard directory (a real one, not a link), sorted."""
    return sorted(
        name
        for name, _ in entries(root / SHARDS)
        if STORED_DOMAIN.fullmatch(name) and is_real_dir(root / SHARDS / name)
    )


def shard_files(root: Path, domain: str) -> dict[int, tuple[str, ...]]:
    """The shard file names of a domain for each epoch, relative to root."""
    return _names_by_epoch(root, f"{SHARDS}/{domain}", _SHARD_FILE)


def shard_epochs(root: Path, domain: str) -> list[int]:
    """Epochs for which a domain has a shard file (parsed from names only), ascending."""
    return sorted(shard_files(root, domain))


def temp_files(root: Path) -> list[Path]:
    """Leftover temporary files (from a writer that died), sorted."""
    folders = (root / COMMITS, *(root / SHARDS / d for d in shard_domains(root)))
    return sorted(
        sub / name for sub in folders for name, _ in entries(sub) if name.endswith(TMP_SUFFIX)
    )


def temp_epoch(path: Path) -> int | None:
    """The epoch a temporary file was being written for (None for a name not the writer's)."""
    m = _TEMP_FILE.fullmatch(path.name)
    return int(m.group(1)) if m else None


def _names_by_epoch(root: Path, sub: str, pattern: re.Pattern[str]) -> dict[int, tuple[str, ...]]:
    found: dict[int, list[str]] = {}
    for name, _ in entries(root / sub):
        if m := pattern.fullmatch(name):
            found.setdefault(int(m.group(1)), []).append(f"{sub}/{name}")
    return {e: tuple(sorted(names)) for e, names in found.items()}
