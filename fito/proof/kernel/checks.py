"""The obligation checkers: one function per kind, each raising KernelError naming what failed.

Standard library only. Each checker takes the obligation (a JSON object) and returns None,
or for a `trusted` obligation the trust tag it accepted.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from fito.proof.kernel import poly as P
from fito.proof.kernel.expr import (
    COMPARISONS,
    KernelError,
    compile_expr,
    exact,
    is_symbol,
    parse,
    parse_rational,
    render,
    substitute,
    symbols,
    to_json,
)
from fito.proof.kernel.normal import Normalizer

MAX_POINTS = 2_000_000
Obligation = dict[str, Any]


def fields(ob: Obligation, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """Refuse missing and unknown fields."""
    for name in required:
        if name not in ob:
            raise KernelError(f"missing field {name!r}")
    extra = sorted(set(ob) - set(required) - set(optional) - {"kind", "note"})
    if extra:
        raise KernelError(f"unknown field {extra[0]!r}")


def expr_list(x: Any, what: str) -> list[Any]:
    """A JSON list of expressions, parsed."""
    if not isinstance(x, list):
        raise KernelError(f"{what} must be a list")
    return [parse(e) for e in x]


def normalizer(ob: Obligation, positive: Iterable[str] = ()) -> Normalizer:
    """A normalizer under the obligation's `nonzero` assumptions, shown jointly satisfiable."""
    conds = expr_list(ob.get("nonzero", []), "nonzero")
    norm = Normalizer(conds)
    satisfiable(conds, set(positive))
    return norm


def satisfiable(conds: list[Any], positive: Iterable[str] = ()) -> None:
    """Refuse assumptions that no tried point satisfies together (they could make a claim vacuous)."""
    if not conds:
        return
    positive = set(positive)
    names = sorted(set().union(*(symbols(c) for c in conds)))
    naturals = set().union(*(_exponent_symbols(c) for c in conds))
    runs = [compile_expr(c) for c in conds]
    for j in range(24):
        env = {n: (i + j) % 5 + j // 5 if n in naturals else
               Fraction(_PRIMES[(i + j) % len(_PRIMES)], j + 1) * (1 if n in positive or (i + j) % 2 else -1)
               for i, n in enumerate(names)}
        try:
            if all(r(env) != 0 for r in runs):
                return
        except KernelError:
            continue
    raise KernelError("the nonzero assumptions hold at none of the points tried: they may be unsatisfiable")


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


def _exponent_symbols(e: Any) -> set[str]:
    if not isinstance(e, tuple):
        return set()
    out = symbols(e[2]) if e[0] == "^" else set()
    return out.union(*(_exponent_symbols(a) for a in e[1:]))


def assert_equal(norm: Normalizer, lhs: Any, rhs: Any, what: str) -> None:
    """Refuse unless lhs == rhs as rational functions."""
    a, b = norm.rf(lhs), norm.rf(rhs)
    left, right = P.rf_difference(a, b)
    diff = P.first_difference(left, right)
    if diff is None:
        return
    mono, cl, cr = diff
    plain = P.is_const(a[1]) and P.is_const(b[1])
    where = "" if plain else " after cross-multiplying the denominators"
    raise KernelError(f"{what}: coefficient of {P.mono_str(mono)} is {cl} on the left, {cr} on the right{where}")


# ---------------------------------------------------------------- identity, recurrence, sos
def check_identity(ob: Obligation) -> None:
    """lhs == rhs for all values of the symbols where the declared expressions are nonzero."""
    fields(ob, ("lhs", "rhs"), ("nonzero",))
    assert_equal(normalizer(ob), parse(ob["lhs"]), parse(ob["rhs"]), "lhs != rhs")


