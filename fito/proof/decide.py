"""Deciders: run a method (exact normal forms, exact LP, Z3) and return an Outcome with obligations.

Each returns `proved`, `refuted` (with a counterexample the kernel replays) or `unknown`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from fito.proof import obligations as O
from fito.proof.claims import Outcome, proved, refuted, unknown
from fito.proof.convert import ConversionError, to_expr
from fito.proof.kernel.checks import check_identity
from fito.proof.kernel.expr import (
    KernelError,
    compile_expr,
    functions,
    parse,
    render,
    symbols,
    to_json,
)
from fito.proof.kernel.linear import hypotheses, negated_cases
from fito.proof.lp import farkas_multipliers

SEARCH_POINTS = 4000


# Positive functions a counterexample search tries for an unknown positive function f.
# Each is positive at every real argument and every value of its parameter c_f.
FUNCTION_INSTANCES: tuple[Any, ...] = (
    ["+", ["*", "_", "_"], ["*", "c_f", "c_f"], 1],
    ["+", ["*", 2, "_", "_"], ["*", "c_f", "c_f"], 3],
)


def prove_identity(
    lhs: Any,
    rhs: Any,
    *,
    nonzero: Iterable[Any] = (),
    positive_functions: Iterable[str] = (),
    domain: Iterable[Any] = (),
    candidates: Iterable[Mapping[str, Any]] = (),
    note: str = "",
) -> Outcome:
    """Decide lhs == rhs (as rational functions, where `nonzero` holds, `positive_functions`
    unknown positive functions): proved as the kernel checks it, else refuted by a
    counterexample the kernel replays (an unknown function instantiated by a concrete
    positive one, FUNCTION_INSTANCES), else unknown. A counterexample satisfies `domain`
    (JSON conditions, e.g. N >= 2: hypotheses of its formula), so it refutes the claim
    where the claim is meant, not only the identity over all reals; `candidates` (points,
    e.g. the witness of a region) are tried before the search."""
    funcs = tuple(positive_functions)
    points = [dict(c) for c in candidates]
    ob = O.identity(lhs, rhs, nonzero=nonzero, positive_functions=funcs, note=note)
    p = ob.payload
    try:
        check_identity(dict(p, kind="identity"))
        return proved(ob)
    except KernelError as exc:
        why = str(exc)
    formula: Any = ["=", p["lhs"], p["rhs"]]
    hyps = [to_json(parse(to_expr(d))) for d in domain]
    hyps += [["!=", c, 0] for c in p.get("nonzero", [])]
    if hyps:
        formula = ["implies", ["and", *hyps], formula]
    present = sorted(functions(parse(formula)))
    for inst in FUNCTION_INSTANCES if present else (None,):
        concrete = _instantiate(formula, inst) if inst is not None else formula
        point = _false_at(concrete, points, inst) or find_counterexample(concrete)
        if point is not None:
            words = f" ({', '.join(present)}: {_render_instance(inst)})" if inst else ""
            return refuted(
                O.counterexample(concrete, point, note=(note + words).strip()),
                reason=f"identity fails at a point{words}",
            )
    return unknown(f"identity not proved ({why}) and no counterexample was found")


def _false_at(
    formula: Any, candidates: Iterable[Mapping[str, Any]], inst: Any
) -> dict[str, Any] | None:
    """The first candidate point (c_f := 0 for an instantiated function) where the formula
    is false."""
    f = parse(formula)
    names = symbols(f)
    run = compile_expr(f)
    for point in candidates:
        env = {k: Fraction(str(v)) for k, v in point.items() if k in names}
        if inst is not None:
            env.setdefault("c_f", Fraction(0))
        if set(env) != names:
            continue
        try:
            if run(env) is False:
                return {k: (str(v) if v.denominator != 1 else int(v)) for k, v in env.items()}
        except KernelError:
            continue
    return None


def _instantiate(e: Any, body: Any) -> Any:
    """e with every application ["fn", f, a] replaced by body with "_" := a."""
    if isinstance(e, list):
        if len(e) == 3 and e[0] == "fn":
            arg = _instantiate(e[2], body)
            return _substitute_hole(body, arg)
        return [_instantiate(x, body) for x in e]
    return e


def _substitute_hole(body: Any, arg: Any) -> Any:
    if body == "_":
        return arg
    if isinstance(body, list):
        return [_substitute_hole(x, arg) for x in body]
    return body


def _render_instance(body: Any) -> str:
    return render(parse(_substitute_hole(body, "n"))).join(("f(n) = ", ""))


def find_counterexample(formula: Any, tries: int = SEARCH_POINTS) -> dict[str, int] | None:
    """A small integer point where a formula (JSON) is false, searched deterministically."""
    f = parse(formula)
    names = sorted(symbols(f))
    naturals = _exponent_symbols(f)  # exponent symbols range over the natural numbers
    run = compile_expr(f)
    values = [0, 1, 2, -1, 3, -2, 5, 7, -3, 11]
    domains = [[v for v in values if v >= 0] if n in naturals else values for n in names]
    rng = random.Random(0)  # after the small points in order, seeded random ones

    def points() -> Iterator[tuple[int, ...]]:
        yield from itertools.islice(itertools.product(*domains), tries)
        for _ in range(tries):
            yield tuple(rng.choice(d) for d in domains)

    for point in points():
        env = {k: v for k, v in zip(names, point)}
        try:
            if run(env) is False:
                return env
        except KernelError:
            continue
    return None


def _exponent_symbols(e: Any) -> set[str]:
    if not isinstance(e, tuple):
        return set()
    out = symbols(e[2]) if e[0] == "^" else set()
    return out.union(*(_exponent_symbols(a) for a in e[1:]))


def linear_infeasible(constraints: Sequence[Any], *, note: str = "") -> Outcome:
    """The linear constraints have no real solution: Farkas multipliers, or a witness point if
    they do."""
    exprs = [to_expr(c) for c in constraints]
    y = farkas_multipliers([parse(c) for c in exprs])
    if y is not None:
        return proved(O.farkas(exprs, y, note=note))
    point = _z3_point(exprs)
    if point is None:
        return unknown("no Farkas certificate and Z3 found no solution")
    return refuted(
        O.witness(["and", *exprs], point, note=note), reason="the constraints have a solution"
    )


def linear_feasible(constraints: Sequence[Any], *, note: str = "") -> Outcome:
    """The linear constraints have a real solution: a witness point, or Farkas multipliers if
    not."""
    exprs = [to_expr(c) for c in constraints]
    point = _z3_point(exprs)
    if point is not None:
        return proved(O.witness(["and", *exprs], point, note=note))
    y = farkas_multipliers([parse(c) for c in exprs])
    if y is None:
        return unknown("Z3 found no solution and no Farkas certificate exists")
    return refuted(O.farkas(exprs, y, note=note), reason="the constraints have no solution")


def _z3_point(exprs: Sequence[Any]) -> dict[str, Fraction] | None:
    import z3  # lazy-import: z3 is slow to load

    names = sorted(set().union(*(symbols(parse(e)) for e in exprs)))
    env = {n: z3.Real(n) for n in names}
    solver = z3.Solver()
    solver.set("timeout", 10_000)
    for e in exprs:
        solver.add(_to_z3(parse(e), env))
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    point = {}
    for n in names:
        v = model.eval(env[n], model_completion=True)
        point[n] = Fraction(v.numerator_as_long(), v.denominator_as_long())
    return point


def _to_z3(e: Any, env: Mapping[str, Any]) -> Any:
    """A parsed expression as a Z3 term (arithmetic, comparisons, connectives)."""
    import z3  # lazy-import: z3 is slow to load

    if isinstance(e, bool):
        return z3.BoolVal(e)
    if isinstance(e, Fraction):
        return z3.RealVal(f"{e.numerator}/{e.denominator}")
    if isinstance(e, str):
        return env[e]
    op, args = e[0], [_to_z3(a, env) for a in e[1:]]
    table = {
        "+": lambda: z3.Sum(*args),
        "*": lambda: z3.Product(*args),
        "-": lambda: -args[0] if len(args) == 1 else args[0] - args[1],
        "/": lambda: args[0] / args[1],
        "<": lambda: args[0] < args[1],
        "<=": lambda: args[0] <= args[1],
        ">": lambda: args[0] > args[1],
        ">=": lambda: args[0] >= args[1],
        "=": lambda: args[0] == args[1],
        "!=": lambda: args[0] != args[1],
        "and": lambda: z3.And(*args),
        "or": lambda: z3.Or(*args),
        "not": lambda: z3.Not(args[0]),
        "implies": lambda: z3.Implies(args[0], args[1]),
        "ite": lambda: z3.If(*args),
    }
    if op == "^" and isinstance(e[2], Fraction) and e[2].denominator == 1 and e[2] >= 0:
        return z3.Product(*([args[0]] * int(e[2]))) if e[2] else z3.RealVal(1)
    if op not in table:
        raise ConversionError(f"operator {op} is not supported by the Z3 bridge")
    return table[op]()


def z3_prove(formula: Any, *, timeout_ms: int = 10_000, note: str = "") -> Outcome:
    """Prove a quantifier-free formula valid with Z3: a counterexample from a model, else a
    trusted unsat."""
    import z3  # lazy-import: z3 is slow to load

    solver = z3.Solver()
    solver.set("timeout", int(timeout_ms))
    solver.add(z3.Not(formula))
    result = solver.check()
    if result == z3.unknown:
        return unknown(f"z3 unknown: {solver.reason_unknown()}")
    try:
        expr = to_expr(formula)
    except ConversionError as exc:
        expr = None
        why = str(exc)
    if result == z3.sat:
        return _z3_refutation(formula, expr, solver.model(), note)
    if expr is not None:
        cases = linear_validity(expr)
        witnesses = hypothesis_witnesses(expr)
        if cases is not None and witnesses is not None:
            return proved(O.linear_valid(expr, cases, witnesses=witnesses, note=note))
    detail = {"smtlib": solver.sexpr()} if expr is None else {"formula": expr}
    return proved(
        O.trusted(
            "z3",
            f"z3 reports unsat for the negation of {str(formula)[:200]}",
            detail=detail,
            note=note or (why if expr is None else ""),
        )
    )


def _z3_refutation(formula: Any, expr: Any, model: Any, note: str) -> Outcome:
    import z3  # lazy-import: z3 is slow to load

    consts = sorted({str(d.name()) for d in model.decls()})
    point = {}
    for d in model.decls():
        v = model[d]
        if z3.is_rational_value(v) or z3.is_int_value(v):
            point[d.name()] = Fraction(
                str(v.as_fraction() if z3.is_rational_value(v) else v.as_long())
            )
    if expr is None or len(point) != len(consts):
        return unknown(f"z3 found a counterexample the kernel cannot replay: {str(model)[:200]}")
    return refuted(O.counterexample(expr, point, note=note), reason="z3 found a counterexample")


def linear_validity(expr: Any) -> list[list[Any]] | None:
    """Farkas multipliers for every case of the negation's DNF, if all are linear and infeasible."""
    try:
        cases = negated_cases(parse(expr))
    except KernelError:
        return None
    out = []
    for case in cases:
        try:
            y = farkas_multipliers(case)
        except KernelError:
            return None
        if y is None:
            return None
        out.append([O._rational(v) for v in y])
    return out


