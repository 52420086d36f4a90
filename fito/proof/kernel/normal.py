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
from fito.proof.kernel.expr import (
    BINDERS,
    KernelError,
    fresh_name,
    render,
    render_full,
    substitute,
    symbols,
)

MAX_EXPONENT = 2000
EXP_ARGS: dict[str, P.Poly] = {}  # atom name exp(u) -> u (the name spells u out in full)
DEPENDS: dict[str, frozenset[str]] = {}  # atom name -> the symbols its value depends on


class Normalizer:
    """Turns expressions into rational forms under declared nonzero assumptions."""

    def __init__(
        self, nonzero: Iterable[Any] = (), positive: Iterable[str] = (), nonneg: Iterable[str] = ()
    ) -> None:
        # symbols known > 0 (>= 0): a divisor of one strict sign for all their values is fine
        self._positive, self._nonneg = set(positive), set(nonneg)
        self._nonzero: set[tuple] = set()
        self._atoms: dict[tuple, str] = {}
        pending = list(nonzero)
        while pending:  # an assumption may divide by another one: declare those first
            failed = []
            for e in pending:
                try:
                    self.assume_nonzero(e)
                except KernelError as exc:
                    if "is not declared nonzero" not in str(exc):
                        raise
                    failed.append((e, exc))
            if len(failed) == len(pending):
                raise failed[0][1]
            pending = [e for e, _ in failed]

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
                num, den = P.rf_tidy(P.rf_mul(out, self.rf(a)))
                out = merge_exponentials(num), merge_exponentials(den)
            return out
        if op == "-":
            if len(args) == 1:
                return P.rf_neg(self.rf(args[0]))
            return P.rf_add(self.rf(args[0]), P.rf_neg(self.rf(args[1])))
        if op == "/":
            return self._divide(self.rf(args[0]), args[1])
        if op == "^":
            if isinstance(args[0], tuple) and args[0][0] == "exp":  # exp(u)^k = exp(k u)
                return self.rf(("exp", ("*", args[1], args[0][1])))
            num, den = self._power(args[0], args[1])
            return merge_exponentials(num), merge_exponentials(den)
        if op == "fn":
            return self._atom_of(self._apply(args[0], args[1:]), symbols(e)), P.const(1)
        if op in BINDERS:
            finite = self._expand(e)
            if finite is not None:
                return self.rf(finite)
            return self._atom_of(self._big(e), symbols(e)), P.const(1)
        if op == "exp":
            return exp_atom(self.poly(args[0])), P.const(1)
        raise KernelError(f"operator {op!r} has no polynomial normal form")

    @staticmethod
    def _atom_of(name: str, depends: set[str]) -> P.Poly:
        DEPENDS.setdefault(name, frozenset(depends))
        return P.var(name)

    def canonical(self, p: P.Poly) -> P.Poly:
        """p with the exponentials of each monomial multiplied out: exp(a) exp(b) = exp(a + b)."""
        return merge_exponentials(p)

    def _apply(self, name: str, args: tuple) -> str:
        """f(a, ...) as an opaque atom named by f and the normal forms of its arguments:
        equal arguments give the same atom, so f(N - (N - j)) is f(j)."""
        shown = []
        for a in args:
            num, den = P.rf_tidy(self.rf(a))
            shown.append(
                P.poly_str(num, limit=len(num))
                if P.is_const(den)
                else f"({P.poly_str(num, limit=len(num))})/({P.poly_str(den, limit=len(den))})"
            )
        return f"{name}({', '.join(shown)})"

    def _expand(self, e: tuple) -> Any:
        """A sum/prod with constant bounds written out term by term (empty: 0 or 1)."""
        op, var, lo, hi, body = e
        a, b = Normalizer().poly(lo), Normalizer().poly(hi)
        if P.variables(a) or P.variables(b):
            return None
        first, last = P.const_value(a), P.const_value(b)
        if first.denominator != 1 or last.denominator != 1 or last - first > MAX_EXPONENT:
            raise KernelError(f"{op} bounds must be integers (and at most {MAX_EXPONENT} terms)")
        terms = [substitute(body, {var: Fraction(v)}) for v in range(int(first), int(last) + 1)]
        if not terms:
            return Fraction(0 if op == "sum" else 1)
        return ("+" if op == "sum" else "*", *terms)

    def _big(self, e: tuple) -> str:
        """sum/prod_(v = lo..hi) body as an opaque atom: its bounds in normal form, its body
        as written with the bound variable renamed (equal text, equal atom)."""
        op, var, lo, hi, body = e
        bound = fresh_name("_b", symbols(body))
        bounds = [P.poly_str(self.poly(x), limit=64) for x in (lo, hi)]
        return f"{op}[{bounds[0]}..{bounds[1]}]({render_full(substitute(body, {var: bound}))})"

    def poly(self, e: Any) -> P.Poly:
        """The polynomial of an expression whose denominator is a constant."""
        num, den = P.rf_tidy(self.rf(e))
        if not P.is_const(den):
            raise KernelError(f"{render(e)} is not a polynomial")
        return num

    def check_divisor(self, e: Any) -> None:
        """Refuse a divisor that is not known to be nonzero (exponentials never are zero)."""
        for factor in _factors(e):
            num, _ = self.rf(factor)
            num = _without_exponentials(num)
            if P.is_const(num):
                if not num:
                    raise KernelError(f"division by zero: divisor {render(factor)} is 0")
                continue
            if self._positive and P.poly_sign(num, self._positive, self._nonneg) in ("pos", "neg"):
                continue
            if P.monic(num) not in self._nonzero:
                raise KernelError(f"divisor {render(factor)} is not declared nonzero")

    def _divide(self, a: P.RF, divisor: Any) -> P.RF:
        self.check_divisor(divisor)
        num, den = self.rf(divisor)
        return P.rf_tidy((P.mul(a[0], den), P.mul(a[1], num)))

    def _power(self, base: Any, exponent: Any) -> P.RF:
        k, a, c = _exponent(Normalizer().poly(exponent), exponent)
        if abs(c) > MAX_EXPONENT or abs(a) > MAX_EXPONENT:
            raise KernelError(f"exponent of {render(base)} is too large for the kernel")
        bnum, bden = self.rf(base)
        num, den = bnum, bden
        if c < 0 or a < 0:
            self.check_divisor(base)  # b^(-j) = 1/b^j needs b != 0
        if c < 0:
            num, den, c = bden, bnum, -c
        out = P.power(num, c), P.power(den, c)
        if k is None:
            return P.rf_tidy(out)
        atoms = self._atom(P.power(bnum, abs(a)), k), self._atom(P.power(bden, abs(a)), k)
        if a < 0:  # b^(a k) = 1/(b^|a|)^k
            atoms = atoms[1], atoms[0]
        return P.rf_tidy((P.mul(out[0], atoms[0]), P.mul(out[1], atoms[1])))

    def _atom(self, base: P.Poly, k: str) -> P.Poly:
        if base == P.const(1):
            return P.const(1)
        key = (tuple(sorted(base.items())), k)
        if key not in self._atoms:  # the full text: equal names mean equal bases, in any normalizer
            self._atoms[key] = f"({P.poly_str(base, limit=len(base))})^{k}"
        return self._atom_of(self._atoms[key], depends_on(base) | {k})


