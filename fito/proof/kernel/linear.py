"""Linear arithmetic: Farkas refutations (numeric, or with multipliers that are rational
functions of sign-definite parameters) and validity of quantifier-free linear formulas (the
negation in disjunctive normal form, each case refuted by Farkas multipliers). Standard
library only."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fito.proof.kernel import poly as P
from fito.proof.kernel import props
from fito.proof.kernel.checks import fields, not_constant
from fito.proof.kernel.expr import (
    COMPARISONS,
    KernelError,
    compile_expr,
    exact,
    fresh_name,
    is_symbol,
    parse,
    parse_rational,
    render,
    substitute,
    symbols,
    to_json,
)
from fito.proof.kernel.normal import Normalizer

MAX_CASES = 256
_FLIP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
PARAMETER_DOMAINS = ("positive", "nonneg")
Json = Any


# ---------------------------------------------------------------- signs of rational functions
def rf_sign(rf: P.RF, positive: set[str], nonneg: set[str]) -> str | None:
    """The sign class of num/den (den never zero on the domain), or None."""
    num, den = P.poly_sign(rf[0], positive, nonneg), P.poly_sign(rf[1], positive, nonneg)
    if den not in ("pos", "neg") or num is None:
        return None
    if den == "pos" or num == "zero":
        return num
    return {"pos": "neg", "nonneg": "nonpos", "nonpos": "nonneg", "neg": "pos"}[num]


def parameters(x: Any, names: set[str]) -> tuple[dict[str, Any], set[str], set[str], list]:
    """Parameter declarations -> (substitution, positive, nonneg, binders). An interval
    [a, b) or (a, b) is written a + (b - a) s/(1 + s) with a fresh s >= 0 (or > 0)."""
    if not isinstance(x, dict):
        raise KernelError("parameters must be an object name -> domain")
    subst: dict[str, Any] = {}
    positive: set[str] = set()
    nonneg: set[str] = set()
    bound = []
    used = set(names) | set(x)
    for name, domain in sorted(x.items()):
        if not is_symbol(name):
            raise KernelError(f"parameter {name!r} is not a symbol")
        if domain in PARAMETER_DOMAINS:
            (positive if domain == "positive" else nonneg).add(name)
            bound.append([name, domain])
            continue
        if not (
            isinstance(domain, list)
            and len(domain) == 4
            and domain[0] == "interval"
            and domain[3] in ("[)", "()")
        ):
            raise KernelError(
                f"parameter {name}: domain must be positive, nonneg or "
                '["interval", a, b, "[)" or "()"]'
            )
        a, b = parse_rational(domain[1], "interval end"), parse_rational(domain[2], "interval end")
        if not a < b:
            raise KernelError(f"parameter {name}: empty interval")
        s = fresh_name(f"s_{name}", used)
        used.add(s)
        (nonneg if domain[3] == "[)" else positive).add(s)
        subst[name] = ("+", a, ("*", b - a, ("/", s, ("+", Fraction(1), s))))
        bound.append([name, ["interval", to_json(a), to_json(b), domain[3]]])
    return subst, positive, nonneg, bound


# ---------------------------------------------------------------- Farkas
def check_farkas(ob: dict) -> Json:
    """A nonnegative combination of the constraints reads 0 < 0 or 0 <= c < 0: no real
    solution (for every value of the parameters, when multipliers depend on them)."""
    fields(ob, ("constraints", "multipliers"), ("variables", "parameters"))
    cons = [parse(c) for c in _list(ob["constraints"], "constraints")]
    if not cons:
        raise KernelError("constraints must be nonempty")
    names = set().union(*(symbols(c) for c in cons))
    if "variables" in ob:
        variables = ob["variables"]
        if (
            not isinstance(variables, list)
            or not variables
            or not all(is_symbol(v) for v in variables)
        ):
            raise KernelError("variables must be a nonempty list of symbols")
        variables = set(variables)
    else:
        variables = set(names)
    subst, positive, nonneg, bound = parameters(ob.get("parameters", {}), names)
    declared = {b[0] for b in bound}
    stray = sorted(names - variables - declared)
    if stray or variables & declared:
        raise KernelError(
            f"symbol {(stray or sorted(variables & declared))[0]} must be either a "
            "variable or a declared parameter"
        )
    for i, c in enumerate(cons, 1):
        if not symbols(c) & variables:
            raise KernelError(f"trivial: constraint {i} ({render(c)}) has no variable")
    refute(cons, ob["multipliers"], variables, subst, positive, nonneg)
    exists = [
        "exists",
        [[v, "real"] for v in sorted(variables)],
        props.conj([to_json(c) for c in cons]),
    ]
    return props.forall(sorted(bound), ["not", exists])


def refute(
    cons: list[Any],
    mults: Any,
    variables: set[str],
    subst: dict[str, Any],
    positive: set[str],
    nonneg: set[str],
) -> None:
    """Check the Farkas combination of parsed constraints (KernelError if it fails)."""
    if not isinstance(mults, list) or len(mults) != len(cons):
        raise KernelError("multipliers must be a list as long as the constraints")
    norm = Normalizer(positive=positive, nonneg=nonneg)
    forms = [_linear_form(norm, substitute(c, subst), i, variables) for i, c in enumerate(cons, 1)]
    # every unknown the forms mention (atoms such as x^k included) but the parameters
    variables = set(variables).union(*(P.variables(f[0]) | P.variables(f[1]) for f, _ in forms))
    variables -= positive | nonneg
    total: P.RF = ({}, P.const(1))
    strict = False
    for i, ((form, op), m) in enumerate(zip(forms, mults), 1):
        _check_linear(form, variables, i)
        y = norm.rf(substitute(parse(m), subst))
        if P.variables(y[0]) & variables or P.variables(y[1]) & variables:
            raise KernelError(f"multiplier {i} depends on a variable")
        sign = rf_sign(y, positive, nonneg)
        if op != "=" and sign not in ("pos", "nonneg", "zero"):
            if P.is_const(y[0]) and P.is_const(y[1]):
                value = P.const_value(y[0]) / P.const_value(y[1])
                raise KernelError(f"multiplier {i} is negative ({value}) for an inequality")
            raise KernelError(f"multiplier {i} is not shown >= 0 ({render(parse(m))})")
        total = P.rf_tidy(P.rf_add(total, P.rf_mul(y, form)))
        strict = strict or (op == ">" and sign == "pos")
    if (P.variables(total[0]) | P.variables(total[1])) & variables:
        v = sorted((P.variables(total[0]) | P.variables(total[1])) & variables)[0]
        coef = {tuple(t for t in m if t != (v, 1)): c for m, c in total[0].items() if (v, 1) in m}
        shown = (
            str(P.const_value(coef))
            if P.is_const(coef) and P.is_const(total[1])
            else f"({P.poly_str(coef)})"
        )
        raise KernelError(f"the combination leaves coefficient {shown} on {v}")
    sign = rf_sign(total, positive, nonneg)
    if not (sign == "neg" or (strict and sign in ("nonpos", "zero"))):
        shown = (
            P.poly_str(total[0])
            if P.is_const(total[1])
            else f"({P.poly_str(total[0])})/({P.poly_str(total[1])})"
        )
        reason = " (no strict inequality used)" if sign in ("nonpos", "zero") else ""
        raise KernelError(f"the combination reads 0 <= {shown}{reason}: no contradiction")


def _linear_form(norm: Normalizer, c: Any, i: int, variables: set[str]) -> tuple[P.RF, str]:
    """A comparison as (g, op) meaning g op 0 with op in >=, >, =."""
    if not isinstance(c, tuple) or c[0] not in COMPARISONS or c[0] == "!=":
        raise KernelError(f"constraint {i} is not a comparison <, <=, =, >=, >")
    g = norm.rf(("-", c[1], c[2]) if c[0] in (">", ">=", "=") else ("-", c[2], c[1]))
    return P.rf_tidy(g), {"<": ">", "<=": ">=", ">": ">", ">=": ">=", "=": "="}[c[0]]


def _check_linear(g: P.RF, variables: set[str], i: int) -> None:
    if P.variables(g[1]) & variables or any(
        sum(e for v, e in m if v in variables) > 1 for m in g[0]
    ):
        raise KernelError(f"constraint {i} is not linear")


def _list(x: Any, what: str) -> list:
    if not isinstance(x, list):
        raise KernelError(f"{what} must be a list")
    return x


# ---------------------------------------------------------------- linear validity
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


def hypotheses(formula: Any) -> list[Any]:
    """The hypotheses H of the implications H => C the formula asserts (at the top, or in a
    top-level conjunction): each must hold somewhere, or the formula says nothing there."""
    if isinstance(formula, tuple) and formula[0] == "implies":
        return [formula[1]]
    if isinstance(formula, tuple) and formula[0] == "and":
        return [h for part in formula[1:] for h in hypotheses(part)]
    return []


def check_linear_valid(ob: dict) -> Json:
    """The formula holds for all real values: every case of its negation has a Farkas
    refutation; and each hypothesis it assumes holds at a given point (it is not vacuous)."""
    fields(ob, ("formula", "cases"), ("witnesses",))
    formula = parse(ob["formula"])
    not_constant(formula, "the formula")
    _hypotheses_hold(formula, ob.get("witnesses", []))
    cases = negated_cases(formula)
    given = ob["cases"]
    if not isinstance(given, list) or len(given) != len(cases):
        raise KernelError(
            f"the negation has {len(cases)} case(s), the certificate gives "
            f"{len(given) if isinstance(given, list) else 'no list of'} multipliers"
        )
    for i, (case, mults) in enumerate(zip(cases, given), 1):
        if not case:
            raise KernelError(f"case {i} of the negation is true: the formula is not valid")
        try:
            names = set().union(*(symbols(c) for c in case))
            refute(list(case), mults, names, {}, set(), set())
        except KernelError as exc:
            raise KernelError(f"case {i}: {exc}") from None
    return props.forall(props.binders([formula]), to_json(formula))


def _hypotheses_hold(formula: Any, witnesses: Any) -> None:
    hyps = hypotheses(formula)
    if not isinstance(witnesses, list) or len(witnesses) != len(hyps):
        found = len(witnesses) if isinstance(witnesses, list) else 0
        raise KernelError(
            f"the formula assumes {len(hyps)} hypothesis(es); give a witness point "
            f"for each (found {found})"
        )
    for i, (h, w) in enumerate(zip(hyps, witnesses), 1):
        if not isinstance(w, dict) or set(w) != symbols(h):
            raise KernelError(
                f"witness {i} must give a value to exactly the symbols of hypothesis {i}"
            )
        env = {k: exact(parse_rational(v, f"witness {i}: {k}")) for k, v in w.items()}
        if compile_expr(h)(env) is not True:
            raise KernelError(
                f"hypothesis {i} ({render(h)}) is false at its witness point: "
                "it may hold nowhere, which would make the formula vacuous"
            )
