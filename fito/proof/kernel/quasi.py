"""Identities of quasi-polynomials in one integer N (floor, div, mod, min, max), for every
N >= N0: residue class by residue class (N = P q + r), each side becomes a polynomial in q
once every floor and every min/max is resolved for q >= q0; a min/max whose arguments cross
is resolved past the crossing and the finitely many N before it are evaluated one by one.
Standard library only."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fito.proof.kernel import poly as P
from fito.proof.kernel.expr import KernelError, compile_expr, render

Q = "q"
MAX_PERIOD = 10_000
MAX_PREFIX = 10_000


class _Period(Exception):
    """The period must be multiplied by `factor` for a floor to resolve."""

    def __init__(self, factor: int) -> None:
        super().__init__(factor)
        self.factor = factor


class _Cross(Exception):
    """A min/max changes its mind at q = at (so resolve from at + 1 on)."""

    def __init__(self, at: int) -> None:
        super().__init__(at)
        self.at = at


def _ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


class _Eval:
    """A parsed expression in n as a polynomial in q, with n = period q + r, for q >= q0."""

    def __init__(self, n: str, period: int, r: int, q0: int) -> None:
        self.n, self.period, self.r, self.q0 = n, period, r, q0

    def __call__(self, e: Any) -> P.Poly:
        if isinstance(e, Fraction):
            return P.const(e)
        if isinstance(e, str):
            if e != self.n:
                raise KernelError(f"symbol {e} in a quasi-polynomial of {self.n}")
            return P.add(P.scale(P.var(Q), Fraction(self.period)), P.const(self.r))
        op, args = e[0], [self(a) for a in e[1:]]
        if op == "+":
            return _sum(args)
        if op == "-":
            return P.neg(args[0]) if len(args) == 1 else P.sub(args[0], args[1])
        if op == "*":
            out = P.const(1)
            for a in args:
                out = P.mul(out, a)
            return out
        if op in ("/", "div", "mod"):
            d = _constant(args[1], op)
            if op == "/":
                return P.scale(args[0], 1 / d)
            if d.denominator != 1 or d <= 0:
                raise KernelError(f"{op} by {d}: only positive integers")
            fl = self.floor(P.scale(args[0], 1 / d))
            return fl if op == "div" else P.sub(args[0], P.scale(fl, d))
        if op == "floor":
            return self.floor(args[0])
        if op in ("min", "max"):
            return self.extreme(op, args)
        raise KernelError(f"operator {op} in a quasi-polynomial")

    def floor(self, a: P.Poly) -> P.Poly:
        if P.degree(a) > 1:
            raise KernelError("floor of a nonlinear argument")
        slope, c = P.coefficient(a, ((Q, 1),)), P.const_value(a)
        if slope.denominator != 1:
            raise _Period(slope.denominator)
        return P.add(P.scale(P.var(Q), slope), P.const(c.numerator // c.denominator))

    def extreme(self, op: str, args: list[P.Poly]) -> P.Poly:
        best = args[0]
        for a in args[1:]:
            diff = P.sub(a, best)  # a - best, linear in q
            if P.degree(diff) > 1:
                raise KernelError(f"{op} of arguments that are not linear")
            slope, at_q0 = P.coefficient(diff, ((Q, 1),)), _value(diff, self.q0)
            if at_q0 * slope < 0:  # the sign changes once, after q0
                raise _Cross(int(self.q0 + (-at_q0 / slope)))
            larger = at_q0 > 0 or (at_q0 == 0 and slope > 0)
            if (op == "max") == larger:
                best = a
        return best


def _sum(args: list[P.Poly]) -> P.Poly:
    out: P.Poly = {}
    for a in args:
        out = P.add(out, a)
    return out


def _constant(p: P.Poly, op: str) -> Fraction:
    if P.variables(p):
        raise KernelError(f"{op} by a non-constant")
    d = P.const_value(p)
    if d == 0:
        raise KernelError(f"{op} by zero")
    return d


def _value(p: P.Poly, q: int) -> Fraction:
    return P.const_value(p) + P.coefficient(p, ((Q, 1),)) * q


def quasi_equal(lhs: Any, rhs: Any, n: str, start: Fraction) -> None:
    """lhs(N) = rhs(N) for every integer N >= start (KernelError naming an N where not)."""
    period = 1
    while True:
        try:
            for r in range(period):
                _residue(lhs, rhs, n, period, r, start)
            return
        except _Period as more:
            period *= more.factor
            if period > MAX_PERIOD:
                raise KernelError(f"the period exceeds {MAX_PERIOD}") from None


def _residue(lhs: Any, rhs: Any, n: str, period: int, r: int, start: Fraction) -> None:
    q0 = _ceil((start - r) / period)
    while True:
        try:
            ev = _Eval(n, period, r, q0)
            left, right = ev(lhs), ev(rhs)
            break
        except _Cross as cross:
            if cross.at - q0 > MAX_PREFIX:
                raise KernelError("a min/max crosses too late") from None
            for q in range(q0, cross.at + 1):
                _at(lhs, rhs, n, period * q + r)
            q0 = cross.at + 1
    if left != right:
        raise KernelError(
            f"the two sides differ for {n} = {period} q + {r}, q >= {q0}: "
            f"{P.poly_str(left)} vs {P.poly_str(right)}"
        )


def _at(lhs: Any, rhs: Any, n: str, value: int) -> None:
    a, b = compile_expr(lhs)({n: value}), compile_expr(rhs)({n: value})
    if a != b:
        raise KernelError(f"at {n} = {value}: {render(lhs)} is {a}, {render(rhs)} is {b}")


def count_matches(
    c: Fraction, d: P.Poly, strict: bool, lo: Any, hi: Any, n: str, start: Fraction, value: Any
) -> None:
    """#{j in [lo, hi] : c j + d(n) > 0 (>= 0)} = value(n) for every integer n >= start."""
    dn, d0 = P.coefficient(d, ((n, 1),)), P.const_value(d)
    if P.variables(d) - {n}:
        raise KernelError(f"the linear form depends on more than {n}")
    if c > 0:  # j > -d/c, or j >= -d/c
        ratio = ("+", -d0 / c, ("*", -dn / c, n))
        low = ("+", ("floor", ratio), Fraction(1)) if strict else ("-", ("floor", ("-", ratio)))
        first, last = ("max", lo, low), hi
    else:  # j < d/|c|, or j <= d/|c|
        ratio = ("+", d0 / -c, ("*", dn / -c, n))
        high = ("-", ("-", ("floor", ("-", ratio))), Fraction(1)) if strict else ("floor", ratio)
        first, last = lo, ("min", hi, high)
    count = ("max", Fraction(0), ("+", ("-", last, first), Fraction(1)))
    quasi_equal(count, value, n, start)