def check_recurrence(ob: Obligation) -> None:
    """s(start) = initial, s(k+1) = step(k, s(k)) implies s(k) = closed(k) for all k >= start."""
    fields(ob, ("var", "start", "initial", "step", "closed"), ("prev", "nonzero"))
    k, prev = ob["var"], ob.get("prev", "prev")
    if not is_symbol(k) or not is_symbol(prev) or k == prev:
        raise KernelError("var and prev must be two different symbols")
    start = parse_rational(ob["start"], "start")
    if start.denominator != 1 or start < 0:
        raise KernelError("start must be a natural number")
    closed, initial, step = parse(ob["closed"]), parse(ob["initial"]), parse(ob["step"])
    if prev in symbols(closed) | symbols(initial):
        raise KernelError(f"{prev} may occur only in the step")
    nonzero = expr_list(ob.get("nonzero", []), "nonzero")
    for i, cond in enumerate(nonzero, 1):
        if k in symbols(cond) and P.variables(Normalizer().poly(cond)) <= {k}:
            _nonzero_from(cond, k, start, i)
    at_start = [substitute(c, {k: start}) for c in nonzero]
    satisfiable(at_start)
    base = Normalizer(at_start)
    assert_equal(base, substitute(closed, {k: start}), initial, f"base case {k} = {start}")
    shifted = substitute(closed, {k: ("+", k, Fraction(1))})
    assert_equal(Normalizer(nonzero), shifted, substitute(step, {prev: closed}), "step case")


def _nonzero_from(cond: Any, k: str, start: Fraction, index: int) -> None:
    """Refuse a condition on k alone unless p(start + j) has coefficients of one sign in j."""
    p = Normalizer().poly(cond)
    shifted = P.substitute_var(p, k, P.add(P.var(k), P.const(start)))
    coeffs = list(shifted.values())
    lead = P.const_value(shifted)
    if lead == 0 or not all(c * lead > 0 for c in coeffs):
        raise KernelError(f"nonzero condition {index} ({render(cond)}) is not shown nonzero for all {k} >= {start}")


def check_sum_of_squares(ob: Obligation) -> None:
    """target == sum of weight * base^2 with weights nonnegative, hence target >= 0."""
    fields(ob, ("target", "terms"), ("positive", "nonzero"))
    positive = ob.get("positive", [])
    if not isinstance(positive, list) or not all(is_symbol(s) for s in positive):
        raise KernelError("positive must be a list of symbols")
    if not isinstance(ob["terms"], list) or not ob["terms"]:
        raise KernelError("terms must be a nonempty list of [weight, base]")
    norm, total = normalizer(ob, positive), []
    for i, term in enumerate(ob["terms"], 1):
        if not isinstance(term, list) or len(term) != 2:
            raise KernelError(f"term {i} must be [weight, base]")
        weight, base = parse(term[0]), parse(term[1])
        _nonnegative_weight(norm.rf(weight), set(positive), i)
        total.append(("*", weight, ("^", base, Fraction(2))))
    assert_equal(norm, parse(ob["target"]), ("+", *total), "target != sum of squares")


def _nonnegative_weight(w: P.RF, positive: set[str], index: int) -> None:
    for part, name in ((w[0], "numerator"), (w[1], "denominator")):
        bad = P.variables(part) - positive
        if bad:
            raise KernelError(f"weight {index}: {name} uses {min(bad)}, not declared positive")
        if any(c < 0 for c in part.values()):
            raise KernelError(f"weight {index}: {name} has a negative coefficient")
    if not w[1]:
        raise KernelError(f"weight {index}: denominator is zero")


