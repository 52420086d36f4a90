"""Durable file operations: write to a temporary name, fsync, rename, fsync the directory.

Every operation that changes the disk passes a fault-injection point (`faults`), so that
tests can SIGKILL the writer between any two of them or in the middle of a write. A write
that fails (a full disk) removes its temporary file and raises a `CheckpointError` that
says so (`DiskFull` for ENOSPC and EDQUOT), also when the failing write happened inside
`torch.save`, which would otherwise report an opaque RuntimeError.
"""

from __future__ import annotations

import errno
import hashlib
import mmap
import os
import stat
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from fito.runtime import faults
from fito.runtime.layout import TMP_SUFFIX, CheckpointError
from fito.runtime.safeio import create_exclusive, kind_of


class DiskFull(CheckpointError):
    """A write failed for lack of space (ENOSPC) or quota (EDQUOT); nothing was committed."""


def storage_error(exc: OSError, path: Path) -> CheckpointError:
    """The CheckpointError for an OSError of the writer (DiskFull when the disk is full)."""
    why = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFull(
            f"disk full: writing {path} failed ({why}); this epoch was not "
            "committed and its temporary file was removed"
        )
    return CheckpointError(f"writing {path} failed: {why}; this epoch was not committed")


class Sink:
    """A write-only file wrapper that counts bytes, passes a fault point per write and
    remembers the first OSError (torch.save wraps it in a RuntimeError)."""

    __slots__ = ("_file", "_path", "error", "size")

    def __init__(self, file: BinaryIO, path: Path) -> None:
        self._file, self._path = file, path
        self.size = 0
        self.error: OSError | None = None

    def write(self, data: bytes | bytearray | memoryview) -> int:
        n = memoryview(data).nbytes
        try:
            prefix = faults.write_prefix(n, self._path)
            if prefix is not None:
                self._file.write(memoryview(data).cast("B")[:prefix])
                self._file.flush()
                faults.die_after_prefix()
            self._file.write(data)
        except OSError as exc:
            self.error = self.error or exc
            raise
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
    """Write the content of path to `path.tmp` (produce writes it to the sink); not durable
    yet. On failure the temporary file is removed; an OSError becomes a CheckpointError."""
    tmp = path.with_name(path.name + TMP_SUFFIX)
    try:
        faults.point("create", tmp)
        file = os.fdopen(create_exclusive(tmp), "w+b")  # readable too, for the hash
    except OSError as exc:
        discard(None, tmp)
        raise storage_error(exc, tmp) from exc
    sink = Sink(file, tmp)
    try:
        produce(sink)
        file.flush()
    except BaseException as exc:
        discard(file, tmp)
        cause = sink.error or (exc if isinstance(exc, OSError) else None)
        if cause is not None:
            raise storage_error(cause, tmp) from exc
        raise
    return Staged(path, tmp, file, sink.size)


def discard(file: BinaryIO | None, tmp: Path) -> None:
    """Close and remove a temporary file after a failure, whatever else fails meanwhile
    (closing a file whose buffer cannot be flushed raises ENOSPC again)."""
    if file is not None:
        with suppress(OSError):
            file.close()
    with suppress(OSError):
        os.unlink(tmp)


def seal(staged: Staged) -> tuple[str, int]:
    """Make a staged file durable under its name: fsync (while hashing), rename, fsync the
    directory. Returns the SHA-256 (hex) and size of the file."""
    try:
        with staged.file:
            digest = _hash_and_sync(staged.file, staged.tmp, staged.size)
        faults.point("rename", staged.path)
        os.replace(staged.tmp, staged.path)
    except OSError as exc:
        discard(staged.file, staged.tmp)
        raise storage_error(exc, staged.tmp) from exc
    try:
        fsync_dir(staged.path.parent)
    except OSError as exc:
        raise storage_error(exc, staged.path.parent) from exc
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


def make_dir(path: Path) -> None:
    """Create a directory and fsync its parent (a fault point first); CheckpointError when
    something else (a symbolic link, a file) has that name."""
    faults.point("mkdir", path)
    try:
        path.mkdir()
    except FileExistsError:
        mode = os.lstat(path).st_mode
        if not stat.S_ISDIR(mode):
            raise CheckpointError(
                f"{path} is {kind_of(mode)}, not a directory; the writer does not follow links"
            ) from None
    except OSError as exc:
        raise storage_error(exc, path) from exc
    fsync_dir(path.parent)


def unlink(path: Path) -> None:
    """Remove a file if it is there (a fault point first)."""
    faults.point("unlink", path)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
