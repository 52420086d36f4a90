"""Linear integer atoms of Z3 formulas: `sum c_i x_i + d >= 0` or `= 0` with integer
coefficients (strict comparisons tightened, as integers allow), for the certificate and the
invariant's printing."""

from __future__ import annotations

from fractions import Fraction

import z3

Linear = dict[str, Fraction]  # variable -> coefficient; "" -> the constant


class NotLinear(Exception):
    """A term outside linear integer arithmetic (an `if` term, a product of variables)."""


def linear(e: z3.ExprRef) -> Linear:
    """The linear form of an integer term."""
    if z3.is_int_value(e):
        return {"": Fraction(e.as_long())}
    if z3.is_const(e) and e.sort() == z3.IntSort():
        return {str(e): Fraction(1)}
    args = e.children()
    if z3.is_add(e):
        return _sum(*(linear(a) for a in args))
    if z3.is_sub(e):
        first, *rest = (linear(a) for a in args)
        return _sum(first, *(_scale(r, Fraction(-1)) for r in rest))
    if z3.is_app_of(e, z3.Z3_OP_UMINUS):
        return _scale(linear(args[0]), Fraction(-1))
    if z3.is_mul(e):
        forms = [linear(a) for a in args]
        out: Linear = {"": Fraction(1)}
        for f in forms:
            if set(f) <= {""}:
                out = _scale(out, f.get("", Fraction(0)))
            elif set(out) <= {""}:
                out = _scale(f, out.get("", Fraction(0)))
            else:
                raise NotLinear(str(e))
        return out
    raise NotLinear(str(e))


def _sum(*forms: Linear) -> Linear:
    out: Linear = {}
    for f in forms:
        for k, v in f.items():
            out[k] = out.get(k, Fraction(0)) + v
    return {k: v for k, v in out.items() if v != 0}


def _scale(f: Linear, c: Fraction) -> Linear:
    return {k: v * c for k, v in f.items() if v * c != 0}


def atom(e: z3.ExprRef) -> tuple[Linear, str] | None:
    """A comparison as (t, op) meaning `t op 0`, op in >=, =, != (None: not a comparison)."""
    kinds = {
        z3.Z3_OP_GE: (1, ">="),
        z3.Z3_OP_LE: (-1, ">="),
        z3.Z3_OP_GT: (1, ">"),
        z3.Z3_OP_LT: (-1, ">"),
        z3.Z3_OP_EQ: (1, "="),
        z3.Z3_OP_DISTINCT: (1, "!="),
    }
    if not z3.is_app(e) or e.decl().kind() not in kinds or len(e.children()) != 2:
        return None
    a, b = e.children()
    if a.sort() != z3.IntSort():
        return None
    sign, op = kinds[e.decl().kind()]
    t = _sum(linear(a), _scale(linear(b), Fraction(-1)))
    t = _scale(t, Fraction(sign)) if sign < 0 else t
    if op == ">":  # integers: t > 0 is t - 1 >= 0
        t, op = _sum(t, {"": Fraction(-1)}), ">="
    return t, op


def show_atom(t: Linear, op: str, names: dict[str, str]) -> str:
    """`t op 0` as `lhs op rhs` with positive coefficients on both sides."""
    left = [(k, v) for k, v in sorted(t.items()) if k and v > 0]
    right = [(k, -v) for k, v in sorted(t.items()) if k and v < 0]
    const = t.get("", Fraction(0))

    def side(terms: list[tuple[str, Fraction]], c: Fraction) -> str:
        parts = [names.get(k, k) if v == 1 else f"{v} * {names.get(k, k)}" for k, v in terms]
        if c or not parts:
            parts.append(str(c))
        return " + ".join(parts)

    shown = {">=": ">=", "=": "==", "!=": "!="}[op]
    if not left and right:  # 0 >= ... reads better as ... <= c
        back = {">=": "<=", "=": "==", "!=": "!="}[op]
        return f"{side(right, Fraction(0))} {back} {side([], const)}"
    return f"{side(left, Fraction(0))} {shown} {side(right, -const)}"
