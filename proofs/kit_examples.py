"""Demonstration claims of the proof kit: one per kind of certificate the kernel re-checks.

Each value a certificate states is computed here (by SymPy, Z3 or the exact LP), never typed in.
"""

from __future__ import annotations

import sympy as sp
import z3

from fito.proof import (
    claim,
    conjunction,
    enumeration,
    linear_feasible,
    linear_infeasible,
    matrix_facts,
    prove_identity,
    proved,
    recurrence,
    sum_of_squares,
    trusted,
    z3_prove,
)

x, y, k, n = sp.symbols("x y k n")
a1, a2, b1, b2 = sp.symbols("a1 a2 b1 b2")


@claim(id="kit.square-of-sum", title="square of a sum", model="polynomials over Q", method="sympy")
def square_of_sum():
    """(x + y)^2 = x^2 + 2 x y + y^2 for all rational x, y."""
    return prove_identity((x + y) ** 2, sp.expand((x + y) ** 2))


@claim(
    id="kit.partial-fractions",
    title="telescoping partial fractions",
    model="rational functions over Q",
    method="sympy",
)
def partial_fractions():
    """1/(k (k+1)) = 1/k - 1/(k+1) wherever k and k+1 are nonzero."""
    lhs = 1 / (k * (k + 1))
    return prove_identity(lhs, sp.apart(lhs, k), nonzero=[k, k + 1])


@claim(
    id="kit.geometric-sum",
    title="closed form of a geometric sum",
    model="the sequence s(0) = 0, s(k+1) = s(k) + x^k",
    method="sympy",
)
def geometric_sum():
    """For every natural k and x != 1: sum_{i<k} x^i = (1 - x^k) / (1 - x)."""
    i, prev = sp.symbols("i prev")
    total = sp.summation(x**i, (i, 0, k - 1))  # SymPy: Piecewise((k, x = 1), (closed, True))
    closed = next(e for e, cond in total.args if cond == sp.true)
    return proved(
        recurrence(k, 0, initial=0, step=prev + x**k, closed=closed, prev=prev, nonzero=[1 - x])
    )


@claim(
    id="kit.triangle-region-empty",
    title="a linear region with no point",
    model="x, y rational with x + y <= 1, x >= 1, y > 0",
    method="lp",
)
def region_empty():
    """No rational (x, y) satisfies x + y <= 1, x >= 1 and y > 0 (Farkas multipliers)."""
    return linear_infeasible([x + y <= 1, x >= 1, y > 0])


@claim(
    id="kit.triangle-region-nonempty",
    title="a linear region with a point",
    model="x, y rational with x + y <= 1, x >= 0, y > 0",
    method="z3",
)
def region_nonempty():
    """Some rational (x, y) satisfies x + y <= 1, x >= 0 and y > 0 (a witness point)."""
    return linear_feasible([x + y <= 1, x >= 0, y > 0])


@claim(
    id="kit.transitivity",
    title="order facts by Farkas cases",
    model="real numbers a, b, c",
    method="z3",
)
def transitivity():
    """For all reals a, b, c: a <= b and b < c imply a < c and a != c + 1."""
    a, b, c = z3.Reals("a b c")
    return z3_prove(z3.Implies(z3.And(a <= b, b < c), z3.And(a < c, a != c + 1)))


@claim(
    id="kit.pairs-below-diagonal",
    title="counting strictly ordered pairs",
    model="pairs (a, b) in {0..6}^2",
    method="enumeration",
)
def pairs_below_diagonal():
    """The number of (a, b) in {0..N}^2 with a < b is N (N + 1) / 2, for N = 6."""
    a, b, size = sp.Symbol("a"), sp.Symbol("b"), 6
    closed = (n * (n + 1) / 2).subs(n, size)
    return proved(enumeration([(a, 0, size), (b, 0, size)], "count", closed, where=a < b))


@claim(
    id="kit.triangular-spectrum",
    title="spectrum of a triangular matrix",
    model="the rational matrix [[2, 1, 0], [0, 1/2, 3], [0, 0, 1]]",
    method="sympy",
)
def triangular_spectrum():
    """Its eigenvalues are 2, 1/2, 1; its determinant is 1; exactly one eigenvalue exceeds 1."""
    m = sp.Matrix([[2, 1, 0], [0, sp.Rational(1, 2), 3], [0, 0, 1]])
    eigen = [v for v, mult in sorted(m.eigenvals().items()) for _ in range(mult)]
    lam = sp.Symbol("lam")
    return proved(
        matrix_facts(
            m,
            det=m.det(),
            eigenvalues=eigen,
            charpoly=(lam, m.charpoly(lam).as_expr()),
            count=(lam, lam > 1, sum(1 for v in eigen if v > 1)),
        )
    )


@claim(
    id="kit.cauchy-schwarz-2",
    title="Cauchy-Schwarz in two dimensions",
    model="real vectors (a1, a2), (b1, b2)",
    method="sympy",
)
def cauchy_schwarz_2():
    """(a1 b1 + a2 b2)^2 <= (a1^2 + a2^2)(b1^2 + b2^2): the gap is the square (a1 b2 - a2 b1)^2."""
    gap = sp.expand((a1**2 + a2**2) * (b1**2 + b2**2) - (a1 * b1 + a2 * b2) ** 2)
    square = sp.factor(gap)  # SymPy finds the square; the kernel re-expands it
    base = square.base if isinstance(square, sp.Pow) else sp.sqrt(square)
    return proved(sum_of_squares(gap, [(1, base)]))


@claim(
    id="kit.compound-interest-limit",
    title="a limit the kernel takes on trust",
    model="the sequence (1 + 1/n)^n",
    method="sympy",
)
def compound_interest_limit():
    """(1 + 1/n)^n tends to e; and (1 + 1/n)^2 = 1 + 2/n + 1/n^2 for n != 0 (re-checked)."""
    limit = sp.limit((1 + 1 / n) ** n, n, sp.oo)
    if limit != sp.E:
        from fito.proof import unknown

        return unknown(f"sympy computed the limit {limit}")
    return conjunction(
        proved(trusted("sympy", "limit((1 + 1/n)^n, n -> oo) = E", detail={"limit": str(limit)})),
        prove_identity((1 + 1 / n) ** 2, 1 + 2 / n + 1 / n**2, nonzero=[n]),
    )
