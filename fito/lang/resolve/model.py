"""The model: what resolution makes of a spec, and the value types of its cells and fields.

`Model` is what the type checker, the model checker and the reference interpreter read: the
spec's constants, types, channels, cells, processes, process variables and functions, all
resolved (`fito.lang.resolve.resolver` builds it). Every runtime value is a Python int: Bool
is 0/1, an enumeration member is its index; a value type says how to show a value and which
values it admits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from fito.lang import nodes as A

#: The channel every spec has: its events reset every volatile cell (docs/semantics.md)
CRASH = "crash"


# ---------------------------------------------------------------------- value types


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
    """An integer without declared bounds (arithmetic results, pipeline epochs, `Int`
    cells), or with a lower bound only (`lo..*`)."""

    lo: int | None = None

    def values(self) -> tuple[int, ...]:
        raise ValueError("Int is unbounded")

    def kind(self) -> str:
        return "Int"

    def show(self, v: int) -> str:
        return str(v)

    def contains(self, v: int) -> bool:
        return self.lo is None or v >= self.lo


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


ValueType = BoolT | IntRange | IntT | EnumT | SetT

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
    if isinstance(inner, IntT) or isinstance(outer, IntT):  # unbounded: an unresolved type
        if not isinstance(outer, IntT) or inner.kind() != "Int":
            return False
        if outer.lo is None:
            return True
        least = inner.lo if isinstance(inner, IntT) else min(inner.values(), default=None)
        return least is not None and least >= outer.lo
    if isinstance(inner, IntRange):
        if isinstance(outer, IntRange):
            return outer.lo <= inner.lo and inner.hi <= outer.hi
        n = size(inner)
        if n is None or n > len(outer.values()):
            return False
    return all(outer.contains(v) for v in inner.values())


def show_type(t: ValueType) -> str:
    """A type as messages show it: 0..3, Dom, {0, 2}, Int, Bool."""
    if isinstance(t, IntRange):
        return f"{t.lo}..{t.hi}"
    if isinstance(t, EnumT):
        return t.name
    if isinstance(t, SetT):
        return "{" + ", ".join(t.show(v) for v in t.members) + "}"
    if isinstance(t, IntT):
        return "Int" if t.lo is None else f"{t.lo}..*"
    return "Bool"


# ---------------------------------------------------------------------- the model
@dataclass(frozen=True, slots=True)
class Cell:
    """A persistence-domain cell (or an array of them)."""

    name: str
    indices: tuple[ValueType, ...]
    type: ValueType
    durable: bool
    init: tuple[int, ...]  # one value per element, row-major over the indices
    decl: A.DomainDecl | None


@dataclass(frozen=True, slots=True)
class Channel:
    """A channel; with `capacity` N >= 1, a FIFO buffer of N messages (docs/semantics.md)."""

    name: str
    fields: tuple[ValueType, ...]  # an array's indices first: `q[i].v` is the event q.i.v
    capacity: int = 0
    durable: bool = False
    arrays: int = 0  # how many leading fields index an array (one FIFO per index, buffered)
    declared: tuple[str, ...] = ()  # each field's type as declared (`Epoch`), for messages

    def field_text(self, k: int) -> str:
        """Field k (0-based) for a message: `field 2 of 'c' (Epoch = 0..3)`."""
        want = show_type(self.fields[k])
        name = self.declared[k] if k < len(self.declared) else want
        shown = name if name == want else f"{name} = {want}"
        return f"field {k + 1} of '{self.name}' ({shown})"

    @property
    def buffered(self) -> bool:
        return self.capacity > 0


@dataclass(frozen=True, slots=True)
class Variable:
    """A process-local variable (one slot or an array of the definition's activation), or a
    `var` parameter (`init` None: it belongs to the control path, set by calls and by
    assignments, not to the activation)."""

    name: str
    indices: tuple[ValueType, ...]
    type: ValueType
    durable: bool
    init: A.Expr | None
    index_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Function:
    """A user function `fun f(x: T): U = e`."""

    name: str
    params: tuple[ValueType, ...]
    result: ValueType
    decl: A.FunDecl


@dataclass(frozen=True, slots=True)
class Model:
    """A resolved spec: everything the type checker and the model checker need."""

    spec: A.Spec
    consts: Mapping[str, tuple[ValueType, int]]
    types: Mapping[str, ValueType]
    members: Mapping[str, tuple[EnumT, int]]
    channels: Mapping[str, Channel]
    cells: Mapping[str, Cell]
    processes: Mapping[str, A.ProcessDecl]
    param_types: Mapping[str, tuple[ValueType, ...]]
    system: A.Proc | None
    assertions: tuple[A.AssertDecl, ...]
    pipelines: tuple[A.PipelineDecl, ...]
    #: process name -> the variables of its activation: `var` parameters, then locals
    variables: Mapping[str, tuple[Variable, ...]] = field(default_factory=dict)
    functions: Mapping[str, Function] = field(default_factory=dict)
    #: `end P, Q`: processes whose start is a valid end location (docs/semantics.md)
    end_processes: frozenset[str] = frozenset()
