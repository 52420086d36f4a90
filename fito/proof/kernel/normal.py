"""Normal forms: a parsed expression as a rational form, with every divisor accounted for.

A divisor must be a nonzero constant or (a product of factors each) equal, up to a nonzero
constant, to an expression the obligation declares nonzero. A power `b^(a*k + c)` with a
symbol k (a natural number), a >= 1 and c integers becomes `(b^a)^k * b^c`, where `(b^a)^k`
is an opaque atom: an identity that holds with the atoms as free variables holds for every
value of k. Standard library only.
"""
from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from fito.proof.kernel import poly as P
from fito.proof.kernel.expr import KernelError, render

MAX_EXPONENT = 2000


class Normalizer:
    """Turns expressions into rational forms under declared nonzero assumptions."""

    def __init__(self, nonzero: Iterable[Any] = ()) -> None:
        self._nonzero: set[tuple] = set()
        self._atoms: dict[tuple, str] = {}
        for e in nonzero:
            self.assume_nonzero(e)

    def assume_nonzero(self, e: Any) -> None:
        """Declare e nonzero (refused if e is identically zero: the claim would be vacuous)."""
        num, _ = self.rf(e)
        if not num:
            raise KernelError(f"declared nonzero expression {render(e)} is identically zero")
        self._nonzero.add(P.monic(num))
        for factor in _factors(e):
            fnum, _ = self.rf(factor)
            if fnum:
                self._nonzero.add(P.monic(fnum))

    def rf(self, e: Any) -> P.RF:
        """The rational form of a numeric expression."""
        if isinstance(e, bool):
            raise KernelError("a truth value where a number is required")
        if isinstance(e, Fraction):
            return P.const(e), P.const(1)
        if isinstance(e, str):
            return P.var(e), P.const(1)
        op, args = e[0], e[1:]
        if op == "+":
            return P.rf_sum(self.rf(a) for a in args)
        if op == "*":
            out: P.RF = (P.const(1), P.const(1))
            for a in args:
                out = P.rf_tidy(P.rf_mul(out, self.rf(a)))
            return out
        if op == "-":
            if len(args) == 1:
                return P.rf_neg(self.rf(args[0]))
            return P.rf_add(self.rf(args[0]), P.rf_neg(self.rf(args[1])))
        if op == "/":
            return self._divide(self.rf(args[0]), args[1])
        if op == "^":
            return self._power(args[0], args[1])
        raise KernelError(f"operator {op!r} has no polynomial normal form")

    def poly(self, e: Any) -> P.Poly:
        """The polynomial of an expression whose denominator is a constant."""
        num, den = P.rf_tidy(self.rf(e))
        if not P.is_const(den):
            raise KernelError(f"{render(e)} is not a polynomial")
        return num

    def check_divisor(self, e: Any) -> None:
        """Refuse a divisor that is not known to be nonzero."""
        for factor in _factors(e):
            num, _ = self.rf(factor)
            if P.is_const(num):
                if not num:
                    raise KernelError(f"division by zero: divisor {render(factor)} is 0")
                continue
            if P.monic(num) not in self._nonzero:
                raise KernelError(f"divisor {render(factor)} is not declared nonzero")

    def _divide(self, a: P.RF, divisor: Any) -> P.RF:
        self.check_divisor(divisor)
        num, den = self.rf(divisor)
        return P.rf_tidy((P.mul(a[0], den), P.mul(a[1], num)))

    def _power(self, base: Any, exponent: Any) -> P.RF:
        k, a, c = _exponent(Normalizer().poly(exponent), exponent)
        if abs(c) > MAX_EXPONENT or a > MAX_EXPONENT:
            raise KernelError(f"exponent of {render(base)} is too large for the kernel")
        bnum, bden = self.rf(base)
        num, den = bnum, bden
        if c < 0:
            self.check_divisor(base)
            num, den, c = bden, bnum, -c
        out = P.power(num, c), P.power(den, c)
        if k is None:
            return P.rf_tidy(out)
        atoms = self._atom(P.power(bnum, a), k), self._atom(P.power(bden, a), k)
        return P.rf_tidy((P.mul(out[0], atoms[0]), P.mul(out[1], atoms[1])))

    def _atom(self, base: P.Poly, k: str) -> P.Poly:
        if base == P.const(1):
            return P.const(1)
        key = (tuple(sorted(base.items())), k)
        if key not in self._atoms:  # the full text: equal names mean equal bases, in any normalizer
            self._atoms[key] = f"({P.poly_str(base, limit=len(base))})^{k}"
        return P.var(self._atoms[key])


def _exponent(p: P.Poly, e: Any) -> tuple[str | None, int, int]:
    """An exponent as (symbol or None, multiplier a, offset c): a*k + c, or the integer c."""
    c = P.const_value(p)
    linear = [(m, coef) for m, coef in p.items() if m]
    if c.denominator != 1:
        raise KernelError(f"exponent {render(e)} is not an integer")
    if not linear:
        return None, 0, int(c)
    if len(linear) == 1:
        (m, coef), = linear
        if len(m) == 1 and m[0][1] == 1 and coef.denominator == 1 and coef >= 1:
            return m[0][0], int(coef), int(c)
    raise KernelError(f"exponent {render(e)} is not of the form a*k + c (a >= 1, integers)")


def _factors(e: Any) -> list[Any]:
    """The syntactic factors of a product, negation or positive integer power."""
    if isinstance(e, tuple):
        op, args = e[0], e[1:]
        if op == "*":
            return [f for a in args for f in _factors(a)]
        if op == "-" and len(args) == 1:
            return _factors(args[0])
        if op == "^":  # b^0 = 1; any other power of a nonzero base is nonzero
            return [] if isinstance(args[1], Fraction) and args[1] == 0 else _factors(args[0])
        if op == "/":
            return _factors(args[0])  # the denominator is itself a checked divisor
    return [e]
