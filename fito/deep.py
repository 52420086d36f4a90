"""Run a function on a thread with a large stack, so deep (but bounded) inputs never overflow."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_STACK_BYTES = 512 * 1024 * 1024
_RECURSION = 200_000


def run_deep(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """fn(*args, **kwargs) with room for deep recursion; exceptions propagate."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            result.append(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            failure.append(exc)

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size()
    try:
        threading.stack_size(_STACK_BYTES)
        sys.setrecursionlimit(max(old_limit, _RECURSION))
        t = threading.Thread(target=target, name="fito-deep", daemon=True)
        t.start()
    finally:
        threading.stack_size(old_size)
    try:
        t.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if failure:
        raise failure[0]
    return result[0]
