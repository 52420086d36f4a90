"""Fault injection for tests: SIGKILL the writer at a chosen durability point.

The writer calls `point(op)` before every operation that changes the disk (each chunk
written, each fsync, rename, directory fsync and unlink). When the environment variable
`FITO_RUNTIME_KILL_AT` is set to `N` or `N:F` (F a fraction in [0, 1)), the N-th point
(counting from 1) kills the process with SIGKILL; when that point is a write of b bytes,
the first floor(F * b) bytes are written first, so the file is left torn at that offset.
Without the variable the hooks only count, which costs one call per operation.
"""
from __future__ import annotations

import os
import signal

ENV = "FITO_RUNTIME_KILL_AT"


def _parse(spec: str | None) -> tuple[int, float]:
    if not spec:
        return 0, 0.0
    at, _, frac = spec.partition(":")
    fraction = float(frac) if frac else 0.0
    if not 0.0 <= fraction < 1.0:
        raise ValueError(f"{ENV}: fraction {frac!r} not in [0, 1)")
    return int(at), fraction


_TARGET, _FRACTION = _parse(os.environ.get(ENV))
_passed = 0


def points_passed() -> int:
    """How many durability points this process has passed so far."""
    return _passed


def point(op: str) -> None:
    """A durability point before `op`; kills the process if it is the chosen one."""
    global _passed
    _passed += 1
    if _passed == _TARGET:
        _die()


def write_prefix(nbytes: int) -> int | None:
    """A point before writing nbytes: None to write them all, else the torn prefix length."""
    global _passed
    _passed += 1
    if _passed == _TARGET:
        return int(_FRACTION * nbytes)
    return None


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)
    raise SystemExit(137)  # not reached: SIGKILL cannot be caught


def die_after_prefix() -> None:
    """Called by the writer once the torn prefix chosen by `write_prefix` is on its way."""
    _die()
