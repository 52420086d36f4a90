"""The expression language of certificates: JSON in, exact evaluation with Fractions out.

An expression is JSON: an integer, a rational string "p/q", a symbol (an identifier
string), true/false, or a list `[op, arg, ...]`. Parsed expressions are nested tuples
`(op, arg, ...)` whose leaves are `Fraction`, `bool` or `str` (a symbol). Standard library only.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

MAX_DEPTH = 100
MAX_POWER_BITS = 4_000_000

_RATIONAL = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?\Z")
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

ARITY: dict[str, tuple[int, int]] = {  # op -> (min, max) number of arguments; -1 = any
    "+": (1, -1),
    "*": (1, -1),
    "-": (1, 2),
    "/": (2, 2),
    "^": (2, 2),
    "min": (1, -1),
    "max": (1, -1),
    "abs": (1, 1),
    "floor": (1, 1),
    "mod": (2, 2),
    "div": (2, 2),
    "<": (2, 2),
    "<=": (2, 2),
    "=": (2, 2),
    "!=": (2, 2),
    ">=": (2, 2),
    ">": (2, 2),
    "and": (1, -1),
    "or": (1, -1),
    "not": (1, 1),
    "implies": (2, 2),
    "ite": (3, 3),
    "fn": (2, -1),
    "sum": (4, 4),
    "prod": (4, 4),
    "exp": (1, 1),
}
BINDERS = ("sum", "prod")  # [op, var, lo, hi, body]: var is bound in body
COMPARISONS = ("<", "<=", "=", "!=", ">=", ">")


class KernelError(Exception):
    """A kernel refusal: the certificate is malformed or a check fails (the message says which)."""


def is_symbol(x: object) -> bool:
    """True for a string that is a valid symbol name."""
    return isinstance(x, str) and _SYMBOL.match(x) is not None


def parse_rational(x: object, what: str = "number") -> Fraction:
    """A JSON integer or "p/q" string as a Fraction (floats are refused: they are not exact)."""
    if isinstance(x, bool):
        raise KernelError(f"{what}: expected a rational, got a boolean")
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, str) and _RATIONAL.match(x):
        return Fraction(x)
    if isinstance(x, float):
        raise KernelError(f'{what}: floating-point number {x!r} is not exact; write "p/q"')
    raise KernelError(f'{what}: expected an integer or "p/q", got {_short(x)}')


def parse(x: object, depth: int = 0) -> Any:
    """Validate a JSON expression and return its tuple form."""
    if depth > MAX_DEPTH:
        raise KernelError("expression nests too deeply")
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, str):
        if _RATIONAL.match(x):
            return Fraction(x)
        if _SYMBOL.match(x):
            return x
        raise KernelError(f'{_short(x)} is neither a symbol nor a rational "p/q"')
    if isinstance(x, list) and x and isinstance(x[0], str):
        op = x[0]
        if op not in ARITY:
            raise KernelError(f"unknown operator {op!r}")
        lo, hi = ARITY[op]
        n = len(x) - 1
        if n < lo or (hi >= 0 and n > hi):
            most = "" if hi == lo else "+" if hi < 0 else f"-{hi}"
            raise KernelError(f"operator {op!r} takes {lo}{most} arguments, got {n}")
        if op == "fn" or op in BINDERS:  # a function name or a bound variable comes first
            if not is_symbol(x[1]):
                raise KernelError(f"{op}: {_short(x[1])} is not a name")
            return (op, x[1], *(parse(a, depth + 1) for a in x[2:]))
        return (op, *(parse(a, depth + 1) for a in x[1:]))
    raise KernelError(f"not an expression: {_short(x)}")


def to_json(e: Any) -> Any:
    """The canonical JSON form of a parsed expression."""
    if isinstance(e, (bool, str)):
        return e
    if isinstance(e, Fraction):
        return e.numerator if e.denominator == 1 else f"{e.numerator}/{e.denominator}"
    if e[0] == "fn" or e[0] in BINDERS:
        return [e[0], e[1], *(to_json(a) for a in e[2:])]
    return [e[0], *(to_json(a) for a in e[1:])]


def symbols(e: Any, out: set[str] | None = None) -> set[str]:
    """The free symbols of a parsed expression (not function names, not bound variables)."""
    out = set() if out is None else out
    if isinstance(e, str):
        out.add(e)
    elif isinstance(e, tuple):
        if e[0] == "fn":
            for a in e[2:]:
                symbols(a, out)
        elif e[0] in BINDERS:
            symbols(e[2], out)
            symbols(e[3], out)
            out.update(symbols(e[4]) - {e[1]})
        else:
            for a in e[1:]:
                symbols(a, out)
    return out


def functions(e: Any, out: set[str] | None = None) -> set[str]:
    """The names of the uninterpreted functions applied in a parsed expression."""
    out = set() if out is None else out
    if isinstance(e, tuple):
        if e[0] == "fn":
            out.add(e[1])
        for a in e[1:] if e[0] not in BINDERS and e[0] != "fn" else e[2:]:
            functions(a, out)
    return out


def substitute(e: Any, mapping: dict[str, Any]) -> Any:
    """Replace free symbols by parsed expressions, simultaneously (capture-avoiding)."""
    if isinstance(e, str):
        return mapping.get(e, e)
    if not isinstance(e, tuple):
        return e
    if e[0] == "fn":
        return (e[0], e[1], *(substitute(a, mapping) for a in e[2:]))
    if e[0] in BINDERS:
        op, var, lo, hi, body = e
        inner = {k: v for k, v in mapping.items() if k != var}
        if any(var in symbols(v) for v in inner.values()):
            used = symbols(body).union(*(symbols(v) for v in inner.values()))
            fresh = fresh_name(var, used)
            body, var = substitute(body, {var: fresh}), fresh
        return (op, var, substitute(lo, mapping), substitute(hi, mapping), substitute(body, inner))
    return (e[0], *(substitute(a, mapping) for a in e[1:]))


def fresh_name(base: str, used: set[str]) -> str:
    """base, or base followed by underscores, not in `used`."""
    name = base
    while name in used:
        name += "_"
    return name


def render(e: Any) -> str:
    """A short human-readable form for messages."""
    text = _render(e)
    return text if len(text) <= 120 else text[:117] + "..."


def render_full(e: Any) -> str:
    """The whole human-readable form (also the name of opaque atoms: equal text, equal term)."""
    return _render(e)


def _render(e: Any) -> str:
    if isinstance(e, bool):
        return "true" if e else "false"
    if isinstance(e, (Fraction, str)):
        return str(e)
    op, args = e[0], e[1:]
    if op in ("+", "*", "/", "^") or op in COMPARISONS or (op == "-" and len(args) == 2):
        return "(" + f" {op} ".join(_render(a) for a in args) + ")"
    if op == "fn":
        return f"{args[0]}(" + ", ".join(_render(a) for a in args[1:]) + ")"
    if op in BINDERS:
        var, lo, hi, body = args
        return f"{op}_({var}={_render(lo)}..{_render(hi)}) {_render(body)}"
    return f"{op}(" + ", ".join(_render(a) for a in args) + ")"


def _short(x: object) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------- exact evaluation
# Values are bool, int or Fraction (an integral value is kept as an int, which is exact and
# fast); division always goes through Fraction, so no float ever appears.
Env = dict[str, Any]
Number = int | Fraction


def is_number(v: object) -> bool:
    """True for an exact number (int or Fraction), False for a truth value."""
    t = type(v)
    return t is int or t is Fraction


def exact(v: Fraction | int) -> Number:
    """A number with an integral Fraction turned into an int."""
    return v.numerator if type(v) is Fraction and v.denominator == 1 else v


def evaluate(e: Any, env: Env) -> Number | bool:
    """The exact value of a parsed expression under an assignment of its symbols."""
    return compile_expr(e)(env)


def compile_expr(e: Any) -> Callable[[Env], Any]:
    """A closure computing the expression's value from an environment (fast repeated use)."""
    if isinstance(e, bool):
        truth: bool = e
        return lambda env: truth
    if isinstance(e, Fraction):
        value = exact(e)
        return lambda env: value
    if isinstance(e, str):
        return _lookup(e)
    if e[0] == "fn":
        name, args = e[1], [compile_expr(a) for a in e[2:]]

        def apply(env: Env) -> Any:  # a function's meaning, when given, is env["@" + name]
            f = env.get("@" + name)
            if f is None:
                raise KernelError(f"function {name} has no value (an uninterpreted function)")
            return f(*(a(env) for a in args))

        return apply
    if e[0] in BINDERS:
        return _big(e[0], e[1], compile_expr(e[2]), compile_expr(e[3]), compile_expr(e[4]))
    op, parts = e[0], [compile_expr(a) for a in e[1:]]
    return _OPS[op](parts)


