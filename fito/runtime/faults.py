"""Fault injection for tests: SIGKILL the writer at a chosen durability point.

The writer calls `point(op, path)` before every operation that changes the disk: `create`,
each `write` of a chunk, `fsync`, `rename`, `fsync-dir` and `unlink`. When the environment
variable `FITO_RUNTIME_KILL_AT` is `N` or `N:F` (F a fraction in [0, 1)), the N-th point
(counting from 1) kills the process with SIGKILL, so operations 1..N-1 happened and N did
not; when N is a write of b bytes, its first floor(F * b) bytes are written first, leaving
the file torn at that offset. `arm` does the same from inside a process (a forked test
child), and an observer, when set, sees every point before it is taken. `arm(N, F,
fail=errno.ENOSPC)` raises that OSError at the N-th point instead of killing (a disk that
fills up there). Without them the hooks only count, one call per operation.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable

ENV = "FITO_RUNTIME_KILL_AT"
Observer = Callable[[int, str, str], None]


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
_observer: Observer | None = None
_fail: int | None = None
_lock = threading.Lock()  # shards are sealed on worker threads: count points one at a time


def arm(
    at: int, fraction: float = 0.0, observer: Observer | None = None, fail: int | None = None
) -> None:
    """Count from zero again and kill at the at-th point (0: never), or raise OSError(fail)
    there; observer sees each point."""
    global _TARGET, _FRACTION, _passed, _observer, _fail
    _TARGET, _FRACTION = _parse(f"{at}:{fraction}")
    _passed, _observer, _fail = 0, observer, fail


def points_passed() -> int:
    """How many durability points this process has passed so far."""
    return _passed


def point(op: str, path: object = "") -> None:
    """A durability point before `op` on path; kills the process if it is the chosen one."""
    if _next(op, path):
        _die()


def write_prefix(nbytes: int, path: object = "") -> int | None:
    """A point before writing nbytes: None to write them all, else the torn prefix length."""
    if _next("write", path):
        return int(_FRACTION * nbytes)
    return None


def die_after_prefix() -> None:
    """Called by the writer once the torn prefix chosen by `write_prefix` is written (the
    injected OSError, when armed with one, is raised instead)."""
    _die()


def _next(op: str, path: object) -> bool:
    global _passed
    with _lock:
        _passed += 1
        if _observer is not None:
            _observer(_passed, op, str(path))
        return _passed == _TARGET


def _die() -> None:
    if _fail is not None:
        raise OSError(_fail, os.strerror(_fail))
    os.kill(os.getpid(), signal.SIGKILL)
    raise SystemExit(137)  # not reached: SIGKILL cannot be caught
