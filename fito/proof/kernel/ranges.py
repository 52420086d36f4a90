"""Facts over an integer range lo <= j <= hi whose bounds depend on integer parameters (for
every N, not for N up to some bound): the sign of an expression, a product of reciprocal
pairs, and how many j satisfy a predicate. Standard library only.

Signs are read off a factored form: a product and quotient of positive constants, symbols
declared positive, positive-valued functions, and linear forms that the range's bounds make
positive (or nonnegative): l = sum mu_i g_i + gamma with g_i >= 0 the range's facts
(j - lo, hi - j, and N - N0 for a counting claim), mu_i >= 0 and gamma > 0 (>= 0).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from fito.proof.kernel import poly as P
from fito.proof.kernel import props
from fito.proof.kernel.checks import assert_equal, fields, positive_functions, symbol_list
from fito.proof.kernel.expr import (
    KernelError,
    functions,
    is_symbol,
    parse,
    parse_rational,
    render,
    substitute,
    symbols,
    to_json,
)
from fito.proof.kernel.normal import Normalizer

Json = Any
Obligation = dict[str, Any]


class Range:
    """lo <= var <= hi over integer parameters, with extra facts g >= 0 (linear polynomials)."""

    def __init__(self, ob: Obligation, extra: Sequence[P.Poly] = ()) -> None:
        self.var = ob["var"]
        if not is_symbol(self.var):
            raise KernelError("var must be a symbol")
        self.integers = set(symbol_list(ob.get("integers", []), "integers"))
        self.positive = set(symbol_list(ob.get("positive", []), "positive"))
        self.functions = set(positive_functions(ob))
        self.lo, self.hi = parse(ob["lo"]), parse(ob["hi"])
        for name, b in (("lo", self.lo), ("hi", self.hi)):
            _integer_linear(b, self.integers, name)
        v = P.var(self.var)
        self.facts = [P.sub(v, _poly(self.lo)), P.sub(_poly(self.hi), v), *extra]

    def sign(self, e: Any) -> str:
        """'pos' or 'nonneg' for every point of the range, or KernelError."""
        if isinstance(e, Fraction):
            if e > 0:
                return "pos"
            raise KernelError(f"the constant {e} is not positive")
        if isinstance(e, str):
            if e in self.positive:
                return "pos"
            return self._linear(e)
        op = e[0]
        if op == "fn":
            if e[1] not in self.functions:
                raise KernelError(f"function {e[1]} is not declared positive")
            return "pos"
        if op in ("*", "/"):
            signs = [self.sign(a) for a in e[1:]]
            if op == "/" and signs[1] != "pos":
                raise KernelError(f"divisor {render(e[2])} is not shown positive on the range")
            return "pos" if all(s == "pos" for s in signs) else "nonneg"
        if op == "^" and isinstance(e[2], Fraction) and e[2].denominator == 1 and e[2] >= 0:
            return self.sign(e[1]) if e[2] else "pos"
        return self._linear(e)

    def _linear(self, e: Any) -> str:
        """A linear form in the var and the integer parameters, positive by the facts."""
        ell = _poly(e)
        if P.degree(ell) > 1 or P.variables(ell) - self.integers - {self.var}:
            raise KernelError(
                f"{render(e)} is not a linear form in {self.var} and the integer parameters"
            )
        gamma = combination(ell, self.facts)
        if gamma is None:
            raise KernelError(f"{render(e)} is not shown >= 0 from the range's bounds")
        return "pos" if gamma > 0 else "nonneg"

    def leaves(self, e: Any) -> list[Any]:
        """The divisors of a factored form (declared nonzero once shown positive)."""
        if isinstance(e, tuple) and e[0] in ("*", "/"):
            out = [x for a in e[1:] for x in self.leaves(a)]
            return out + ([e[2]] if e[0] == "/" else [])
        return []

    def divisors(self, e: Any) -> list[Any]:
        """Every divisor in e, each shown positive on the range (so e is defined there)."""
        if not isinstance(e, tuple) or e[0] == "fn":
            return []
        own = [e[2]] if e[0] == "/" else []
        for d in own:
            if self.sign(d) != "pos":
                raise KernelError(f"divisor {render(d)} is not shown positive on the range")
        return own + [d for a in e[1:] for d in self.divisors(a)]

    def binder(self) -> list[Json]:
        return [self.var, ["int", to_json(self.lo), to_json(self.hi)]]

    def parameters(self, parts: list[Any]) -> list[list[Json]]:
        """Binders of the parameters (everything but the var) of the parsed parts."""
        stray = sorted(
            set().union(*(symbols(p) for p in parts)) - self.integers - self.positive - {self.var}
        )
        if stray:
            raise KernelError(
                f"symbol {stray[0]} is neither the var, an integer parameter nor positive"
            )
        return [
            b
            for b in props.binders(
                parts,
                integer=self.integers,
                positive=self.positive,
                positive_functions=self.functions,
            )
            if b[0] != self.var
        ]


def _poly(e: Any) -> P.Poly:
    return Normalizer().poly(e)


def _integer_linear(e: Any, integers: set[str], what: str) -> None:
    p = _poly(e)
    if P.degree(p) > 1 or P.variables(p) - integers or any(c.denominator != 1 for c in p.values()):
        raise KernelError(
            f"{what} must be linear with integer coefficients in the integer parameters"
        )


def combination(ell: P.Poly, facts: list[P.Poly]) -> Fraction | None:
    """gamma = ell - sum mu_i facts_i as a constant with every mu_i >= 0, the largest such
    gamma over the exactly determined choices of facts, or None."""
    names = sorted(set().union(P.variables(ell), *(P.variables(f) for f in facts)))
    best: Fraction | None = None
    for size in range(len(facts) + 1):
        for chosen in itertools.combinations(range(len(facts)), size):
            mu = _solve(
                [[P.coefficient(facts[i], ((x, 1),)) for i in chosen] for x in names],
                [P.coefficient(ell, ((x, 1),)) for x in names],
            )
            if mu is None or any(m < 0 for m in mu):
                continue
            used = (m * P.const_value(facts[i]) for m, i in zip(mu, chosen))
            gamma = P.const_value(ell) - sum(used, Fraction(0))
            best = gamma if best is None or gamma > best else best
    return best if best is not None and best >= 0 else None


def _solve(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """The unique solution of a x = b (Gaussian elimination), or None."""
    n = len(a[0]) if a else 0
    rows = [list(r) + [v] for r, v in zip(a, b)]
    pivots = []
    r = 0
    for c in range(n):
        p = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if p is None:
            return None  # a free unknown: a smaller choice covers it
        rows[r], rows[p] = rows[p], rows[r]
        rows[r] = [x / rows[r][c] for x in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c]:
                rows[i] = [x - rows[i][c] * y for x, y in zip(rows[i], rows[r])]
        pivots.append(c)
        r += 1
    if any(row[-1] != 0 for row in rows[r:]):
        return None
    return [rows[i][-1] for i in range(n)]


# ---------------------------------------------------------------- kinds
def check_range_sign(ob: Obligation) -> Json:
    """expr >= 0 (or > 0) for every integer var in [lo, hi] and every value of the
    parameters, shown by a factored form whose every factor has a known sign."""
    fields(
        ob,
        ("var", "lo", "hi", "expr", "sign", "factored"),
        ("integers", "positive", "positive_functions"),
    )
    rng = Range(ob)
    expr, factored = parse(ob["expr"]), parse(ob["factored"])
    if ob["sign"] not in (">=", ">"):
        raise KernelError("sign must be >= or >")
    if rng.var not in symbols(expr):
        raise KernelError(f"trivial: the expression does not depend on {rng.var}")
    got = rng.sign(factored)
    if ob["sign"] == ">" and got != "pos":
        raise KernelError("the factored form is only shown >= 0")
    norm = Normalizer(rng.leaves(factored) + rng.divisors(expr))
    assert_equal(norm, expr, factored, "expr != factored")
    body = ["forall", [rng.binder()], [ob["sign"], to_json(expr), 0]]
    return props.forall(rng.parameters([expr, rng.lo, rng.hi]), body)


def check_product_one(ob: Obligation) -> Json:
    """prod_(var = lo..hi) factor = 1: factor(j) factor(lo + hi - j) = 1 on the range (the
    reflection j -> lo + hi - j pairs the factors, so the product squared is 1) and every
    factor is positive there (so the product is 1, not -1)."""
    fields(ob, ("var", "lo", "hi", "factor"), ("integers", "positive", "positive_functions"))
    rng = Range(ob)
    factor = parse(ob["factor"])
    if rng.var not in symbols(factor):
        raise KernelError(f"trivial: the factor does not depend on {rng.var}")
    mirrored = substitute(factor, {rng.var: ("-", ("+", rng.lo, rng.hi), rng.var)})
    for f in (factor, mirrored):
        if rng.sign(f) != "pos":
            raise KernelError(f"the factor {render(f)} is not shown positive on the range")
    norm = Normalizer(rng.leaves(factor) + rng.leaves(mirrored))
    assert_equal(norm, ("*", factor, mirrored), Fraction(1), "factor(j) * factor(lo + hi - j) != 1")
    product = ["prod", rng.var, to_json(rng.lo), to_json(rng.hi), to_json(factor)]
    return props.forall(rng.parameters([factor, rng.lo, rng.hi]), ["=", product, 1])


def check_interval_count(ob: Obligation) -> Json:
    """For every integer N >= from: #{j in [lo, hi] : predicate} = value(N). The predicate
    A op B is shown equivalent on the range to l op 0 (A - B = l * pi with pi > 0 there),
    l linear in j and N; the kernel counts the integers of the interval it defines and
    compares with value residue class by residue class of N."""
    fields(
        ob,
        ("var", "lo", "hi", "param", "from", "predicate", "linear", "factor", "value"),
        ("positive", "positive_functions"),
    )
    n = ob["param"]
    if not is_symbol(n):
        raise KernelError("param must be a symbol")
    start = parse_rational(ob["from"], "from")
    rng = Range({**ob, "integers": [n]}, [P.sub(P.var(n), P.const(start))])
    pred, ell, pi = parse(ob["predicate"]), parse(ob["linear"]), parse(ob["factor"])
    if not (isinstance(pred, tuple) and pred[0] in ("<", "<=", ">", ">=")):
        raise KernelError("predicate must be a comparison <, <=, >, >=")
    if rng.var not in symbols(pred):
        raise KernelError(f"trivial: the predicate does not depend on {rng.var}")
    if rng.sign(pi) != "pos":
        raise KernelError("the factor is not shown positive on the range")
    a, b = (pred[1], pred[2]) if pred[0] in (">", ">=") else (pred[2], pred[1])
    assert_equal(
        Normalizer(rng.leaves(pi) + rng.divisors(a) + rng.divisors(b)),
        ("-", a, b),
        ("*", ell, pi),
        "predicate difference != linear * factor",
    )
    value = parse(ob["value"])
    if symbols(value) - {n} or functions(value):
        raise KernelError(f"value may use only {n}")
    strict = pred[0] in (">", "<")
    _compare_counts(_poly(ell), strict, rng, n, start, value)
    count = ["count", [rng.binder()], to_json(pred)]
    body = ["=", count, to_json(value)]
    return [
        "forall",
        [[n, ["int>=", to_json(start)]]],
        props.forall([b for b in rng.parameters([pred, pi]) if b[0] != n], body),
    ]


def _compare_counts(
    ell: P.Poly, strict: bool, rng: Range, n: str, start: Fraction, value: Any
) -> None:
    j = rng.var
    if P.degree(ell) > 1 or P.variables(ell) - {j, n}:
        raise KernelError(f"linear must be linear in {j} and {n}")
    c = P.coefficient(ell, ((j, 1),))
    if c == 0:
        raise KernelError(f"linear does not depend on {j}")
    from fito.proof.kernel.quasi import count_matches  # lazy-import: start-up of `fito recheck`

    count_matches(c, P.sub(ell, P.scale(P.var(j), c)), strict, rng.lo, rng.hi, n, start, value)