# ---------------------------------------------------------------- linear arithmetic
def check_farkas(ob: Obligation) -> None:
    """A nonnegative combination of the constraints reads 0 < 0 or 0 <= c < 0: no real solution."""
    fields(ob, ("constraints", "multipliers"))
    cons = expr_list(ob["constraints"], "constraints")
    mults = ob["multipliers"]
    if not isinstance(mults, list) or len(mults) != len(cons) or not cons:
        raise KernelError("multipliers must be a list as long as the (nonempty) constraints")
    total: P.Poly = {}
    strict, norm = False, Normalizer()
    for i, (c, m) in enumerate(zip(cons, mults), 1):
        y = parse_rational(m, f"multiplier {i}")
        form, op = _linear_form(norm, c, i)
        if op != "=" and y < 0:
            raise KernelError(f"multiplier {i} is negative ({y}) for an inequality")
        total = P.add(total, P.scale(form, y))
        strict = strict or (op == ">" and y > 0)
    left = {m: c for m, c in total.items() if m}
    if left:
        m = min(left)
        raise KernelError(f"the combination leaves coefficient {left[m]} on {P.mono_str(m)}")
    c = P.const_value(total)
    if not (c < 0 or (c == 0 and strict)):
        raise KernelError(f"the combination reads 0 <= {c}{' (no strict inequality used)' if c == 0 else ''}: no contradiction")


def _linear_form(norm: Normalizer, c: Any, i: int) -> tuple[P.Poly, str]:
    """A comparison as (g, op) meaning g op 0 with op in >=, >, =."""
    if not isinstance(c, tuple) or c[0] not in COMPARISONS or c[0] == "!=":
        raise KernelError(f"constraint {i} is not a comparison <, <=, =, >=, >")
    lhs, rhs = norm.poly(c[1]), norm.poly(c[2])
    g = P.sub(lhs, rhs) if c[0] in (">", ">=", "=") else P.sub(rhs, lhs)
    if P.degree(g) > 1:
        raise KernelError(f"constraint {i} is not linear")
    return g, {"<": ">", "<=": ">=", ">": ">", ">=": ">=", "=": "="}[c[0]]


# ---------------------------------------------------------------- evaluation
def _assignment(x: Any) -> dict[str, Any]:
    if not isinstance(x, dict):
        raise KernelError("assignment must be an object symbol -> rational")
    out = {}
    for name, value in x.items():
        if not is_symbol(name):
            raise KernelError(f"assignment: {name!r} is not a symbol")
        out[name] = exact(parse_rational(value, f"value of {name}"))
    return out


def _truth(ob: Obligation) -> bool:
    fields(ob, ("formula", "assignment"))
    formula, env = parse(ob["formula"]), _assignment(ob["assignment"])
    missing = sorted(symbols(formula) - set(env))
    if missing:
        raise KernelError(f"symbol {missing[0]} has no value in the assignment")
    value = compile_expr(formula)(env)
    if not isinstance(value, bool):
        raise KernelError("formula is a number, not a truth value")
    return value


def check_witness(ob: Obligation) -> None:
    """The formula evaluates to true under the assignment."""
    if not _truth(ob):
        raise KernelError(f"formula is false under the assignment {_env_str(ob['assignment'])}")


def check_counterexample(ob: Obligation) -> None:
    """The formula (the claim's statement) evaluates to false under the assignment."""
    if _truth(ob):
        raise KernelError(f"formula is true under the assignment {_env_str(ob['assignment'])}: not a counterexample")


def _env_str(env: dict) -> str:
    text = ", ".join(f"{k}={v}" for k, v in env.items())
    return text if len(text) < 100 else text[:97] + "..."


# ---------------------------------------------------------------- enumeration
AGGREGATES = ("count", "sum", "min", "max", "all", "any", "set")


def check_enumeration(ob: Obligation) -> None:
    """Recompute an aggregate over a finite product of integer ranges and compare."""
    fields(ob, ("domain", "aggregate", "value"), ("expr", "where"))
    agg = ob["aggregate"]
    if agg not in AGGREGATES:
        raise KernelError(f"aggregate must be one of {', '.join(AGGREGATES)}")
    if agg in ("sum", "min", "max", "set", "all", "any") and "expr" not in ob:
        raise KernelError(f"aggregate {agg} needs an expr")
    domain = _domain(ob["domain"])
    bound = {name for name, _, _ in domain}
    expr = parse(ob.get("expr", True))
    where = parse(ob.get("where", True))
    free = sorted((symbols(expr) | symbols(where)) - bound)
    if free:
        raise KernelError(f"symbol {free[0]} is not bound by the domain")
    got = _aggregate(agg, _values(domain, compile_expr(expr), compile_expr(where)))
    want = _claimed(agg, ob["value"])
    if got != want:
        raise KernelError(f"recomputed {agg} is {_show(got)}, the certificate says {_show(want)}")


