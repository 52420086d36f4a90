"""The builder's intermediate values and span helpers (tokens are tuples, see
fito.lang.syntax.lexer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang.syntax.fastnew import constructor

new_span = constructor(Span)
_DotField = constructor(A.DotField)

EXPR_TYPES = frozenset(
    {A.IntLit, A.BoolLit, A.Name, A.Index, A.Call, A.Unary, A.Binary, A.IfExpr, A.Quant, A.Let}
)
PROC_TYPES = frozenset(
    {
        A.Stop,
        A.Skip,
        A.ProcRef,
        A.Prefix,
        A.Guard,
        A.ProcBinary,
        A.Parallel,
        A.Hide,
        A.ProcIf,
        A.Replicated,
        A.AssertStep,
        A.Atomic,
        A.Select,
        A.AlphaParallel,
        A.Rename,
    }
)


@dataclass(slots=True)
class Chain:
    """`u0 op1 u1 ... opn un` as the parser reduces it, before precedence is applied."""

    operands: list[Any]
    operators: list[str]


class SyncOp(str):
    """The operator `[| A |]` in a chain: a str (so it looks up precedence) with its set."""

    sync: A.EventSet

    def __new__(cls, sync: A.EventSet) -> SyncOp:
        op = super().__new__(cls, "[||]")
        op.sync = sync
        return op


class AlphaOp(str):
    """The operator `[A || B]` in a chain, with its two alphabets."""

    left: A.EventSet
    right: A.EventSet

    def __new__(cls, left: A.EventSet, right: A.EventSet) -> AlphaOp:
        op = super().__new__(cls, "[a||b]")
        op.left, op.right = left, right
        return op


@dataclass(frozen=True, slots=True)
class AlphaLeft:
    """`P [A || B]` read before its right operand (see the grammar's `chain_a`)."""

    operand: Any
    op: AlphaOp


@dataclass(frozen=True, slots=True)
class StepHead:
    """`assert(b)` or `atomic { ... }`, awaiting `->`."""

    cond: A.Expr | None
    stmts: tuple[A.Statement, ...] | None
    span: Span


@dataclass(slots=True)
class EventParts:
    """An event being read field by field (`c.a!b?x`): fields are appended in place, so an
    event of n fields costs O(n); `finish` makes the AST node when the event is used."""

    channel: str
    fields: list[A.EventField]
    span: Span
    indexed: int = 0  # leading fields written as `q[i]`

    def finish(self) -> A.Event:
        return A.Event(self.channel, tuple(self.fields), span=self.span, indexed=self.indexed)


@dataclass(frozen=True, slots=True)
class Assigned:
    """An event (or nothing, for a tau step) with an assignment block, awaiting `->`."""

    event: A.Event | None
    assigns: tuple[A.Assign, ...]
    span: Span


def tok_span(t: tuple[str, str, int, int, int]) -> Span:
    """The span of one token `(type, text, offset, line, column)`."""
    n = len(t[1])
    return new_span(t[3], t[4], t[3], t[4] + n, t[2], t[2] + n)


def make_span(a: Span, b: Span) -> Span:
    """From the start of a to the end of b."""
    return new_span(a.line, a.column, b.end_line, b.end_column, a.start, b.end)


def span_of(x: Any) -> Span:
    """The span of a token, a chain or a node."""
    if type(x) is tuple:
        return tok_span(x)
    if type(x) is Chain:
        return make_span(span_of(x.operands[0]), span_of(x.operands[-1]))
    return x.span


def channel_array(x: A.Index) -> EventParts | None:
    """`q[i][j]` read as the event `q.i.j` (an element of an array of channels), when the
    index chain is rooted at a name."""
    indices: list[A.Expr] = []
    root: A.Expr = x
    while type(root) is A.Index:
        indices.append(root.index)
        root = root.base
    if type(root) is not A.Name:
        return None
    fields: list[A.EventField] = [_DotField(i, i.span) for i in reversed(indices)]
    return EventParts(root.id, fields, x.span, len(fields))
