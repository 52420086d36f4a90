"""Types of value expressions: Bool, Int (ranges), enumerations. Errors become diagnostics.

Chains of binary operators are checked in a loop down their spine (left-nested chains such
as `1 + 1 + ... + 1`, and `a => b => ...` to the right), so long chains cost no recursion.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from fito.lang import nodes as A
from fito.lang.operators import ARITHMETIC, COMPARISONS
from fito.lang.resolve.costs import refuse_costly_nest
from fito.lang.resolve.declarations import a_kind
from fito.lang.resolve.model import BOOL, INT, BoolT, EnumT, IntT, SetT, ValueType, is_finite

if TYPE_CHECKING:
    from fito.lang.resolve.resolver import Resolver

BUILTIN_FUNCTIONS = {"min": 2, "max": 2}
BUFFER_FUNCTIONS: dict[str, ValueType] = {"len": INT, "empty": BOOL, "full": BOOL}  # of a buffer
#: The names bound where an expression stands (parameters, inputs, quantified variables)
Scope = Mapping[str, ValueType]


def infer(r: Resolver, e: A.Expr, scope: Scope) -> ValueType | None:
    """The type of e in scope, or None after reporting an error."""
    rule = _RULES.get(type(e))
    return rule(r, e, scope) if rule is not None else None


def expect_bool(r: Resolver, e: A.Expr, scope: Scope, what: str) -> None:
    """Type e, with T001 when it is not Bool (`what` names it: "a guard", "an assertion")."""
    _expect(r, e, scope, BOOL, what)


def bind(scope: Scope, own: bool, name: str, t: ValueType) -> dict[str, ValueType]:
    """scope with name bound to t: in place when the scope is owned, else in a copy."""
    inner = scope if own and isinstance(scope, dict) else dict(scope)
    inner[name] = t
    return inner


def _int_lit(r: Resolver, e: A.IntLit, scope: Scope) -> ValueType:
    return INT


def _bool_lit(r: Resolver, e: A.BoolLit, scope: Scope) -> ValueType:
    return BOOL


def _unary(r: Resolver, e: A.Unary, scope: Scope) -> ValueType:
    want = INT if e.op == "-" else BOOL
    _expect(r, e.operand, scope, want, f"the operand of '{e.op}'")
    return want


def _if(r: Resolver, e: A.IfExpr, scope: Scope) -> ValueType | None:
    _expect(r, e.cond, scope, BOOL, "an if condition")
    a, b = infer(r, e.then, scope), infer(r, e.orelse, scope)
    if a is not None and b is not None and a.kind() != b.kind():
        r.err(
            "T001",
            f"the branches of this if have different types ({a.kind()} and {b.kind()})",
            e.span,
        )
        return None
    return _join(a, b)


def _let(r: Resolver, e: A.Let, scope: Scope) -> ValueType | None:
    value = infer(r, e.value, scope)
    inner = dict(scope)
    inner[e.var] = value or INT
    return infer(r, e.body, inner)


def _quant(r: Resolver, e: A.Quant, scope: Scope) -> ValueType:
    dom = r.resolve_type(e.domain)
    if dom is not None and not is_finite(dom):
        r.err("T006", f"'{e.kind}' needs a finite domain", e.domain.span)
        dom = None
    inner = dict(scope)
    inner[e.var] = dom or INT
    r.quantifiers.append(dom)
    try:
        refuse_costly_nest(r, e)
        _expect(r, e.body, inner, BOOL, f"the body of '{e.kind}'")
    finally:
        r.quantifiers.pop()
    return BOOL


def _join(a: ValueType | None, b: ValueType | None) -> ValueType | None:
    if a is None or b is None:
        return a or b
    if isinstance(a, (IntT, SetT)) or isinstance(b, (IntT, SetT)):
        return INT if a.kind() == "Int" else a
    return a if a == b else (INT if a.kind() == "Int" else a)


def _expect(r: Resolver, e: A.Expr, scope: Scope, want: ValueType, what: str) -> ValueType | None:
    got = infer(r, e, scope)
    _check_kind(r, e, got, want, what)
    return got


def _check_kind(r: Resolver, e: A.Expr, got: ValueType | None, want: ValueType, what: str) -> None:
    if got is not None and got.kind() != want.kind():
        r.err("T001", f"{what} must be {want.kind()}, not {got.kind()}", e.span)


def _name(r: Resolver, e: A.Name, scope: Scope) -> ValueType | None:
    if e.id in scope:
        return scope[e.id]
    if e.id in r.frame:
        var = r.frame[e.id]
        if var.indices:
            r.err(
                "R003",
                f"'{e.id}' is an array of {len(var.indices)} dimension(s); "
                "index it like " + e.id + "[...]" * len(var.indices),
                e.span,
            )
            return None
        return var.type
    if e.id in r.failed or e.id == "":  # reported where it is defined, or a placeholder
        return None
    entry = r.names.get(e.id)
    if entry is None:
        r.err("R001", f"'{e.id}' is not defined", e.span, hint=r.suggest(e.id))
        return None
    kind = entry[0]
    if kind == "const":
        got = r.const_value(e.id)
        return None if got is None else got[0]
    if kind == "member":
        return r.members_of(e.id)[0]
    if kind == "cell":
        cell = r.cells.get(e.id)
        if cell is None:
            return None
        if cell.indices:
            r.err(
                "R003",
                f"'{e.id}' is an array of {len(cell.indices)} dimension(s); "
                "index it like " + e.id + "[...]" * len(cell.indices),
                e.span,
            )
            return None
        return cell.type
    r.err("R004", f"'{e.id}' is {a_kind(kind)}, not a value", e.span)
    return None


def index_type(r: Resolver, e: A.Index, scope: Scope) -> ValueType | None:
    """Type of `a[i][j]`: a cell array read with one index per dimension."""
    indices: list[A.Expr] = []
    root: A.Expr = e
    while isinstance(root, A.Index):
        indices.append(root.index)
        root = root.base
    indices.reverse()
    if not isinstance(root, A.Name):
        r.err("T001", "only a domain cell array can be indexed", e.span)
        return None
    var = r.frame.get(root.id) if root.id not in scope else None
    if var is not None and var.indices:
        return _indexed(r, root.id, indices, var.indices, var.type, e, scope)
    if root.id in scope or var is not None or r.names.get(root.id, ("",))[0] != "cell":
        if root.id not in scope and root.id not in r.names:
            r.err("R001", f"'{root.id}' is not defined", root.span, hint=r.suggest(root.id))
        else:
            r.err("T001", f"'{root.id}' is not an array cell and cannot be indexed", root.span)
        return None
    cell = r.cells.get(root.id)
    if cell is None or root.id in r.failed:
        return None
    return _indexed(r, root.id, indices, cell.indices, cell.type, e, scope)


def _indexed(
    r: Resolver,
    name: str,
    indices: list[A.Expr],
    want: tuple[ValueType, ...],
    elem: ValueType,
    e: A.Index,
    scope: Scope,
) -> ValueType | None:
    if len(indices) != len(want):
        r.err("R003", f"'{name}' takes {len(want)} index(es), got {len(indices)}", e.span)
        return None
    for idx, w in zip(indices, want):
        got = infer(r, idx, scope)
        if got is not None and got.kind() != w.kind():
            r.err("T001", f"index of '{name}' must be {w.kind()}, not {got.kind()}", idx.span)
    return elem


def _binary(r: Resolver, e: A.Binary, scope: Scope) -> ValueType | None:
    if e.op == "=>":
        node: A.Expr = e
        while type(node) is A.Binary and node.op == "=>":
            _expect(r, node.left, scope, BOOL, "the left operand of '=>'")
            node = node.right
        _expect(r, node, scope, BOOL, "the right operand of '=>'")
        return BOOL
    spine: list[A.Binary] = []
    node = e
    while type(node) is A.Binary and node.op != "=>":
        spine.append(node)
        node = node.left
    acc = infer(r, node, scope)
    for b in reversed(spine):
        acc = _operator(r, b, acc, infer(r, b.right, scope))
    return acc


def _operator(r: Resolver, e: A.Binary, a: ValueType | None, b: ValueType | None) -> ValueType:
    """The type of `left op right` given the operands' types (None: already reported)."""
    if e.op in ARITHMETIC:
        _check_kind(r, e.left, a, INT, f"the left operand of '{e.op}'")
        _check_kind(r, e.right, b, INT, f"the right operand of '{e.op}'")
        return INT
    if e.op in ("and", "or"):
        _check_kind(r, e.left, a, BOOL, f"the left operand of '{e.op}'")
        _check_kind(r, e.right, b, BOOL, f"the right operand of '{e.op}'")
        return BOOL
    assert e.op in COMPARISONS
    if a is None or b is None:
        return BOOL
    if e.op in ("==", "!="):
        if a.kind() != b.kind():
            r.err("T001", f"'{e.op}' compares {a.kind()} with {b.kind()}", e.span)
        return BOOL
    for side, t in ((e.left, a), (e.right, b)):
        if t.kind() != "Int":
            what = (
                "enumeration values compare with == and != only"
                if isinstance(t, EnumT)
                else f"'{e.op}' needs Int operands, not {t.kind()}"
            )
            r.err("T001", what, side.span)
    return BOOL


