"""The proof kit: state claims, discharge them with SymPy/Z3/enumeration, ship certificates.

A claim lives in `proofs/*.py`; `fito prove proofs/` runs every claim (each in its own
process, with a timeout), re-checks its certificate in the kernel, writes it to
`certificates/<id>.json` and prints a table; `fito recheck certificates/` re-checks them in
the kernel alone (`fito.proof.kernel`, standard library only). See docs/proofs.md and
docs/api.md.

    from fito.proof import claim, prove_identity

    @claim(id="kit.square", title="square of a sum", model="polynomials over Q", method="sympy")
    def square():
        "(x + y)^2 = x^2 + 2xy + y^2 for all x, y."
        x, y = sympy.symbols("x y")
        return prove_identity((x + y) ** 2, x**2 + 2*x*y + y**2)

Public names (`__all__`):
- stating: `claim(id=, title=, model=, method=, statement=None, timeout=None)` (decorator; the
  statement defaults to the docstring), `Claim`, `register(Claim)`;
- outcomes: `Outcome`, `Obligation`, `proved(*obligations)`, `refuted(*obligations,
  reason=)`, `unknown(reason)`, `conjunction(*outcomes)`;
- obligations (the kernel re-checks each): `identity`, `recurrence`, `sum_of_squares`,
  `farkas`, `linear_valid`, `witness`, `counterexample`, `enumeration`, `matrix_facts`,
  `reachability` (the kernel walks a transition system), `range_sign`, `product_one`,
  `interval_count` (facts for every value of an integer parameter), `integral`, `samples`
  (confidence intervals recomputed from stored samples), and `trusted(tool, statement)` for
  what the kernel cannot re-check (tagged with the tool and its version; `fito recheck
  --strict` rejects it);
- deciders returning an Outcome: `prove_identity`, `prove_linear`, `linear_infeasible`,
  `linear_feasible`, `z3_prove`; `find_counterexample(formula)` returns an assignment or None;
- `to_expr(x)`: SymPy, Z3, int, Fraction or symbol name -> the JSON expression language
  (`ConversionError` otherwise); `instance(expr, {symbol: value})`: the expression at an
  instance, unsimplified;
- proving and re-checking, as `fito prove` and `fito recheck` do: `collect(paths)` the
  claims of claims files (`CollectError`), `run_claims(claims, jobs=)` their `ClaimResult`s,
  `write_certificate(directory, result)`; `kernel` is the standard-library checker
  (`kernel.load(path)`, `kernel.check(certificate, strict=)`; its own `__all__`).

The names are loaded on first use (PEP 562): `import fito.proof` imports nothing, so
`fito recheck` loads the kernel alone. Nothing here imports SymPy or Z3 until it is handed
one of their objects or asked to solve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "Claim",
    "ClaimResult",
    "CollectError",
    "ConversionError",
    "Obligation",
    "Outcome",
    "claim",
    "collect",
    "conjunction",
    "counterexample",
    "enumeration",
    "farkas",
    "find_counterexample",
    "identity",
    "instance",
    "integral",
    "interval_count",
    "kernel",
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
    "run_claims",
    "samples",
    "sum_of_squares",
    "to_expr",
    "trusted",
    "unknown",
    "witness",
    "write_certificate",
    "z3_prove",
]

# name -> the module that is its one home
_HOMES = {
    **dict.fromkeys(
        (
            "Claim",
            "Obligation",
            "Outcome",
            "claim",
            "conjunction",
            "proved",
            "refuted",
            "register",
            "unknown",
        ),
        "fito.proof.claims",
    ),
    **dict.fromkeys(("ConversionError", "instance", "to_expr"), "fito.proof.convert"),
    **dict.fromkeys(
        (
            "find_counterexample",
            "linear_feasible",
            "linear_infeasible",
            "prove_identity",
            "prove_linear",
            "z3_prove",
        ),
        "fito.proof.decide",
    ),
    **dict.fromkeys(
        (
            "counterexample",
            "enumeration",
            "farkas",
            "identity",
            "integral",
            "interval_count",
            "linear_valid",
            "matrix_facts",
            "product_one",
            "range_sign",
            "reachability",
            "recurrence",
            "samples",
            "sum_of_squares",
            "trusted",
            "witness",
        ),
        "fito.proof.obligations",
    ),
    **dict.fromkeys(
        ("ClaimResult", "CollectError", "collect", "run_claims", "write_certificate"),
        "fito.proof.runner",
    ),
}
_SUBPACKAGES = {"kernel": "fito.proof.kernel"}

if TYPE_CHECKING:
    from fito.proof import kernel
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
    from fito.proof.runner import ClaimResult, CollectError, collect, run_claims, write_certificate


def __getattr__(name: str) -> Any:
    import importlib  # lazy-import: `import fito.proof` stays free (`fito recheck`: kernel only)

    if name in _SUBPACKAGES:
        return importlib.import_module(_SUBPACKAGES[name])
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'fito.proof' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
