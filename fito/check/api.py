"""Model checking of a resolved spec: one verdict per assertion (LANGUAGE.md)."""
from __future__ import annotations

import time
from collections.abc import Iterator

from fito.check.explore import DEADLOCK, ERROR, EXHAUSTED, GOAL, HANDOVER, LIMIT, Found, Graph, Limits, search
from fito.check.result import FAILS, HOLDS, UNKNOWN, ModelError, Verdict
from fito.check.support import unsupported
from fito.check.trace_adapter import build_trace
from fito.check.traces import DEADLOCK as TRACE_DEADLOCK
from fito.check.traces import MODEL_ERROR, VIOLATION, WITNESS, Failure
from fito.lang import nodes as A
from fito.lang.printer import print_expr
from fito.lang.resolve import Model
from fito.semantics.compiled import Compiled, TimeLimit, compile_model
from fito.semantics.network import MAX_MODES, StructureGrows


def assertion_text(model: Model, a: A.AssertDecl) -> str:
    """The assertion as the user wrote it (from the source), without `assert`."""
    from fito.lang.printer import print_assertion

    return print_assertion(a)


DEFAULT_MAX_STATES = 20_000_000  # about 6 GB of visited states; raise it with --max-states


def check_assertions(model: Model, options: object) -> Iterator[Verdict]:
    """Check every assertion of the model in order."""
    if (refusal := unsupported(model)) is not None:  # forms the engine does not run yet
        raise refusal
    compiled = compile_model(model)
    limits = Limits(getattr(options, "max_states", None) or DEFAULT_MAX_STATES,
                    getattr(options, "timeout", None), getattr(options, "progress", False),
                    getattr(options, "engine", "auto"), getattr(options, "jobs", 1))
    for a in model.assertions:
        start = time.perf_counter()
        if limits.timeout is not None:
            compiled.deadline = time.monotonic() + limits.timeout
        try:
            verdict = check_assertion(compiled, a, limits)
        except TimeLimit:  # the engines report their figures themselves; this is the backstop
            verdict = Verdict(assertion_text(model, a), a.span.line, UNKNOWN, limit_hit=True,
                              reason=f"timeout after {limits.timeout:g} s")
        except RecursionError:
            verdict = Verdict(assertion_text(model, a), a.span.line, UNKNOWN, limit_hit=True,
                              reason="the process term grew too deep (recursion through an operator)")
        except StructureGrows:
            verdict = Verdict(assertion_text(model, a), a.span.line, UNKNOWN, limit_hit=True,
                              reason=f"the parallel structure keeps growing: more than {MAX_MODES:,} "
                                     "shapes (a recursion through a parallel operator makes a new "
                                     "component at every turn)")
        except MemoryError:
            verdict = Verdict(assertion_text(model, a), a.span.line, UNKNOWN, limit_hit=True,
                              reason="out of memory; bound the search with --max-states")
        yield _with_time(verdict, time.perf_counter() - start)


def _with_time(v: Verdict, seconds: float) -> Verdict:
    from dataclasses import replace

    return replace(v, seconds=seconds)


def check_assertion(c: Compiled, a: A.AssertDecl, limits: Limits) -> Verdict:
    text = assertion_text(c.model, a)
    proc = a.proc if a.proc is not None else c.model.system
    if proc is None:
        return Verdict(text, a.span.line, UNKNOWN, reason="no process to check")
    if a.kind == "refines":
        from fito.check.refine import check_refinement

        return check_refinement(c, a, text, limits)
    if a.kind == "eventually":
        from fito.check.liveness import check_eventually

        return check_eventually(c, a, text, limits)
    try:
        root = c.initial(proc)
    except RecursionError:
        return Verdict(text, a.span.line, UNKNOWN, reason="unguarded recursion")
    if a.kind == "deadlock":
        found, g = _search(c, root, None, False, True, limits)
        return _deadlock_verdict(c, a, text, found, g)
    assert a.expr is not None
    if a.kind == "always":
        found, g = _search(c, root, a.expr, True, False, limits)
        return _always_verdict(c, a, text, found, g)
    found, g = _search(c, root, a.expr, False, False, limits)
    return _reaches_verdict(c, a, text, found, g)


HANDOVER_AT = 5_000  # engine auto: state by state up to here, then whole levels