def _domain(x: Any) -> list[tuple[str, Callable, Callable]]:
    if not isinstance(x, list) or not x:
        raise KernelError("domain must be a nonempty list of [symbol, lo, hi]")
    out, names = [], set()
    size: int | None = 1
    for i, item in enumerate(x, 1):
        if not isinstance(item, list) or len(item) != 3 or not is_symbol(item[0]):
            raise KernelError(f"domain entry {i} must be [symbol, lo, hi]")
        if item[0] in names:
            raise KernelError(f"domain entry {i} binds {item[0]} twice")
        names.add(item[0])
        lo, hi = parse(item[1]), parse(item[2])
        if size is not None and isinstance(lo, Fraction) and isinstance(hi, Fraction):
            size *= max(0, int(hi) - int(lo) + 1)
        else:
            size = None
        out.append((item[0], compile_expr(lo), compile_expr(hi)))
    if size is not None and size > MAX_POINTS:
        raise KernelError(f"the domain has {size} points, more than {MAX_POINTS}")
    return out


def _values(domain: list, expr: Callable, where: Callable):
    budget = [MAX_POINTS]

    def walk(i: int, env: dict):
        if i == len(domain):
            budget[0] -= 1
            if budget[0] < 0:
                raise KernelError(f"the domain has more than {MAX_POINTS} points")
            ok = where(env)
            if not isinstance(ok, bool):
                raise KernelError("where is not a truth value")
            if ok:
                yield expr(env)
            return
        name, lo, hi = domain[i]
        a, b = lo(env), hi(env)
        if type(a) is not int or type(b) is not int:
            raise KernelError(f"bounds of {name} are not integers")
        for v in range(a, b + 1):
            env[name] = v
            yield from walk(i + 1, env)
        env.pop(name, None)
    return walk(0, {})


def _aggregate(agg: str, values) -> Any:
    if agg == "count":
        return sum(1 for _ in values)
    vals = list(values)
    if agg in ("all", "any"):
        if not all(isinstance(v, bool) for v in vals):
            raise KernelError(f"{agg} needs a truth-valued expr")
        return all(vals) if agg == "all" else any(vals)
    if any(isinstance(v, bool) for v in vals):
        raise KernelError(f"{agg} needs a numeric expr")
    if agg == "sum":
        return exact(sum(vals, Fraction(0)))
    if agg == "set":
        return sorted(set(vals))
    return (min if agg == "min" else max)(vals) if vals else None


def _claimed(agg: str, v: Any) -> Any:
    if agg in ("all", "any"):
        if not isinstance(v, bool):
            raise KernelError("value must be true or false")
        return v
    if agg == "set":
        if not isinstance(v, list):
            raise KernelError("value must be a list")
        return sorted({parse_rational(x, "set element") for x in v})
    if agg in ("min", "max") and v is None:
        return None
    value = parse_rational(v, "value")
    if agg == "count" and value.denominator != 1:
        raise KernelError("count must be an integer")
    return value


def _show(v: Any) -> str:
    if isinstance(v, list):
        text = "[" + ", ".join(str(x) for x in v) + "]"
        return text if len(text) < 100 else text[:97] + "...]"
    return str(to_json(v)) if isinstance(v, (Fraction, bool)) else str(v)


# ---------------------------------------------------------------- trusted
def trust_tag(ob: Obligation) -> str:
    """The visible trust tag of a trusted obligation, e.g. `trusted: sympy 1.14.0`."""
    fields(ob, ("tool", "version", "statement"), ("detail",))
    for name in ("tool", "version", "statement"):
        if not isinstance(ob[name], str) or not ob[name]:
            raise KernelError(f"{name} must be a nonempty string")
    return f"trusted: {ob['tool']} {ob['version']}"

