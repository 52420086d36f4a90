"""The mutable state of checking one pipeline: scope, diagnostics, facts and obligations.

Checking is two passes. The first walks the statements in order, types every expression
and records the `require` facts and the epoch equalities each `converge` needs; the second
(`fito.types.decide`) asks Z3 about them. Facts hold for the whole pipeline: `require`
states what is true of the pipeline's symbolic epochs, not of a program point.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fito.diagnostics import Diagnostic, Span, error, warning
from fito.lang import nodes as A
from fito.types.env import Scope
from fito.types.epochs import Formula
from fito.types.kinds import Conv, EpochRef, FitoType, Snap, text


@dataclass(frozen=True, slots=True)
class Fact:
    formula: Formula
    stmt: A.RequireStmt


@dataclass(frozen=True, slots=True)
class Part:
    """One input of a `converge` whose epoch must be proved equal to the target epoch."""

    expr: A.Expr  # the argument as written (a name, or a product whose part this is)
    type: Snap | Conv
    epoch: EpochRef

    @property
    def text(self) -> str:
        return text(self.expr)

    @property
    def span(self) -> Span:
        return self.expr.span


@dataclass(frozen=True, slots=True)
class Obligation:
    func: str
    args: tuple[A.Expr, ...]
    span: Span
    target: EpochRef
    parts: tuple[Part, ...]

    @property
    def call(self) -> str:
        """`converge(Trained, e1, w, o)` (printed only for messages)."""
        return call_text(self.func, self.args)


#: How a call is typed, given the expression after its `@` (fito.types.ops.call_type)
CallRule = Callable[["Context", A.Call, "A.Expr | None"], FitoType]


@dataclass(slots=True)
class Context:
    pipeline: A.PipelineDecl
    scope: Scope
    #: the call rules: expressions reach them through the context, so that the expression
    #: rules (fito.types.expr) need not import the call rules (fito.types.ops), which use them
    call_type: CallRule
    diagnostics: list[Diagnostic] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    obligations: list[Obligation] = field(default_factory=list)
    epochs: list[str] = field(default_factory=list)  # declaration order (witness order)
    times: int = 0

    def error(
        self,
        code: str,
        message: str,
        span: Span,
        *,
        notes: Sequence[str] = (),
        hint: str | None = None,
    ) -> None:
        self.diagnostics.append(error(code, message, span, notes=notes, hint=hint))

    def warn(
        self,
        code: str,
        message: str,
        span: Span,
        *,
        notes: Sequence[str] = (),
        hint: str | None = None,
    ) -> None:
        self.diagnostics.append(warning(code, message, span, notes=notes, hint=hint))

    def fresh_time(self) -> int:
        self.times += 1
        return self.times


def call_text(func: str, args: Sequence[A.Expr]) -> str:
    shown = ", ".join(text(a) for a in args)
    return f"{func}({shown})" if len(shown) <= 80 else f"{func}({shown[:77]}...)"
