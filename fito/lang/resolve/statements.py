"""Static checks of the newer process forms: sets of events, renaming, `atomic` blocks,
whole-array and loop assignments (used by `fito.lang.resolve.processes`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from fito.diagnostics import warning
from fito.lang import nodes as A
from fito.lang.resolve.model import ValueType, within

if TYPE_CHECKING:
    from fito.lang.resolve.model import Channel
    from fito.lang.resolve.resolver import Resolver

Scope = Mapping[str, ValueType]


# ---------------------------------------------------------------------- operators
def check_operator(
    r: Resolver, p: A.Proc, scope: Scope, own: bool
) -> list[tuple[A.Proc, Scope, bool]]:
    """The checks of a binary operator, hiding, renaming, a step or a committing choice;
    its operands to check next, in order, with their scopes (see `static.check_proc`)."""
    if isinstance(p, (A.ProcBinary, A.Parallel, A.AlphaParallel)):
        if isinstance(p, A.ProcBinary) and p.op == "[]":
            warn_internal_first_steps(r, (p.left, p.right))
        elif isinstance(p, A.Parallel):
            check_event_set(r, p.sync, scope)
        elif isinstance(p, A.AlphaParallel):
            check_event_set(r, p.left_alpha, scope)
            check_event_set(r, p.right_alpha, scope)
        return [(p.left, scope, False), (p.right, scope, False)]
    if isinstance(p, (A.Hide, A.Rename)):
        if isinstance(p, A.Hide):
            check_event_set(r, p.chans, scope)
        else:
            check_rename(r, p, scope)
        return [(p.proc, scope, own)]
    if isinstance(p, (A.AssertStep, A.Atomic)):
        if isinstance(p, A.AssertStep):
            from fito.lang.resolve.processes import expect_bool

            expect_bool(r, p.cond, scope, "an assertion")
        else:
            check_statements(r, p.stmts, scope)
        return [(p.body, scope, own)]
    if isinstance(p, A.Select):
        branches = p.branches + ((p.orelse,) if p.orelse is not None else ())
        return [(b, scope, False) for b in branches]
    return []  # STOP, SKIP, and placeholders


# ---------------------------------------------------------------------- sets of events
def check_event_set(r: Resolver, s: A.EventSet | None, scope: Scope) -> None:
    """Every item names an unbuffered channel and values of its fields (constants and
    bound names only); `{...}` lists whole events, `{| ... |}` prefixes of events."""
    if s is None:
        return
    for item in s.items:
        _check_prefix(r, item, scope, whole=s.kind == "events")


def _check_prefix(r: Resolver, item: A.Event, scope: Scope, whole: bool) -> Channel | None:
    """Check one `c.v.w` of a set or a renaming; its channel when it is well formed."""
    chan = _set_channel(r, item, scope)
    if chan is None:
        return None
    n, m = len(item.fields), len(chan.fields)
    if n > m or (whole and n != m):
        r.err(
            "T002",
            f"channel '{item.channel}' carries {m} field(s), this event has {n}",
            item.span,
            hint="a set {...} lists whole events; {| c.0 |} stands for every "
            "event that starts with c.0"
            if whole and n < m
            else None,
        )
        return None
    for f, want in zip(item.fields, chan.fields):
        value = f.value  # type: ignore[union-attr]
        got = r.infer(value, scope)
        if got is not None and got.kind() != want.kind():
            r.err(
                "T003",
                f"field of '{item.channel}' must be {want.kind()}, not {got.kind()}",
                value.span,
            )
        for name in reads_state(r, value, scope):
            r.err(
                "T006",
                f"a set of events or a renaming cannot read '{name}'",
                value.span,
                hint="its values may use constants, parameters and bound names",
            )
            break
    return chan


def _set_channel(r: Resolver, item: A.Event, scope: Scope) -> Channel | None:
    if item.channel == "" or item.channel in r.failed:
        return None
    chan = r.channels.get(item.channel)
    if chan is None or item.channel in scope:
        if item.channel not in r.names and item.channel not in scope:
            r.err(
                "R001",
                f"channel '{item.channel}' is not defined",
                item.span,
                hint=r.suggest(item.channel, "channel"),
            )
        else:
            r.err("R004", f"'{item.channel}' is not a channel", item.span)
        return None
    if chan.buffered:
        r.err(
            "T014",
            f"'{item.channel}' is a buffered channel: its sends and receives are "
            "internal steps, which cannot be synchronised, hidden or renamed",
            item.span,
            hint="declare it without `buffer` to synchronise on it",
        )
        return None
    return chan


def reads_state(r: Resolver, e: A.Expr, scope: Scope) -> Iterator[str]:
    """Names of cells and process variables that e reads (bound names aside)."""
    work: list[object] = [e]
    inner: set[str] = set()
    while work:
        x = work.pop()
        if isinstance(x, (A.Quant, A.Let)):
            inner.add(x.var)
        if isinstance(x, A.Name) and x.id not in scope and x.id not in inner:
            if x.id in r.frame or r.names.get(x.id, ("",))[0] == "cell":
                yield x.id
        elif isinstance(x, tuple):
            work.extend(x)
        elif hasattr(x, "__dataclass_fields__"):
            work.extend(getattr(x, f) for f in x.__dataclass_fields__ if f != "span")


def check_rename(r: Resolver, p: A.Rename, scope: Scope) -> None:
    """Both sides are prefixes of events; the fields after them agree in number and type."""
    for pair in p.pairs:
        src = _check_prefix(r, pair.source, scope, whole=False)
        dst = _check_prefix(r, pair.target, scope, whole=False)
        if src is None or dst is None:
            continue
        rest_src = src.fields[len(pair.source.fields) :]
        rest_dst = dst.fields[len(pair.target.fields) :]
        if len(rest_src) != len(rest_dst) or not all(
            a.kind() == b.kind() and within(a, b) for a, b in zip(rest_src, rest_dst)
        ):
            r.err(
                "T015",
                f"'{_show(pair.source)}' cannot be renamed to '{_show(pair.target)}': "
                "the fields that follow differ",
                pair.span,
                hint="the remaining fields of both sides must have the same types",
            )


def _show(e: A.Event) -> str:
    from fito.lang.printer.canonical import print_event

    return print_event(e)


# ---------------------------------------------------------------------- atomic blocks
def check_statements(r: Resolver, stmts: tuple[A.Statement, ...], scope: Scope) -> None:
    """The statements of `atomic { }`: run in order, so a cell may be written twice."""
    from fito.lang.resolve.processes import check_assigns, expect_bool

    work = list(stmts)
    while work:
        s = work.pop()
        if isinstance(s, A.BlockIf):
            expect_bool(r, s.cond, scope, "an if condition")
            work.extend(s.then)
            work.extend(s.orelse)
        elif isinstance(s, A.BlockAssert):
            expect_bool(r, s.cond, scope, "an assertion")
        else:
            check_assigns(r, (s,), scope)


# ---------------------------------------------------------------------- whole arrays
def array_shape(
    r: Resolver, e: A.Expr, scope: Scope
) -> tuple[tuple[ValueType, ...], ValueType] | None:
    """(index types, element type) when e is the bare name of an array, else None."""
    if not isinstance(e, A.Name) or e.id in scope:
        return None
    var = r.frame.get(e.id)
    if var is not None:
        return (var.indices, var.type) if var.indices else None
    cell = r.cells.get(e.id)
    if cell is not None and cell.indices and r.names.get(e.id, ("",))[0] == "cell":
        return cell.indices, cell.type
    return None


def check_array_copy(
    r: Resolver, a: A.Assign, scope: Scope, shape: tuple[tuple[ValueType, ...], ValueType]
) -> None:
    """`a := b` of whole arrays: b has a's index types and an element type within a's."""
    other = array_shape(r, a.value, scope)
    name = a.target.id  # type: ignore[union-attr]
    if other is None:
        r.err(
            "T001",
            f"'{name}' is an array: assign it a whole array of the same shape, "
            "or its elements one by one",
            a.value.span,
            hint=f"forall i: T @ {name}[i] := ...",
        )
        return
    if other[0] != shape[0] or other[1].kind() != shape[1].kind():
        r.err(
            "T001",
            f"the arrays '{name}' and '{a.value.id}' have different shapes",  # type: ignore[union-attr]
            a.span,
            hint="a whole-array assignment needs the same index types",
        )


# ---------------------------------------------------------------------- choices
def warn_internal_first_steps(r: Resolver, operands: tuple[A.Proc, ...]) -> None:
    """T016 (a warning) for an operand of `[]` that starts with a buffered send or
    receive, an `assert` or an `atomic` step: those are internal, so taking one keeps the
    other operands on offer (rule ext-tau); `if :: ... fi` commits."""
    for operand in operands:
        step = _first_internal_step(r, operand)
        if step is not None:
            r.diagnostics.append(
                warning(
                    "T016",
                    f"{step} is an internal step: under `[]` it does not resolve the choice",
                    operand.span,
                    hint="to commit with the first step, write if :: P :: Q fi",
                )
            )


def _first_internal_step(r: Resolver, p: A.Proc) -> str | None:
    work = [p]
    while work:
        q = work.pop()
        if isinstance(q, A.Guard):
            work.append(q.body)
        elif isinstance(q, A.ProcIf):
            work.extend((q.then, q.orelse))
        elif isinstance(q, A.Select):
            work.extend(q.branches + ((q.orelse,) if q.orelse is not None else ()))
        elif isinstance(q, (A.AssertStep, A.Atomic)):
            return "an `assert`" if isinstance(q, A.AssertStep) else "an `atomic` block"
        elif isinstance(q, A.Prefix) and q.event is not None:
            chan = r.channels.get(q.event.channel)
            if chan is not None and chan.buffered:
                return f"a step on the buffered channel '{q.event.channel}'"
    return None
