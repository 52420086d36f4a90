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


def identity(
    lhs: Expr,
    rhs: Expr,
    *,
    nonzero: Iterable[Expr] = (),
    positive_functions: Iterable[str] = (),
    note: str = "",
) -> Obligation:
    """lhs == rhs for all values of the symbols (and functions) where every `nonzero`
    expression is nonzero."""
    payload = {"lhs": to_expr(lhs), "rhs": to_expr(rhs)}
    if nonzero:
        payload["nonzero"] = _exprs(nonzero)
    if positive_functions:
        payload["positive_functions"] = sorted(positive_functions)
    return Obligation("identity", _note(payload, note))


def recurrence(
    var: Any,
    start: int,
    *,
    initial: Expr,
    step: Expr,
    closed: Expr,
    prev: Any = "prev",
    nonzero: Iterable[Expr] = (),
    note: str = "",
) -> Obligation:
    """The sequence s(start) = initial, s(k+1) = step(k, prev=s(k)) equals closed(k) for
    k >= start."""
    payload = {
        "var": to_expr(var),
        "start": int(start),
        "prev": to_expr(prev),
        "initial": to_expr(initial),
        "step": to_expr(step),
        "closed": to_expr(closed),
    }
    if nonzero:
        payload["nonzero"] = _exprs(nonzero)
    return Obligation("recurrence", _note(payload, note))


def sum_of_squares(
    target: Expr,
    terms: Sequence[tuple[Expr, Expr]],
    *,
    positive: Iterable[Any] = (),
    nonzero: Iterable[Expr] = (),
    note: str = "",
) -> Obligation:
    """target == sum weight*base^2 with weights built from `positive` symbols: target >= 0."""
    payload: dict[str, Any] = {
        "target": to_expr(target),
        "terms": [[to_expr(w), to_expr(b)] for w, b in terms],
    }
    if positive:
        payload["positive"] = _exprs(positive)
    if nonzero:
        payload["nonzero"] = _exprs(nonzero)
    return Obligation("sum_of_squares", _note(payload, note))


def farkas(
    constraints: Sequence[Expr],
    multipliers: Sequence[Any],
    *,
    variables: Sequence[Any] | None = None,
    parameters: Mapping[Any, Any] | None = None,
    note: str = "",
) -> Obligation:
    """Linear constraints with no real solution, shown by nonnegative Farkas multipliers.

    With `variables` (the unknowns) the other symbols are parameters, each declared in
    `parameters` as "positive", "nonneg" or ["interval", a, b, "[)" | "()"]; multipliers may
    then be expressions in the parameters that the kernel shows nonnegative for all of them."""
    payload: dict[str, Any] = {
        "constraints": _exprs(constraints),
        "multipliers": [_multiplier(m) for m in multipliers],
    }
    if variables is not None:
        payload["variables"] = sorted(to_expr(v) for v in variables)
    if parameters:
        payload["parameters"] = {to_expr(k): v for k, v in sorted(parameters.items(), key=str)}
    return Obligation("farkas", _note(payload, note))


def _multiplier(m: Any) -> Any:
    try:
        return _rational(m)
    except (TypeError, ValueError):
        return to_expr(m)


def linear_valid(
    formula: Expr,
    cases: Sequence[Sequence[Any]],
    *,
    witnesses: Sequence[Mapping[Any, Any]] = (),
    note: str = "",
) -> Obligation:
    """A linear formula valid over the reals: Farkas multipliers for each case of its negated
    DNF, and a point satisfying each hypothesis it assumes (so that it is not vacuous)."""
    payload: dict[str, Any] = {
        "formula": to_expr(formula),
        "cases": [[_rational(m) for m in c] for c in cases],
    }
    if witnesses:
        payload["witnesses"] = [_assignment(w) for w in witnesses]
    return Obligation("linear_valid", _note(payload, note))


def _assignment(assignment: Mapping[Any, Any]) -> dict[str, Any]:
    """name -> rational, sorted by name (certificates must not depend on set order)."""
    return dict(sorted((to_expr(k), _rational(v)) for k, v in assignment.items()))