def _search(c: Compiled, root: tuple, goal: A.Expr | None, negate: bool, deadlock: bool,
            limits: Limits) -> tuple[Found, Graph]:
    """State by state for small searches, then the frontier engine (engine "auto"); or the
    engine asked for. The frontier engine needs states that pack into words."""
    scalar_goal = None if goal is None else c.predicate(goal, negate)
    start = None
    if limits.engine != "frontier":
        handover = HANDOVER_AT if limits.engine == "auto" else None
        found, g = search(c, root, scalar_goal, deadlock, limits, handover)
        if found.kind != HANDOVER:
            return found, g
        start = g
    from fito.check.frontier import frontier_search
    from fito.semantics.packing import NotPackable

    ir = None if goal is None else c.semantics.compiler.compile(goal, {})
    try:
        return frontier_search(c, root, ir, negate, scalar_goal, deadlock, limits, start)  # type: ignore[return-value]
    except NotPackable:
        return search(c, root, scalar_goal, deadlock, limits)


def trace_of(c: Compiled, a: A.AssertDecl, g: Graph, found: Found, failure: Failure) -> dict:
    """The verdict fields of the run that ends in found: labels and the trace as data."""
    steps = g.path(found.state) if found.state >= 0 else []
    path = [(g.state(s), k) for s, k in steps]
    if found.step is not None:
        path.append((g.state(found.state), found.step))
    proc = a.proc if a.proc is not None else c.model.system
    assert proc is not None
    expr = a.expr if failure.kind in (VIOLATION, WITNESS) else None
    run = build_trace(c, proc, path, failure, expr)
    return {"trace": run.labels, "run": run}


def _base(c: Compiled, a: A.AssertDecl, text: str, g: Graph, **kw: object) -> Verdict:
    return Verdict(text, a.span.line, states=len(g), transitions=g.transitions,
                   depth=g.depth, engine=g.engine, **kw)  # type: ignore[arg-type]


def _common(c: Compiled, a: A.AssertDecl, text: str, found: Found, g: Graph) -> Verdict | None:
    if found.kind == LIMIT:
        return _base(c, a, text, g, verdict=UNKNOWN, reason=found.reason, limit_hit=True)
    if found.kind == ERROR:
        assert found.fault is not None
        code, message, span = c.error_site(found.fault)
        reason = f"model error [{code}]: {message}"
        failure = Failure(MODEL_ERROR, reason, code=code, line=span.line, column=span.column)
        return _base(c, a, text, g, verdict=FAILS, reason=reason,
                     error=ModelError(message, span), **trace_of(c, a, g, found, failure))
    return None


def _deadlock_verdict(c: Compiled, a: A.AssertDecl, text: str, found: Found, g: Graph) -> Verdict:
    common = _common(c, a, text, found, g)
    if common is not None:
        return common
    if found.kind == DEADLOCK:
        reason = "deadlock: no transition is possible in the last state"
        return _base(c, a, text, g, verdict=FAILS, reason=reason,
                     **trace_of(c, a, g, found, Failure(TRACE_DEADLOCK, reason)))
    return _base(c, a, text, g, verdict=HOLDS)


def _always_verdict(c: Compiled, a: A.AssertDecl, text: str, found: Found, g: Graph) -> Verdict:
    common = _common(c, a, text, found, g)
    if common is not None:
        return common
    if found.kind == GOAL:
        assert a.expr is not None
        failure = Failure(VIOLATION, "the last state violates the expression",
                          expression=print_expr(a.expr))
        fields = trace_of(c, a, g, found, failure)
        cells = fields["run"].final.cells
        reason = "violated in the last state: " + ", ".join(f"{n} = {v}" for n, v in cells)
        return _base(c, a, text, g, verdict=FAILS, reason=reason, **fields)
    return _base(c, a, text, g, verdict=HOLDS)


def _reaches_verdict(c: Compiled, a: A.AssertDecl, text: str, found: Found, g: Graph) -> Verdict:
    common = _common(c, a, text, found, g)
    if common is not None:
        return common
    if found.kind == GOAL:
        assert a.expr is not None
        failure = Failure(WITNESS, "the last state satisfies the expression",
                          expression=print_expr(a.expr))
        return _base(c, a, text, g, verdict=HOLDS, **trace_of(c, a, g, found, failure))
    assert found.kind == EXHAUSTED
    return _base(c, a, text, g, verdict=FAILS, reason="no reachable state satisfies the expression")
