"""Syntactic rules that both the engine (fito/semantics) and the reference interpreter
(fito/reference) follow (docs/semantics.md): which calls of a process keep its activation,
and which operands of a definition's choice return to it (the fourth law of `[]`)."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from fito.lang import nodes as A


def loop_calls(decl: A.ProcessDecl) -> list[A.ProcRef]:
    """Calls of the definition from its own body outside every parallel operator: they keep
    the caller's activation (a loop); every other call makes a new one."""
    out: list[A.ProcRef] = []
    work: list[A.Proc] = [decl.body]
    while work:
        p = work.pop()
        if isinstance(p, A.ProcRef):
            if p.name == decl.name:
                out.append(p)
        elif isinstance(p, (A.Prefix, A.Guard, A.AssertStep, A.Atomic)):
            work.append(p.body)
        elif isinstance(p, A.ProcIf):
            work.extend((p.then, p.orelse))
        elif isinstance(p, A.ProcBinary) and p.op != "|||":
            work.extend((p.left, p.right))
        elif isinstance(p, (A.Hide, A.Rename)):
            work.append(p.proc)
        elif isinstance(p, A.Replicated) and p.op in ("[]", "|~|"):
            work.append(p.body)
        elif isinstance(p, A.Select):
            work.extend(p.branches + ((p.orelse,) if p.orelse is not None else ()))
    return out


def _names(e: object) -> set[str]:
    """Every name an expression mentions (bound or not)."""
    out: set[str] = set()
    work: list[object] = [e]
    while work:
        x = work.pop()
        if isinstance(x, A.Name):
            out.add(x.id)
        elif isinstance(x, tuple):
            work.extend(x)
        elif hasattr(x, "__dataclass_fields__"):
            work.extend(getattr(x, f) for f in x.__dataclass_fields__ if f != "span")
    return out


def choice_operands(
    decl: A.ProcessDecl, constants: Collection[str]
) -> Iterator[tuple[A.Proc, frozenset[str]]]:
    """The operands of the choice that the definition's body makes, with the names bound
    on the way (parameters and replicator variables): the body is walked through `[]`,
    replicated `[]` and the guards and `if`s whose condition reads only those names and
    constants (decided when the term is made, docs/semantics.md). Each operand yielded is
    an operand of the flattened chain every call of the definition makes, or is decided
    away (a false guard is STOP)."""
    params = frozenset(p.name for p in decl.params)
    work: list[tuple[A.Proc, frozenset[str]]] = [(decl.body, params)]
    while work:
        p, bound = work.pop()
        if isinstance(p, A.ProcBinary) and p.op == "[]":
            work.extend(((p.right, bound), (p.left, bound)))
        elif isinstance(p, A.Replicated) and p.op == "[]" and p.var not in params:
            work.append((p.body, bound | {p.var}))
        elif isinstance(p, (A.Guard, A.ProcIf)) and _names(p.cond) <= bound | set(constants):
            if isinstance(p, A.Guard):
                work.append((p.body, bound))
            else:
                work.extend(((p.orelse, bound), (p.then, bound)))
        else:
            yield p, bound


def _assigned(assigns: tuple[A.Assignment, ...]) -> set[str]:
    out: set[str] = set()
    for a in assigns:
        while isinstance(a, A.AssignLoop):
            a = a.body
        t = a.target
        while isinstance(t, A.Index):
            t = t.base
        if isinstance(t, A.Name):
            out.add(t.id)
    return out


def internal_call(p: A.Proc) -> tuple[list[A.Proc], A.Prefix, A.ProcRef] | None:
    """For an operand that is an assignment step `{ … } -> Q(…)` under guards: (the guards
    and the step, the step, the call); else None."""
    chain: list[A.Proc] = []
    while isinstance(p, A.Guard):
        chain.append(p)
        p = p.body
    if not (isinstance(p, A.Prefix) and p.event is None and isinstance(p.body, A.ProcRef)):
        return None
    chain.append(p)
    return chain, p, p.body


