"""Claims that are false: `fito prove` must report them refuted, with replayable counterexamples."""
from __future__ import annotations

import sympy as sp
import z3

from fito.proof import claim, linear_infeasible, prove_identity, z3_prove

x, y = sp.symbols("x y")


@claim(id="demo.freshman-square", title="the freshman's dream", model="polynomials over Q",
       method="sympy")
def freshman_square():
    """(x + y)^2 = x^2 + y^2 for all x, y (false)."""
    return prove_identity((x + y) ** 2, x**2 + y**2)


@claim(id="demo.order-not-total", title="a wrong order fact", model="real numbers", method="z3")
def wrong_order():
    """For all reals a, b: a <= b implies 2 a <= b (false)."""
    a, b = z3.Reals("a b")
    return z3_prove(z3.Implies(a <= b, 2 * a <= b))


@claim(id="demo.region-not-empty", title="a region claimed empty", model="x, y rational",
       method="lp")
def region_claimed_empty():
    """No (x, y) satisfies x + y <= 1, x >= 0, y >= 0 (false: the origin does)."""
    return linear_infeasible([x + y <= 1, x >= 0, y >= 0])
