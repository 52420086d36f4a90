"""Static checks of assignments and statement blocks: the block of a prefix
(`a { x := 1, y[i] := 2 } -> P`: at once, so no cell twice), its loops (`forall j: T @ ...`)
and whole-array copies, and the statements of an `atomic { }` step (in order: `if`, `assert`
and assignments).

A constant written into a cell or a variable outside its type is reported as a warning
only: LANGUAGE.md makes it a model error of the transition that produces it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from fito.diagnostics import warning
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_expr
from fito.lang.resolve.declarations import a_kind
from fito.lang.resolve.inference import Scope, bind, expect_bool
from fito.lang.resolve.model import INT, ValueType, is_finite, show_type

if TYPE_CHECKING:
    from fito.lang.resolve.resolver import Resolver


# ---------------------------------------------------------------------- blocks of a prefix
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
                f"'{print_expr(a.target)}' is written twice in one assignment block",
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
        value = r.try_const(a.value, scope)
        if value is not None and not target_t.contains(value):
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
        r.err("T004", f"assignment to '{root.id}', {a_kind(entry[0])}, not a cell", a.target.span)
        return False
    return True


def _target_key(r: Resolver, target: A.Expr, scope: Scope) -> tuple[object, ...]:
    """Two targets with the same key surely denote the same cell."""
    parts: list[object] = []
    node = target
    while isinstance(node, A.Index):
        value = r.try_const(node.index, scope)
        parts.append(("v", value) if value is not None else ("e", node.index))
        node = node.base
    assert isinstance(node, A.Name)
    parts.append(node.id)
    return tuple(reversed(parts))


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


# ---------------------------------------------------------------------- atomic blocks
def check_statements(r: Resolver, stmts: tuple[A.Statement, ...], scope: Scope) -> None:
    """The statements of `atomic { }`: run in order, so a cell may be written twice."""
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