def witness(formula: Expr, assignment: Mapping[Any, Any], *, note: str = "") -> Obligation:
    """The formula is true at the assignment (a witness point: existence, non-emptiness)."""
    return Obligation(
        "witness", _note({"formula": to_expr(formula), "assignment": _assignment(assignment)}, note)
    )


def counterexample(formula: Expr, assignment: Mapping[Any, Any], *, note: str = "") -> Obligation:
    """The formula (what the claim asserts for all values) is false at the assignment."""
    return Obligation(
        "counterexample",
        _note({"formula": to_expr(formula), "assignment": _assignment(assignment)}, note),
    )


def enumeration(
    domain: Sequence[tuple[Any, Expr, Expr]],
    aggregate: str,
    value: Any,
    *,
    expr: Expr = None,
    where: Expr = None,
    note: str = "",
) -> Obligation:
    """aggregate (count/sum/min/max/all/any/set) of expr over the integer box, where `where`,
    is value."""
    payload: dict[str, Any] = {
        "domain": [[to_expr(n), to_expr(lo), to_expr(hi)] for n, lo, hi in domain],
        "aggregate": aggregate,
        "value": _value(aggregate, value),
    }
    if expr is not None:
        payload["expr"] = to_expr(expr)
    if where is not None:
        payload["where"] = to_expr(where)
    return Obligation("enumeration", _note(payload, note))


def _value(aggregate: str, value: Any) -> Any:
    """all/any: a truth value; set: a list; otherwise a number or a closed expression (the
    paper's formula at the instance, unsimplified: the kernel evaluates it)."""
    if aggregate in ("all", "any"):
        return bool(value)
    if aggregate == "set":
        return [_closed(v) for v in value]
    return _closed(value)


def _closed(value: Any) -> Any:
    if isinstance(value, (list, str)) or type(value).__module__.startswith("sympy"):
        try:
            return _rational(value) if not isinstance(value, list) else to_expr(value)
        except (TypeError, ValueError):
            return to_expr(value)
    return _rational(value)


def matrix_facts(
    matrix: Any,
    *,
    equals: Any = None,
    product: Sequence[Any] | None = None,
    det: Expr = None,
    charpoly: tuple[Any, Expr] | None = None,
    eigenvalues: Sequence[Expr] | None = None,
    count: tuple[Any, Expr, int] | None = None,
    nonzero: Iterable[Expr] = (),
    note: str = "",
) -> Obligation:
    """Facts about a matrix the kernel recomputes: equals, product, det, charpoly, eigenvalues,
    count."""
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


def reachability(
    system: Mapping[str, Any],
    aggregate: str,
    value: Any,
    *,
    expr: Expr = None,
    where: Expr = None,
    note: str = "",
) -> Obligation:
    """aggregate of expr over the states the transition system reaches where `where` holds.

    system: {"vars": [(name, lo, hi), ...], "init": [values], "rules": [(guard, {var: expr})]}:
    the kernel walks the reachable states itself (breadth first) and recomputes the aggregate."""
    sys_json = {
        "vars": [[to_expr(n), int(lo), int(hi)] for n, lo, hi in system["vars"]],
        "init": [int(v) for v in system["init"]],
        "rules": [
            [to_expr(g), {to_expr(k): to_expr(e) for k, e in u.items()}] for g, u in system["rules"]
        ],
    }
    payload: dict[str, Any] = {
        "system": sys_json,
        "aggregate": aggregate,
        "value": _value(aggregate, value),
    }
    if expr is not None:
        payload["expr"] = to_expr(expr)
    if where is not None:
        payload["where"] = to_expr(where)
    return Obligation("reachability", _note(payload, note))


def _range(
    var: Any,
    lo: Expr,
    hi: Expr,
    integers: Iterable[Any],
    positive: Iterable[Any],
    positive_functions: Iterable[str],
) -> dict[str, Any]:
    out: dict[str, Any] = {"var": to_expr(var), "lo": to_expr(lo), "hi": to_expr(hi)}
    for key, items in (("integers", integers), ("positive", positive)):
        if items:
            out[key] = sorted(to_expr(x) for x in items)
    if positive_functions:
        out["positive_functions"] = sorted(positive_functions)
    return out