def hypothesis_witnesses(expr: Any) -> list[dict[str, Fraction]] | None:
    """A point satisfying each hypothesis the formula assumes (Z3), or None if one has none."""
    out = []
    for h in hypotheses(parse(expr)):
        point = _z3_point([_json(h)])
        if point is None:
            return None
        out.append(point)
    return out


def prove_linear(formula: Any, *, note: str = "") -> Outcome:
    """Decide a quantifier-free linear formula valid over the reals: Farkas per case, or a
    counterexample."""
    expr = to_expr(formula)
    cases = linear_validity(expr)
    if cases is not None:
        witnesses = hypothesis_witnesses(expr)
        if witnesses is None:
            return unknown("the formula assumes a hypothesis that holds nowhere: it is vacuous")
        return proved(O.linear_valid(expr, cases, witnesses=witnesses, note=note))

    try:
        negation = negated_cases(parse(expr))
    except KernelError as exc:
        return unknown(f"not a linear formula: {exc}")
    for case in negation:
        point = _z3_point([_json(c) for c in case]) if case else {}
        if point is not None:
            names = symbols(parse(expr))
            point = {n: point.get(n, Fraction(0)) for n in sorted(names)}
            return refuted(
                O.counterexample(expr, point, note=note),
                reason="a case of the negation is satisfiable",
            )
    return unknown("no Farkas certificate for some case, and Z3 found no counterexample")


def _json(e: Any) -> Any:
    return to_json(e)
