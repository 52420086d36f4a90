"""The builder's rules for declarations, types and pipelines (a mixin of
`fito.lang.build.terms.Builder`)."""

from __future__ import annotations

from typing import Any

from fito.lang import nodes as A
from fito.lang.build.parts import Chain, make_span, tok_span
from fito.lang.syntax.fastnew import constructor

_TypeName = constructor(A.TypeName)


class DeclarationReductions:
    """Reductions of declarations, types and pipelines; relies on the term rules' `as_expr`,
    `as_proc` and `_resolve`."""

    def as_expr(self, x: Any) -> A.Expr:
        raise NotImplementedError

    def as_proc(self, x: Any) -> A.Proc:
        raise NotImplementedError

    def _resolve(self, chain: Chain) -> Any:
        raise NotImplementedError

    def _bound(self, x: Any) -> A.Expr:
        return self.as_expr(self._resolve(x) if type(x) is Chain else x)

    # ---------------------------------------------------------------- types
    def type_name(self, c: list[Any]) -> A.TypeName:
        return _TypeName(c[0][1], tok_span(c[0]))

    def bool_type(self, c: list[Any]) -> A.BoolType:
        return A.BoolType(span=tok_span(c[0]))

    def int_type(self, c: list[Any]) -> A.IntType:
        return A.IntType(span=tok_span(c[0]))

    def from_type(self, c: list[Any]) -> A.IntType:
        lo = self._bound(c[0])  # lo..*: the integers from lo up, without a bound
        return A.IntType(span=make_span(lo.span, tok_span(c[2])), lo=lo)

    def range_type(self, c: list[Any]) -> A.RangeType:
        if len(c) == 3:  # lo..hi
            lo, hi = self._bound(c[0]), self._bound(c[2])
            return A.RangeType(lo, hi, span=make_span(lo.span, hi.span))
        lo, hi = self._bound(c[1]), self._bound(c[3])  # (lo..hi) or {lo..hi}
        return A.RangeType(lo, hi, span=make_span(tok_span(c[0]), tok_span(c[4])))

    def set_type(self, c: list[Any]) -> A.SetType:
        items = tuple(self.as_expr(x) for x in c[1])
        return A.SetType(items, span=make_span(tok_span(c[0]), tok_span(c[2])))

    def chan_types(self, c: list[Any]) -> list[A.TypeExpr]:
        return c[::2]

    # ---------------------------------------------------------------- declarations
    def start(self, c: list[Any]) -> A.Spec:
        decls = tuple(c)
        if not decls:
            return A.Spec((), span=A.NO_SPAN)
        return A.Spec(decls, span=make_span(decls[0].span, decls[-1].span))

    def const_decl(self, c: list[Any]) -> A.ConstDecl:
        name, typ, value = c[1], c[3], self.as_expr(c[5])
        return A.ConstDecl(
            name[1],
            typ,
            value,
            span=make_span(tok_span(c[0]), value.span),
            name_span=tok_span(name),
        )

    def type_decl(self, c: list[Any]) -> A.TypeDecl:
        rhs = c[3]
        return A.TypeDecl(
            c[1][1], rhs, span=make_span(tok_span(c[0]), rhs.span), name_span=tok_span(c[1])
        )

    def symmetric_type_decl(self, c: list[Any]) -> A.TypeDecl:
        """`symmetric type D = ...` (docs/reductions.md)."""
        rhs = c[4]
        return A.TypeDecl(
            c[2][1],
            rhs,
            span=make_span(tok_span(c[0]), rhs.span),
            name_span=tok_span(c[2]),
            symmetric=True,
        )

    def channel_decl(self, c: list[Any]) -> A.ChannelDecl:
        names: list[Any] = c[1]
        indices = tuple(c[2:-3])
        fields = tuple(c[-2] or ())
        last = fields[-1].span if fields else indices[-1].span if indices else tok_span(names[-1])
        size, durable = None, False
        if c[-1] is not None:  # `buffer N [durable]`
            size, durable, last = c[-1]
        return A.ChannelDecl(
            tuple(n[1] for n in names),
            fields,
            span=make_span(tok_span(c[0]), last),
            name_spans=tuple(tok_span(n) for n in names),
            buffer=size,
            durable=durable,
            indices=indices,
        )

    def chan_index(self, c: list[Any]) -> A.TypeExpr:
        return c[1]

    def buffer(self, c: list[Any]) -> tuple[A.Expr, bool, Any]:
        size = self._bound(c[1])
        persistence = c[2]
        end = tok_span(persistence) if persistence is not None else size.span
        return size, persistence is not None and persistence[1] == "durable", end

    def name_list(self, c: list[Any]) -> list[Any]:
        return c[::2]

    def domain_decl(self, c: list[Any]) -> A.DomainDecl:
        name = c[1]
        indices = tuple(x for x in c[2:-5])
        typ, init, persistence = c[-4], self.as_expr(c[-2]), c[-1]
        return A.DomainDecl(
            name[1],
            indices,
            typ,
            init,
            persistence[1] == "durable",
            span=make_span(tok_span(c[0]), tok_span(persistence)),
            name_span=tok_span(name),
        )

    def cell_index(self, c: list[Any]) -> A.Param:
        return A.Param(c[1][1], c[3], span=make_span(tok_span(c[1]), c[3].span))

    def persistence(self, c: list[Any]) -> Any:
        return c[0]

    def process_decl(self, c: list[Any]) -> A.ProcessDecl:
        name, params, body = c[1], c[2], self.as_proc(c[-1])
        return A.ProcessDecl(
            name[1],
            tuple(params or ()),
            body,
            span=make_span(tok_span(c[0]), body.span),
            name_span=tok_span(name),
            locals=tuple(c[3:-2]),
        )

    def local_var(self, c: list[Any]) -> A.LocalVar:
        name, persistence = c[1], c[-1]
        indices = tuple(c[2:-5])
        typ, init = c[-4], self.as_expr(c[-2])
        end = tok_span(persistence) if persistence is not None else init.span
        return A.LocalVar(
            name[1],
            indices,
            typ,
            init,
            persistence is not None and persistence[1] == "durable",
            span=make_span(tok_span(c[0]), end),
        )

    def params(self, c: list[Any]) -> list[A.Param]:
        return c[1:-1:2] if c[1] is not None else []

    def param(self, c: list[Any]) -> A.Param:
        return A.Param(c[0][1], c[2], span=make_span(tok_span(c[0]), c[2].span))

    def var_param(self, c: list[Any]) -> A.Param:
        return A.Param(c[1][1], c[3], span=make_span(tok_span(c[0]), c[3].span), var=True)

    def fun_decl(self, c: list[Any]) -> A.FunDecl:
        name, params, result, body = c[1], c[2], c[4], self.as_expr(c[6])
        return A.FunDecl(
            name[1],
            tuple(params),
            result,
            body,
            span=make_span(tok_span(c[0]), body.span),
            name_span=tok_span(name),
        )

    def end_decl(self, c: list[Any]) -> A.EndDecl:
        names = c[1]
        return A.EndDecl(
            tuple(n[1] for n in names),
            span=make_span(tok_span(c[0]), tok_span(names[-1])),
            name_spans=tuple(tok_span(n) for n in names),
        )

    def system_decl(self, c: list[Any]) -> A.SystemDecl:
        proc = self.as_proc(c[1])
        return A.SystemDecl(proc, span=make_span(tok_span(c[0]), proc.span))

    def _opt_proc(self, x: Any) -> A.Proc | None:
        return None if x is None else self.as_proc(x)

    def assert_deadlock(self, c: list[Any]) -> A.AssertDecl:
        return A.AssertDecl(
            "deadlock", self._opt_proc(c[1]), span=make_span(tok_span(c[0]), tok_span(c[-1]))
        )

    def assert_always(self, c: list[Any]) -> A.AssertDecl:
        return self._assert_expr("always", c)

    def assert_eventually(self, c: list[Any]) -> A.AssertDecl:
        return self._assert_expr("eventually", c)

    def _assert_expr(self, kind: str, c: list[Any]) -> A.AssertDecl:
        expr = self.as_expr(c[-1])
        return A.AssertDecl(
            kind, self._opt_proc(c[1]), expr, span=make_span(tok_span(c[0]), expr.span)
        )

    def assert_reaches(self, c: list[Any]) -> A.AssertDecl:
        expr = self.as_expr(c[-1])
        proc = self.as_proc(c[1]) if len(c) == 4 else None
        return A.AssertDecl("reaches", proc, expr, span=make_span(tok_span(c[0]), expr.span))

    def assert_refines(self, c: list[Any]) -> A.AssertDecl:
        spec, impl = self.as_proc(c[1]), self.as_proc(c[3])
        return A.AssertDecl("refines", impl, None, spec, span=make_span(tok_span(c[0]), impl.span))

    # ---------------------------------------------------------------- pipelines
    def pipeline_decl(self, c: list[Any]) -> A.PipelineDecl:
        return A.PipelineDecl(
            c[1][1],
            tuple(c[3:-1]),
            span=make_span(tok_span(c[0]), tok_span(c[-1])),
            name_span=tok_span(c[1]),
        )

    def epoch_stmt(self, c: list[Any]) -> A.EpochStmt:
        names = c[1]
        return A.EpochStmt(
            tuple(n[1] for n in names),
            span=make_span(tok_span(c[0]), tok_span(names[-1])),
            name_spans=tuple(tok_span(n) for n in names),
        )

    def require_stmt(self, c: list[Any]) -> A.RequireStmt:
        expr = self.as_expr(c[1])
        return A.RequireStmt(expr, span=make_span(tok_span(c[0]), expr.span))

    def let_stmt(self, c: list[Any]) -> A.LetStmt:
        value = self.as_expr(c[3])
        at = None if c[5] is None else self.as_expr(c[5])
        end = at.span if at is not None else value.span
        return A.LetStmt(
            c[1][1], value, at, span=make_span(tok_span(c[0]), end), name_span=tok_span(c[1])
        )

    def call_stmt(self, c: list[Any]) -> A.CallStmt:
        args = tuple(self.as_expr(a) for a in c[2]) if c[2] is not None else ()
        return A.CallStmt(c[0][1], args, span=make_span(tok_span(c[0]), tok_span(c[3])))
