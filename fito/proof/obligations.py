"""Builders of certificate obligations: each validates its payload with the kernel's parser.

Arguments may be SymPy or Z3 objects, ints, Fractions, symbol names or JSON expressions
(see `fito.proof.convert.to_expr`). Nothing here decides anything: the kernel re-checks.
"""
from __future__ import annotations

import importlib.metadata
import platform
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from fito.proof.claims import Obligation
from fito.proof.convert import to_expr

Expr = Any


def _note(payload: dict[str, Any], note: str) -> dict[str, Any]:
    if note:
        payload["note"] = note
    return payload


def _exprs(xs: Iterable[Any]) -> list[Any]:
    return [to_expr(x) for x in xs]


def _rational(x: Any) -> Any:
    value = Fraction(str(x)) if type(x).__module__.startswith(("sympy", "z3")) else Fraction(x)
    return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def identity(lhs: Expr, rhs: Expr, *, nonzero: Iterable[Expr] = (), note: str = "") -> Obligation:
    """lhs == rhs for all values of the symbols where every `nonzero` expression is nonzero."""
    payload = {"lhs": to_expr(lhs), "rhs": to_expr(rhs)}
    if nonzero:
        payload["nonzero"] = _exprs(nonzero)
    return Obligation("identity", _note(payload, note))


def recurrence(var: Any, start: int, *, initial: Expr, step: Expr, closed: Expr,
               prev: Any = "prev", nonzero: Iterable[Expr] = (), note: str = "") -> Obligation:
    """The sequence s(start) = initial, s(k+1) = step(k, prev=s(k)) equals closed(k) for k >= start."""
    payload = {"var": to_expr(var), "start": int(start), "prev": to_expr(prev),
               "initial": to_expr(initial), "step": to_expr(step), "closed": to_expr(closed)}
    if nonzero:
        payload["nonzero"] = _exprs(nonzero)
    return Obligation("recurrence", _note(payload, note))


def sum_of_squares(target: Expr, terms: Sequence[tuple[Expr, Expr]], *, positive: Iterable[Any] = (),
                   nonzero: Iterable[Expr] = (), note: str = "") -> Obligation:
    """target == sum weight*base^2 with weights built from `positive` symbols: target >= 0."""
    payload: dict[str, Any] = {"target": to_expr(target),
                               "terms": [[to_expr(w), to_expr(b)] for w, b in terms]}
    if positive:
        payload["positive"] = _exprs(positive)
    if nonzero:
        payload["nonzero"] = _exprs(nonzero)
    return Obligation("sum_of_squares", _note(payload, note))


def farkas(constraints: Sequence[Expr], multipliers: Sequence[Any], *, note: str = "") -> Obligation:
    """Linear constraints with no real solution, shown by nonnegative Farkas multipliers."""
    payload = {"constraints": _exprs(constraints), "multipliers": [_rational(m) for m in multipliers]}
    return Obligation("farkas", _note(payload, note))


def linear_valid(formula: Expr, cases: Sequence[Sequence[Any]], *, note: str = "") -> Obligation:
    """A linear formula valid over the reals: Farkas multipliers for each case of its negated DNF."""
    payload = {"formula": to_expr(formula), "cases": [[_rational(m) for m in c] for c in cases]}
    return Obligation("linear_valid", _note(payload, note))


def _assignment(assignment: Mapping[Any, Any]) -> dict[str, Any]:
    return {to_expr(k): _rational(v) for k, v in assignment.items()}


def witness(formula: Expr, assignment: Mapping[Any, Any], *, note: str = "") -> Obligation:
    """The formula is true at the assignment (a witness point: existence, non-emptiness)."""
    return Obligation("witness", _note({"formula": to_expr(formula),
                                        "assignment": _assignment(assignment)}, note))


def counterexample(formula: Expr, assignment: Mapping[Any, Any], *, note: str = "") -> Obligation:
    """The formula (what the claim asserts for all values) is false at the assignment."""
    return Obligation("counterexample", _note({"formula": to_expr(formula),
                                               "assignment": _assignment(assignment)}, note))


def enumeration(domain: Sequence[tuple[Any, Expr, Expr]], aggregate: str, value: Any, *,
                expr: Expr = None, where: Expr = None, note: str = "") -> Obligation:
    """aggregate (count/sum/min/max/all/any/set) of expr over the integer box, where `where`, is value."""
    payload: dict[str, Any] = {"domain": [[to_expr(n), to_expr(lo), to_expr(hi)] for n, lo, hi in domain],
                               "aggregate": aggregate, "value": _value(aggregate, value)}
    if expr is not None:
        payload["expr"] = to_expr(expr)
    if where is not None:
        payload["where"] = to_expr(where)
    return Obligation("enumeration", _note(payload, note))


def _value(aggregate: str, value: Any) -> Any:
    if aggregate in ("all", "any"):
        return bool(value)
    if aggregate == "set":
        return [_rational(v) for v in sorted(value, key=lambda v: Fraction(str(v)))]
    return None if value is None else _rational(value)


def matrix_facts(matrix: Any, *, equals: Any = None, product: Sequence[Any] | None = None,
                 det: Expr = None, charpoly: tuple[Any, Expr] | None = None,
                 eigenvalues: Sequence[Expr] | None = None, count: tuple[Any, Expr, int] | None = None,
                 nonzero: Iterable[Expr] = (), note: str = "") -> Obligation:
    """Facts about a matrix the kernel recomputes: equals, product, det, charpoly, eigenvalues, count."""
    payload: dict[str, Any] = {"matrix": _matrix(matrix)}
    if equals is not None:
        payload["equals"] = _matrix(equals)
    if product is not None:
        payload["product"] = [_matrix(m) for m in product]
    if det is not None:
        payload["det"] = to_expr(det)
    if charpoly is not None:
        payload["charpoly"] = {"var": to_expr(charpoly[0]), "poly": to_expr(charpoly[1])}
    if eigenvalues is not None:
        payload["eigenvalues"] = _exprs(eigenvalues)
    if count is not None:
        bind, where, value = count
        payload["count"] = {"bind": to_expr(bind), "where": to_expr(where), "value": int(value)}
    if nonzero:
        payload["nonzero"] = _exprs(nonzero)
    return Obligation("matrix", _note(payload, note))


def _matrix(m: Any) -> list[list[Any]]:
    if hasattr(m, "tolist") and not isinstance(m, list):
        m = m.tolist()
    return [[to_expr(x) for x in row] for row in m]


def tool_version(tool: str) -> str:
    """The installed version of a tool, for trust tags (`python` is the interpreter)."""
    if tool == "python":
        return platform.python_version()
    dist = {"z3": "z3-solver"}.get(tool, tool)
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def trusted(tool: str, statement: str, *, detail: Any = None, note: str = "") -> Obligation:
    """A fact the kernel cannot re-check, tagged `trusted: <tool> <version>` (rejected by --strict)."""
    payload: dict[str, Any] = {"tool": tool, "version": tool_version(tool), "statement": statement}
    if detail is not None:
        payload["detail"] = detail
    return Obligation("trusted", _note(payload, note))
