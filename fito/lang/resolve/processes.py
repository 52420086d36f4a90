"""Static checks of process terms: calls, prefixes and their events against the channels,
the operators with their sets of events and renamings, and recursion without an event.

Process terms are walked with an explicit work list, so `a -> a -> ... -> STOP` and
`P [] P [] ... [] P` of any length cost no recursion. The assignments of a prefix and the
statements of an `atomic` step are checked by `fito.lang.resolve.statements`.

A constant sent on a channel outside its field type is reported as a warning only:
LANGUAGE.md makes it a model error of the transition that produces it (the assertion being
checked fails with that transition at the end of its trace).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from fito.diagnostics import Span, warning
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_event
from fito.lang.resolve.declarations import a_kind
from fito.lang.resolve.inference import Scope, bind, expect_bool
from fito.lang.resolve.model import (
    INT,
    Channel,
    SetT,
    ValueType,
    is_finite,
    show_type,
    within,
)
from fito.lang.resolve.statements import check_assigns, check_statements

if TYPE_CHECKING:
    from fito.lang.resolve.resolver import Resolver


def check_proc(r: Resolver, p: A.Proc, scope: Scope) -> None:
    """Report every static problem in p.

    Each work item carries whether its scope is its own (no other item shares it): then
    bindings (inputs, replicated variables) go into it in place, so a chain such as
    `c?x1 -> c?x2 -> ...` costs linear time; a scope shared by two branches is copied first.
    """
    work: list[tuple[A.Proc, Scope, bool]] = [(p, scope, False)]
    while work:
        p, scope, own = work.pop()
        if isinstance(p, A.Prefix):
            inner, own = _check_prefix(r, p, scope, own)
            work.append((p.body, inner, own))
        elif isinstance(p, A.Guard):
            expect_bool(r, p.cond, scope, "a guard")
            work.append((p.body, scope, own))
        elif isinstance(p, A.ProcRef):
            _check_call(r, p, scope)
        elif isinstance(p, A.ProcIf):
            expect_bool(r, p.cond, scope, "an if condition")
            work.append((p.orelse, scope, False))
            work.append((p.then, scope, False))
        elif isinstance(p, A.Replicated):
            if p.op == "[]":
                warn_internal_first_steps(r, (p.body,))
            work.append((p.body, _replicated_scope(r, p, scope, own), True))
        else:
            work.extend(reversed(check_operator(r, p, scope, own)))


def _check_prefix(r: Resolver, p: A.Prefix, scope: Scope, own: bool) -> tuple[Scope, bool]:
    """Check the event and the assignments; the scope of the body (with the inputs bound)."""
    inner, own = (scope, own) if p.event is None else _check_event(r, p.event, scope, own)
    if p.assigns:
        check_assigns(r, p.assigns, inner)
    return inner, own


def _replicated_scope(r: Resolver, p: A.Replicated, scope: Scope, own: bool) -> Scope:
    dom = r.resolve_type(p.domain)
    if dom is not None and not is_finite(dom):
        r.err("T006", "a replicated operator needs a finite set", p.domain.span)
        dom = None
    inner = bind(scope, own, p.var, dom or INT)
    check_event_set(r, p.sync, inner if p.op == "||" else scope)
    return inner


def _check_call(r: Resolver, p: A.ProcRef, scope: Scope) -> None:
    entry = r.names.get(p.name)
    if p.name in scope or entry is None or entry[0] != "process":
        if entry is None and p.name not in scope:
            r.err(
                "R001",
                f"process '{p.name}' is not defined",
                p.span,
                hint=r.suggest(p.name, "process"),
            )
        else:
            what = "a bound value" if p.name in scope else a_kind(entry[0])  # type: ignore[index]
            r.err("R004", f"'{p.name}' is {what}, not a process", p.span)
        return
    params = r.param_types.get(p.name, ())
    if len(p.args) != len(params):
        r.err(
            "R003", f"process '{p.name}' takes {len(params)} argument(s), got {len(p.args)}", p.span
        )
        return
    for arg, want in zip(p.args, params):
        got = r.infer(arg, scope)
        if got is not None and got.kind() != want.kind():
            r.err(
                "T001", f"argument of '{p.name}' must be {want.kind()}, not {got.kind()}", arg.span
            )
            continue
        value = r.try_const(arg, scope)
        if value is not None and not want.contains(value):
            r.err(
                "T008",
                f"argument {_show(want, value)} of '{p.name}' is outside {show_type(want)}",
                arg.span,
            )


def _show(t: ValueType, v: int) -> str:
    return t.show(v) if t.contains(v) else str(v)


def _check_event(r: Resolver, ev: A.Event, scope: Scope, own: bool) -> tuple[Scope, bool]:
    """Check the event against its channel; the scope with the event's inputs bound."""
    entry = r.names.get(ev.channel)
    chan = r.channels.get(ev.channel)
    if ev.channel == "" or ev.channel in r.failed:  # a placeholder, or reported already
        return _bind_inputs(ev, scope, own)
    if ev.channel in scope or chan is None:
        if entry is None and ev.channel not in scope:
            r.err(
                "R001",
                f"channel '{ev.channel}' is not defined",
                ev.span,
                hint=r.suggest(ev.channel, "channel") or f"declare it: channel {ev.channel}",
            )
        else:
            r.err("R004", f"'{ev.channel}' is not a channel", ev.span)
        return _bind_inputs(ev, scope, own)
    if len(ev.fields) != len(chan.fields):
        r.err(
            "T002",
            f"channel '{ev.channel}' carries {len(chan.fields)} field(s), "
            f"this event has {len(ev.fields)}",
            ev.span,
        )
        return _bind_inputs(ev, scope, own)
    inner: Scope = scope
    for f in ev.fields[: chan.arrays] if chan.buffered else ():
        if isinstance(f, A.InField):
            r.err(
                "T001",
                f"the index of the buffer array '{ev.channel}' must be a value",
                f.span,
                hint=f"name the buffer: {ev.channel}[i]?x",
            )
    for k, (f, want) in enumerate(zip(ev.fields, chan.fields)):
        if isinstance(f, A.InField):
            inner, own = bind(inner, own, f.var, _input_type(r, ev, f, want)), True
            continue
        got_t = r.infer(f.value, inner)
        if got_t is None:
            continue
        if got_t.kind() != want.kind():
            r.err(
                "T003",
                f"{chan.field_text(k)} must be {want.kind()}, not {show_type(got_t)}",
                f.value.span,
            )
            continue
        value = r.try_const(f.value, inner)
        if value is not None and not want.contains(value):
            r.diagnostics.append(
                warning(
                    "T003",
                    f"value {value} is outside {chan.field_text(k)}",
                    f.value.span,
                    hint="this event is a model error wherever it is enabled",
                )
            )
    return inner, own


