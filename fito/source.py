"""Reading spec files: size limit, binary and encoding checks, each a one-line diagnostic."""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass

from fito.diagnostics import Diagnostic, Span, error

DEFAULT_MAX_BYTES = 8 * 1024 * 1024
#: How long a FIFO or a device given as a spec file may take to deliver its bytes when the
#: command has no deadline of its own (fito.budget): reading never blocks forever.
STREAM_WAIT = 10.0
MAX_READ = 1 << 40  # what --max-bytes can ask for at most (a read needs an index-sized count)
_CONTROL_BYTE = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class Source:
    path: str
    text: str


def read_source(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Source | Diagnostic:
    """The file's text, or the diagnostic that says why it cannot be read as a spec."""
    max_bytes = min(max_bytes, MAX_READ)
    if os.path.isdir(path):
        return error(
            "C002",
            f"'{path}' is a directory, not a spec file",
            hint="pass the files: fito check dir/*.fito",
        )
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            data = read_stream(path, max_bytes)
            if isinstance(data, Diagnostic):
                return data
        else:
            size = os.path.getsize(path)
            if size > max_bytes:
                return error(
                    "C005",
                    f"'{path}' has {size:,} bytes, more than the limit of {max_bytes:,}",
                    hint="raise the limit with --max-bytes",
                )
            with open(path, "rb") as fh:
                data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        return error("C002", f"'{path}' does not exist")
    except OSError as exc:
        return error("C002", f"'{path}' cannot be read: {exc.strerror or exc}")
    if len(data) > max_bytes:
        return error("C005", f"'{path}' is larger than the limit of {max_bytes:,} bytes")
    return decode(path, data)


def read_stream(path: str, max_bytes: int) -> bytes | Diagnostic:
    """The bytes of a FIFO, a device or a socket, read without blocking: at most max_bytes + 1
    of them, until the end of the stream or the deadline (the command's, else STREAM_WAIT)."""
    import select  # lazy-import: only streams are read with select

    from fito import budget  # lazy-import: only streams wait on the budget

    left = budget.current().remaining()
    waiting = STREAM_WAIT if left is None else budget.current().timeout or left
    deadline = time.monotonic() + (STREAM_WAIT if left is None else left)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    chunks: list[bytes] = []
    got = 0
    try:
        while got <= max_bytes:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                return error(
                    "C002",
                    f"'{path}' is not a regular file and gave no end of input "
                    f"within {waiting:.3g} s",
                    hint="pass a spec file (a FIFO needs a writer that closes it)",
                )
            try:
                chunk = os.read(fd, min(1 << 20, max_bytes + 1 - got))
            except BlockingIOError:
                continue
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def decode(path: str, data: bytes) -> Source | Diagnostic:
    """UTF-8 text without NUL or other control bytes (a BOM is allowed).

    Whichever problem comes first in the file is reported: a control byte (binary content,
    C004) or a byte sequence that is not UTF-8 (C003).
    """
    control = _CONTROL_BYTE.search(data)
    try:
        text = data.decode("utf-8")
        bad_utf8 = None
    except UnicodeDecodeError as exc:
        bad_utf8 = exc.start
    if control is not None and (bad_utf8 is None or control.start() <= bad_utf8):
        at = control.start()
        line, col = _position(data, at)
        return error(
            "C004",
            f"binary content: control byte 0x{data[at]:02x}",
            Span.point(line, col, at),
            hint="a spec is UTF-8 text",
        )
    if bad_utf8 is not None:
        line, col = _position(data, bad_utf8)
        return error(
            "C003",
            f"invalid UTF-8 byte 0x{data[bad_utf8]:02x}",
            Span.point(line, col, bad_utf8),
            hint="save the file as UTF-8",
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    return Source(path, text)


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, len(data[start:offset].decode("utf-8", "replace")) + 1
