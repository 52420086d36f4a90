"""The builder: Lark reductions -> AST nodes (frozen dataclasses with spans).

It runs inside the LALR parser (an inline transformer), so no parse tree is materialised
and deep inputs cost no recursion. Terms arrive as flat chains; `operators.resolve_chain`
applies precedence. Whether a term is a process or a value is decided here, from where it
stands (`_as_proc`, `_as_expr`); a term in the wrong place becomes a diagnostic.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lark import Token, Transformer

from fito.diagnostics import Diagnostic, Span, error
from fito.lang import ast as A
from fito.lang.operators import COMPARISONS, resolve_chain


# ------------------------------------------------------------------ intermediate values
@dataclass(slots=True)
class _Chain:
    operands: list[Any]
    operators: list["_Op"]


@dataclass(frozen=True, slots=True)
class _Op:
    op: str
    span: Span
    sync: tuple[A.Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class _ChanSet:
    items: tuple[A.Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class _Assigned:
    """An event (or nothing, for a tau step) with an assignment block, awaiting `->`."""

    event: A.Event | None
    assigns: tuple[A.Assign, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class _Binder:
    var: str
    domain: A.TypeExpr
    span: Span


def tok_span(t: Token) -> Span:
    return Span(t.line, t.column, t.end_line, t.end_column, t.start_pos, t.end_pos)


def span_of(x: Any) -> Span:
    if isinstance(x, Token):
        return tok_span(x)
    if isinstance(x, _Chain):
        return span_of(x.operands[0]).to(span_of(x.operands[-1]))
    return x.span


def _between(children: list[Any]) -> Span:
    present = [c for c in children if c is not None and not isinstance(c, (list, tuple))]
    return span_of(present[0]).to(span_of(present[-1]))


_PLACEHOLDER_PROC = A.Stop()
_PLACEHOLDER_EXPR = A.IntLit(0)
_EXPR_TYPES = (A.IntLit, A.BoolLit, A.Name, A.Index, A.Call, A.Unary, A.Binary, A.IfExpr, A.Quant)
_PROC_TYPES = (A.Stop, A.Skip, A.ProcRef, A.Prefix, A.Guard, A.ProcBinary, A.Parallel, A.Hide,
               A.ProcIf, A.Replicated)


class Builder(Transformer):
    """Inline transformer; `diagnostics` collects what goes wrong while building."""

    def __init__(self) -> None:
        super().__init__(visit_tokens=False)
        self.diagnostics: list[Diagnostic] = []

    # ---------------------------------------------------------------- sorting terms
    def _err(self, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(error("T001", message, span, hint=hint))

    def _as_proc(self, x: Any) -> A.Proc:
        if isinstance(x, _PROC_TYPES):
            return x
        if isinstance(x, A.Name):
            return A.ProcRef(x.id, (), span=x.span)
        if isinstance(x, A.Call):
            return A.ProcRef(x.func, x.args, span=x.span)
        if isinstance(x, A.IfExpr):
            return A.ProcIf(x.cond, self._as_proc(x.then), self._as_proc(x.orelse), span=x.span)
        if isinstance(x, A.Event):
            self._err("an event is not a process", x.span, hint="write `event -> P`")
        elif isinstance(x, _Assigned):
            self._err("an assignment block must be followed by `->`", x.span)
        else:
            self._err("a value stands where a process is expected", span_of(x))
        return A.Stop(span=span_of(x))

    def _as_expr(self, x: Any) -> A.Expr:
        if isinstance(x, _EXPR_TYPES):
            return x
        if isinstance(x, A.Event):
            self._err("an event stands where a value is expected", x.span,
                      hint="events only appear before `->`")
        elif isinstance(x, (_ChanSet, _Assigned)):
            self._err("this form stands where a value is expected", span_of(x))
        else:
            self._err("a process stands where a value is expected", span_of(x))
        return A.IntLit(0, span=span_of(x))

    def _as_event(self, x: Any) -> A.Event:
        if isinstance(x, A.Event):
            return x
        if isinstance(x, A.Name):
            return A.Event(x.id, (), span=x.span)
        self._err("expected an event (a channel, optionally with fields) before `->`", span_of(x))
        return A.Event("_", (), span=span_of(x))

    def _as_target(self, x: Any) -> A.Expr:
        root = x
        while isinstance(root, A.Index):
            root = root.base
        if not isinstance(root, A.Name):
            self.diagnostics.append(error("T004", "only a cell or a cell of an array can be assigned",
                                          span_of(x)))
            return A.Name("_", span=span_of(x))
        return x

    # ---------------------------------------------------------------- chains
    def term(self, c: list[Any]) -> Any:
        if len(c) == 1:
            only = c[0]
            return self._resolve(only) if isinstance(only, _Chain) else only
        chain, op, last = c
        if not isinstance(chain, _Chain):
            chain = _Chain([chain], [])
        chain.operands.append(last)
        chain.operators.append(op)
        return self._resolve(chain)

    def chain(self, c: list[Any]) -> _Chain:
        head, op, unit = c
        if not isinstance(head, _Chain):
            head = _Chain([head], [])
        head.operands.append(unit)
        head.operators.append(op)
        return head

    def binop(self, c: list[Any]) -> _Op:
        if len(c) == 3:  # [| A |]
            return _Op("[||]", tok_span(c[0]).to(tok_span(c[2])), c[1].items)
        return _Op(str(c[0]), tok_span(c[0]))

    def _resolve(self, chain: _Chain) -> Any:
        made: set[int] = set()

        def combine(op: _Op, left: Any, right: Any) -> Any:
            node = self._combine(op, left, right, made)
            made.add(id(node))
            return node

        return resolve_chain(chain.operands, chain.operators, lambda o: o.op, combine)

    def _combine(self, op: _Op, left: Any, right: Any, made: set[int]) -> Any:
        span = span_of(left).to(span_of(right))
        name = op.op
        if name == "\\":
            if not isinstance(right, _ChanSet):
                self._err("hiding needs a channel set `{| c, d |}` on its right", span_of(right))
                return self._as_proc(left)
            return A.Hide(self._as_proc(left), right.items, span=span)
        if name == "[||]":
            return A.Parallel(self._as_proc(left), op.sync, self._as_proc(right), span=span)
        if name in ("|||", "/\\", "[]", "|~|", ";"):
            return A.ProcBinary(name, self._as_proc(left), self._as_proc(right), span=span)
        if name == "&":
            return A.Guard(self._as_expr(left), self._as_proc(right), span=span)
        if name == "->":
            if isinstance(left, _Assigned):
                return A.Prefix(left.event, left.assigns, self._as_proc(right), span=span)
            return A.Prefix(self._as_event(left), (), self._as_proc(right), span=span)
        if name in COMPARISONS and isinstance(left, A.Binary) and left.op in COMPARISONS \
                and id(left) in made:
            self._err("comparisons do not chain", span, hint="write `a < b and b < c`")
        return A.Binary(name, self._as_expr(left), self._as_expr(right), span=span)

    # ---------------------------------------------------------------- units
    def neg(self, c: list[Any]) -> A.Unary:
        return A.Unary("-", self._as_expr(c[1]), span=_between(c))

    def not_(self, c: list[Any]) -> A.Unary:
        return A.Unary("not", self._as_expr(c[1]), span=_between(c))

    def event_assigns(self, c: list[Any]) -> _Assigned:
        return _Assigned(self._as_event(c[0]), c[1], span_of(c[0]).to(c[1][-1].span)
                         if c[1] else span_of(c[0]))

    def tau_assigns(self, c: list[Any]) -> _Assigned:
        assigns = c[0]
        span = assigns[0].span.to(assigns[-1].span) if assigns else Span(1, 1, 1, 1)
        return _Assigned(None, assigns, span)

    def assigns(self, c: list[Any]) -> tuple[A.Assign, ...]:
        out = tuple(x for x in c if isinstance(x, A.Assign))
        return out

    def assign(self, c: list[Any]) -> A.Assign:
        target, _, value = c
        return A.Assign(self._as_target(target), self._as_expr(value), span=span_of(target).to(span_of(value)))

    def chanset(self, c: list[Any]) -> _ChanSet:
        items = tuple(self._as_expr(x) for x in (c[1] or ()))
        return _ChanSet(items, tok_span(c[0]).to(tok_span(c[-1])))

    def args(self, c: list[Any]) -> list[Any]:
        return [x for x in c if not isinstance(x, Token)]

    # ---------------------------------------------------------------- open forms
    def if_(self, c: list[Any]) -> Any:
        cond, then, orelse = c[1], c[3], c[5]
        span = tok_span(c[0]).to(span_of(orelse))
        if isinstance(then, _PROC_TYPES) or isinstance(orelse, _PROC_TYPES):
            return A.ProcIf(self._as_expr(cond), self._as_proc(then), self._as_proc(orelse), span=span)
        return A.IfExpr(self._as_expr(cond), self._as_expr(then), self._as_expr(orelse), span=span)

    def forall(self, c: list[Any]) -> A.Quant:
        return self._quant("forall", c)

    def exists(self, c: list[Any]) -> A.Quant:
        return self._quant("exists", c)

    def _quant(self, kind: str, c: list[Any]) -> A.Quant:
        binders, body = c[1], self._as_expr(c[3])
        start = tok_span(c[0])
        for b in reversed(binders):
            body = A.Quant(kind, b.var, b.domain, body, span=start.to(span_of(body)))
        return body  # type: ignore[return-value]

    def replicated(self, c: list[Any]) -> A.Proc:
        return self._replicate(str(c[0]), (), c[1], c[3], tok_span(c[0]))

    def replicated_par(self, c: list[Any]) -> A.Proc:
        return self._replicate("[||]", c[1].items, c[3], c[5], tok_span(c[0]))

    def _replicate(self, op: str, sync: tuple[A.Expr, ...], binders: list[_Binder], body: Any,
                   start: Span) -> A.Proc:
        proc = self._as_proc(body)
        for b in reversed(binders):
            proc = A.Replicated(op, b.var, b.domain, proc, sync, span=start.to(span_of(proc)))
        return proc

    def binders(self, c: list[Any]) -> list[_Binder]:
        return [x for x in c if isinstance(x, _Binder)]

    def binder(self, c: list[Any]) -> _Binder:
        return _Binder(str(c[0]), c[2], tok_span(c[0]).to(span_of(c[2])))

    # ---------------------------------------------------------------- postfix and atoms
    def index(self, c: list[Any]) -> Any:
        base, idx = c[0], self._as_expr(c[2])
        span = span_of(base).to(tok_span(c[3]))
        if isinstance(base, A.Event):  # `c!saved[d]`: the index belongs to the last field
            last = base.fields[-1] if base.fields else None
            if isinstance(last, (A.DotField, A.OutField)):
                field = type(last)(A.Index(last.value, idx, span=last.span.to(tok_span(c[3]))),
                                   span=last.span.to(tok_span(c[3])))
                return A.Event(base.channel, base.fields[:-1] + (field,), span=span)
            self._err("an input field cannot be indexed", span)
            return base
        return A.Index(self._as_expr(base), idx, span=span)

    def _extend_event(self, base: Any, field: A.EventField, span: Span) -> A.Event:
        if isinstance(base, A.Event):
            return A.Event(base.channel, base.fields + (field,), span=span)
        if isinstance(base, A.Name):
            return A.Event(base.id, (field,), span=span)
        self._err("only a channel name can start an event", span_of(base))
        return A.Event("_", (field,), span=span)

    def dot(self, c: list[Any]) -> A.Event:
        value = self._as_expr(c[2])
        return self._extend_event(c[0], A.DotField(value, span=value.span), span_of(c[0]).to(value.span))

    def out(self, c: list[Any]) -> A.Event:
        value = self._as_expr(c[2])
        field = A.OutField(value, span=tok_span(c[1]).to(value.span))
        return self._extend_event(c[0], field, span_of(c[0]).to(value.span))

    def inp(self, c: list[Any]) -> A.Event:
        name, restriction = c[2], c[4]
        end = span_of(restriction) if restriction is not None else tok_span(name)
        field = A.InField(str(name), restriction, span=tok_span(c[1]).to(end))
        return self._extend_event(c[0], field, span_of(c[0]).to(end))

    def name(self, c: list[Any]) -> A.Name:
        return A.Name(str(c[0]), span=tok_span(c[0]))

    def int(self, c: list[Any]) -> A.IntLit:
        return A.IntLit(int(c[0]), span=tok_span(c[0]))

    def true(self, c: list[Any]) -> A.BoolLit:
        return A.BoolLit(True, span=tok_span(c[0]))

    def false(self, c: list[Any]) -> A.BoolLit:
        return A.BoolLit(False, span=tok_span(c[0]))

    def stop(self, c: list[Any]) -> A.Stop:
        return A.Stop(span=tok_span(c[0]))

    def skip(self, c: list[Any]) -> A.Skip:
        return A.Skip(span=tok_span(c[0]))

    def call(self, c: list[Any]) -> A.Call:
        args = tuple(self._as_expr(a) for a in (c[2] or ()))
        return A.Call(str(c[0]), args, span=tok_span(c[0]).to(tok_span(c[3])))

    def paren(self, c: list[Any]) -> Any:
        return c[1]

    # ---------------------------------------------------------------- types
    def type_name(self, c: list[Any]) -> A.TypeName:
        return A.TypeName(str(c[0]), span=tok_span(c[0]))

    def bool_type(self, c: list[Any]) -> A.BoolType:
        return A.BoolType(span=tok_span(c[0]))

    def int_type(self, c: list[Any]) -> A.IntType:
        return A.IntType(span=tok_span(c[0]))

    def range_type(self, c: list[Any]) -> A.RangeType:
        bounds = [x for x in c if not isinstance(x, Token) or x.type not in _RANGE_PUNCT]
        lo, hi = (self._as_expr(self._chain_value(b)) for b in bounds)
        return A.RangeType(lo, hi, span=_between(c))

    def _chain_value(self, x: Any) -> Any:
        return self._resolve(x) if isinstance(x, _Chain) else x

    def set_type(self, c: list[Any]) -> A.SetType:
        return A.SetType(tuple(self._as_expr(x) for x in c[1]), span=_between(c))

    def chan_types(self, c: list[Any]) -> list[A.TypeExpr]:
        return [x for x in c if not isinstance(x, Token)]

    # ---------------------------------------------------------------- declarations
    def start(self, c: list[Any]) -> A.Spec:
        decls = tuple(c)
        span = decls[0].span.to(decls[-1].span) if decls else Span(1, 1, 1, 1)
        return A.Spec(decls, span=span)

    def const_decl(self, c: list[Any]) -> A.ConstDecl:
        name, typ, value = c[1], c[3], c[5]
        return A.ConstDecl(str(name), typ, self._as_expr(value), span=_between(c),
                           name_span=tok_span(name))

    def type_decl(self, c: list[Any]) -> A.TypeDecl:
        return A.TypeDecl(str(c[1]), c[3], span=_between(c), name_span=tok_span(c[1]))

    def channel_decl(self, c: list[Any]) -> A.ChannelDecl:
        names: list[Token] = c[1]
        fields = tuple(c[3] or ())
        return A.ChannelDecl(tuple(str(n) for n in names), fields, span=_between(c[:2] + fields_last(c)),
                             name_spans=tuple(tok_span(n) for n in names))

    def name_list(self, c: list[Any]) -> list[Token]:
        return [x for x in c if x.type == "NAME"]

    def domain_decl(self, c: list[Any]) -> A.DomainDecl:
        name = c[1]
        indices = tuple(x for x in c if isinstance(x, A.Param))
        typ, init, persistence = c[-4], c[-2], c[-1]
        return A.DomainDecl(str(name), indices, typ, self._as_expr(init),
                            str(persistence[0]) == "durable",
                            span=tok_span(c[0]).to(tok_span(persistence[0])), name_span=tok_span(name))

    def cell_index(self, c: list[Any]) -> A.Param:
        return A.Param(str(c[1]), c[3], span=tok_span(c[1]).to(span_of(c[3])))

    def persistence(self, c: list[Any]) -> list[Token]:
        return c

    def process_decl(self, c: list[Any]) -> A.ProcessDecl:
        name, params, body = c[1], c[2], self._as_proc(c[4])
        return A.ProcessDecl(str(name), tuple(params or ()), body, span=tok_span(c[0]).to(body.span),
                             name_span=tok_span(name))

    def params(self, c: list[Any]) -> list[A.Param]:
        return [x for x in c if isinstance(x, A.Param)]

    def param(self, c: list[Any]) -> A.Param:
        return A.Param(str(c[0]), c[2], span=tok_span(c[0]).to(span_of(c[2])))

    def system_decl(self, c: list[Any]) -> A.SystemDecl:
        proc = self._as_proc(c[1])
        return A.SystemDecl(proc, span=tok_span(c[0]).to(proc.span))

    def _opt_proc(self, x: Any) -> A.Proc | None:
        return None if x is None else self._as_proc(x)

    def assert_deadlock(self, c: list[Any]) -> A.AssertDecl:
        return A.AssertDecl("deadlock", self._opt_proc(c[1]), span=tok_span(c[0]).to(tok_span(c[-1])))

    def assert_always(self, c: list[Any]) -> A.AssertDecl:
        return self._assert_expr("always", c)

    def assert_eventually(self, c: list[Any]) -> A.AssertDecl:
        return self._assert_expr("eventually", c)

    def _assert_expr(self, kind: str, c: list[Any]) -> A.AssertDecl:
        expr = self._as_expr(c[-1])
        return A.AssertDecl(kind, self._opt_proc(c[1]), expr, span=tok_span(c[0]).to(expr.span))

    def assert_reaches(self, c: list[Any]) -> A.AssertDecl:
        expr = self._as_expr(c[-1])
        proc = self._as_proc(c[1]) if len(c) == 4 else None
        return A.AssertDecl("reaches", proc, expr, span=tok_span(c[0]).to(expr.span))

    def assert_refines(self, c: list[Any]) -> A.AssertDecl:
        spec, impl = self._as_proc(c[1]), self._as_proc(c[3])
        return A.AssertDecl("refines", impl, None, spec, span=tok_span(c[0]).to(impl.span))

    # ---------------------------------------------------------------- pipelines
    def pipeline_decl(self, c: list[Any]) -> A.PipelineDecl:
        stmts = tuple(x for x in c[3:-1])
        return A.PipelineDecl(str(c[1]), stmts, span=tok_span(c[0]).to(tok_span(c[-1])),
                              name_span=tok_span(c[1]))

    def epoch_stmt(self, c: list[Any]) -> A.EpochStmt:
        names = c[1]
        return A.EpochStmt(tuple(str(n) for n in names), span=tok_span(c[0]).to(tok_span(names[-1])),
                           name_spans=tuple(tok_span(n) for n in names))

    def require_stmt(self, c: list[Any]) -> A.RequireStmt:
        expr = self._as_expr(c[1])
        return A.RequireStmt(expr, span=tok_span(c[0]).to(expr.span))

    def let_stmt(self, c: list[Any]) -> A.LetStmt:
        value = self._as_expr(c[3])
        at = None if c[5] is None else self._as_expr(c[5])
        end = at.span if at is not None else value.span
        return A.LetStmt(str(c[1]), value, at, span=tok_span(c[0]).to(end), name_span=tok_span(c[1]))

    def call_stmt(self, c: list[Any]) -> A.CallStmt:
        args = tuple(self._as_expr(a) for a in (c[2] or ()))
        return A.CallStmt(str(c[0]), args, span=tok_span(c[0]).to(tok_span(c[3])))


_RANGE_PUNCT = frozenset({"DOTDOT", "LPAR", "RPAR", "LBRACE", "RBRACE"})


def fields_last(c: list[Any]) -> list[Any]:
    fields = c[3]
    return [fields[-1]] if fields else []
