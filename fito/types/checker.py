"""Checking pipelines: statements in order (first pass), then Z3 on the epoch facts (second).

Public entry point: `check_pipelines(model)`, called by `fito check` and `fito types`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fito.diagnostics import Diagnostic, Span
from fito.lang import nodes as A
from fito.types.context import Context, Fact
from fito.types.decide import decide
from fito.types.env import Binding, Scope, definitions, globals_of, kind_word
from fito.types.epochs import Lin
from fito.types.expr import fact, infer
from fito.types.kinds import UNKNOWN, EpochRef, EpochT, FitoType, Snap, reveal_text, text
from fito.types.ops import call_statement, call_type
from fito.types.oracle import DEFAULT_TIMEOUT_MS, EpochOracle

if TYPE_CHECKING:
    from fito.lang.resolve.model import Model


def check_pipelines(
    model: Model, *, oracle: EpochOracle | None = None, timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> list[Diagnostic]:
    """The FITO type diagnostics of every pipeline of a resolved model."""
    oracle = oracle if oracle is not None else EpochOracle(timeout_ms=timeout_ms)
    out: list[Diagnostic] = []
    for p, scope in _scopes(model):
        out.extend(check_pipeline(p, scope, oracle))
    return out


def _scopes(model: Model) -> Iterator[tuple[A.PipelineDecl, Scope]]:
    names = globals_of(model)
    dims = {n: len(c.indices) for n, c in model.cells.items()}
    for p in model.pipelines:
        yield p, Scope(names, model.consts, dims, later=definitions(p.stmts))


def check_pipeline(p: A.PipelineDecl, scope: Scope, oracle: EpochOracle) -> list[Diagnostic]:
    """Every diagnostic of one pipeline."""
    return run_pipeline(p, scope, oracle).diagnostics


def run_pipeline(p: A.PipelineDecl, scope: Scope, oracle: EpochOracle) -> Context:
    """Both passes over one pipeline; the context keeps the bindings and the diagnostics."""
    ctx = Context(p, scope, call_type)
    for stmt in p.stmts:
        check_statement(ctx, stmt)
    decide(ctx, oracle)
    return ctx


@dataclass(frozen=True, slots=True)
class Revealed:
    """The type of one local name (as mypy's reveal_type shows it)."""

    pipeline: str
    name: str
    span: Span
    type: str


def reveal_types(model: Model, *, oracle: EpochOracle | None = None) -> list[Revealed]:
    """The type of every epoch and `let` name of every pipeline, in source order."""
    oracle = oracle if oracle is not None else EpochOracle()
    out: list[Revealed] = []
    for p, scope in _scopes(model):
        ctx = run_pipeline(p, scope, oracle)
        out.extend(
            Revealed(p.name, n, b.span, reveal_text(b.type)) for n, b in ctx.scope.locals.items()
        )
    return out


def check_statement(ctx: Context, stmt: A.Stmt) -> None:
    if isinstance(stmt, A.EpochStmt):
        spans = stmt.name_spans or (stmt.span,) * len(stmt.names)
        for name, span in zip(stmt.names, spans):
            if _declare(ctx, name, span):
                ctx.epochs.append(name)
                ctx.scope.locals[name] = Binding(
                    "epoch", EpochT(EpochRef(Lin.var(name), name)), span
                )
    elif isinstance(stmt, A.RequireStmt):
        formula = fact(ctx, stmt.expr, "require")
        if formula is not None:
            ctx.facts.append(Fact(formula, stmt))
    elif isinstance(stmt, A.LetStmt):
        value = _let_value(ctx, stmt)
        if _declare(ctx, stmt.name, stmt.name_span):
            ctx.scope.locals[stmt.name] = Binding("let", value, stmt.name_span)
    else:
        call_statement(ctx, stmt)


def _let_value(ctx: Context, stmt: A.LetStmt) -> FitoType:
    value = stmt.value
    if stmt.at is None:
        return infer(ctx, value)
    if isinstance(value, A.Call) and value.func == "snapshot":
        return call_type(ctx, value, stmt.at)
    t = infer(ctx, value)
    ctx.error(
        "T001",
        f"only a snapshot takes epoch metadata `@ {text(stmt.at)}`, but "
        f"'{text(value)}' is not a snapshot(...)",
        stmt.at.span,
        hint="write `let s = snapshot(gpu) @ e`; a Conv already carries its epoch",
    )
    return t if not isinstance(t, Snap) else UNKNOWN


def _declare(ctx: Context, name: str, span: Span) -> bool:
    """Add a local name; R002 (and False) if the environment already has it."""
    previous = ctx.scope.previous(name)
    if previous is None:
        return True
    where = previous.span
    line = f" at line {where.line}" if where.line and where.start != where.end else ""
    what = kind_word(previous)
    ctx.error(
        "R002",
        f"'{name}' is already declared{line} ({what})",
        span,
        hint="processes and pipelines share one environment: choose another name"
        if not isinstance(previous, Binding)
        else "choose another name",
    )
    return False
