"""The abstract syntax of the fito language: frozen dataclasses, every node with a span.

Spans do not take part in equality, so `parse(print(tree)) == tree` compares structure.
Processes (`Proc`) and value expressions (`Expr`) are separate node families; the builder
decides which one a term is from where it stands.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from fito.diagnostics import NO_SPAN, Span

#: The name of the placeholders the builder puts where a term was malformed (a diagnostic
#: says why); later phases stay silent about them.
ERROR_NAME = ""


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


# ------------------------------------------------------------------ types written in specs
@dataclass(frozen=True, slots=True)
class TypeName:
    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BoolType:
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class IntType:
    """`Int`, or `lo..*`: the integers from lo up (unbounded above)."""

    span: Span = _span()
    lo: Expr | None = None


@dataclass(frozen=True, slots=True)
class RangeType:
    lo: Expr
    hi: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class SetType:
    """`{a, b, c}`: an enumeration in a type declaration, else a finite set of values."""

    items: tuple[Expr, ...]
    span: Span = _span()


TypeExpr = TypeName | BoolType | IntType | RangeType | SetType


# ------------------------------------------------------------------ value expressions
@dataclass(frozen=True, slots=True)
class IntLit:
    value: int
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BoolLit:
    value: bool
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Name:
    id: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Index:
    base: Expr
    index: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Call:
    func: str
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # "-" or "not"
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # + - * / % == != < <= > >= and or =>
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class IfExpr:
    cond: Expr
    then: Expr
    orelse: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Quant:
    kind: str  # "forall" or "exists"
    var: str
    domain: TypeExpr
    body: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Let:
    """`let x = e in body`: body with x bound to the value of e."""

    var: str
    value: Expr
    body: Expr
    span: Span = _span()


Expr = IntLit | BoolLit | Name | Index | Call | Unary | Binary | IfExpr | Quant | Let


# ------------------------------------------------------------------ events and assignments
@dataclass(frozen=True, slots=True)
class DotField:
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class OutField:
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class InField:
    var: str
    restriction: TypeExpr | None
    span: Span = _span()


EventField = DotField | OutField | InField


@dataclass(frozen=True, slots=True)
class Event:
    """`c.v!w?x`; `indexed` leading fields were written as indices, `q[i]!v` (the same
    event as `q.i!v`, printed as written)."""

    channel: str
    fields: tuple[EventField, ...]
    span: Span = _span()
    indexed: int = 0


@dataclass(frozen=True, slots=True)
class Assign:
    """`target := value`. A target naming a whole array (its bare name) with a value naming
    a whole array of the same shape copies every element."""

    target: Expr  # a Name or an Index chain rooted at a Name
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class AssignLoop:
    """`forall j: T @ a[j] := e`: the assignment once for every value of T."""

    var: str
    domain: TypeExpr
    body: Assign | AssignLoop
    span: Span = _span()


Assignment = Assign | AssignLoop


@dataclass(frozen=True, slots=True)
class BlockIf:
    """`if b then { ... } else { ... }` inside `atomic { }`."""

    cond: Expr
    then: tuple[Statement, ...]
    orelse: tuple[Statement, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BlockAssert:
    """`assert(b)` inside `atomic { }`."""

    cond: Expr
    span: Span = _span()


Statement = Assign | AssignLoop | BlockIf | BlockAssert


# ------------------------------------------------------------------ sets of events
@dataclass(frozen=True, slots=True)
class EventSet:
    """A set of events, for synchronisation, hiding and alphabets.

    `kind` is "channels" for `{| c, d.0 |}` (every event that extends one of the items),
    "events" for `{c.0.1, d}` (exactly those events) and "all" for `Events`. Items are
    events whose fields are all values (`.v` or `!v`)."""

    kind: str
    items: tuple[Event, ...] = ()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class RenamePair:
    """`c.0 <- d.1` in a renaming: every event extending the left one becomes the event
    extending the right one by the same remaining fields."""

    source: Event
    target: Event
    span: Span = _span()


# ------------------------------------------------------------------ processes
@dataclass(frozen=True, slots=True)
class Stop:
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Skip:
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ProcRef:
    name: str
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Prefix:
    """`a { assigns } -> P`; with `event` None, an internal step that only assigns. On a
    buffered channel the event is a send (every field a value) or a receive (an input)."""

    event: Event | None
    assigns: tuple[Assignment, ...]
    body: Proc
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Guard:
    cond: Expr
    body: Proc
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class AssertStep:
    """`assert(b) -> P`: an internal step; a model error when b is false."""

    cond: Expr
    body: Proc
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Atomic:
    """`atomic { s1, s2, ... } -> P`: the statements run in order as one internal step."""

    stmts: tuple[Statement, ...]
    body: Proc
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Select:
    """`if :: P1 :: P2 :: else -> Q fi`: the first step of a branch discards the others;
    `orelse` moves only when no branch can."""

    branches: tuple[Proc, ...]
    orelse: Proc | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ProcBinary:
    op: str  # "[]", "|~|", ";", "/\\", "|||", "[>"
    left: Proc
    right: Proc
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Parallel:
    left: Proc
    sync: EventSet
    right: Proc
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class AlphaParallel:
    """`P [A || B] Q`: P performs only events of A, Q only of B; A & B synchronise."""

    left: Proc
    left_alpha: EventSet
    right_alpha: EventSet
    right: Proc
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Hide:
    proc: Proc
    chans: EventSet
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Rename:
    """`P [[a <- b, c.0 <- d.1]]`."""

    proc: Proc
    pairs: tuple[RenamePair, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ProcIf:
    cond: Expr
    then: Proc
    orelse: Proc
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Replicated:
    """`[] x: T @ P` and friends. `sync` is the set of `[| A |] x: T @ P`, and for `||`
    (`|| x: T @ [A] P`) the alphabet of each component, evaluated with x bound."""

    op: str  # "[]", "|~|", "|||", "[||]", "||"
    var: str
    domain: TypeExpr
    body: Proc
    sync: EventSet | None = None
    span: Span = _span()


Proc = (
    Stop
    | Skip
    | ProcRef
    | Prefix
    | Guard
    | ProcBinary
    | Parallel
    | Hide
    | ProcIf
    | Replicated
    | AssertStep
    | Atomic
    | Select
    | AlphaParallel
    | Rename
)


# ------------------------------------------------------------------ declarations
@dataclass(frozen=True, slots=True)
class Param:
    """A parameter or an array index; a `var` parameter may be assigned: like a parameter it
    belongs to the control path, and an assignment sets it for the steps that follow."""

    name: str
    type: TypeExpr
    span: Span = _span()
    var: bool = False


@dataclass(frozen=True, slots=True)
class LocalVar:
    """`var x[j: T]: U = init durable`, declared on a process definition."""

    name: str
    indices: tuple[Param, ...]
    type: TypeExpr
    init: Expr
    durable: bool
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ConstDecl:
    name: str
    type: TypeExpr | None
    value: Expr
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class TypeDecl:
    name: str
    rhs: TypeExpr
    span: Span = _span()
    name_span: Span = _span()
    symmetric: bool = False  # `symmetric type D = ...`: its members are interchangeable


@dataclass(frozen=True, slots=True)
class ChannelDecl:
    """`channel a, b: T.U`; with `buffer` (a constant capacity N >= 1), each name is a FIFO
    buffer of N messages, emptied by a crash unless `durable`. `channel q[I]: T` is an array
    of channels: its events are `q[i].v`, the same as `q.i.v` (the indices are its leading
    fields); an array of buffers has one FIFO per index."""

    names: tuple[str, ...]
    fields: tuple[TypeExpr, ...]
    span: Span = _span()
    buffer: Expr | None = None
    durable: bool = False
    indices: tuple[TypeExpr, ...] = ()
    name_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class DomainDecl:
    name: str
    indices: tuple[Param, ...]
    type: TypeExpr
    init: Expr
    durable: bool
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class ProcessDecl:
    name: str
    params: tuple[Param, ...]
    body: Proc
    span: Span = _span()
    name_span: Span = _span()
    locals: tuple[LocalVar, ...] = ()


@dataclass(frozen=True, slots=True)
class FunDecl:
    """`fun f(x: T): U = e`."""

    name: str
    params: tuple[Param, ...]
    result: TypeExpr
    body: Expr
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class SystemDecl:
    proc: Proc
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class EndDecl:
    """`end P, Q`: the start of each named process is a valid end location (Promela's
    `end:` labels): a state whose components have all terminated or wait there is no
    deadlock (docs/semantics.md)."""

    names: tuple[str, ...]
    span: Span = _span()
    name_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class AssertDecl:
    """`kind` is deadlock, always, eventually, reaches, refines or ltl; `proc` None means the
    system.

    For refinement `spec [T= proc`. For ltl the formula and its fairness assumptions are
    fito.lang.temporal values (`formula`, `fairness`).
    """

    kind: str
    proc: Proc | None
    expr: Expr | None = None
    spec: Proc | None = None
    span: Span = _span()
    formula: Any = None  # fito.lang.temporal.Formula (ltl)
    fairness: tuple[Any, ...] = ()  # fito.lang.temporal.Fairness values (ltl)


# ------------------------------------------------------------------ pipelines
@dataclass(frozen=True, slots=True)
class EpochStmt:
    names: tuple[str, ...]
    span: Span = _span()
    name_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class RequireStmt:
    expr: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class LetStmt:
    name: str
    value: Expr
    at: Expr | None
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class CallStmt:
    func: str
    args: tuple[Expr, ...]
    span: Span = _span()


Stmt = EpochStmt | RequireStmt | LetStmt | CallStmt


@dataclass(frozen=True, slots=True)
class PipelineDecl:
    name: str
    stmts: tuple[Stmt, ...]
    span: Span = _span()
    name_span: Span = _span()


Decl = (
    ConstDecl
    | TypeDecl
    | ChannelDecl
    | DomainDecl
    | ProcessDecl
    | SystemDecl
    | AssertDecl
    | PipelineDecl
    | FunDecl
    | EndDecl
)


@dataclass(frozen=True, slots=True)
class Spec:
    """A whole .fito file."""

    decls: tuple[Decl, ...]
    span: Span = _span()


def same_tree(a: object, b: object) -> bool:
    """`a == b` (spans aside) without recursion, for trees too deep for the generated `__eq__`."""
    work: list[tuple[object, object]] = [(a, b)]
    while work:
        x, y = work.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, tuple):
            if len(x) != len(y):  # type: ignore[arg-type]
                return False
            work.extend(zip(x, y))  # type: ignore[call-overload]
            continue
        names = _compared_fields(type(x))
        if names is None:
            if x != y:
                return False
            continue
        work.extend((getattr(x, n), getattr(y, n)) for n in names)
    return True


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _compared_fields(cls: type) -> tuple[str, ...] | None:
    """The fields that take part in equality, for a node class; None for other values."""
    if cls not in _FIELDS:
        compared = tuple(f.name for f in fields(cls) if f.compare) if is_dataclass(cls) else None
        _FIELDS[cls] = compared
    return _FIELDS[cls]