MAX_TERMS_EVALUATED = 100_000


def _big(op: str, var: str, lo: Callable, hi: Callable, body: Callable) -> Callable[[Env], Number]:
    """sum or product of body over the integers lo..hi (empty: 0 or 1)."""

    def run(env: Env) -> Number:
        a, b = _int(lo(env), f"{op} bound"), _int(hi(env), f"{op} bound")
        if b - a + 1 > MAX_TERMS_EVALUATED:
            raise KernelError(f"{op} over more than {MAX_TERMS_EVALUATED} terms")
        inner = dict(env)
        acc: Number = 0 if op == "sum" else 1
        for v in range(a, b + 1):
            inner[var] = v
            x = _num(body(inner), op)
            acc = exact(acc + x if op == "sum" else acc * x)
        return acc

    return run


def _lookup(name: str) -> Callable[[Env], Any]:
    def get(env: Env) -> Any:
        try:
            return env[name]
        except KeyError:
            raise KernelError(f"symbol {name} has no value") from None

    return get


def _num(v: Any, op: str) -> Number:
    if type(v) is int or type(v) is Fraction:
        return v
    raise KernelError(f"{op} expects numbers, got {render(v) if isinstance(v, bool) else repr(v)}")


def _bool(v: Any, op: str) -> bool:
    if type(v) is not bool:
        raise KernelError(f"{op} expects truth values, got the number {v}")
    return v


