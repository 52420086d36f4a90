"""JSON from untrusted files, bounded: nesting depth, number range and size.

`json.loads` recurses once per level of nesting (100,000 `[` raise RecursionError) and
turns `1e999` into infinity (which `int()` refuses with OverflowError). `loads` turns the
decoder's recursion guard into a `ValueError`, measures the nesting of what it decoded
without recursion and refuses more than `max_depth` levels, and by default refuses
non-finite numbers and integers of more than 40 digits, all as `ValueError`.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 64


def loads(
    data: bytes | bytearray | memoryview,
    *,
    max_depth: int = MAX_DEPTH,
    finite: bool = True,
    int_digits: int = 40,
) -> Any:
    """The JSON value in data (UTF-8); ValueError when it is malformed, nested more than
    max_depth levels or (finite) holds a non-finite number or an integer too long."""
    hooks: dict[str, Any] = {}
    if finite:
        hooks = {
            "parse_constant": _refuse_constant,
            "parse_float": _finite_float,
            "parse_int": lambda s: _bounded_int(s, int_digits),
        }
    try:
        value = json.loads(bytes(data).decode("utf-8"), **hooks)
    except RecursionError:  # the decoder's own guard: raised, never a stack overflow
        raise ValueError(f"JSON nested too deeply (at most {max_depth} levels)") from None
    depth = nesting(value)
    if depth > max_depth:
        raise ValueError(f"JSON nested {depth} levels deep (at most {max_depth})")
    return value


def nesting(value: Any) -> int:
    """How deep lists and dicts nest in a decoded JSON value (1 for a flat list), no recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node if isinstance(child, (list, dict)))
    return deepest


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text[:20]}")
    return value


def _bounded_int(text: str, digits: int) -> int:
    if len(text.lstrip("-")) > digits:
        raise ValueError(f"integer of {len(text)} digits")
    return int(text)
