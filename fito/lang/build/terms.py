"""The builder: grammar reductions -> AST nodes (frozen dataclasses with spans).

The LALR driver (`fito.lang.syntax.lalr`) calls one method per rule with the rule's children
(tokens are `(type, text, offset, line, column)` tuples), so no parse tree is materialised
and deep inputs cost no recursion. Terms arrive as flat chains; `operators.resolve_chain`
applies precedence. Whether a term is a process or a value is decided here, from where it
stands (`as_proc`, `as_expr`); a term in the wrong place becomes a diagnostic.

This module holds the term rules; `fito.lang.build.decls` holds the declaration rules and
`fito.lang.build.compound` those of sets of events, renaming, the committing choice and
steps with their statement blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fito.diagnostics import Diagnostic, Span, error
from fito.lang import nodes as A
from fito.lang.build.compound import CompoundReductions
from fito.lang.build.decls import DeclarationReductions
from fito.lang.build.parts import (
    EXPR_TYPES,
    PROC_TYPES,
    AlphaLeft,
    AlphaOp,
    Assigned,
    Chain,
    EventParts,
    StepHead,
    SyncOp,
    channel_array,
    make_span,
    new_span,
    span_of,
    tok_span,
)
from fito.lang.build.temporal import TEMPORAL_OPERANDS, TemporalReductions
from fito.lang.operators import resolve_chain
from fito.lang.syntax.fastnew import constructor

_Name = constructor(A.Name)
_IntLit = constructor(A.IntLit)
_Binary = constructor(A.Binary)
_Prefix = constructor(A.Prefix)
_Guard = constructor(A.Guard)
_ProcRef = constructor(A.ProcRef)
_ProcBinary = constructor(A.ProcBinary)
_Event = constructor(A.Event)
_DotField = constructor(A.DotField)
_OutField = constructor(A.OutField)
_Index = constructor(A.Index)
_Call = constructor(A.Call)
_Assign = constructor(A.Assign)

_PROCESS_BINOPS = frozenset({"|||", "/\\", "[]", "|~|", ";", "[>"})


@dataclass(frozen=True, slots=True)
class _Binder:
    var: str
    domain: A.TypeExpr
    span: Span


class Builder(DeclarationReductions, CompoundReductions, TemporalReductions):
    """One method per grammar rule; `diagnostics` collects what goes wrong while building."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self._chain_pending = False
        self._chained_node: Any = None
        self._temporal = False  # inside an ltl formula, after a temporal operator

    def reset(self) -> None:
        """Forget everything about the previous parse."""
        self.diagnostics = []
        self._chain_pending = False
        self._chained_node = None
        self._temporal = False

    # ---------------------------------------------------------------- sorting terms
    def err(self, message: str, span: Span, hint: str | None = None, code: str = "T001") -> None:
        self.diagnostics.append(error(code, message, span, hint=hint))

    def as_proc(self, x: Any) -> A.Proc:
        """x as a process: a name or call is a process reference; anything else is an error."""
        kind = type(x)
        if kind in PROC_TYPES:
            return x
        if kind is A.Name:
            return _ProcRef(x.id, (), x.span)
        if kind is A.Call:
            return _ProcRef(x.func, x.args, x.span)
        if kind is A.IfExpr:
            return A.ProcIf(x.cond, self.as_proc(x.then), self.as_proc(x.orelse), span=x.span)
        if kind is EventParts:
            self.err("an event is not a process", x.span, hint="write `event -> P`")
        elif kind is Assigned:
            self.err("an assignment block must be followed by `->`", x.span)
        elif kind is StepHead:
            self.err(
                "an `assert(...)` or `atomic { }` step must be followed by `->`",
                x.span,
                hint="write `assert(b) -> P`",
            )
        elif kind is A.EventSet:
            self.err("a set of events stands where a process is expected", x.span)
        else:
            self.err("a value stands where a process is expected", span_of(x))
        return A.Stop(span=span_of(x))

    def as_expr(self, x: Any) -> A.Expr:
        """x as a value expression; a process, event or block in its place is an error."""
        if type(x) in EXPR_TYPES:
            return x
        if type(x) is EventParts:
            out = bool(x.fields) and type(x.fields[-1]) in (A.OutField, A.DotField)
            self.err(
                "an event stands where a value is expected",
                x.span,
                hint="an event field is one atom: write c!(x + 1)"
                if out
                else "events only appear before `->`",
            )
        elif type(x) in (A.EventSet, Assigned, StepHead):
            self.err("this form stands where a value is expected", span_of(x))
        elif type(x) in TEMPORAL_OPERANDS:
            self.err(
                "a temporal formula stands where a value is expected",
                span_of(x),
                hint="temporal operators apply to propositions; they cannot be quantified, "
                "compared or computed with",
            )
        else:
            self.err("a process stands where a value is expected", span_of(x))
        return A.Name(A.ERROR_NAME, span=span_of(x))

    def _as_event(self, x: Any) -> A.Event:
        if type(x) is EventParts:
            return x.finish()
        if type(x) is A.Name:
            return _Event(x.id, (), x.span, 0)
        if type(x) is A.Index and channel_array(x) is not None:
            return channel_array(x).finish()  # type: ignore[union-attr]
        if type(x) in EXPR_TYPES:  # Promela's guard `x > 0 -> P`
            self.err(
                "a condition stands before `->`, where an event is expected",
                span_of(x),
                hint="a guard is written `b & P` (Promela's `b -> P`); a step that only "
                "tests it: `b & {} -> P`",
            )
        else:
            self.err(
                "expected an event (a channel, optionally with fields) before `->`", span_of(x)
            )
        return A.Event(A.ERROR_NAME, (), span=span_of(x))

    def _as_target(self, x: Any) -> A.Expr:
        root = x
        while type(root) is A.Index:
            root = root.base
        if type(root) is not A.Name:
            self.err("only a cell or a cell of an array can be assigned", span_of(x), code="T004")
            return A.Name(A.ERROR_NAME, span=span_of(x))
        return x

    # ---------------------------------------------------------------- chains
    def term(self, c: list[Any]) -> Any:
        if self._temporal:
            return self.temporal_term(c)
        if len(c) == 1:
            only = c[0]
            return self._resolve(only) if type(only) is Chain else only
        if len(c) == 2:  # `P [A || B] Q` with an open form for Q
            c[0].operands.append(c[1])
            return self._resolve(c[0])
        head, op, last = c
        op = op if type(op) is SyncOp else op[1]  # an operator token, or `[| A |]`
        if type(head) is not Chain:
            return self._resolve(Chain([head, last], [op]))
        head.operands.append(last)
        head.operators.append(op)
        return self._resolve(head)

    def chain(self, c: list[Any]) -> Chain:
        if len(c) == 2:  # a chain ending in `[A || B]`, then its right operand
            c[0].operands.append(c[1])
            return c[0]
        head, op, unit = c
        op = op if type(op) is SyncOp else op[1]
        if type(head) is not Chain:
            return Chain([head, unit], [op])
        head.operands.append(unit)
        head.operators.append(op)
        return head

    def sync_op(self, c: list[Any]) -> SyncOp:
        return SyncOp(self.as_event_set(c[1], "synchronisation"))  # `[| A |]`

    def chain_a(self, c: list[Any]) -> Chain:
        """A chain whose last operator is `[A || B]` (operands one fewer than needed)."""
        alpha: AlphaLeft = c[-1]
        if len(c) == 1:
            return Chain([alpha.operand], [alpha.op])
        head = c[0]
        if len(c) == 3:
            op = c[1] if type(c[1]) is SyncOp else c[1][1]
            if type(head) is not Chain:
                head = Chain([head], [])
            head.operators.append(op)
        head.operands.append(alpha.operand)
        head.operators.append(alpha.op)
        return head

    def alpha_left(self, c: list[Any]) -> AlphaLeft:
        left = self.as_event_set(c[2], "an alphabet")
        right = self.as_event_set(c[4], "an alphabet")
        return AlphaLeft(c[0], AlphaOp(left, right))

    def _resolve(self, chain: Chain) -> Any:
        if len(chain.operators) == 1:  # the common case: nothing to weigh
            return self._combine(chain.operators[0], chain.operands[0], chain.operands[1])
        return resolve_chain(chain.operands, chain.operators, self._combine, self._chained)

    def _chained(self, first: str, second: str, left: Any, right: Any) -> None:
        self.err(
            "comparisons do not chain",
            make_span(span_of(left), span_of(right)),
            hint=f"write `a {first} b and b {second} c`",
        )
        self._chain_pending = True

    def _split_chained(self, op: str, left: A.Binary, right: Any, span: Span) -> A.Binary:
        """`a < b < c`, reported already, read as `a < b and b < c` so no more errors follow."""
        return _Binary("and", left, _Binary(op, left.right, self.as_expr(right), span), span)

    def _combine(self, op: str, left: Any, right: Any) -> Any:
        a, b = left.span, right.span  # make_span inlined
        span = new_span(a.line, a.column, b.end_line, b.end_column, a.start, b.end)
        if op == "->":
            body = right if type(right) in PROC_TYPES else self.as_proc(right)
            if type(left) is Assigned:
                return _Prefix(left.event, left.assigns, body, span)
            if type(left) is EventParts:
                return _Prefix(left.finish(), (), body, span)
            if type(left) is StepHead:
                return self.step(left, body, span)
            return _Prefix(self._as_event(left), (), body, span)
        if op == "&":
            return _Guard(self.as_expr(left), self.as_proc(right), span)
        if op in _PROCESS_BINOPS:
            return _ProcBinary(op, self.as_proc(left), self.as_proc(right), span)
        if op == "\\":
            hidden = self.as_event_set(right, "hiding")
            return A.Hide(self.as_proc(left), hidden, span=span)
        if type(op) is SyncOp:
            return A.Parallel(self.as_proc(left), op.sync, self.as_proc(right), span=span)
        if type(op) is AlphaOp:
            return A.AlphaParallel(
                self.as_proc(left), op.left, op.right, self.as_proc(right), span=span
            )
        if type(left) is EventParts or type(right) is EventParts:  # `c!x + 1 -> P`: keep the event
            event = left if type(left) is EventParts else right
            self.as_expr(event)
            return event
        if self._chained_node is not None and left is self._chained_node:
            self._chained_node = None
            return self._split_chained(op, left, right, span)
        node = _Binary(
            op,
            left if type(left) in EXPR_TYPES else self.as_expr(left),
            right if type(right) in EXPR_TYPES else self.as_expr(right),
            span,
        )
        if self._chain_pending:
            self._chain_pending = False
            self._chained_node = node
        return node

    # ---------------------------------------------------------------- units
    def neg(self, c: list[Any]) -> A.Unary:
        operand = self.as_expr(c[1])
        return A.Unary("-", operand, span=make_span(tok_span(c[0]), operand.span))

    def not_(self, c: list[Any]) -> Any:
        if self._temporal and type(c[1]) in TEMPORAL_OPERANDS:
            return self.temporal_not(c)
        operand = self.as_expr(c[1])
        return A.Unary("not", operand, span=make_span(tok_span(c[0]), operand.span))

    def event_assigns(self, c: list[Any]) -> Assigned:
        event, block = self._as_event(c[0]), c[1]
        return Assigned(event, block.items, make_span(event.span, tok_span(block.close)))

    def tau_assigns(self, c: list[Any]) -> Assigned:
        block = c[0]
        return Assigned(None, block.items, make_span(tok_span(block.open), tok_span(block.close)))

    def assigns(self, c: list[Any]) -> _Block:
        return _Block(c[0], tuple(c[1:-1:2]) if c[1] is not None else (), c[-1])

    def assign(self, c: list[Any]) -> A.Assign:
        target, _, value = c
        target = self._as_target(target)
        value = self.as_expr(value)
        return _Assign(target, value, make_span(span_of(target), value.span))

    def chanset(self, c: list[Any]) -> A.EventSet:
        items = tuple(self.set_item(x) for x in (c[1] or ()))
        return A.EventSet("channels", items, span=make_span(tok_span(c[0]), tok_span(c[-1])))

    def args(self, c: list[Any]) -> list[Any]:
        return c[::2]

    # ---------------------------------------------------------------- open forms
    def if_(self, c: list[Any]) -> Any:
        cond, then, orelse = c[1], c[3], c[5]
        span = make_span(tok_span(c[0]), span_of(orelse))
        if type(then) in PROC_TYPES or type(orelse) in PROC_TYPES:
            return A.ProcIf(self.as_expr(cond), self.as_proc(then), self.as_proc(orelse), span=span)
        return A.IfExpr(self.as_expr(cond), self.as_expr(then), self.as_expr(orelse), span=span)

    def forall(self, c: list[Any]) -> A.Quant:
        return self._quant("forall", c)

    def exists(self, c: list[Any]) -> A.Quant:
        return self._quant("exists", c)

    def _quant(self, kind: str, c: list[Any]) -> A.Quant:
        binders, body = c[1], self.as_expr(c[3])
        start = tok_span(c[0])
        for b in reversed(binders):
            body = A.Quant(kind, b.var, b.domain, body, span=make_span(start, body.span))
        return body  # type: ignore[return-value]

    def replicated(self, c: list[Any]) -> A.Proc:
        return self._replicate(c[0][1], None, c[1], c[3], tok_span(c[0]))

    def replicated_par(self, c: list[Any]) -> A.Proc:
        sync = self.as_event_set(c[1], "synchronisation")
        return self._replicate("[||]", sync, c[3], c[5], tok_span(c[0]))

    def replicated_alpha(self, c: list[Any]) -> A.Proc:
        binders = c[1]
        if len(binders) > 1:
            self.err(
                "`|| x: T @ [A] P` takes one binder",
                make_span(binders[1].span, binders[-1].span),
                hint="nest them: || x: T @ [A] (|| y: U @ [B] P)",
            )
            binders = binders[:1]
        alpha = self.as_event_set(c[4], "an alphabet")
        return self._replicate("||", alpha, binders, c[6], tok_span(c[0]))

    def _replicate(
        self, op: str, sync: A.EventSet | None, binders: list[_Binder], body: Any, start: Span
    ) -> A.Proc:
        proc = self.as_proc(body)
        for b in reversed(binders):
            proc = A.Replicated(op, b.var, b.domain, proc, sync, span=make_span(start, proc.span))
        return proc

    def binders(self, c: list[Any]) -> list[_Binder]:
        return c[::2]

    def binder(self, c: list[Any]) -> _Binder:
        return _Binder(c[0][1], c[2], make_span(tok_span(c[0]), c[2].span))

    # ---------------------------------------------------------------- postfix and atoms
    def index(self, c: list[Any]) -> Any:
        base, idx, close = c[0], self.as_expr(c[2]), tok_span(c[3])
        span = make_span(span_of(base), close)
        if type(base) is EventParts:  # `c!saved[d]`: the index belongs to the last field
            last = base.fields[-1]
            if isinstance(last, (A.DotField, A.OutField)):
                value = _Index(last.value, idx, make_span(last.value.span, close))
                base.fields[-1] = type(last)(value, span=make_span(last.span, close))
                base.span = span
                return base
            self.err("an input field cannot be indexed", span)
            return base
        return _Index(self.as_expr(base), idx, span)

    def _extend_event(self, base: Any, field: A.EventField, span: Span) -> EventParts:
        if type(base) is A.Index and channel_array(base) is not None:
            base = channel_array(base)  # `q[i]!v` is `q.i!v`
        if type(base) is EventParts:
            base.fields.append(field)
            base.span = span
            return base
        if type(base) is A.Name:
            return EventParts(base.id, [field], span)
        self.err("only a channel name can start an event", span_of(base))
        return EventParts(A.ERROR_NAME, [field], span)

    def dot(self, c: list[Any]) -> EventParts:
        value = self.as_expr(c[2])
        return self._extend_event(
            c[0], _DotField(value, value.span), make_span(span_of(c[0]), value.span)
        )

    def out(self, c: list[Any]) -> EventParts:
        value = self.as_expr(c[2])
        field = _OutField(value, make_span(tok_span(c[1]), value.span))
        return self._extend_event(c[0], field, make_span(span_of(c[0]), value.span))

    def inp(self, c: list[Any]) -> EventParts:
        name, restriction = c[2], c[4]
        end = restriction.span if restriction is not None else tok_span(name)
        field = A.InField(name[1], restriction, span=make_span(tok_span(c[1]), end))
        return self._extend_event(c[0], field, make_span(span_of(c[0]), end))

    def name(self, c: list[Any]) -> A.Name:
        _, text, offset, line, column = c[0]  # tok_span inlined: the hottest rule
        n = len(text)
        return _Name(text, new_span(line, column, line, column + n, offset, offset + n))

    def int(self, c: list[Any]) -> A.IntLit:
        _, text, offset, line, column = c[0]
        n = len(text)
        return _IntLit(int(text), new_span(line, column, line, column + n, offset, offset + n))

    def true(self, c: list[Any]) -> A.BoolLit:
        return A.BoolLit(True, span=tok_span(c[0]))

    def false(self, c: list[Any]) -> A.BoolLit:
        return A.BoolLit(False, span=tok_span(c[0]))

    def stop(self, c: list[Any]) -> A.Stop:
        return A.Stop(span=tok_span(c[0]))

    def skip(self, c: list[Any]) -> A.Skip:
        return A.Skip(span=tok_span(c[0]))

    def call(self, c: list[Any]) -> A.Call:
        args = tuple(self.as_expr(a) for a in c[2]) if c[2] is not None else ()
        return _Call(c[0][1], args, make_span(tok_span(c[0]), tok_span(c[3])))

    def paren(self, c: list[Any]) -> Any:
        return c[1]


@dataclass(slots=True)
class _Block:
    """The assignments of `{ ... }` with the braces' tokens."""

    open: Any
    items: tuple[A.Assign, ...]
    close: Any
