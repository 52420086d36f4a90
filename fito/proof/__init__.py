"""The proof kit: state claims, discharge them with SymPy/Z3/enumeration, ship certificates.

A claim lives in `proofs/*.py`; `fito prove proofs/` runs every claim (each in its own
process, with a timeout), re-checks its certificate in the kernel, writes it to
`certificates/<id>.json` and prints a table; `fito recheck certificates/` re-checks them in
the kernel alone (`fito.proof.kernel`, standard library only). See docs/proofs.md.

    from fito.proof import claim, prove_identity

    @claim(id="kit.square", title="square of a sum", model="polynomials over Q", method="sympy")
    def square():
        "(x + y)^2 = x^2 + 2xy + y^2 for all x, y."
        x, y = sympy.symbols("x y")
        return prove_identity((x + y) ** 2, x**2 + 2*x*y + y**2)

Public names (stable):
- stating: `claim(id=, title=, model=, method=, statement=None, timeout=None)` (decorator; the
  statement defaults to the docstring), `Claim`, `register(Claim)`;
- outcomes: `Outcome`, `proved(*obligations)`, `refuted(*obligations, reason=)`,
  `unknown(reason)`, `conjunction(*outcomes)`;
- obligations (the kernel re-checks each): `identity`, `recurrence`, `sum_of_squares`,
  `farkas`, `linear_valid`, `witness`, `counterexample`, `enumeration`, `matrix_facts`,
  and `trusted(tool, statement)` for what the kernel cannot re-check (tagged with the tool
  and its version; `fito recheck --strict` rejects it);
- deciders returning an Outcome: `prove_identity`, `prove_linear`, `linear_infeasible`,
  `linear_feasible`, `z3_prove`, `find_counterexample`;
- `to_expr(x)`: SymPy, Z3, int, Fraction or symbol name -> the JSON expression language;
  `instance(expr, {symbol: value})`: the expression at an instance, unsimplified.
- more obligations: `reachability` (the kernel walks a transition system), `range_sign`,
  `product_one`, `interval_count` (facts for every value of an integer parameter), and
  `samples` (confidence intervals recomputed from stored samples).
Nothing here imports SymPy or Z3 until it is handed one of their objects or asked to solve.
"""

from __future__ import annotations

from fito.proof.claims import (
    Claim,
    Obligation,
    Outcome,
    claim,
    conjunction,
    proved,
    refuted,
    register,
    unknown,
)
from fito.proof.convert import ConversionError, instance, to_expr
from fito.proof.decide import (
    find_counterexample,
    linear_feasible,
    linear_infeasible,
    prove_identity,
    prove_linear,
    z3_prove,
)
from fito.proof.obligations import (
    counterexample,
    enumeration,
    farkas,
    identity,
    integral,
    interval_count,
    linear_valid,
    matrix_facts,
    product_one,
    range_sign,
    reachability,
    recurrence,
    samples,
    sum_of_squares,
    trusted,
    witness,
)

__all__ = [
    "Claim",
    "ConversionError",
    "Obligation",
    "Outcome",
    "claim",
    "conjunction",
    "counterexample",
    "enumeration",
    "farkas",
    "find_counterexample",
    "identity",
    "instance",
    "integral",
    "interval_count",
    "linear_feasible",
    "linear_infeasible",
    "linear_valid",
    "matrix_facts",
    "product_one",
    "prove_identity",
    "prove_linear",
    "proved",
    "range_sign",
    "reachability",
    "recurrence",
    "refuted",
    "register",
    "samples",
    "sum_of_squares",
    "to_expr",
    "trusted",
    "unknown",
    "witness",
    "z3_prove",
]
