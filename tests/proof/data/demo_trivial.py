"""A claim whose certificate is true by its shape alone: the kernel refuses it (unknown)."""
from __future__ import annotations

import sympy as sp

from fito.proof import claim, identity, proved


@claim(id="demo.trivial", title="an identity SymPy already settled", model="polynomials", method="sympy")
def trivial():
    """(x + 1)^2 = x^2 + 2x + 1, handed to the kernel after SymPy expanded both sides."""
    x = sp.Symbol("x")
    return proved(identity(sp.expand((x + 1) ** 2), x**2 + 2 * x + 1))
