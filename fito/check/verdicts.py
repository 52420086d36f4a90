"""Model checking of a resolved spec: one verdict per assertion (LANGUAGE.md)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from fito.budget import BudgetExceeded
from fito.check.explore import (
    DEADLOCK,
    ERROR,
    EXHAUSTED,
    GOAL,
    LIMIT,
    Decided,
    Found,
    Graph,
    Task,
    search,
)
from fito.check.liveness import check_eventually
from fito.check.ltl import check_ltl
from fito.check.options import CheckOptions, Limits
from fito.check.reduce import NONE, Reduction, plan
from fito.check.refine import check_refinement
from fito.check.refused import Refused
from fito.check.result import FAILS, HOLDS, UNKNOWN, ModelError, Verdict
from fito.check.traces.from_states import build_trace
from fito.check.traces.records import DEADLOCK as TRACE_DEADLOCK
from fito.check.traces.records import MODEL_ERROR, VIOLATION, WITNESS, Failure
from fito.diagnostics import NO_SPAN, Diagnostic, error
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_assertion, print_expr, print_proc
from fito.lang.resolve.model import IntT, Model, show_type
from fito.semantics.compiled import (
    Compiled,
    Fault,
    NotPackable,
    NotSupported,
    StructureGrows,
    TimeLimit,
    compile_model,
)


def assertion_text(model: Model, a: A.AssertDecl) -> str:
    """The assertion as the user wrote it (from the source), without `assert`."""
    return print_assertion(a)


SAFETY = ("deadlock", "always", "reaches")


def check_assertions(
    model: Model, options: CheckOptions, refusals: list[Diagnostic] | None = None
) -> Iterator[Verdict]:
    """Check every assertion of the model in order. The safety assertions about one process
    (deadlock freedom, `always`, `reaches`) are answered by one search together: each gets
    the verdict, counts and trace a search of its own would give. With `refusals`, a group
    the checker refuses (fito.semantics.rules.refusal) is `unknown` and its diagnostic is added
    there (once); without, the refusal is raised."""
    limits = options.limits()
    unbounded = _unbounded_cell(model) if limits.engine != "symbolic" else None
    if unbounded is not None:
        if refusals is None:
            raise NotSupported(unbounded)
        refusals.append(unbounded)
        for a in model.assertions:
            reason = f"not checked: {unbounded.message}"
            yield Verdict(print_assertion(a), a.span.line, UNKNOWN, reason=reason)
        return
    compiled = compile_model(model)
    assertions = list(model.assertions)
    done: dict[int, Verdict] = {}
    plans = {n: plan(compiled, [a], options) for n, a in enumerate(assertions)}
    for n, a in enumerate(assertions):
        if n not in done:
            group = [
                m
                for m in _group_of(model, assertions, n)
                if plans[m].symmetries == plans[n].symmetries
            ]
            members = [assertions[m] for m in group]
            reduction = plan(compiled, members, options)
            try:
                verdicts = _check_group(compiled, members, limits, reduction)
            except NotSupported as refusal:
                if refusals is None:
                    raise
                if refusal.diagnostic not in refusals:
                    refusals.append(refusal.diagnostic)
                verdicts = [
                    Verdict(
                        print_assertion(a), a.span.line, UNKNOWN, reason=f"not checked: {refusal}"
                    )
                    for a in members
                ]
            for m, v in zip(group, verdicts):
                done[m] = v
        yield done.pop(n)


def _unbounded_cell(model: Model) -> Diagnostic | None:
    """M401 for the first cell of type Int: the explicit engines enumerate values."""
    for cell in model.cells.values():
        if isinstance(cell.type, IntT):
            span = cell.decl.span if cell.decl is not None else NO_SPAN
            return error(
                "M401",
                f"the cell '{cell.name}' has the unbounded type {show_type(cell.type)}, "
                "which the explicit engines cannot enumerate",
                span,
                hint="give it a range such as 0..10, or check with --engine symbolic",
            )
    return None


def _group_of(model: Model, assertions: list[A.AssertDecl], n: int) -> list[int]:
    """Assertion n and the later safety assertions about the same process."""
    a = assertions[n]
    if a.kind not in SAFETY:
        return [n]
    key = _process_key(model, a)
    return [n] + [
        m
        for m in range(n + 1, len(assertions))
        if assertions[m].kind in SAFETY and _process_key(model, assertions[m]) == key
    ]


def _process_key(model: Model, a: A.AssertDecl) -> str | None:
    proc = a.proc if a.proc is not None else model.system
    return None if proc is None else print_proc(proc)


def _check_group(
    c: Compiled, group: list[A.AssertDecl], limits: Limits, reduction: Reduction = NONE
) -> list[Verdict]:
    """Verdicts of one assertion, or of a group of safety assertions about one process,
    answered by one search; --timeout bounds that search (docs/limits.md), so each
    assertion of the group is given the time it says, and none more."""
    verdicts = _check_group_unnoted(c, group, limits, reduction)
    if not reduction.notes:
        return verdicts
    return [replace(v, reductions=reduction.notes) for v in verdicts]


def _check_group_unnoted(
    c: Compiled, group: list[A.AssertDecl], limits: Limits, reduction: Reduction
) -> list[Verdict]:
    model = c.model
    start = time.perf_counter()
    if limits.timeout is not None:
        c.set_deadline(time.monotonic() + limits.timeout)
    reason = None
    try:
        if len(group) == 1 and group[0].kind not in SAFETY:
            if limits.engine == "symbolic":
                raise _not_symbolic(group[0])
            return [_with_time(check_assertion(c, group[0], limits), time.perf_counter() - start)]
        return _safety(c, group, limits, reduction)
    except TimeLimit:  # the engines report their figures themselves; this is the backstop
        reason = f"timeout after {limits.timeout:g} s"
    except RecursionError:
        reason = "the process term grew too deep (recursion through an operator)"
    except StructureGrows as grows:
        reason = grows.message
    except MemoryError:
        reason = "out of memory; bound the search with --max-states"
    except Fault as fault:  # the initial term itself (a call with an argument out of range)
        return [_initial_error(c, a, fault, time.perf_counter() - start) for a in group]
    except BudgetExceeded as exc:  # --max-memory (fito.budget) outside the searches' own checks
        reason = exc.message
    seconds = time.perf_counter() - start
    return [
        Verdict(
            assertion_text(model, a),
            a.span.line,
            UNKNOWN,
            limit_hit=True,
            reason=reason,
            seconds=seconds,
        )
        for a in group
    ]


def _not_symbolic(a: A.AssertDecl, why: str | None = None) -> NotSupported:
    """M402: what the symbolic engine does not answer or translate (docs/symbolic.md)."""
    message = (
        f"the symbolic engine does not translate {why}"
        if why is not None
        else "the symbolic engine answers `always`, `reaches` and deadlock freedom only"
    )
    return NotSupported(error("M402", message, a.span, hint="check with --engine auto"))


def _initial_error(c: Compiled, a: A.AssertDecl, fault: Fault, seconds: float) -> Verdict:
    """A model error met making the initial state: `fails` with a run of no step."""
    code, message, span = c.error_site(fault)
    return Verdict(
        assertion_text(c.model, a),
        a.span.line,
        FAILS,
        states=0,
        seconds=seconds,
        reason=f"model error [{code}]: {message} (in the initial state)",
        error=ModelError(message, span),
    )


def _with_time(v: Verdict, seconds: float) -> Verdict:
    return replace(v, seconds=seconds)


def check_assertion(c: Compiled, a: A.AssertDecl, limits: Limits) -> Verdict:
    """The verdict of one assertion."""
    if a.kind in SAFETY:
        return _safety(c, [a], limits)[0]
    text = assertion_text(c.model, a)
    proc = a.proc if a.proc is not None else c.model.system
    if proc is None:
        return Verdict(text, a.span.line, UNKNOWN, reason="no process to check")
    if a.kind == "refines":
        return check_refinement(c, a, text, limits)
    if a.kind == "ltl":
        return check_ltl(c, a, text, limits)
    return check_eventually(c, a, text, limits)


def _safety(
    c: Compiled, group: list[A.AssertDecl], limits: Limits, reduction: Reduction = NONE
) -> list[Verdict]:
    """Safety assertions about one process, answered by one search (with symmetry: over
    representatives, each counterexample expanded into a run of the unreduced system)."""
    texts = [assertion_text(c.model, a) for a in group]
    proc = group[0].proc if group[0].proc is not None else c.model.system
    if proc is None:
        return [
            Verdict(t, a.span.line, UNKNOWN, reason="no process to check")
            for t, a in zip(texts, group)
        ]
    try:
        root = c.initial(proc)
    except RecursionError:
        return [
            Verdict(t, a.span.line, UNKNOWN, reason="unguarded recursion")
            for t, a in zip(texts, group)
        ]
    tasks = [_task(c, a) for a in group]
    try:
        answers = _search(c, root, tasks, limits, reduction)
    except Refused as refused:
        raise _not_symbolic(group[0], refused.reason) from None
    if reduction.por:
        answers = _shortest(c, root, tasks, limits, answers)
    out = []
    for a, text, d in zip(group, texts, answers):
        build = {
            "deadlock": _deadlock_verdict,
            "always": _always_verdict,
            "reaches": _reaches_verdict,
        }[a.kind]
        g: object = d
        if reduction.symmetric:
            g = _Expanded(d, reduction, root)
        v = _with_time(build(c, a, text, d.found, g), d.seconds)  # type: ignore[arg-type]
        if reduction.symmetric:
            own = getattr(d.graph, "represented", None)  # a distributed graph counts its own
            unreduced = own(d.states) if own else reduction.represented(d.graph, d.states)
            v = replace(v, unreduced_states=unreduced)
        out.append(v if d.proof is None else _proved(c, v, d.proof))
    return out


def _shortest(
    c: Compiled, root: tuple, tasks: list[Task], limits: Limits, answers: list[Decided]
) -> list[Decided]:
    """The answers of a search under partial-order reduction, each violation, deadlock,
    witness or model error searched again without it: the reduced graph keeps every such
    state reachable but not at its shortest depth, and `fails in N` counts the shortest
    trace. The unreduced search stops at that depth; answers that hold are the reduced
    search's. Where the second search meets a limit, the reduced run is kept (it is a real
    run of the system, possibly not a shortest one)."""
    redo = [i for i, d in enumerate(answers) if d.found.kind in (GOAL, DEADLOCK, ERROR)]
    if not redo:
        return answers
    again = _search(c, root, [tasks[i] for i in redo], limits)
    out = list(answers)
    for i, d in zip(redo, again):
        if d.found.kind in (GOAL, DEADLOCK, ERROR):
            out[i] = d
    return out


def _proved(c: Compiled, v: Verdict, proof: object) -> Verdict:
    """A verdict the symbolic engine proved: its method and inductive invariant."""
    from fito.check.symbolic.report import proof_fields  # lazy-import: z3, --engine symbolic

    method, invariant, cert, kernel = proof_fields(c, proof)
    return replace(v, proof=method, invariant=invariant, certificate=cert, kernel=kernel)


class _Expanded:
    """A reduced search's graph as the verdicts read it: figures as the search's, and the
    path to a state expanded into a run of the unreduced system (Reduction.expand)."""

    def __init__(self, d: Decided, reduction: Reduction, root: tuple) -> None:
        self.d = d
        self.reduction = reduction
        self.root = root
        self.transitions, self.depth, self.engine = d.transitions, d.depth, d.engine
        self.last: tuple | None = None
        self.step: int | None = None

    def __len__(self) -> int:
        return len(self.d)

    def run(self, c: Compiled, found: Found) -> list[tuple[tuple, int]]:
        chain = [self.d.state(s) for s in self.d.chain(found.state)]
        path, last, step = self.reduction.expand(c, self.root, chain, found.step)
        if found.step is not None:
            path.append((last, step))
        return path


def _task(c: Compiled, a: A.AssertDecl) -> Task:
    if a.kind == "deadlock":
        return Task(deadlock=True)
    assert a.expr is not None
    negate = a.kind == "always"
    return Task(c.predicate(a.expr, negate), c.expression(a.expr), negate)


HANDOVER_AT = 5_000  # engine auto: state by state up to here, then whole levels


def _search(
    c: Compiled, root: tuple, tasks: list[Task], limits: Limits, reduction: Reduction = NONE
) -> list[Decided]:
    """State by state for small searches, then the frontier engine (engine "auto"); or the
    engine asked for. The frontier engine needs states that pack into words."""
    if limits.distributed:  # every rank runs this; the ranks search together (MPI)
        from fito.check.distributed.search import (  # lazy-import: mpi4py and numpy, MPI runs
            distributed_search,
        )

        try:
            return distributed_search(c, root, tasks, limits, reduction)
        except NotPackable:  # every rank searches alone, state by state: the same answers
            return search(c, root, tasks, limits)[0]  # type: ignore[return-value]
    if limits.engine == "symbolic":
        from fito.check.symbolic.search import symbolic_search  # lazy-import: z3

        return symbolic_search(c, root, tasks, limits)
    start = None
    if limits.engine != "frontier":
        handover = HANDOVER_AT if limits.engine == "auto" else None
        got, g = search(c, root, tasks, limits, handover, reduction)
        if got is not None:
            return got
        start = g
    from fito.check.frontier.search import frontier_search  # lazy-import: numpy, large searches

    try:
        answers = None if start is None else start.answers
        return frontier_search(c, root, tasks, limits, start, answers, reduction)[0]  # type: ignore[arg-type]
    except NotPackable:
        return search(c, root, tasks, limits, None, reduction)[0]  # type: ignore[return-value]


def trace_of(c: Compiled, a: A.AssertDecl, g: Graph, found: Found, failure: Failure) -> dict:
    """The verdict fields of the run that ends in found: labels and the trace as data."""
    if isinstance(g, _Expanded):
        path = g.run(c, found) if found.state >= 0 else []
    else:
        steps = g.path(found.state) if found.state >= 0 else []
        path = [(g.state(s), k) for s, k in steps]
        if found.step is not None:
            path.append((g.state(found.state), found.step))
    proc = a.proc if a.proc is not None else c.model.system
    assert proc is not None
    expr = a.expr if failure.kind in (VIOLATION, WITNESS) else None
    run = build_trace(c, proc, path, failure, expr)
    return {"trace": run.labels, "run": run}


def _base(c: Compiled, a: A.AssertDecl, text: str, g: Graph, **kw: Any) -> Verdict:
    return Verdict(
        text,
        a.span.line,
        states=len(g),
        transitions=g.transitions,
        depth=g.depth,
        engine=g.engine,
        **kw,
    )


def _common(c: Compiled, a: A.AssertDecl, text: str, found: Found, g: Graph) -> Verdict | None:
    if found.kind == LIMIT:
        return _base(c, a, text, g, verdict=UNKNOWN, reason=found.reason, limit_hit=True)
    if found.kind == ERROR:
        assert found.fault is not None
        code, message, span = c.error_site(found.fault)
        reason = f"model error [{code}]: {message}"
        failure = Failure(MODEL_ERROR, reason, code=code, line=span.line, column=span.column)
        return _base(
            c,
            a,
            text,
            g,
            verdict=FAILS,
            reason=reason,
            error=ModelError(message, span),
            **trace_of(c, a, g, found, failure),
        )
    return None


def _deadlock_verdict(c: Compiled, a: A.AssertDecl, text: str, found: Found, g: Graph) -> Verdict:
    common = _common(c, a, text, found, g)
    if common is not None:
        return common
    if found.kind == DEADLOCK:
        reason = "deadlock: no transition is possible in the last state"
        return _base(
            c,
            a,
            text,
            g,
            verdict=FAILS,
            reason=reason,
            **trace_of(c, a, g, found, Failure(TRACE_DEADLOCK, reason)),
        )
    return _base(c, a, text, g, verdict=HOLDS)


def _always_verdict(c: Compiled, a: A.AssertDecl, text: str, found: Found, g: Graph) -> Verdict:
    common = _common(c, a, text, found, g)
    if common is not None:
        return common
    if found.kind == GOAL:
        assert a.expr is not None
        failure = Failure(
            VIOLATION, "the last state violates the expression", expression=print_expr(a.expr)
        )
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
        failure = Failure(
            WITNESS, "the last state satisfies the expression", expression=print_expr(a.expr)
        )
        return _base(c, a, text, g, verdict=HOLDS, **trace_of(c, a, g, found, failure))
    assert found.kind == EXHAUSTED
    return _base(c, a, text, g, verdict=FAILS, reason="no reachable state satisfies the expression")