def range_sign(
    var: Any,
    lo: Expr,
    hi: Expr,
    expr: Expr,
    factored: Expr,
    *,
    sign: str = ">=",
    integers: Iterable[Any] = (),
    positive: Iterable[Any] = (),
    positive_functions: Iterable[str] = (),
    note: str = "",
) -> Obligation:
    """expr >= 0 (or > 0) for every integer var in [lo, hi], shown by a factored form whose
    factors the range's bounds make positive (or nonnegative)."""
    payload = _range(var, lo, hi, integers, positive, positive_functions)
    payload.update({"expr": to_expr(expr), "factored": to_expr(factored), "sign": sign})
    return Obligation("range_sign", _note(payload, note))


def product_one(
    var: Any,
    lo: Expr,
    hi: Expr,
    factor: Expr,
    *,
    integers: Iterable[Any] = (),
    positive: Iterable[Any] = (),
    positive_functions: Iterable[str] = (),
    note: str = "",
) -> Obligation:
    """prod_(var = lo..hi) factor = 1 by reciprocal pairs factor(j) factor(lo + hi - j) = 1
    and positive factors, for every value of the integer parameters."""
    payload = _range(var, lo, hi, integers, positive, positive_functions)
    payload["factor"] = to_expr(factor)
    return Obligation("product_one", _note(payload, note))


def interval_count(
    var: Any,
    lo: Expr,
    hi: Expr,
    param: Any,
    start: int,
    predicate: Expr,
    linear: Expr,
    factor: Expr,
    value: Expr,
    *,
    positive: Iterable[Any] = (),
    positive_functions: Iterable[str] = (),
    note: str = "",
) -> Obligation:
    """For every integer param >= start: #{var in [lo, hi] : predicate} = value, with the
    predicate's two sides differing by linear * factor (factor > 0 on the range)."""
    payload = _range(var, lo, hi, (), positive, positive_functions)
    payload.update(
        {
            "param": to_expr(param),
            "from": int(start),
            "predicate": to_expr(predicate),
            "linear": to_expr(linear),
            "factor": to_expr(factor),
            "value": to_expr(value),
        }
    )
    return Obligation("interval_count", _note(payload, note))


def integral(
    var: Any,
    lo: Expr,
    hi: Any,
    integrand: Expr,
    antiderivative: Expr,
    value: Expr,
    *,
    positive: Iterable[Any] = (),
    nonneg: Iterable[Any] = (),
    nonzero: Iterable[Expr] = (),
    note: str = "",
) -> Obligation:
    """integral_lo^hi integrand d(var) = value, hi a bound or "oo": the kernel differentiates
    the antiderivative (polynomials times exponentials) and evaluates it at the bounds."""
    payload: dict[str, Any] = {
        "var": to_expr(var),
        "lo": to_expr(lo),
        "hi": "oo" if hi == "oo" else to_expr(hi),
        "integrand": to_expr(integrand),
        "antiderivative": to_expr(antiderivative),
        "value": to_expr(value),
    }
    for key, items in (("positive", positive), ("nonneg", nonneg)):
        if items:
            payload[key] = sorted(to_expr(x) for x in items)
    if nonzero:
        payload["nonzero"] = _exprs(nonzero)
    return Obligation("integral", _note(payload, note))


def samples(
    data: Mapping[str, Sequence[Any]],
    facts: Sequence[Sequence[Any]],
    *,
    level: str = "99%",
    note: str = "",
) -> Obligation:
    """Facts about stored samples (means, confidence intervals) that the kernel recomputes."""
    payload = {
        "level": level,
        "samples": {k: [_rational(v) for v in vs] for k, vs in data.items()},
        "facts": [[f[0], *(_fact_arg(a) for a in f[1:])] for f in facts],
    }
    return Obligation("samples", _note(payload, note))


def _fact_arg(a: Any) -> Any:
    return a if isinstance(a, str) and not a[:1].isdigit() and not a.startswith("-") else _closed(a)


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
    """A fact the kernel cannot re-check, tagged `trusted: <tool> <version>` (rejected by
    --strict)."""
    payload: dict[str, Any] = {"tool": tool, "version": tool_version(tool), "statement": statement}
    if detail is not None:
        payload["detail"] = detail
    return Obligation("trusted", _note(payload, note))
