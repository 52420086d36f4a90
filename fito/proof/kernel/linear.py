"""Validity of quantifier-free linear formulas: the negation in disjunctive normal form, each
case refuted by Farkas multipliers. Standard library only."""
from __future__ import annotations

from typing import Any

from fito.proof.kernel.expr import KernelError

MAX_CASES = 256
_FLIP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def negated_cases(formula: Any) -> list[list[tuple]]:
    """The DNF of not(formula): a list of conjunctions of comparisons (op in <, <=, =, >=, >)."""
    return _dnf(formula, False)


def _dnf(f: Any, positive: bool) -> list[list[tuple]]:
    """DNF of f (positive) or of not f; `false` cases are dropped, `true` atoms vanish."""
    if isinstance(f, bool):
        return [[]] if f == positive else []
    if not isinstance(f, tuple):
        raise KernelError("a number or symbol where a formula is required")
    op, args = f[0], f[1:]
    if op == "not":
        return _dnf(args[0], not positive)
    if op == "implies":
        return _dnf(("or", ("not", args[0]), args[1]), positive)
    if op == "ite":
        c, a, b = args
        return _dnf(("or", ("and", c, a), ("and", ("not", c), b)), positive)
    if op in ("and", "or"):
        conj = (op == "and") == positive
        parts = [_dnf(a, positive) for a in args]
        return _product(parts) if conj else _limit([case for p in parts for case in p])
    if op == "!=":
        return _dnf(("not", ("=", *args)), positive)
    if op in ("<", "<=", "=", ">=", ">"):
        if positive:
            return [[f]]
        if op == "=":
            return [[("<", *args)], [(">", *args)]]
        return [[(_FLIP[op], *args)]]
    raise KernelError(f"operator {op!r} is not a connective or comparison")


def _product(parts: list[list[list[tuple]]]) -> list[list[tuple]]:
    cases: list[list[tuple]] = [[]]
    for p in parts:
        cases = _limit([c + d for c in cases for d in p])
    return cases


def _limit(cases: list[list[tuple]]) -> list[list[tuple]]:
    if len(cases) > MAX_CASES:
        raise KernelError(f"the negation has more than {MAX_CASES} cases")
    return cases


def check_linear_valid(ob: dict) -> None:
    """The formula holds for all real values: every case of its negation has a Farkas refutation."""
    from fito.proof.kernel.checks import check_farkas, fields
    from fito.proof.kernel.expr import parse, to_json

    fields(ob, ("formula", "cases"))
    cases = negated_cases(parse(ob["formula"]))
    given = ob["cases"]
    if not isinstance(given, list) or len(given) != len(cases):
        raise KernelError(f"the negation has {len(cases)} case(s), the certificate gives {len(given) if isinstance(given, list) else 'no list of'} multipliers")
    for i, (case, mults) in enumerate(zip(cases, given), 1):
        if not case:
            raise KernelError(f"case {i} of the negation is true: the formula is not valid")
        try:
            check_farkas({"constraints": [to_json(c) for c in case], "multipliers": mults})
        except KernelError as exc:
            raise KernelError(f"case {i}: {exc}") from None

