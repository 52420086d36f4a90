"""Reading spec files: size limit, binary and encoding checks, each a one-line diagnostic."""
from __future__ import annotations

import os
from dataclasses import dataclass

from fito.diagnostics import Diagnostic, Span, error

DEFAULT_MAX_BYTES = 8 * 1024 * 1024
_CONTROL = frozenset(range(0, 32)) - {9, 10, 12, 13}


@dataclass(frozen=True, slots=True)
class Source:
    path: str
    text: str


def read_source(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Source | Diagnostic:
    """The file's text, or the diagnostic that says why it cannot be read as a spec."""
    if os.path.isdir(path):
        return error("C002", f"'{path}' is a directory, not a spec file",
                     hint="pass the files: fito check dir/*.fito")
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            return error("C005", f"'{path}' has {size:,} bytes, more than the limit of {max_bytes:,}",
                         hint="raise the limit with --max-bytes")
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        return error("C002", f"'{path}' does not exist")
    except OSError as exc:
        return error("C002", f"'{path}' cannot be read: {exc.strerror or exc}")
    if len(data) > max_bytes:
        return error("C005", f"'{path}' is larger than the limit of {max_bytes:,} bytes")
    return decode(path, data)


def decode(path: str, data: bytes) -> Source | Diagnostic:
    """UTF-8 text without NUL or other control bytes (a BOM is allowed)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _position(data, exc.start)
        return error("C003", f"invalid UTF-8 byte 0x{data[exc.start]:02x}", Span.point(line, col, exc.start))
    if text.startswith("\ufeff"):
        text = text[1:]
    for i, ch in enumerate(text):
        if ord(ch) in _CONTROL or ch == "\x7f":
            line = text.count("\n", 0, i) + 1
            col = i - (text.rfind("\n", 0, i) + 1) + 1
            return error("C004", f"binary content: control character U+{ord(ch):04X}",
                         Span.point(line, col, i))
        if i > 4096:  # binary files show themselves early; the scanner rejects stray bytes later
            break
    return Source(path, text)


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, len(data[start:offset].decode("utf-8", "replace")) + 1
