"""Canonical polynomials and rational forms over the rationals, exactly (standard library only).

A polynomial is a dict from monomials to nonzero Fractions; a monomial is a sorted tuple of
(variable, exponent) pairs. A rational form is a pair (numerator, denominator) of
polynomials, never reduced: two forms are equal when they cross-multiply to equal polynomials.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from fito.proof.kernel.expr import KernelError

Mono = tuple[tuple[str, int], ...]
Poly = dict[Mono, Fraction | int]  # coefficients: ints when integral (see num)
RF = tuple[Poly, Poly]

MAX_TERMS = 200_000
ONE_MONO: Mono = ()


def num(c: Fraction | int) -> Fraction | int:
    """c as an int when it is integral (int arithmetic is much faster than Fraction's)."""
    if type(c) is int:
        return c
    c = Fraction(c)
    return c.numerator if c.denominator == 1 else c


def const(c: Fraction | int) -> Poly:
    """The constant polynomial c."""
    c = num(c)
    return {ONE_MONO: c} if c else {}


def var(name: str) -> Poly:
    """The polynomial consisting of one variable."""
    return {((name, 1),): Fraction(1)}


def add(a: Poly, b: Poly) -> Poly:
    """a + b."""
    out = dict(a)
    for m, c in b.items():
        s = out.get(m, 0) + c
        if s:
            out[m] = s
        else:
            out.pop(m, None)
    return out


def neg(a: Poly) -> Poly:
    """-a."""
    return {m: -c for m, c in a.items()}


def sub(a: Poly, b: Poly) -> Poly:
    """a - b."""
    return add(a, neg(b))


def scale(a: Poly, k: Fraction | int) -> Poly:
    """k * a."""
    if not k:
        return {}
    if k == 1:
        return dict(a)
    k = num(k)
    return {m: num(c * k) for m, c in a.items()}


def _mono_mul(x: Mono, y: Mono) -> Mono:
    if not x:
        return y
    if not y:
        return x
    exps = dict(x)
    for v, e in y:
        exps[v] = exps.get(v, 0) + e
    return tuple(sorted(exps.items()))


def mul(a: Poly, b: Poly) -> Poly:
    """a * b."""
    if len(a) * len(b) > MAX_TERMS * 4:
        raise KernelError("polynomial product too large for the kernel")
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = _mono_mul(ma, mb)
            s = out.get(m, 0) + ca * cb
            if s:
                out[m] = s
            else:
                out.pop(m, None)
    for m, c in out.items():
        if type(c) is Fraction and c.denominator == 1:
            out[m] = c.numerator
    if len(out) > MAX_TERMS:
        raise KernelError("polynomial too large for the kernel")
    return out


def power(a: Poly, n: int) -> Poly:
    """a ** n for a natural number n."""
    result, base = const(1), a
    while n:
        if n & 1:
            result = mul(result, base)
        n >>= 1
        if n:
            base = mul(base, base)
    return result


def is_const(a: Poly) -> bool:
    """True when a has no variables."""
    return all(m == ONE_MONO for m in a)


def const_value(a: Poly) -> Fraction:
    """The constant term of a (a Fraction: coefficients may be stored as ints)."""
    return Fraction(a.get(ONE_MONO, 0))


def coefficient(a: Poly, mono: Mono) -> Fraction:
    """The coefficient of a monomial (a Fraction)."""
    return Fraction(a.get(mono, 0))


def variables(a: Poly) -> set[str]:
    """The variables occurring in a."""
    return {v for m in a for v, _ in m}


def degree(a: Poly) -> int:
    """Total degree (-1 for the zero polynomial)."""
    return max((sum(e for _, e in m) for m in a), default=-1)


def monic(a: Poly) -> tuple[tuple[Mono, Fraction], ...]:
    """A hashable key of a up to a nonzero constant factor (None-safe for zero)."""
    if not a:
        return ()
    lead = a[max(a)]
    return tuple(sorted((m, Fraction(c) / lead) for m, c in a.items()))


def mono_str(m: Mono) -> str:
    """A monomial as text, e.g. x^2*y (1 for the empty monomial)."""
    return "*".join(v if e == 1 else f"{v}^{e}" for v, e in m) or "1"


def poly_str(a: Poly, limit: int = 8) -> str:
    """A polynomial as text for messages."""
    if not a:
        return "0"
    terms = [
        str(c)
        if not m
        else mono_str(m)
        if c == 1
        else f"-{mono_str(m)}"
        if c == -1
        else f"{c}*{mono_str(m)}"
        for m, c in sorted(a.items())
    ]
    more = f" + ... ({len(terms) - limit} more terms)" if len(terms) > limit else ""
    return " + ".join(terms[:limit]) + more


def first_difference(a: Poly, b: Poly) -> tuple[Mono, Fraction | int, Fraction | int] | None:
    """The first monomial (in sorted order) whose coefficients in a and b differ."""
    for m in sorted(set(a) | set(b)):
        ca, cb = a.get(m, Fraction(0)), b.get(m, Fraction(0))
        if ca != cb:
            return m, ca, cb
    return None


def substitute_var(a: Poly, name: str, value: Poly) -> Poly:
    """a with the variable `name` replaced by the polynomial `value`."""
    out: Poly = {}
    cache: dict[int, Poly] = {}
    for m, c in a.items():
        rest = tuple((v, e) for v, e in m if v != name)
        e = dict(m).get(name, 0)
        if e not in cache:
            cache[e] = power(value, e)
        out = add(out, mul({rest: c}, cache[e]))
    return out


# ---------------------------------------------------------------- rational forms
def rf_add(a: RF, b: RF) -> RF:
    """a + b."""
    if a[1] == b[1]:
        return add(a[0], b[0]), a[1]
    return add(mul(a[0], b[1]), mul(b[0], a[1])), mul(a[1], b[1])


def rf_mul(a: RF, b: RF) -> RF:
    """a * b."""
    return mul(a[0], b[0]), mul(a[1], b[1])


def rf_neg(a: RF) -> RF:
    """-a."""
    return neg(a[0]), a[1]


def rf_sum(items: Iterable[RF]) -> RF:
    """The sum of rational forms (terms over the same denominator are added first, so
    that sums of many terms with few distinct denominators stay small)."""
    groups: dict[tuple, RF] = {}
    for num, den in items:
        key = tuple(sorted(den.items()))
        if key in groups:
            groups[key] = (add(groups[key][0], num), den)
        else:
            groups[key] = (num, den)
    total: RF = ({}, const(1))
    for x in groups.values():
        total = rf_add(total, x)
    return total


def rf_tidy(a: RF) -> RF:
    """Fold a constant denominator into the numerator."""
    top, den = a
    if is_const(den):
        d = const_value(den)
        if d == 0:
            raise KernelError("denominator is identically zero")
        return (top, den) if d == 1 else (scale(top, Fraction(1) / d), const(1))
    return a


def rf_difference(a: RF, b: RF) -> tuple[Poly, Poly]:
    """The cross products num(a)*den(b) and num(b)*den(a), equal iff a == b as functions."""
    return mul(a[0], b[1]), mul(b[0], a[1])


def poly_sign(p: Poly, positive: set[str], nonneg: set[str]) -> str | None:
    """'pos', 'nonneg', 'zero', 'nonpos', 'neg' for every value of the (positive, nonneg)
    symbols, read off the coefficients; None when they have both signs or other symbols occur."""
    if not p:
        return "zero"
    if variables(p) - positive - nonneg:
        return None
    strict = any(all(v in positive for v, _ in m) for m in p)  # a monomial > 0 everywhere
    if all(c > 0 for c in p.values()):
        return "pos" if strict else "nonneg"
    if all(c < 0 for c in p.values()):
        return "neg" if strict else "nonpos"
    return None
