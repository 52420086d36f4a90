"""Value types of the process language, and how values are shown.

Every runtime value is a Python int: Bool is 0/1, an enumeration member is its index.
The type says how to show it and which values it admits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True, slots=True)
class BoolT:
    def values(self) -> tuple[int, ...]:
        return (0, 1)

    def kind(self) -> str:
        return "Bool"

    def show(self, v: int) -> str:
        return "true" if v else "false"

    def contains(self, v: int) -> bool:
        return v in (0, 1)


@dataclass(frozen=True, slots=True)
class IntRange:
    lo: int
    hi: int

    def values(self) -> tuple[int, ...]:
        return tuple(range(self.lo, self.hi + 1))

    def kind(self) -> str:
        return "Int"

    def show(self, v: int) -> str:
        return str(v)

    def contains(self, v: int) -> bool:
        return self.lo <= v <= self.hi


@dataclass(frozen=True, slots=True)
class IntT:
    """An integer without declared bounds (arithmetic results, pipeline epochs)."""

    def values(self) -> tuple[int, ...]:
        raise ValueError("Int is unbounded")

    def kind(self) -> str:
        return "Int"

    def show(self, v: int) -> str:
        return str(v)

    def contains(self, v: int) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class EnumT:
    name: str
    members: tuple[str, ...]

    def values(self) -> tuple[int, ...]:
        return tuple(range(len(self.members)))

    def kind(self) -> str:
        return self.name

    def show(self, v: int) -> str:
        return self.members[v] if 0 <= v < len(self.members) else f"<{self.name}#{v}>"

    def contains(self, v: int) -> bool:
        return 0 <= v < len(self.members)


@dataclass(frozen=True, slots=True)
class SetT:
    """A finite set of values of one kind: `{0, 2}`, `{gpu, nvme}`."""

    elem: ValueType
    members: tuple[int, ...]

    def values(self) -> tuple[int, ...]:
        return self.members

    def kind(self) -> str:
        return self.elem.kind()

    def show(self, v: int) -> str:
        return self.elem.show(v)

    def contains(self, v: int) -> bool:
        return v in self.members


ValueType = Union[BoolT, IntRange, IntT, EnumT, SetT]

BOOL = BoolT()
INT = IntT()


def is_finite(t: ValueType) -> bool:
    return not isinstance(t, IntT)


def same_kind(a: ValueType, b: ValueType) -> bool:
    return a.kind() == b.kind()


def bit_width(t: ValueType) -> int:
    """Bits needed to store a value of t as an offset from its minimum."""
    vals = t.values()
    span = max(vals) - min(vals) if vals else 0
    return max(1, span.bit_length())


def size(t: ValueType) -> int | None:
    """How many values t admits, without listing them (None for unbounded Int)."""
    if isinstance(t, IntRange):
        return t.hi - t.lo + 1
    if isinstance(t, IntT):
        return None
    if isinstance(t, BoolT):
        return 2
    if isinstance(t, EnumT):
        return len(t.members)
    return len(t.members)


def within(inner: ValueType, outer: ValueType) -> bool:
    """Every value of inner is a value of outer (both finite, of one kind)."""
    if isinstance(inner, IntRange):
        if isinstance(outer, IntRange):
            return outer.lo <= inner.lo and inner.hi <= outer.hi
        if isinstance(outer, IntT):
            return True
        n = size(inner)
        if n is None or n > len(outer.values()):
            return False
    return all(outer.contains(v) for v in inner.values())
