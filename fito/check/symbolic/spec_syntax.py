"""A Z3 invariant over the store and the control as spec expressions: slot variables by
their cell names (`p[1]`, `has[gpu][0]`), the control as `at L` with each location named."""

from __future__ import annotations

from fractions import Fraction

import z3

from fito.check.symbolic.linear import NotLinear, atom, show_atom
from fito.check.symbolic.prove import Proof
from fito.semantics.compiled import Compiled

_OPS = {
    z3.Z3_OP_LE: "<=",
    z3.Z3_OP_GE: ">=",
    z3.Z3_OP_LT: "<",
    z3.Z3_OP_GT: ">",
    z3.Z3_OP_EQ: "==",
    z3.Z3_OP_DISTINCT: "!=",
    z3.Z3_OP_ADD: "+",
    z3.Z3_OP_SUB: "-",
    z3.Z3_OP_MUL: "*",
    z3.Z3_OP_DIV: "/",
    z3.Z3_OP_IDIV: "/",
    z3.Z3_OP_MOD: "%",
}


def invariant_lines(c: Compiled, proof: Proof) -> tuple[str, ...]:
    """The invariant's conjuncts, each in spec syntax."""
    names = {f"x{i}": n for i, n in enumerate(c.layout.names)}
    names["pc"] = "control"
    f = proof.invariant
    parts = f.children() if z3.is_and(f) else [f]
    return tuple(show(p, names) for p in parts)


def show(e: z3.ExprRef, names: dict[str, str]) -> str:
    """One Z3 term in spec syntax (fully parenthesised below the top)."""
    if z3.is_true(e):
        return "true"
    if z3.is_false(e):
        return "false"
    if z3.is_int_value(e):
        return str(e.as_long())
    if z3.is_const(e):
        return names.get(str(e), str(e))
    args = [_sub(a, names) for a in e.children()]
    got = _linear_atom(e, names)
    if got is not None:
        return got
    if z3.is_not(e):
        inner = _linear_atom(e.children()[0], names, negate=True)
        return inner if inner is not None else f"not {args[0]}"
    if z3.is_and(e):
        return " and ".join(args)
    if z3.is_or(e):
        return " or ".join(args)
    if z3.is_implies(e):
        return f"{args[0]} => {args[1]}"
    if z3.is_app_of(e, z3.Z3_OP_ITE):
        return f"if {args[0]} then {args[1]} else {args[2]}"
    if z3.is_app_of(e, z3.Z3_OP_UMINUS):
        return f"-{args[0]}"
    kind = e.decl().kind()
    if kind in _OPS and len(args) >= 2:
        return f" {_OPS[kind]} ".join(args)
    return str(e)


def _linear_atom(e: z3.ExprRef, names: dict[str, str], negate: bool = False) -> str | None:
    """A comparison of linear terms as `lhs op rhs` (negated: the opposite comparison)."""
    try:
        got = atom(e)
    except NotLinear:
        return None
    if got is None:
        return None
    t, op = got
    if negate:
        if op == ">=":  # not (t >= 0) is -t - 1 >= 0 over the integers
            t = {k: -v for k, v in t.items()}
            t[""] = t.get("", Fraction(0)) - 1
        else:
            op = "!=" if op == "=" else "="
    return show_atom(t, op, names)


def _sub(e: z3.ExprRef, names: dict[str, str]) -> str:
    text = show(e, names)
    simple = z3.is_const(e) or z3.is_int_value(e) or z3.is_not(e)
    return text if simple else f"({text})"
