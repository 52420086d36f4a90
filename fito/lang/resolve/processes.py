"""Static checks of process terms: names, arity, events against channels, assignments.

Process terms are walked with an explicit work list, so `a -> a -> ... -> STOP` and
`P [] P [] ... [] P` of any length cost no recursion.

A constant written into a cell or onto a channel outside its type is reported as a
warning only: LANGUAGE.md makes it a model error of the transition that produces it (the
assertion being checked fails with that transition at the end of its trace).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from fito.diagnostics import Span, warning
from fito.lang import nodes as A
from fito.lang.resolve.consteval import ConstError, NotConstant, evaluate
from fito.lang.resolve.model import INT, SetT, ValueType, is_finite, within
from fito.lang.resolve.statements import (
    array_shape,
    check_array_copy,
    check_event_set,
    check_operator,
    warn_internal_first_steps,
)

if TYPE_CHECKING:
    from fito.lang.resolve.resolver import Resolver

Scope = Mapping[str, ValueType]


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


def bind(scope: Scope, own: bool, name: str, t: ValueType) -> dict[str, ValueType]:
    """scope with name bound to t: in place when the scope is owned, else in a copy."""
    inner = scope if own and isinstance(scope, dict) else dict(scope)
    inner[name] = t
    return inner


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


def expect_bool(r: Resolver, e: A.Expr, scope: Scope, what: str) -> None:
    t = r.infer(e, scope)
    if t is not None and t.kind() != "Bool":
        r.err("T001", f"{what} must be Bool, not {t.kind()}", e.span)


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
            from fito.lang.resolve.resolver import a_kind

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
        value = try_const(r, arg, scope)
        if value is not None and not want.contains(value):
            from fito.lang.resolve.model import show_type

            r.err(
                "T008",
                f"argument {_show(want, value)} of '{p.name}' is outside {show_type(want)}",
                arg.span,
            )


def try_const(r: Resolver, e: A.Expr, scope: Scope) -> int | None:
    """The value of e if it is a constant expression (no cells, no bound names), else None."""
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Name) and (
        e.id in scope or r.names.get(e.id, ("",))[0] not in ("const", "member")
    ):
        return None

    def lookup(name: str, span: Span) -> int:
        if name in scope:
            raise NotConstant(span)
        entry = r.names.get(name)
        if entry is None or entry[0] not in ("const", "member"):
            raise NotConstant(span)
        if entry[0] == "member":
            return r.members_of(name)[1]
        got = r.const_value(name)
        if got is None:
            raise NotConstant(span)
        return got[1]

    try:
        return evaluate(e, lookup)
    except (NotConstant, ConstError):
        return None


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
    for f, want in zip(ev.fields, chan.fields):
        if isinstance(f, A.InField):
            inner, own = bind(inner, own, f.var, _input_type(r, ev, f, want)), True
            continue
        got_t = r.infer(f.value, inner)
        if got_t is None:
            continue
        if got_t.kind() != want.kind():
            r.err(
                "T003",
                f"field of '{ev.channel}' must be {want.kind()}, not {got_t.kind()}",
                f.value.span,
            )
            continue
        value = try_const(r, f.value, inner)
        if value is not None and not want.contains(value):
            from fito.lang.resolve.model import show_type

            r.diagnostics.append(
                warning(
                    "T003",
                    f"value {value} is outside the field type {show_type(want)} of '{ev.channel}'",
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


def check_assigns(r: Resolver, assigns: tuple[A.Statement, ...], scope: Scope) -> None:
    """Assignments of one block (loops unrolled by their bound name), each checked once."""
    seen: dict[tuple[object, ...], A.Assign] = {}
    for a, inner in _unloop(r, assigns, scope):
        root: A.Expr = a.target
        while isinstance(root, A.Index):
            root = root.base
        assert isinstance(root, A.Name)
        if root.id == "" or not _assignable(r, root, a, inner):
            continue
        shape = array_shape(r, a.target, inner)
        if shape is not None:
            check_array_copy(r, a, inner, shape)
        else:
            _check_assign(r, a, root, inner)
        key = _target_key(r, a.target, inner)
        if key in seen:
            first = seen[key].target.span
            r.err(
                "T005",
                f"'{_show_target(a.target)}' is written twice in one assignment block",
                a.target.span,
                hint="assignments in a block happen at once; combine them",
                notes=(f"first written at line {first.line}, column {first.column}",),
            )
        else:
            seen[key] = a


def _unloop(
    r: Resolver, assigns: tuple[A.Statement, ...], scope: Scope
) -> Iterator[tuple[A.Assign, Scope]]:
    """Each assignment with its scope: a loop `forall j: T @ ...` binds j."""
    for a in assigns:
        inner = scope
        while isinstance(a, A.AssignLoop):
            dom = r.resolve_type(a.domain)
            if dom is not None and not is_finite(dom):
                r.err("T006", "an assignment loop needs a finite set", a.domain.span)
                dom = None
            inner = bind(inner, False, a.var, dom or INT)
            a = a.body
        if isinstance(a, A.Assign):
            yield a, inner


def _check_assign(r: Resolver, a: A.Assign, root: A.Name, scope: Scope) -> None:
    target_t = r.infer(a.target, scope)
    value_t = r.infer(a.value, scope)
    if target_t is not None and value_t is not None and target_t.kind() != value_t.kind():
        r.err(
            "T001",
            f"'{root.id}' holds {target_t.kind()}, the value is {value_t.kind()}",
            a.value.span,
        )
    elif target_t is not None:
        value = try_const(r, a.value, scope)
        if value is not None and not target_t.contains(value):
            from fito.lang.resolve.model import show_type

            r.diagnostics.append(
                warning(
                    "T008",
                    f"value {value} is outside the type {show_type(target_t)} of '{root.id}'",
                    a.value.span,
                    hint="this assignment is a model error wherever it is enabled",
                )
            )


def _assignable(r: Resolver, root: A.Name, a: A.Assign, scope: Scope) -> bool:
    entry = r.names.get(root.id)
    if root.id in scope:
        r.err(
            "T011",
            f"'{root.id}' is a bound name, not a cell; it cannot be assigned",
            a.target.span,
            hint=f"declare the parameter `var` to assign it: process P(var {root.id}: T)",
        )
        return False
    if root.id in r.frame:
        return True
    if entry is None:
        r.err(
            "T004",
            f"assignment to '{root.id}', which is not a declared cell or variable",
            a.target.span,
            hint=r.suggest(root.id, "cell")
            or f"declare it: domain {root.id}: <type> = <init> volatile, or `var {root.id}: "
            "<type> = <init>` on the process",
        )
        return False
    if entry[0] != "cell":
        from fito.lang.resolve.resolver import a_kind

        r.err("T004", f"assignment to '{root.id}', {a_kind(entry[0])}, not a cell", a.target.span)
        return False
    return True


def _target_key(r: Resolver, target: A.Expr, scope: Scope) -> tuple[object, ...]:
    """Two targets with the same key surely denote the same cell."""
    parts: list[object] = []
    node = target
    while isinstance(node, A.Index):
        value = try_const(r, node.index, scope)
        parts.append(("v", value) if value is not None else ("e", node.index))
        node = node.base
    assert isinstance(node, A.Name)
    parts.append(node.id)
    return tuple(reversed(parts))


def _show_target(t: A.Expr) -> str:
    from fito.lang.printer.canonical import print_expr

    return print_expr(t)


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
