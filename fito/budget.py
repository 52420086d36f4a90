"""Bounded work: one deadline and one memory budget that every long-running stage checks.

A `Budget` holds a deadline (a `time.monotonic()` instant, or None) and a memory limit in
bytes (or None). Stages call `check()` inside their loops; it costs one decrement and one
comparison, and every few thousand calls (adapted so that it happens about every 10 ms) it
reads the clock and the resident set size. When either bound is passed it raises
`BudgetExceeded`, which a stage may catch to report its figures so far and which the command
line turns into `unknown`, exit status 3.

Memory is measured as the process's resident set size (RSS, from /proc/self/statm), so the
figure is what the machine actually gives up, whatever allocated it (Python objects, numpy,
Z3). RSS is only seen at check points, so `active()` also installs a backstop: the data
segment limit (RLIMIT_DATA) at the budget plus `HEADROOM`, so that one huge allocation
between two check points fails with `MemoryError` (which the command line also reports as
`unknown`) instead of taking the machine. Allocation guards (`reserve`) refuse, before
allocating, what is known to be too large.

The default budget (`default_max_bytes`) is the smaller of 75% of physical memory and 8 GiB:
a shared 24 GB machine keeps two thirds of its memory whatever one command does.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from fito.errors import FitoError

GIB = 1 << 30
MEMORY_CAP = 8 * GIB
HEADROOM = 1 * GIB  # RLIMIT_DATA above the budget: thread stacks, reservations not touched
_POLL_SECONDS = 0.01  # how often check() looks at the clock and the RSS, about
_MAX_STRIDE = 1 << 16


class BudgetExceeded(FitoError):
    """A bound of the active budget was reached: `reason` is "timeout" or "memory"."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def default_max_bytes() -> int:
    """The default memory budget: min(75% of physical memory, 8 GiB)."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        physical = 0
    return min(physical * 3 // 4, MEMORY_CAP) if physical > 0 else MEMORY_CAP


def rss_bytes() -> int:
    """The resident set size of this process now (the peak where /proc is missing)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        import resource  # lazy-import: POSIX only, and only where /proc is missing

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def show_bytes(n: int) -> str:
    """1536 -> '1.5 KiB'; what messages show of a memory figure."""
    value = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{n:,} bytes" if unit == "bytes" else f"{value:.3g} {unit}"
        value /= 1024
    return f"{value:.3g} TiB"  # pragma: no cover - the loop returns


