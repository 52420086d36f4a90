"""The on-disk layout of a checkpoint directory: where shards and commit manifests live.

```
DIR/
  .fito-lock                         taken (flock) by the one writer of DIR
  shards/<domain>/e<epoch>.shard     one shard per persistence domain and epoch
  commits/e<epoch>.json              the commit manifest of an epoch, written last
```
Epochs are written zero-padded to ten digits so that `ls` sorts them; names are parsed back
with their integer value. Temporary files end in `.tmp` and are never read.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

SHARDS, COMMITS, LOCK = "shards", "commits", ".fito-lock"
TMP_SUFFIX = ".tmp"
DOMAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_SHARD_FILE = re.compile(r"e(\d{1,18})\.shard")
_MANIFEST_FILE = re.compile(r"e(\d{1,18})\.json")


class CheckpointError(Exception):
    """A user-facing runtime error: bad arguments, an unusable directory, a locked writer."""


class NotACheckpointDir(CheckpointError):
    """A directory that exists but holds no fito checkpoint."""


def check_domain(name: str) -> str:
    """The domain name itself, or CheckpointError when it cannot be a file name."""
    if not isinstance(name, str) or DOMAIN_NAME.fullmatch(name) is None:
        raise CheckpointError(f"bad domain name {name!r}: use letters, digits, '_', '.', '-' "
                              "(at most 64, starting with a letter or digit)")
    return name


def check_epoch(epoch: int) -> int:
    """The epoch itself, or CheckpointError unless it is a non-negative integer."""
    if isinstance(epoch, bool) or not isinstance(epoch, int) or not 0 <= epoch < 10**18:
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
        raise NotACheckpointDir(f"{path}: not a fito checkpoint directory "
                                f"(no {SHARDS}/ or {COMMITS}/)")
    return path


def is_checkpoint_dir(root: Path) -> bool:
    """True when root looks like a directory written by `fito.runtime`."""
    return (root / SHARDS).is_dir() or (root / COMMITS).is_dir()


def manifest_epochs(root: Path) -> list[int]:
    """Epochs that have a commit manifest file (parsed from names only), ascending."""
    return sorted(_epochs_in(root / COMMITS, _MANIFEST_FILE))


def shard_domains(root: Path) -> list[str]:
    """Domains that have a shard directory, sorted."""
    base = root / SHARDS
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir()
                  if p.is_dir() and DOMAIN_NAME.fullmatch(p.name))


def shard_epochs(root: Path, domain: str) -> list[int]:
    """Epochs for which a domain has a shard file (parsed from names only), ascending."""
    return sorted(_epochs_in(root / SHARDS / domain, _SHARD_FILE))


def temp_files(root: Path) -> list[Path]:
    """Leftover temporary files (from a writer that died), sorted."""
    found = [p for sub in (root / COMMITS, *(root / SHARDS / d for d in shard_domains(root)))
             if sub.is_dir() for p in sub.iterdir() if p.name.endswith(TMP_SUFFIX)]
    return sorted(found)


def _epochs_in(folder: Path, pattern: re.Pattern[str]) -> set[int]:
    if not folder.is_dir():
        return set()
    return {int(m.group(1)) for p in folder.iterdir() if (m := pattern.fullmatch(p.name))}
