"""Fixtures of the runtime tests."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture()
def ram_path(tmp_path: Path) -> Iterator[Path]:
    """A fresh directory on tmpfs (/dev/shm) when there is one, else tmp_path.

    For the tests that run hundreds of writers and kill them with SIGKILL: a killed process
    loses nothing of the page cache, so what they check does not depend on fsync reaching a
    disk, and on tmpfs an fsync costs nothing.
    """
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="fito-runtime-", dir=shm))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
