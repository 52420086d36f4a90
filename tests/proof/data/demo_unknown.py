"""Claims that end `unknown`: an exception, a timeout, a wrong return value, a bogus proof."""
from __future__ import annotations

import time

import sympy as sp

from fito.proof import claim, identity, proved, unknown


@claim(id="demo.raises", title="a claim that raises", model="none", method="evaluation")
def raises():
    """The claim's code fails: the verdict is unknown with the reason, not a traceback."""
    return 1 // 0


@claim(id="demo.sleeps", title="a claim that takes too long", model="none", method="evaluation",
       timeout=0.5)
def sleeps():
    """Runs past its 0.5 s limit: unknown (timeout)."""
    time.sleep(30)
    return unknown("unreachable")


@claim(id="demo.wrong-type", title="a claim returning a number", model="none", method="evaluation")
def wrong_type():
    """Returns 42 instead of an Outcome."""
    return 42


@claim(id="demo.bogus-proof", title="a proof the kernel rejects", model="polynomials", method="sympy")
def bogus_proof():
    """Claims proved with a false identity: the kernel rejects it, so the verdict is unknown."""
    x = sp.Symbol("x")
    return proved(identity((x + 1) ** 2, x**2 + 1))


@claim(id="demo.solver-unknown", title="a solver that gives up", model="none", method="z3")
def solver_unknown():
    """The method reports unknown: never proved."""
    return unknown("z3 unknown: timeout")
