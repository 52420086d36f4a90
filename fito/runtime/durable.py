"""Durable file operations: write to a temporary name, fsync, rename, fsync the directory.

Every operation that changes the disk passes a fault-injection point (`faults`), so that
tests can SIGKILL the writer between any two of them or in the middle of a write.
"""
from __future__ import annotations

import hashlib
import mmap
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from fito.runtime import faults
from fito.runtime.layout import TMP_SUFFIX

_HASH_CHUNK = 1 << 22


class Sink:
    """A write-only file wrapper that counts bytes and passes a fault point per write."""

    __slots__ = ("_file", "_path", "size")

    def __init__(self, file: BinaryIO, path: Path) -> None:
        self._file, self._path = file, path
        self.size = 0

    def write(self, data: bytes | bytearray | memoryview) -> int:
        n = memoryview(data).nbytes
        prefix = faults.write_prefix(n, self._path)
        if prefix is not None:
            self._file.write(memoryview(data).cast("B")[:prefix])
            self._file.flush()
            faults.die_after_prefix()
        self._file.write(data)
        self.size += n
        return n

    def flush(self) -> None:
        self._file.flush()


def fsync_dir(folder: Path) -> None:
    """fsync a directory, so that renames and unlinks in it are durable."""
    faults.point("fsync-dir", folder)
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(slots=True)
class Staged:
    """A temporary file whose content is written (not yet durable) and its final name."""

    path: Path
    tmp: Path
    file: BinaryIO
    size: int


def stage(path: Path, produce: Callable[[Sink], object]) -> Staged:
    """Write the content of path to `path.tmp` (produce writes it to the sink); not durable yet."""
    tmp = path.with_name(path.name + TMP_SUFFIX)
    faults.point("create", tmp)
    file = open(tmp, "w+b")  # noqa: SIM115 - closed by seal(); readable too, for the hash
    try:
        sink = Sink(file, tmp)
        produce(sink)
        file.flush()
    except BaseException:
        file.close()
        tmp.unlink(missing_ok=True)
        raise
    return Staged(path, tmp, file, sink.size)


def seal(staged: Staged) -> tuple[str, int]:
    """Make a staged file durable under its name: fsync (while hashing), rename, fsync the
    directory. Returns the SHA-256 (hex) and size of the file."""
    with staged.file:
        digest = _hash_and_sync(staged.file, staged.tmp, staged.size)
    faults.point("rename", staged.path)
    os.replace(staged.tmp, staged.path)
    fsync_dir(staged.path.parent)
    return digest, staged.size


def write_durably(path: Path, produce: Callable[[Sink], object]) -> tuple[str, int]:
    """Write path atomically via `path.tmp`; returns the SHA-256 (hex) and size of the file.

    The file is fsynced before the rename and the directory after it, so once this returns,
    the name and the content are both durable.
    """
    return seal(stage(path, produce))


def _hash_and_sync(file: BinaryIO, path: Path, size: int) -> str:
    """SHA-256 of the file's bytes, computed while the fsync runs (both release the GIL)."""
    errors: list[BaseException] = []
    faults.point("fsync", path)
    worker = threading.Thread(target=_fsync_into, args=(file.fileno(), errors))
    worker.start()
    try:
        digest = _sha256_of_fd(file.fileno(), size)
    finally:
        worker.join()
    if errors:
        raise errors[0]
    return digest


def _fsync_into(fd: int, errors: list[BaseException]) -> None:
    try:
        os.fsync(fd)
    except BaseException as exc:  # noqa: BLE001 - re-raised in the writer's thread
        errors.append(exc)


def _sha256_of_fd(fd: int, size: int) -> str:
    h = hashlib.sha256()
    if size == 0:
        return h.hexdigest()
    with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as view:
        whole = memoryview(view)
        try:
            h.update(whole)  # one call: hashlib releases the GIL while it hashes
        finally:
            whole.release()
    return h.hexdigest()


def sha256_file(path: Path, keep_head: int = 0) -> tuple[str, int, bytes]:
    """SHA-256 (hex) and size of a file read in chunks, and its first keep_head bytes."""
    h = hashlib.sha256()
    size, head = 0, b""
    with open(path, "rb") as file:
        while chunk := file.read(_HASH_CHUNK):
            if size == 0:
                head = chunk[:keep_head]
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size, head


def make_dir(path: Path) -> None:
    """Create a directory and fsync its parent (a fault point first)."""
    faults.point("mkdir", path)
    path.mkdir(exist_ok=True)
    fsync_dir(path.parent)


def unlink(path: Path) -> None:
    """Remove a file if it is there (a fault point first)."""
    faults.point("unlink", path)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