def _int(v: Any, op: str) -> int:
    v = _num(v, op)
    if type(v) is Fraction:
        raise KernelError(f"{op} expects integers, got {v}")
    return v


def _power(base: Number, exp: int) -> Number:
    bits = max(abs(Fraction(base).numerator).bit_length(), Fraction(base).denominator.bit_length())
    if abs(exp) * bits > MAX_POWER_BITS:
        raise KernelError(f"power {base}^{exp} is too large for the kernel")
    if exp < 0 and base == 0:
        raise KernelError("division by zero: 0 raised to a negative power")
    return exact(Fraction(base) ** exp if exp < 0 else base**exp)


def _div(a: Number, b: Number) -> Number:
    if b == 0:
        raise KernelError(f"division by zero ({a} / 0)")
    return exact(Fraction(a) / b)


def _floor_div(a: Number, b: Number) -> Number:
    if b == 0:
        raise KernelError(f"division by zero ({a} div 0)")
    return int(a // b)


def _mod(a: Number, b: Number) -> Number:
    if b == 0:
        raise KernelError(f"division by zero ({a} mod 0)")
    return exact(a % b)


def _binary(
    step: Callable[[Number, Number], Number], op: str
) -> Callable[[list], Callable[[Env], Number]]:
    def build(parts: list) -> Callable[[Env], Number]:
        if len(parts) == 2:
            a, b = parts
            return lambda env: exact(step(_num(a(env), op), _num(b(env), op)))

        def run(env: Env) -> Number:
            acc = _num(parts[0](env), op)
            for p in parts[1:]:
                acc = step(acc, _num(p(env), op))
            return exact(acc)

        return run

    return build


_TESTS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "=": operator.eq,
    "!=": operator.ne,
}


def _compare(op: str) -> Callable[[list], Callable[[Env], bool]]:
    test = _TESTS[op]

    def build(parts: list) -> Callable[[Env], bool]:
        a, b = parts

        def run(env: Env) -> bool:
            x, y = a(env), b(env)
            tx, ty = type(x), type(y)
            if (tx is int or tx is Fraction) and (ty is int or ty is Fraction):
                return test(x, y)
            if op in ("=", "!=") and tx is bool and ty is bool:
                return test(x, y)
            raise KernelError(
                f"{op} expects two numbers{' or two truth values' if op in ('=', '!=') else ''}"
            )

        return run

    return build


def _minus(parts: list) -> Callable[[Env], Number]:
    if len(parts) == 1:
        return lambda env: -_num(parts[0](env), "-")
    return lambda env: exact(_num(parts[0](env), "-") - _num(parts[1](env), "-"))


def _connective(op: str, stop: bool) -> Callable[[list], Callable[[Env], bool]]:
    """and (stops at the first false) / or (stops at the first true), left to right."""

    def build(parts: list) -> Callable[[Env], bool]:
        def run(env: Env) -> bool:
            for p in parts:
                v = p(env)
                if v is stop:
                    return stop
                if v is not (not stop):
                    raise KernelError(f"{op} expects truth values, got the number {v}")
            return not stop

        return run

    return build


def _ite(parts: list) -> Callable[[Env], Any]:
    c, t, f = parts
    return lambda env: t(env) if _bool(c(env), "ite") else f(env)


def _exp(v: Number) -> Number:
    if v != 0:
        raise KernelError(f"exp({v}) is irrational: the kernel evaluates exp only at 0")
    return 1


def _floor(v: Number) -> int:
    return int(v // 1)


_OPS: dict[str, Callable[[list], Callable[[Env], Any]]] = {
    "+": _binary(lambda a, b: a + b, "+"),
    "*": _binary(lambda a, b: a * b, "*"),
    "-": _minus,
    "/": _binary(_div, "/"),
    "^": lambda ps: lambda env: _power(_num(ps[0](env), "^"), _int(ps[1](env), "exponent")),
    "min": lambda ps: lambda env: min(_num(p(env), "min") for p in ps),
    "max": lambda ps: lambda env: max(_num(p(env), "max") for p in ps),
    "abs": lambda ps: lambda env: abs(_num(ps[0](env), "abs")),
    "floor": lambda ps: lambda env: _floor(_num(ps[0](env), "floor")),
    "div": _binary(_floor_div, "div"),
    "mod": _binary(_mod, "mod"),
    "and": _connective("and", False),
    "or": _connective("or", True),
    "not": lambda ps: lambda env: not _bool(ps[0](env), "not"),
    "implies": lambda ps: (
        lambda env: (not _bool(ps[0](env), "implies")) or _bool(ps[1](env), "implies")
    ),
    "ite": _ite,
    "exp": lambda ps: lambda env: _exp(_num(ps[0](env), "exp")),
    **{op: _compare(op) for op in COMPARISONS},
}