def _without_exponentials(p: P.Poly) -> P.Poly:
    """p divided by the exponential atoms common to all its monomials (never zero)."""
    if not p or not any(v in EXP_ARGS for m in p for v, _ in m):
        return p
    common: dict[str, int] | None = None
    for mono in p:
        here = {v: e for v, e in mono if v in EXP_ARGS}
        common = (
            here if common is None else {v: min(e, here[v]) for v, e in common.items() if v in here}
        )
    if not common:
        return p
    return {
        tuple((v, e - common.get(v, 0)) for v, e in m if e - common.get(v, 0)): c
        for m, c in p.items()
    }


def depends_on(p: P.Poly) -> set[str]:
    """The symbols a polynomial's value depends on, through its atoms too."""
    out: set[str] = set()
    for v in P.variables(p):
        out.add(v)
        out |= DEPENDS.get(v, frozenset())
    return out


def exp_atom(u: P.Poly) -> P.Poly:
    """exp(u) as an atom named by u in full (exp(0) = 1)."""
    if not u:
        return P.const(1)
    name = f"exp({P.poly_str(u, limit=len(u))})"
    EXP_ARGS.setdefault(name, u)
    DEPENDS.setdefault(name, frozenset(depends_on(u)))
    return P.var(name)


def merge_exponentials(p: P.Poly) -> P.Poly:
    """Each monomial's exponential atoms multiplied into one: exp(a)^i exp(b)^j = exp(i a + j b)."""
    if not any(v in EXP_ARGS for m in p for v, _ in m):
        return p
    out: P.Poly = {}
    for mono, c in p.items():
        rest = tuple((v, e) for v, e in mono if v not in EXP_ARGS)
        exps = [(v, e) for v, e in mono if v in EXP_ARGS]
        term: P.Poly = {rest: c}
        if len(exps) == 1 and exps[0][1] == 1:
            term = {mono: c}
        elif exps:
            arg: P.Poly = {}
            for v, e in exps:
                arg = P.add(arg, P.scale(EXP_ARGS[v], Fraction(e)))
            term = P.mul(term, exp_atom(arg))
        out = P.add(out, term)
    return out


def _exponent(p: P.Poly, e: Any) -> tuple[str | None, int, int]:
    """An exponent as (symbol or None, multiplier a, offset c): a*k + c, or the integer c."""
    c = P.const_value(p)
    linear = [(m, coef) for m, coef in p.items() if m]
    if c.denominator != 1:
        raise KernelError(f"exponent {render(e)} is not an integer")
    if not linear:
        return None, 0, int(c)
    if len(linear) == 1:
        ((m, coef),) = linear
        if len(m) == 1 and m[0][1] == 1 and coef.denominator == 1 and coef != 0:
            return m[0][0], int(coef), int(c)
    raise KernelError(f"exponent {render(e)} is not of the form a*k + c (a, c integers, a != 0)")


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
