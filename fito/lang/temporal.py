"""LTL formulas of `assert P |= ltl <formula>` and their fairness (docs/ltl.md), as syntax.

A formula's leaves are state propositions (a Bool expression over cells, `Prop`) and events
(`fired(c.v)`, `Fired`: the next step of the run is one of those events). Operators: `not`,
`and`, `or`, `=>`, and the temporal `[]` (always), `<>` (eventually), `X` (next), `U`
(until), `R` (release) and `W` (weak until). Fairness assumptions (`Fairness`) name a
process, a set of events, or every process when the target is None.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fito.diagnostics import NO_SPAN, Span
from fito.lang import nodes as A

UNARY = ("[]", "<>", "X", "not")
BINARY = ("and", "or", "=>", "U", "R", "W")
WEAK, STRONG = "weak", "strong"


@dataclass(frozen=True, slots=True)
class Prop:
    """A state proposition: a Bool expression over cells."""

    expr: A.Expr
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Fired:
    """`fired(c.v)`: the run's next step is an event of the set (hidden events count)."""

    events: A.EventSet
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TUnary:
    op: str  # one of UNARY
    operand: Formula
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TBinary:
    op: str  # one of BINARY
    left: Formula
    right: Formula
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


Formula = Prop | Fired | TUnary | TBinary
FORMULA_TYPES = frozenset({Prop, Fired, TUnary, TBinary})


@dataclass(frozen=True, slots=True)
class Fairness:
    """`weak`, `strong(Client(0))`, `weak({| tick |})`: one fairness assumption; `targets`
    empty means each process (each sequential thread of the parallel structure) alone."""

    kind: str  # WEAK or STRONG
    targets: tuple[A.Proc | A.EventSet, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


def props(f: Formula) -> list[Prop | Fired]:
    """The leaves of a formula, left to right (iteratively)."""
    out: list[Prop | Fired] = []
    todo: list[Formula] = [f]
    while todo:
        g = todo.pop()
        if isinstance(g, (Prop, Fired)):
            out.append(g)
        elif isinstance(g, TUnary):
            todo.append(g.operand)
        else:
            todo += [g.right, g.left]
    return out