def _call(r: Resolver, e: A.Call, scope: Scope) -> ValueType | None:
    if e.func in BUFFER_FUNCTIONS and e.func not in r.names:
        return _buffer_call(r, e, scope)
    arity = BUILTIN_FUNCTIONS.get(e.func)
    entry = r.names.get(e.func)
    if entry is not None and entry[0] == "function":
        return _user_call(r, e, scope)
    if arity is None:
        if entry is not None and entry[0] == "process":
            r.err("T001", f"process '{e.func}' stands where a value is expected", e.span)
        elif entry is not None and entry[0] == "cell":
            r.err("T001", f"'{e.func}' is a cell: index it with [ ], not ( )", e.span)
        else:
            from fito.lang.syntax.foreign import FOREIGN_NAMES  # lazy-import: unknown names only

            r.err(
                "R001",
                f"unknown function '{e.func}'",
                e.span,
                hint=FOREIGN_NAMES.get(e.func)
                or "the functions are min(a, b), max(a, b), "
                "len(q), empty(q), full(q) and those declared with `fun`",
            )
        return None
    if len(e.args) != arity:
        r.err("R003", f"'{e.func}' takes {arity} arguments, got {len(e.args)}", e.span)
        return None
    for a in e.args:
        _expect(r, a, scope, INT, f"an argument of '{e.func}'")
    return INT