def _bind_inputs(ev: A.Event, scope: Scope, own: bool) -> tuple[Scope, bool]:
    """After an error in the event: its inputs bound to Int, so the body reports no more."""
    for f in ev.fields:
        if isinstance(f, A.InField):
            scope, own = bind(scope, own, f.var, INT), True
    return scope, own


def _input_type(r: Resolver, ev: A.Event, f: A.InField, want: ValueType) -> ValueType:
    if f.restriction is None:
        return want
    got = r.resolve_type(f.restriction)
    if got is None:
        return want
    if got.kind() != want.kind() or not within(got, want):
        r.err(
            "T003", f"input set of '{f.var}' is not within the field type of '{ev.channel}'", f.span
        )
        return want
    return got if not isinstance(got, SetT) else got


# ---------------------------------------------------------------------- operators
def check_operator(
    r: Resolver, p: A.Proc, scope: Scope, own: bool
) -> list[tuple[A.Proc, Scope, bool]]:
    """The checks of a binary operator, hiding, renaming, a step or a committing choice;
    its operands to check next, in order, with their scopes (see `check_proc`)."""
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
        _check_set_item(r, item, scope, whole=s.kind == "events")


def _check_set_item(r: Resolver, item: A.Event, scope: Scope, whole: bool) -> Channel | None:
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
    for k, (f, want) in enumerate(zip(item.fields, chan.fields)):
        value = f.value  # type: ignore[union-attr]
        got = r.infer(value, scope)
        if got is not None and got.kind() != want.kind():
            r.err(
                "T003",
                f"{chan.field_text(k)} must be {want.kind()}, not {show_type(got)}",
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
        src = _check_set_item(r, pair.source, scope, whole=False)
        dst = _check_set_item(r, pair.target, scope, whole=False)
        if src is None or dst is None:
            continue
        rest_src = src.fields[len(pair.source.fields) :]
        rest_dst = dst.fields[len(pair.target.fields) :]
        if len(rest_src) != len(rest_dst) or not all(
            a.kind() == b.kind() and within(a, b) for a, b in zip(rest_src, rest_dst)
        ):
            r.err(
                "T015",
                f"'{print_event(pair.source)}' cannot be renamed to '{print_event(pair.target)}': "
                "the fields that follow differ",
                pair.span,
                hint="the remaining fields of both sides must have the same types",
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


# ---------------------------------------------------------------------- unguarded recursion
def unguarded_cycles(processes: Mapping[str, A.ProcessDecl]) -> Iterator[tuple[str, Span]]:
    """Processes that can reach a call of themselves without an event or a tau in between."""
    calls = {name: set(unguarded_calls(d.body)) for name, d in processes.items()}
    reported: set[str] = set()
    for start in sorted(calls):
        stack, seen = list(calls[start]), set()
        while stack:
            n = stack.pop()
            if n == start:
                if start not in reported:
                    reported.add(start)
                    yield start, processes[start].name_span
                break
            if n in seen or n not in calls:
                continue
            seen.add(n)
            stack.extend(calls[n])


def unguarded_calls(p: A.Proc) -> Iterator[str]:
    """Names of the processes p may call before performing any event or tau."""
    work = [p]
    while work:
        p = work.pop()
        if isinstance(p, A.ProcRef):
            yield p.name
        elif isinstance(p, (A.Guard, A.Replicated)):
            work.append(p.body)
        elif isinstance(p, A.ProcBinary):
            if p.op not in (";", "[>"):  # Q starts after a tau
                work.append(p.right)
            work.append(p.left)
        elif isinstance(p, (A.Parallel, A.AlphaParallel)):
            work.append(p.right)
            work.append(p.left)
        elif isinstance(p, (A.Hide, A.Rename)):
            work.append(p.proc)
        elif isinstance(p, A.Select):
            work.extend(p.branches)
            if p.orelse is not None:
                work.append(p.orelse)
        elif isinstance(p, A.ProcIf):
            work.append(p.orelse)
            work.append(p.then)
