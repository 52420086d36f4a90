"""The verdict of an ltl assertion: run the check, show the lasso, say what it rests on."""

from __future__ import annotations

from dataclasses import replace

from fito.check.explore import stop_reason
from fito.check.ltl import buchi, formulas
from fito.check.ltl.emptiness import Accepting, Limit, search
from fito.check.ltl.fairness import Assumption, Judge, Refused, build_assumptions
from fito.check.ltl.lasso import cycle, stem
from fito.check.ltl.product import STUTTER, Key, Product, Succ, decode, encode
from fito.check.options import Limits
from fito.check.result import FAILS, HOLDS, UNKNOWN, ModelError, Verdict
from fito.check.traces.from_states import build_trace
from fito.check.traces.records import END, LOOP, MODEL_ERROR, Failure
from fito.lang import nodes as A
from fito.semantics.compiled import Compiled, Fault, StepFault, TimeLimit

ONE_PROCESS = "the ltl engine searches in one process (--jobs does not apply)"
UNREDUCED = "no reduction: the product is searched in full"


class _ErrorAt(Exception):
    """A model error met at a product state (the rank of the failing step, if any)."""

    def __init__(self, key: Key, fault: Fault, rank: int | None) -> None:
        super().__init__()
        self.key, self.fault, self.rank = key, fault, rank


class _Guarded:
    """The product, with each model error tagged by the state that met it."""

    def __init__(self, p: Product) -> None:
        self.p, self.aut, self.c = p, p.aut, p.c

    def successors(self, key: Key) -> list[Succ]:
        try:
            return self.p.successors(key)
        except StepFault as e:
            raise _ErrorAt(key, e.fault, e.step) from None  # type: ignore[arg-type]
        except Fault as f:
            raise _ErrorAt(key, f, None) from None

    def moves(self, s: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
        return self.p.moves(s)


def check_ltl(c: Compiled, a: A.AssertDecl, text: str, limits: Limits) -> Verdict:
    """The verdict of `a` (kind "ltl") on the compiled model."""
    proc = a.proc if a.proc is not None else c.model.system
    assert proc is not None and a.formula is not None
    notes = (UNREDUCED,) + ((ONE_PROCESS,) if limits.jobs > 1 else ())
    base = Verdict(text, a.span.line, UNKNOWN, engine="ltl", notes=notes)
    try:
        assumptions = build_assumptions(c, proc, a.fairness)
    except Refused as r:
        return _with(base, reason=r.reason)
    base = _with(base, fairness=tuple(x.text for x in assumptions))
    negated, atoms = formulas.translate(a.formula, negate=True)
    try:
        aut = buchi.translate(negated)
    except buchi.TooLarge:
        size = buchi.MAX_STATES
        return _with(base, reason=f"[M301] the formula's automaton has more than {size} states")
    check = _Check(c, proc, Product(c, aut, atoms), assumptions, base)
    try:
        return check.run(limits)
    except TimeLimit:
        return _with(base, reason=f"timeout after {limits.timeout:g} s", limit_hit=True)


def _with(v: Verdict, **kw: object) -> Verdict:
    return replace(v, **kw)  # type: ignore[arg-type]


class _Check:
    """One search and its verdict."""

    def __init__(
        self,
        c: Compiled,
        proc: A.Proc,
        p: Product,
        assumptions: tuple[Assumption, ...],
        base: Verdict,
    ) -> None:
        self.c, self.proc, self.p, self.assumptions, self.base = c, proc, p, assumptions, base

    def run(self, limits: Limits) -> Verdict:
        c = self.c
        try:
            root: Key = encode(c.initial(self.proc), 0)
        except Fault as f:
            return self.error(None, _ErrorAt(encode((), 0), f, None))

        def tick(n: int) -> str | None:
            return stop_reason(c.deadline, limits)

        judge = Judge(self.p, self.assumptions) if self.assumptions else None
        try:
            found, states, transitions = search(
                _Guarded(self.p),  # type: ignore[arg-type]
                root,
                judge,
                tick,
                limits.max_states,
            )
        except Limit as stop:
            return _with(self.base, reason=stop.reason, limit_hit=True)
        except _ErrorAt as e:
            return self.error(root, e)
        if found is None:
            return _with(self.base, verdict=HOLDS, states=states, transitions=transitions)
        return _with(self.lasso(root, found), states=states, transitions=transitions)

    def lasso(self, root: Key, found: Accepting) -> Verdict:
        c = self.c
        head, entry = stem(self.p, root, found.members.__contains__, lambda n: c.check_time())
        loop = cycle(self.p, found, entry)
        # a stutter leaves the model state as it was: the run shows none
        path = [(decode(k)[0], r) for k, r in head if r != STUTTER]
        if all(r == STUTTER for _, r in loop):
            what = "terminates" if c.is_terminated(decode(entry)[0]) else "deadlocks"
            reason = (
                f"the run {what} after {len(path)} steps and stays there forever (it stutters),"
                " which violates the formula"
            )
            run = build_trace(c, self.proc, path, Failure(END, reason))
            return _with(
                self.base, verdict=FAILS, reason=reason, trace=run.labels, run=run, depth=len(path)
            )
        start = len(path) + 1
        path += [(decode(k)[0], r) for k, r in loop]
        reason = f"a run violates the formula: steps {start} to {len(path)} repeat forever"
        run = build_trace(c, self.proc, path, Failure(LOOP, reason, loop_start=start))
        return _with(
            self.base,
            verdict=FAILS,
            reason=reason,
            trace=run.labels,
            run=run,
            loop_start=start,
            depth=len(path),
        )

    def error(self, root: Key | None, at: _ErrorAt) -> Verdict:
        c = self.c
        code, message, span = c.error_site(at.fault)
        reason = f"model error [{code}]: {message}"
        path: list[tuple[tuple[int, ...], int]] = []
        if root is not None:
            head, _ = stem(self.p, root, lambda k: k == at.key, lambda n: c.check_time())
            path = [(decode(k)[0], r) for k, r in head if r != STUTTER]
            if at.rank is not None:
                path.append((decode(at.key)[0], at.rank))
        failure = Failure(MODEL_ERROR, reason, code=code, line=span.line, column=span.column)
        run = build_trace(c, self.proc, path, failure)
        return _with(
            self.base,
            verdict=FAILS,
            reason=reason,
            error=ModelError(message, span),
            trace=run.labels,
            run=run,
        )
