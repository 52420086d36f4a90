"""Opening the files of a checkpoint directory as a hostile directory cannot exploit.

Only regular files inside the directory are opened: every component below the root is
opened relative to its parent (`openat`) with `O_NOFOLLOW`, so no symbolic link is followed
(a shard linked to `/etc/passwd` or `/dev/zero` is refused, never read); the type is checked
with `lstat` before the open and again with `fstat` after it (a FIFO or a device is never
opened, so nothing hangs); the open is non-blocking; the size is known before a byte is
read, so the caller refuses a file of the wrong size without reading it. The root itself is
the path the user gave and may be a symbolic link.

The writer's temporary files are created with `O_CREAT | O_EXCL | O_NOFOLLOW` after any
leftover of the same name is unlinked, so a planted link is never written through.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_CHUNK = 1 << 22
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class NotRegular(OSError):
    """A path in the directory that is not a regular file (or a directory on the way)."""

    def __init__(self, relpath: str, what: str) -> None:
        self.message = f"{relpath} is {what}; not opened"
        super().__init__(errno.EPERM, self.message)
        self.relpath, self.what = relpath, what


def kind_of(mode: int) -> str:
    """What a file mode describes, for messages."""
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a regular file"


@contextmanager
def open_regular(root: Path, relpath: str) -> Iterator[tuple[int, int]]:
    """(fd, size) of the regular file root/relpath, opened without following any link.

    FileNotFoundError when it is absent; NotRegular when it or a directory on the way is
    something else (a link, a FIFO, a device...)."""
    parts = relpath.split("/")
    folder = _open_subdir(root, parts[:-1], relpath)
    try:
        before = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
        if not stat.S_ISREG(before.st_mode):
            raise NotRegular(relpath, kind_of(before.st_mode))
        fd = _open_at(parts[-1], _FILE_FLAGS, folder, relpath)
    finally:
        os.close(folder)
    try:
        after = os.fstat(fd)
        if not stat.S_ISREG(after.st_mode) or (after.st_dev, after.st_ino) != (
            before.st_dev,
            before.st_ino,
        ):
            raise NotRegular(relpath, "replaced while being opened")
        os.set_blocking(fd, True)
        yield fd, after.st_size
    finally:
        os.close(fd)


def _open_subdir(root: Path, parts: list[str], relpath: str) -> int:
    """An fd of root/parts..., each component a real directory (no link followed)."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in parts:
            st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode):
                raise NotRegular(relpath, f"under {part}, which is {kind_of(st.st_mode)}")
            inner = _open_at(part, _DIR_FLAGS | os.O_NOFOLLOW, fd, relpath)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_at(name: str, flags: int, dir_fd: int, relpath: str) -> int:
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENXIO):
            raise NotRegular(relpath, "a symbolic link or not a regular file") from None
        raise


def read_exact(fd: int, size: int, start: int = 0) -> bytearray:
    """The bytes [start, size) of fd; OSError if the file is shorter than size."""
    buf = bytearray(size - start)
    view = memoryview(buf)
    got = 0
    while got < len(buf):
        n = os.preadv(fd, [view[got:]], start + got)
        if n == 0:
            raise OSError(errno.EIO, f"file shrank while read ({start + got} of {size} bytes)")
        got += n
    return buf


def hash_fd(fd: int, size: int, h: hashlib._Hash | None = None) -> str:
    """SHA-256 (hex) of the first size bytes of fd, read in chunks (never mapped: a file
    truncated meanwhile cannot fault the reader)."""
    h = h or hashlib.sha256()
    offset = 0
    while offset < size:
        chunk = os.pread(fd, min(_CHUNK, size - offset), offset)
        if not chunk:
            raise OSError(errno.EIO, f"file shrank while hashed ({offset} of {size} bytes)")
        h.update(chunk)
        offset += len(chunk)
    return h.hexdigest()


def is_real_dir(path: Path) -> bool:
    """True when path is a directory and not a symbolic link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def entries(folder: Path) -> list[tuple[str, bool]]:
    """(name, is a regular file) of each entry of a real directory; [] if it is not one."""
    if not is_real_dir(folder):
        return []
    with os.scandir(folder) as it:
        return [(e.name, e.is_file(follow_symlinks=False)) for e in it]


def create_exclusive(path: Path) -> int:
    """A new, empty file at path opened for reading and writing; a leftover of that name
    (a file, or a link planted there) is unlinked first, and no link is followed."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    return os.open(path, flags, 0o644)
