"""The range of a finite value type: its lowest and highest value (one home for the state
layout, the packed fields and the generated checks)."""

from __future__ import annotations

from fito.lang.resolve.model import BoolT, EnumT, IntRange, SetT, ValueType


class NotPackable(Exception):
    """A type with no finite range, or one too wide for a 63-bit field: no packed state
    holds it (the state-by-state engine is used)."""


def value_range(t: ValueType) -> tuple[int, int]:
    """Lowest and highest value of a finite type (NotPackable for an unbounded one)."""
    if isinstance(t, IntRange):
        return t.lo, t.hi
    if isinstance(t, BoolT):
        return 0, 1
    if isinstance(t, EnumT):
        return 0, len(t.members) - 1
    if isinstance(t, SetT):
        return min(t.members), max(t.members)
    raise NotPackable(f"type {t} has no finite range")