def recurrent_operands(decl: A.ProcessDecl, constants: Collection[str]) -> list[A.Proc]:
    """The nodes of the operands of the definition's choice that return to it: assignment
    steps (under guards) `{ … } -> D(x1, …, xn)` that call the definition D with its own
    parameters, in order, and assign none of them. Every τ of such an operand leads to a
    choice that offers the operand again, so a second copy of it in a chain adds nothing
    (the fourth law of docs/semantics.md, "Structural congruence of external choice")."""
    names = tuple(p.name for p in decl.params)
    out: list[A.Proc] = []
    for operand, _ in choice_operands(decl, constants):
        got = internal_call(operand)
        if got is None:
            continue
        chain, step, call = got
        if (
            call.name == decl.name
            and tuple(a.id if isinstance(a, A.Name) else None for a in call.args) == names
            and not _assigned(step.assigns) & set(names)
        ):
            out.extend(chain)
    return out


@dataclass(frozen=True)
class GrowingChoice:
    """A recursion through `[]` whose state may never close: `process` makes a choice with
    two or more operands that begin with an internal step, and `step` (one of them, which
    does not return to the choice) starts `cycle`, a chain of such steps back to it."""

    process: str
    step: A.Proc
    cycle: tuple[str, ...]


def growing_choices(
    processes: Mapping[str, A.ProcessDecl], constants: Collection[str]
) -> list[GrowingChoice]:
    """The recursions through `[]` that keep growing the choice (docs/semantics.md, rule
    ext-tau): an internal first step does not resolve a choice, so its other operands stay
    on offer while the called process adds its own; where the called process leads back
    through internal first steps to a choice of two or more internal operands, every round
    adds copies (the fourth law removes them only for operands that return to their own
    choice). Reported once per definition, at its first such operand."""
    edges: dict[str, list[tuple[A.Proc, str]]] = {}
    wide: set[str] = set()
    for name, decl in processes.items():
        recurrent = {id(n) for n in recurrent_operands(decl, constants)}
        internal = 0
        for operand, bound in choice_operands(decl, constants):
            got = internal_call(operand)
            first = operand
            while isinstance(first, A.Guard):
                first = first.body
            if isinstance(first, A.Prefix) and first.event is None:
                replicated = bound - {p.name for p in decl.params}
                internal += 2 if replicated else 1
            if got is not None and id(operand) not in recurrent and got[2].name in processes:
                edges.setdefault(name, []).append((operand, got[2].name))
        if internal >= 2:
            wide.add(name)
    out = []
    for name in sorted(wide):
        for step, callee in edges.get(name, ()):
            path = _path(edges, callee, name)
            if path is not None:
                out.append(GrowingChoice(name, step, (name, *path)))
                break
    return out


def _path(edges: Mapping[str, list[tuple[A.Proc, str]]], start: str, goal: str) -> list[str] | None:
    """The shortest chain of internal-step calls from start to goal (both included)."""
    paths: dict[str, list[str]] = {start: [start]}
    queue = [start]
    while queue:
        n = queue.pop(0)
        if n == goal:
            return paths[n]
        for _, m in edges.get(n, ()):
            if m not in paths:
                paths[m] = paths[n] + [m]
                queue.append(m)
    return None


def start_nodes(decl: A.ProcessDecl, constants: Collection[str]) -> list[A.Proc]:
    """The nodes a term of the definition's start is made of: the operands of the choice its
    body makes, with the bodies of their guards (a guard decided when the term is made is
    not in it) and the branches of an `if :: … fi` among them. A component whose term is made
    of these only (and Ω) waits at the definition's start (`end P`, docs/semantics.md)."""
    out: list[A.Proc] = []
    work = [operand for operand, _ in choice_operands(decl, constants)]
    while work:
        p = work.pop()
        out.append(p)
        if isinstance(p, A.Guard):
            work.append(p.body)
        elif isinstance(p, A.Select):
            work.extend(p.branches + ((p.orelse,) if p.orelse is not None else ()))
        elif isinstance(p, A.ProcBinary) and p.op == "[]":
            work.extend((p.left, p.right))
    return out