class Budget:
    """A deadline and a memory limit; `check()` raises `BudgetExceeded` past either."""

    __slots__ = ("deadline", "max_bytes", "timeout", "_countdown", "_stride", "_polled")

    def __init__(
        self,
        deadline: float | None = None,
        max_bytes: int | None = None,
        timeout: float | None = None,
    ) -> None:
        self.deadline = deadline  # a time.monotonic() instant
        self.max_bytes = max_bytes
        self.timeout = timeout  # the seconds the deadline was set from (for messages)
        self._countdown = 0  # the first check polls
        self._stride = 1  # checks between polls: adapted to the callers' pace
        self._polled = time.monotonic()

    @classmethod
    def of(cls, timeout: float | None = None, max_bytes: int | None = None) -> Budget:
        """A budget of `timeout` seconds from now and `max_bytes` of memory."""
        deadline = None if timeout is None else time.monotonic() + timeout
        return cls(deadline, max_bytes, timeout)

    def within(self, timeout: float | None) -> Budget:
        """The same memory limit and the nearer of this deadline and `timeout` from now."""
        if timeout is None:
            return Budget(self.deadline, self.max_bytes, self.timeout)
        deadline = time.monotonic() + timeout
        if self.deadline is not None and self.deadline <= deadline:
            return Budget(self.deadline, self.max_bytes, self.timeout)
        return Budget(deadline, self.max_bytes, timeout)

    def check(self) -> None:
        """Cheap: raise BudgetExceeded if a bound has been passed (looked at every ~10 ms)."""
        self._countdown -= 1
        if self._countdown <= 0:
            self.poll()

    def poll(self) -> None:
        """Look at the clock and the memory now."""
        now = time.monotonic()
        elapsed = now - self._polled
        self._polled = now
        if elapsed < _POLL_SECONDS / 2:  # calls come quickly: look less often
            self._stride = min(self._stride * 2, _MAX_STRIDE)
        elif elapsed > _POLL_SECONDS:  # slowly: at once to the stride that fits the pace
            self._stride = max(1, int(self._stride * _POLL_SECONDS / elapsed))
        self._countdown = self._stride
        if self.deadline is not None and now > self.deadline:
            raise BudgetExceeded("timeout", self.timeout_message())
        if self.max_bytes is not None:
            used = rss_bytes()
            if used > self.max_bytes:
                raise BudgetExceeded(
                    "memory",
                    f"memory limit of {show_bytes(self.max_bytes)} "
                    f"reached ({show_bytes(used)} in use)",
                )

    def reserve(self, nbytes: int, what: str) -> None:
        """Refuse, before allocating, about `nbytes` more for `what` if they do not fit."""
        if self.max_bytes is None:
            return
        used = rss_bytes()
        if used + nbytes > self.max_bytes:
            raise BudgetExceeded(
                "memory",
                f"memory limit of {show_bytes(self.max_bytes)} reached: {show_bytes(used)} "
                f"in use, and {what} would take about {show_bytes(nbytes)} more",
            )

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None without one; never negative)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def timeout_message(self) -> str:
        if self.timeout is not None:
            return f"timeout after {self.timeout:g} s"
        return "timeout"


UNLIMITED = Budget()
_active: Budget = UNLIMITED


def current() -> Budget:
    """The budget of the command running now (unlimited outside `active`)."""
    return _active


def check() -> None:
    """`current().check()`: what a stage outside the model checker calls in its loops."""
    _active.check()


@contextmanager
def active(budget: Budget) -> Iterator[Budget]:
    """Make `budget` the current one (and its memory backstop the process's) meanwhile."""
    global _active
    previous = _active
    restore = _set_backstop(budget.max_bytes) if budget.max_bytes != previous.max_bytes else None
    _active = budget
    try:
        yield budget
    finally:
        _active = previous
        if restore is not None:
            _restore_backstop(restore)


def _set_backstop(max_bytes: int | None) -> tuple[int, int] | None:
    """RLIMIT_DATA at max_bytes + HEADROOM (never above the hard limit); the old limits."""
    try:
        import resource  # lazy-import: POSIX only (elsewhere: no backstop)
    except ImportError:  # pragma: no cover - not a POSIX system
        return None
    old = resource.getrlimit(resource.RLIMIT_DATA)
    soft = resource.RLIM_INFINITY if max_bytes is None else max_bytes + HEADROOM
    hard = old[1]
    if hard != resource.RLIM_INFINITY and (soft == resource.RLIM_INFINITY or soft > hard):
        soft = hard
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
    except (ValueError, OSError):
        return None
    return old


def _restore_backstop(old: tuple[int, int]) -> None:
    import resource  # lazy-import: POSIX only (a backstop was set, so it is there)

    try:
        resource.setrlimit(resource.RLIMIT_DATA, old)
    except (ValueError, OSError):  # pragma: no cover - the hard limit was lowered meanwhile
        pass


def parse_size(text: str) -> int:
    """'512M', '8G', '1.5GiB', '1000000' -> bytes (binary units); ValueError otherwise."""
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    s = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = s[-1:] if s[-1:] in units and s[-1:] != "" else ""
    number = s[:-1] if unit else s
    value = float(number)  # ValueError for junk; inf and nan are refused below
    if not (value > 0 and value * units[unit] < float(1 << 62)):
        raise ValueError(f"not a positive size: {text!r}")
    return int(value * units[unit])
