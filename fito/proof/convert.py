"""Conversion into the certificate expression language from Python, SymPy and Z3 values.

SymPy and Z3 are imported only when an object of theirs is converted.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from fito.errors import FitoError
from fito.proof.kernel.expr import KernelError, is_symbol, parse, substitute, to_json

_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


class ConversionError(FitoError, ValueError):
    """An object has no form in the expression language (e.g. exp, a float, gamma)."""


def symbol_name(name: str) -> str:
    """A valid symbol for an arbitrary name (SymPy `g[0]` -> `g_0_`, Z3 `x!1` -> `x_1`)."""
    text = _UNSAFE.sub("_", name)
    return text if is_symbol(text) else "v_" + text


def to_expr(x: Any) -> Any:
    """The JSON expression of x: int, Fraction, bool, symbol name, JSON list, SymPy or Z3 object."""
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, Fraction):
        return to_json(x)
    if isinstance(x, (str, list)):
        try:
            return to_json(parse(x))
        except KernelError as exc:
            raise ConversionError(str(exc)) from None
    if isinstance(x, float):
        raise ConversionError(f"float {x!r} is not exact; use Fraction or sympy.Rational")
    module = type(x).__module__ or ""
    if module.startswith("sympy"):
        return _from_sympy(x)
    if module.startswith("z3"):
        return _from_z3(x)
    raise ConversionError(f"cannot convert {type(x).__name__} to an expression")


def instance(expr: Any, values: dict[Any, Any]) -> Any:
    """The JSON expression of expr with symbols replaced by values (numbers, symbols or
    expressions), without simplifying anything: the paper's formula at an instance, whose
    arithmetic the kernel then does itself. Bound variables of sum/prod are left alone."""
    mapping = {to_expr(k): parse(to_expr(v)) for k, v in values.items()}
    return to_json(substitute(parse(to_expr(expr)), mapping))


# ---------------------------------------------------------------- SymPy
def _from_sympy(e: Any) -> Any:
    import sympy  # lazy-import: sympy is slow to load

    if e is sympy.true or e is sympy.false:
        return bool(e)
    if isinstance(e, sympy.Rational):
        return to_json(Fraction(int(e.p), int(e.q)))
    if isinstance(e, sympy.Symbol):
        return symbol_name(e.name)
    if isinstance(e, sympy.Add):
        return ["+", *(_from_sympy(a) for a in _ordered(e.args))]
    if isinstance(e, sympy.Mul):
        return _sympy_mul(e)
    if isinstance(e, sympy.Pow):
        if e.base is sympy.E:
            return ["exp", _from_sympy(e.exp)]
        if e.exp.is_Rational and not e.exp.is_Integer:
            raise ConversionError(f"SymPy power {e} has a non-integer exponent")
        return ["^", _from_sympy(e.base), _from_sympy(e.exp)]
    return _sympy_other(e, sympy)


def _ordered(args: tuple) -> list:
    import sympy  # lazy-import: sympy is slow to load

    return list(sympy.ordered(args))


def _sympy_mul(e: Any) -> Any:
    import sympy  # lazy-import: sympy is slow to load

    coeff, rest = e.as_coeff_Mul()
    if coeff == -1:
        return ["-", _from_sympy(rest)]
    num, den = [], []
    for a in _ordered(e.args):
        if isinstance(a, sympy.Pow) and a.exp.is_Integer and a.exp < 0:
            den.append(_from_sympy(a.base ** (-a.exp)))
        elif isinstance(a, sympy.Rational) and a.q != 1:
            num.append(int(a.p))
            den.append(int(a.q))
        else:
            num.append(_from_sympy(a))
    top = num[0] if len(num) == 1 else ["*", *num] if num else 1
    if not den:
        return top
    return ["/", top, den[0] if len(den) == 1 else ["*", *den]]


_RELATIONS = {
    "StrictLessThan": "<",
    "LessThan": "<=",
    "StrictGreaterThan": ">",
    "GreaterThan": ">=",
    "Equality": "=",
    "Unequality": "!=",
}
_BOOLEAN = {
    "And": "and",
    "Or": "or",
    "Not": "not",
    "Implies": "implies",
    "Min": "min",
    "Max": "max",
    "Abs": "abs",
    "floor": "floor",
    "Mod": "mod",
}


def _sympy_other(e: Any, sympy: Any) -> Any:
    name = type(e).__name__
    if isinstance(e, sympy.exp):
        return ["exp", _from_sympy(e.args[0])]
    if isinstance(e, sympy.core.function.AppliedUndef):
        return ["fn", symbol_name(name), *(_from_sympy(a) for a in e.args)]
    if name in _RELATIONS:
        return [_RELATIONS[name], _from_sympy(e.lhs), _from_sympy(e.rhs)]
    if name in _BOOLEAN:
        args = e.args if name not in ("And", "Or", "Min", "Max") else _ordered(e.args)
        return [_BOOLEAN[name], *(_from_sympy(a) for a in args)]
    if isinstance(e, sympy.Piecewise) and len(e.args) == 2 and e.args[1].cond == sympy.true:
        (a, c), (b, _) = e.args
        return ["ite", _from_sympy(c), _from_sympy(a), _from_sympy(b)]
    raise ConversionError(f"SymPy {name} ({str(e)[:60]}) has no form in the expression language")


# ---------------------------------------------------------------- Z3
_Z3_OPS = {
    "+": "+",
    "*": "*",
    "-": "-",
    "/": "/",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "=": "=",
    "distinct": "!=",
    "and": "and",
    "or": "or",
    "not": "not",
    "=>": "implies",
    "if": "ite",
    "**": "^",
    "^": "^",
}


def _from_z3(e: Any) -> Any:
    import z3  # lazy-import: z3 is slow to load

    if z3.is_true(e) or z3.is_false(e):
        return z3.is_true(e)
    if z3.is_int_value(e):
        return e.as_long()
    if z3.is_rational_value(e):
        return to_json(Fraction(e.numerator_as_long(), e.denominator_as_long()))
    if z3.is_algebraic_value(e):
        raise ConversionError(f"Z3 algebraic number {e} is irrational")
    if z3.is_const(e):
        return symbol_name(str(e))
    name = e.decl().name()
    if name == "to_real":
        return _from_z3(e.arg(0))
    if name == "distinct" and e.num_args() != 2:
        raise ConversionError("Z3 distinct with more than two arguments")
    if name not in _Z3_OPS:
        raise ConversionError(f"Z3 operator {name} has no form in the expression language")
    return [_Z3_OPS[name], *(_from_z3(e.arg(i)) for i in range(e.num_args()))]
