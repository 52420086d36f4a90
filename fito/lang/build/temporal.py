"""The builder's rules for `ltl` assertions (a mixin of `fito.lang.build.terms.Builder`).

Inside a formula the term rules run as everywhere, with one difference once a temporal
operator has been met (`_temporal`): a chain is resolved here, with the prefix operators
`[]`, `<>`, `X` (and `not` before a temporal operand) taken into the chain, so that they
bind looser than comparisons and tighter than `U`, `R`, `W`, `and`, `or` and `=>`
(fito/lang/operators.py). Boolean operators between two propositions stay expressions; as
soon as one side is temporal they become formula nodes (fito/lang/temporal.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang import temporal as T
from fito.lang.build.parts import Chain, SyncOp, make_span, span_of, tok_span
from fito.lang.operators import TEMPORAL_PREFIX, resolve_chain

_BOOLEAN = frozenset({"and", "or", "=>"})
_TEMPORAL_BINARY = frozenset({"U", "R", "W"})


@dataclass(frozen=True, slots=True)
class Pending:
    """A prefix operator whose operand extends into the rest of the chain."""

    op: str  # "[]", "<>", "X" or "not"
    start: Span
    operand: Any

    @property
    def span(self) -> Span:
        return make_span(self.start, span_of(self.operand))


@dataclass(frozen=True, slots=True)
class _Empty:
    """The left operand of a prefix operator in a resolved chain."""

    span: Span


TEMPORAL_OPERANDS = T.FORMULA_TYPES | {Pending}


class TemporalReductions:
    """Reductions of `ltl` formulas and fairness; relies on the term rules."""

    _temporal: bool

    def err(self, message: str, span: Span, hint: str | None = None, code: str = "T001") -> None:
        raise NotImplementedError

    def as_expr(self, x: Any) -> A.Expr:
        raise NotImplementedError

    def as_proc(self, x: Any) -> A.Proc:
        raise NotImplementedError

    def set_item(self, x: Any) -> A.Event:
        raise NotImplementedError

    def _resolve(self, chain: Chain) -> Any:
        raise NotImplementedError

    def _combine(self, op: str, left: Any, right: Any) -> Any:
        raise NotImplementedError

    # ---------------------------------------------------------------- units
    def ltl_prefix(self, c: list[Any]) -> Pending:
        self._temporal = True
        return Pending(c[0][1], tok_span(c[0]), c[1])

    def ltl_binop(self, c: list[Any]) -> Any:
        self._temporal = True
        return c[0]

    def ltl_fired(self, c: list[Any]) -> T.Fired:
        self._temporal = True
        x = c[2]
        span = make_span(tok_span(c[0]), tok_span(c[3]))
        if type(x) is A.EventSet:
            return T.Fired(x, span)
        item = self.set_item(x)  # an input `c?v` is reported there; its channel is kept
        fields = tuple(f for f in item.fields if not isinstance(f, A.InField))
        if fields != item.fields:
            item = A.Event(item.channel, (), span=item.span)
        return T.Fired(A.EventSet("channels", (item,), span=item.span), span)

    def temporal_not(self, c: list[Any]) -> Any:
        operand = c[1]
        if type(operand) is Pending:
            return Pending("not", tok_span(c[0]), operand)
        return T.TUnary("not", operand, make_span(tok_span(c[0]), operand.span))

    # ---------------------------------------------------------------- chains
    def temporal_term(self, c: list[Any]) -> Any:
        """The `term` rule once a temporal operator has been met."""
        if len(c) == 1:
            chain = c[0] if type(c[0]) is Chain else Chain([c[0]], [])
        elif len(c) == 2:
            c[0].operands.append(c[1])
            chain = c[0]
        else:
            head, op, last = c
            op = op if type(op) is SyncOp else op[1]
            if type(head) is not Chain:
                chain = Chain([head, last], [op])
            else:
                head.operands.append(last)
                head.operators.append(op)
                chain = head
        if not any(type(x) in TEMPORAL_OPERANDS for x in chain.operands) and not any(
            op in _TEMPORAL_BINARY for op in chain.operators
        ):
            return self._resolve(chain) if chain.operators else chain.operands[0]
        operands: list[Any] = []
        operators: list[str] = []
        for i, x in enumerate(chain.operands):
            if i:
                operators.append(chain.operators[i - 1])
            while type(x) is Pending:
                operands.append(_Empty(x.start))
                operators.append(TEMPORAL_PREFIX[x.op])
                x = x.operand
            operands.append(x)
        return resolve_chain(operands, operators, self._temporal_combine)

    def _temporal_combine(self, op: str, left: Any, right: Any) -> Any:
        if type(left) is _Empty:
            return T.TUnary(op[:-1], self._formula(right), make_span(left.span, span_of(right)))
        span = make_span(span_of(left), span_of(right))
        temporal = type(left) in T.FORMULA_TYPES or type(right) in T.FORMULA_TYPES
        if op in _TEMPORAL_BINARY or (temporal and op in _BOOLEAN):
            return T.TBinary(op, self._formula(left), self._formula(right), span)
        if temporal:
            self.err(
                f"a temporal formula cannot be an operand of `{op}`",
                span,
                hint="put the proposition in parentheses: [] (x == 1)",
            )
            return T.Prop(A.BoolLit(True, span=span), span)
        return self._combine(op, left, right)

    def _formula(self, x: Any) -> T.Formula:
        if type(x) in T.FORMULA_TYPES:
            return x
        e = self.as_expr(x)
        return T.Prop(e, e.span)

    # ---------------------------------------------------------------- the assertion
    def assert_ltl(self, c: list[Any]) -> A.AssertDecl:
        self._temporal = False
        proc = None if c[1] is None else self.as_proc(c[1])
        formula = self._formula(c[4])
        fairness = c[5] if c[5] is not None else ()
        end = fairness[-1].span if fairness else formula.span
        return A.AssertDecl(
            "ltl",
            proc,
            span=make_span(tok_span(c[0]), end),
            formula=formula,
            fairness=fairness,
        )

    def fair_clause(self, c: list[Any]) -> tuple[T.Fairness, ...]:
        return tuple(c[1::2])

    def fairness(self, c: list[Any]) -> T.Fairness:
        kind = c[0][1]
        if c[1] is None:
            return T.Fairness(kind, (), tok_span(c[0]))
        targets = tuple(x if type(x) is A.EventSet else self.as_proc(x) for x in c[2])
        return T.Fairness(kind, targets, make_span(tok_span(c[0]), tok_span(c[3])))