def _buffer_call(r: Resolver, e: A.Call, scope: Scope) -> ValueType | None:
    """`len(q)`, `empty(q)`, `full(q)` of a buffered channel q."""
    if len(e.args) != 1:
        r.err("R003", f"'{e.func}' takes 1 argument, got {len(e.args)}", e.span)
        return None
    indices: list[A.Expr] = []
    root: A.Expr = e.args[0]
    while isinstance(root, A.Index):
        indices.append(root.index)
        root = root.base
    name = root.id if isinstance(root, A.Name) and root.id not in scope else ""
    chan = r.channels.get(name)
    if chan is None or not chan.buffered:
        what = (
            f"'{name}' is not a buffered channel"
            if name
            else "the argument must name a buffered channel"
        )
        r.err(
            "T001",
            f"{e.func}(q) needs a buffered channel: {what}",
            e.args[0].span,
            hint="declare it with a capacity: channel q: T buffer 2",
        )
        return None
    if len(indices) != chan.arrays:
        r.err("R003", f"'{name}' takes {chan.arrays} index(es), got {len(indices)}", e.args[0].span)
        return None
    for idx, want in zip(reversed(indices), chan.fields):
        got = infer(r, idx, scope)
        if got is not None and got.kind() != want.kind():
            r.err("T001", f"index of '{name}' must be {want.kind()}, not {got.kind()}", idx.span)
    return BUFFER_FUNCTIONS[e.func]


def _user_call(r: Resolver, e: A.Call, scope: Scope) -> ValueType | None:
    fn = r.function_sig(e.func)
    if fn is None:
        for a in e.args:
            infer(r, a, scope)
        return None
    if len(e.args) != len(fn.params):
        r.err("R003", f"'{e.func}' takes {len(fn.params)} argument(s), got {len(e.args)}", e.span)
        return None
    for a, want in zip(e.args, fn.params):
        got = infer(r, a, scope)
        if got is not None and got.kind() != want.kind():
            r.err("T001", f"argument of '{e.func}' must be {want.kind()}, not {got.kind()}", a.span)
    return fn.result


def is_bool(t: ValueType | None) -> bool:
    return isinstance(t, BoolT)


_RULES: dict[type, Callable[..., ValueType | None]] = {
    A.IntLit: _int_lit,
    A.BoolLit: _bool_lit,
    A.Name: _name,
    A.Index: index_type,
    A.Unary: _unary,
    A.Binary: _binary,
    A.IfExpr: _if,
    A.Quant: _quant,
    A.Call: _call,
    A.Let: _let,
}
