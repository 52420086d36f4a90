"""The typing rules of the pipeline operations (docs/types.md states them as inference rules).

snapshot gives Snap or a product of Snaps; commit, converge and assume give Conv(P, e);
time needs one Snap; restore, resume and deploy need a Conv; save and log take either.
The epoch equalities a `converge` needs are recorded as obligations for Z3 (fito.types.decide).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.types.context import Context, Obligation, Part, call_text
from fito.types.env import Binding, Global, kind_word
from fito.types.epochs import compare, ite_int
from fito.types.expr import infer, number
from fito.types.kinds import (
    UNKNOWN,
    Conv,
    EpochRef,
    EpochT,
    FitoType,
    IntT,
    NoValue,
    Product,
    Snap,
    TimeT,
    Unknown,
    describe,
    text,
)

STATEMENTS = ("restore", "resume", "deploy", "save", "log")
VALUES = ("snapshot", "converge", "commit", "assume", "time", "min", "max")
OPERATIONS = VALUES + STATEMENTS
_CONV_HINT = "use commit(P, e, {doms}) or converge(P, e, {arg}) to obtain a Conv"


# ---------------------------------------------------------------------------- entry points
def call_type(ctx: Context, call: A.Call, at: A.Expr | None) -> FitoType:
    """The type of an operation used as a value (`let x = ...` or an argument)."""
    rule = _RULES.get(call.func)
    if rule is None:  # its arguments are not typed: nobody knows what they should be
        _unknown_operation(ctx, call.func, call.span)
        return UNKNOWN
    result = (
        snapshot(ctx, call.func, call.args, call.span, at)
        if call.func == "snapshot"
        else rule(ctx, call.func, call.args, call.span)
    )
    if isinstance(result, NoValue):
        ctx.error(
            "T001",
            f"{call_text(call.func, call.args)} is a statement: it has no value",
            call.span,
            hint=f"write `{call.func}(...)` on its own line",
        )
        return UNKNOWN
    return result


def call_statement(ctx: Context, stmt: A.CallStmt) -> None:
    """An operation on its own line; a value it produces is discarded."""
    rule = _RULES.get(stmt.func)
    if rule is None:
        _unknown_operation(ctx, stmt.func, stmt.span)
        return
    rule(ctx, stmt.func, stmt.args, stmt.span)


def _unknown_operation(ctx: Context, func: str, span: Span) -> None:
    close = difflib.get_close_matches(func, OPERATIONS, n=1, cutoff=0.6)
    hint = (
        f"did you mean '{close[0]}'?" if close else "pipeline operations: " + ", ".join(OPERATIONS)
    )
    where = Span(
        span.line,
        span.column,
        span.line,
        span.column + len(func),
        span.start,
        span.start + len(func),
    )
    ctx.error("R001", f"'{func}' is not a pipeline operation", where, hint=hint)


def _arity(
    ctx: Context,
    func: str,
    args: Sequence[A.Expr],
    span: Span,
    low: int,
    high: int | None,
    usage: str,
) -> bool:
    n = len(args)
    if n >= low and (high is None or n <= high):
        return True
    ctx.error("R003", f"{func} takes {usage}; got {n} argument{'s' if n != 1 else ''}", span)
    return False


# ---------------------------------------------------------------------------- positions
def domain(ctx: Context, e: A.Expr) -> str | None:
    """A domain argument: a declared domain cell or an enumeration member (else T012)."""
    if isinstance(e, A.Index):
        return _indexed_domain(ctx, e)
    if not isinstance(e, A.Name):
        ctx.error(
            "T012",
            f"'{text(e)}' is not a domain: a pipeline domain is a declared domain "
            "cell or a member of an enumeration type",
            e.span,
        )
        return None
    entry = ctx.scope.lookup(e.id)
    if isinstance(entry, Global) and entry.kind in ("cell", "member"):
        return e.id
    if entry is None:
        close = ctx.scope.suggest(e.id, ("cell", "member"))
        hint = (
            f"did you mean '{close}'?"
            if close
            else "declare it, e.g. `type Dom = {gpu, host, nvme}` or "
            "`domain d: Bool = false durable`"
        )
        ctx.error(
            "T012",
            f"'{e.id}' is not a domain: it is declared neither as a domain cell "
            "nor as a member of an enumeration type",
            e.span,
            hint=hint,
        )
        return None
    ctx.error(
        "T012",
        f"'{e.id}' is {kind_word(entry)}, not a domain: a pipeline domain is a "
        "declared domain cell or a member of an enumeration type",
        e.span,
    )
    return None


def _indexed_domain(ctx: Context, e: A.Index) -> str | None:
    count = 0
    root: A.Expr = e
    while isinstance(root, A.Index):
        count, root = count + 1, root.base
    dims = ctx.scope.dims.get(root.id) if isinstance(root, A.Name) else None
    if dims is None or count > dims:
        why = (
            f"'{text(root)}' is not an array of domain cells"
            if dims is None
            else f"'{text(root)}' has {dims} index{'es' if dims != 1 else ''}, not {count}"
        )
        ctx.error("T012", f"'{text(e)}' is not a domain: {why}", e.span)
        return None
    return text(e)


def protocol(ctx: Context, e: A.Expr, func: str) -> str | None:
    """The protocol P of Conv(P, e): a name that is not a local value, cell, channel or type."""
    if not isinstance(e, A.Name):
        ctx.error(
            "T001",
            f"the protocol of {func} must be a name (such as Trained), not '{text(e)}'",
            e.span,
            hint=f"{func}(P, e, ...) takes the protocol first",
        )
        return None
    entry = ctx.scope.lookup(e.id)
    if isinstance(entry, Binding) or (
        isinstance(entry, Global) and entry.kind in ("cell", "channel", "const", "type")
    ):
        ctx.error(
            "T001",
            f"'{e.id}' is {kind_word(entry)}, not a protocol name",
            e.span,
            hint=f"{func}(P, e, ...) takes the protocol first, then the epoch",
        )
        return None
    return e.id


def epoch(ctx: Context, e: A.Expr, func: str) -> EpochRef | None:
    return number(ctx, e, f"the epoch of {func}")


def state(ctx: Context, e: A.Expr, what: str) -> FitoType:
    """A Snap, product or Conv argument; T001 for other values."""
    t = infer(ctx, e)
    if isinstance(t, (Snap, Product, Conv, Unknown)):
        return t
    ctx.error(
        "T001", f"{what} must be a state (Snap or Conv), but '{text(e)}' is {describe(t)}", e.span
    )
    return UNKNOWN


# ---------------------------------------------------------------------------- value rules
def snapshot(
    ctx: Context, func: str, args: Sequence[A.Expr], span: Span, at: A.Expr | None = None
) -> FitoType:
    """snapshot(D1, ..., Dn) [@ e]: Snap(D1, t1), or Snap(D1, t1) x ... x Snap(Dn, tn)."""
    if not _arity(ctx, func, args, span, 1, None, "one or more domains: snapshot(gpu, ...)"):
        return UNKNOWN
    names = [domain(ctx, a) for a in args]
    meta = None if at is None else number(ctx, at, "the epoch metadata after '@'")
    if any(n is None for n in names) or (at is not None and meta is None):
        return UNKNOWN
    parts = tuple(Snap(n, ctx.fresh_time(), meta) for n in names if n is not None)
    return parts[0] if len(parts) == 1 else Product(parts)


def commit(ctx: Context, func: str, args: Sequence[A.Expr], span: Span) -> FitoType:
    """commit(P, e, D1, ..., Dn): a commit protocol over the domains gives Conv(P, e)."""
    if not _arity(
        ctx,
        func,
        args,
        span,
        3,
        None,
        "a protocol, an epoch and one or more domains: commit(P, e, gpu, ...)",
    ):
        return UNKNOWN
    p, e = protocol(ctx, args[0], func), epoch(ctx, args[1], func)
    doms = [domain(ctx, a) for a in args[2:]]
    if p is None or e is None:
        return UNKNOWN
    return Conv(p, e, tuple(d for d in doms if d is not None))


def converge(ctx: Context, func: str, args: Sequence[A.Expr], span: Span) -> FitoType:
    """converge(P, e, x1, ..., xn): Conv(P, e) once every xi is proved to be of epoch e."""
    if not _arity(
        ctx,
        func,
        args,
        span,
        3,
        None,
        "a protocol, an epoch and one or more states: converge(P, e, s, ...)",
    ):
        return UNKNOWN
    p, e = protocol(ctx, args[0], func), epoch(ctx, args[1], func)
    parts: list[Part] = []
    bare: list[tuple[A.Expr, FitoType]] = []
    domains: list[str] = []
    for a in args[2:]:
        t = state(ctx, a, f"each input of {func}")
        domains.extend(_domains(t))
        for piece in _pieces(t):
            if isinstance(piece, Snap) and piece.epoch is None:
                bare.append((a, t))
            elif isinstance(piece, (Snap, Conv)) and piece.epoch is not None:
                parts.append(Part(a, piece, piece.epoch))
    if bare:
        _snap_without_epoch(ctx, func, args, bare)
    if e is not None and parts:
        ctx.obligations.append(Obligation(func, tuple(args), span, e, tuple(_unique(parts))))
    if p is None or e is None:
        return UNKNOWN
    return Conv(p, e, tuple(dict.fromkeys(domains)))


def _pieces(t: FitoType) -> tuple[FitoType, ...]:
    return t.parts if isinstance(t, Product) else (t,)


def _unique(parts: list[Part]) -> list[Part]:
    seen: set[tuple[int, object]] = set()
    out = []
    for part in parts:
        key = (id(part.expr), part.epoch.term)
        if key not in seen:
            seen.add(key)
            out.append(part)
    return out


def _snap_without_epoch(
    ctx: Context, func: str, args: Sequence[A.Expr], bare: list[tuple[A.Expr, FitoType]]
) -> None:
    first, t = bare[0]
    names = ", ".join(f"'{text(a)}'" for a, _ in {id(a): (a, u) for a, u in bare}.values())
    target = text(args[1])
    snap = t.parts[0] if isinstance(t, Product) else t
    dom = snap.domain if isinstance(snap, Snap) else "gpu"
    reading = f"snapshot({', '.join(p.domain for p in _pieces(t) if isinstance(p, Snap))})"
    ctx.error(
        "FITO006",
        f"{call_text(func, args)} cannot converge {names}: '{text(first)}' is "
        f"{describe(t)}, so nothing shows that it belongs to epoch {target}",
        first.span,
        notes=(f"'{text(first)}' was read from {dom} without `@ epoch`",),
        hint=f"record the epoch when reading: `let {_binder(first)} = {reading} @ {target}`",
    )


def _binder(e: A.Expr) -> str:
    return e.id if isinstance(e, A.Name) else "s"


def assume(ctx: Context, func: str, args: Sequence[A.Expr], span: Span) -> FitoType:
    """assume(P, e, x1, ..., xn): an unchecked cast to Conv(P, e), with warning FITOW01."""
    if not _arity(
        ctx,
        func,
        args,
        span,
        3,
        None,
        "a protocol, an epoch and one or more states: assume(P, e, s, ...)",
    ):
        return UNKNOWN
    p, e = protocol(ctx, args[0], func), epoch(ctx, args[1], func)
    inputs = [(a, state(ctx, a, f"each input of {func}")) for a in args[2:]]
    if p is None or e is None:
        return UNKNOWN
    shown = "; ".join(
        f"'{text(a)}' is {describe(t)}" for a, t in inputs if not isinstance(t, Unknown)
    )
    domains = tuple(dict.fromkeys(d for _, t in inputs for d in _domains(t)))
    ctx.warn(
        "FITOW01",
        f"{call_text(func, args)} assumes Conv({p}, {e.text}) without evidence: "
        "an unchecked convergence assumption",
        span,
        notes=(shown,) if shown else (),
        hint=f"let the checker verify it: converge({p}, {e.text}, ...) checks the epochs, "
        f"commit({p}, {e.text}, {', '.join(domains) or 'D'}) runs a commit protocol",
    )
    return Conv(p, e, domains)


def _domains(t: FitoType) -> tuple[str, ...]:
    if isinstance(t, Snap):
        return (t.domain,)
    if isinstance(t, Product):
        return tuple(p.domain for p in t.parts)
    if isinstance(t, Conv):
        return t.domains
    return ()


def time(ctx: Context, func: str, args: Sequence[A.Expr], span: Span) -> FitoType:
    """time(s): the time t of a Snap(D, t); a Conv has none (FITO003), nor a product (FITO004)."""
    if not _arity(ctx, func, args, span, 1, 1, "one snapshot: time(s)"):
        return UNKNOWN
    arg = args[0]
    t = infer(ctx, arg)
    if isinstance(t, Snap):
        return TimeT(t.time)
    if isinstance(t, Conv):
        ctx.error(
            "FITO003",
            f"time({text(arg)}) asks for the time of '{text(arg)}', {describe(t)}, which has none",
            arg.span,
            notes=(
                (
                    f"Conv({t.protocol}, {t.epoch.text}) is evidence that epoch "
                    f"{t.epoch.text} was certified on a consistent cut, not a reading "
                    "taken at one instant"
                ),
            ),
            hint=f"identify the state by its epoch ({t.epoch.text}); time(...) applies to "
            "a snapshot Snap(D, t)",
        )
    elif isinstance(t, Product):
        _product_as_atomic(
            ctx,
            f"time({text(arg)})",
            "asks for one time of",
            arg,
            t,
            "take the time of each part: snapshot each domain on its own line",
        )
    elif not isinstance(t, Unknown):
        ctx.error(
            "T001",
            f"time needs a snapshot Snap(D, t), but '{text(arg)}' is {describe(t)}",
            arg.span,
        )
    return UNKNOWN


def _product_as_atomic(
    ctx: Context, call: str, verb: str, arg: A.Expr, t: Product, hint: str
) -> None:
    order = " < ".join(f"t{p.time}" for p in t.parts)
    ctx.error(
        "FITO004",
        f"{call} {verb} '{text(arg)}' as if it were one atomic snapshot, but it is {describe(t)}",
        arg.span,
        notes=(
            (f"the domains were read one after the other ({order}): no instant covers them all"),
        ),
        hint=hint,
    )


def extreme(ctx: Context, func: str, args: Sequence[A.Expr], span: Span) -> FitoType:
    """min(a, b) and max(a, b) of numbers."""
    if not _arity(ctx, func, args, span, 2, 2, f"two numbers: {func}(a, b)"):
        return UNKNOWN
    a, b = (number(ctx, x, f"an argument of {func}") for x in args)
    if a is None or b is None:
        return UNKNOWN
    chosen = ite_int(
        compare("<=", a.term, b.term), *((a.term, b.term) if func == "min" else (b.term, a.term))
    )
    ref = EpochRef(chosen, expr=A.Call(func, tuple(args), span=span))
    return EpochT(ref) if chosen.variables() else IntT(ref)


# ---------------------------------------------------------------------------- statement rules
def consume(ctx: Context, func: str, args: Sequence[A.Expr], span: Span) -> FitoType:
    """restore(c), resume(c), deploy(c): need a converged state Conv(P, e)."""
    if not _arity(ctx, func, args, span, 1, 1, f"one converged state: {func}(c)"):
        return NoValue(func)
    arg = args[0]
    t = infer(ctx, arg)
    if isinstance(t, Snap):
        arg_text = text(arg)
        if t.epoch is not None:
            hint = (
                f"use converge(P, {t.epoch.text}, {arg_text}) or commit(P, {t.epoch.text}, "
                f"{t.domain}) to obtain a Conv(P, {t.epoch.text})"
            )
        else:
            hint = (
                f"use commit(P, e, {t.domain}) to obtain a Conv, or read the snapshot with its "
                f"epoch (`let {_binder(arg)} = snapshot({t.domain}) @ e`) and converge it: "
                f"converge(P, e, {_binder(arg)})"
            )
        ctx.error(
            "FITO001",
            f"{func}({arg_text}) needs a converged state Conv(P, e), but "
            f"'{arg_text}' is {describe(t)}",
            arg.span,
            notes=(("a snapshot is a reading at one time, not evidence that an epoch converged"),),
            hint=hint,
        )
    elif isinstance(t, Product):
        doms = ", ".join(p.domain for p in t.parts)
        _product_as_atomic(
            ctx,
            f"{func}({text(arg)})",
            "restores" if func == "restore" else "uses",
            arg,
            t,
            _CONV_HINT.format(doms=doms, arg=text(arg))
            + " (converge needs the snapshot read with `@ e`)",
        )
    elif not isinstance(t, (Conv, Unknown)):
        ctx.error(
            "T001",
            f"{func} needs a converged state Conv(P, e), but '{text(arg)}' is {describe(t)}",
            arg.span,
        )
    return NoValue(func)


def save(ctx: Context, func: str, args: Sequence[A.Expr], span: Span) -> FitoType:
    """save(x, D): a state (Snap, product or Conv) written to a domain."""
    if _arity(ctx, func, args, span, 2, 2, "a state and a domain: save(s, nvme)"):
        state(ctx, args[0], "the first argument of save")
        domain(ctx, args[1])
    return NoValue(func)


def log(ctx: Context, func: str, args: Sequence[A.Expr], span: Span) -> FitoType:
    """log(x, ...): any values."""
    if _arity(ctx, func, args, span, 1, None, "one or more values: log(x, ...)"):
        for a in args:
            infer(ctx, a)
    return NoValue(func)


Rule = Callable[[Context, str, Sequence[A.Expr], Span], FitoType]
_RULES: dict[str, Rule] = {
    "snapshot": snapshot,
    "converge": converge,
    "commit": commit,
    "assume": assume,
    "time": time,
    "min": extreme,
    "max": extreme,
    "restore": consume,
    "resume": consume,
    "deploy": consume,
    "save": save,
    "log": log,
}
__all__ = ["OPERATIONS", "STATEMENTS", "VALUES", "call_statement", "call_type"]
