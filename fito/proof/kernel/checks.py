"""The obligation checkers: one function per kind, each raising KernelError naming what failed.

Standard library only. Each checker takes the obligation (a JSON object), re-checks it, and
returns its *conclusion*: the closed proposition it proves (see `props`), which the
certificate's statement must repeat exactly. A checker also refuses an obligation that
proves nothing: two sides that are the same expression, a formula without a symbol, a
point that leaves a symbol of its formula without a value, assumptions no point
satisfies.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from fito.proof.kernel import poly as P
from fito.proof.kernel import props
from fito.proof.kernel.expr import (
    BINDERS,
    KernelError,
    compile_expr,
    exact,
    fresh_name,
    functions,
    is_symbol,
    parse,
    parse_rational,
    render,
    substitute,
    symbols,
    to_json,
)
from fito.proof.kernel.normal import Normalizer

Obligation = dict[str, Any]
Json = Any


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


def symbol_list(x: Any, what: str) -> list[str]:
    """A JSON list of symbol names."""
    if not isinstance(x, list) or not all(is_symbol(s) for s in x):
        raise KernelError(f"{what} must be a list of symbols")
    return list(x)


def normalizer(ob: Obligation, positive: Iterable[str] = ()) -> Normalizer:
    """A normalizer under the obligation's `nonzero` assumptions, shown jointly satisfiable."""
    conds = expr_list(ob.get("nonzero", []), "nonzero")
    norm = Normalizer(conds)
    satisfiable(conds, set(positive))
    return norm


def generic_functions(names: Iterable[str]) -> dict[str, Any]:
    """Fixed positive-valued interpretations of uninterpreted functions, for satisfiability
    searches: f(x, ...) = p + sum (i + 2) x_i^2, p a prime of the function's own."""
    out = {}
    for i, name in enumerate(sorted(names)):
        prime = _PRIMES[i % len(_PRIMES)]
        out["@" + name] = (
            lambda p: (
                lambda *xs: exact(p + sum((j + 2) * Fraction(x) ** 2 for j, x in enumerate(xs)))
            )
        )(prime)
    return out


def satisfiable(conds: list[Any], positive: Iterable[str] = ()) -> None:
    """Refuse nonzero assumptions that no point satisfies together (they would make a claim
    vacuous): each must not be identically zero in normal form, and a point where all hold
    is searched (functions get fixed positive values). Conditions with exponentials (and no
    symbolic power, whose atoms can hide relations such as (x y)^k = x^k y^k) are accepted
    on their normal forms: a nonzero polynomial in variables and exponentials of distinct
    polynomials is not the zero function, and neither is a product of such."""
    if not conds:
        return
    Normalizer(conds)
    if any(_has(c, "exp") for c in conds) and not any(_symbolic_power(c) for c in conds):
        return
    positive = set(positive)
    names = sorted(set().union(*(symbols(c) for c in conds)))
    naturals = set().union(*(props.exponent_symbols(c) for c in conds))
    funcs = generic_functions(set().union(*(functions(c) for c in conds)))
    runs = [compile_expr(c) for c in conds]
    for j in range(24):
        env: dict[str, Any] = {
            n: (i + j) % 5 + j // 5
            if n in naturals
            else Fraction(_PRIMES[(i + j) % len(_PRIMES)], j + 1)
            * (1 if n in positive or (i + j) % 2 else -1)
            for i, n in enumerate(names)
        }
        env.update(funcs)
        try:
            if all(r(env) != 0 for r in runs):
                return
        except KernelError:
            continue
    raise KernelError(
        "the nonzero assumptions hold at none of the points tried: they may be unsatisfiable"
    )


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


def _has(e: Any, op: str) -> bool:
    return isinstance(e, tuple) and (e[0] == op or any(_has(a, op) for a in e[1:]))


def _symbolic_power(e: Any) -> bool:
    if not isinstance(e, tuple):
        return False
    if e[0] == "^" and symbols(e[2]):
        return True
    return any(_symbolic_power(a) for a in e[1:])


def assert_equal(norm: Normalizer, lhs: Any, rhs: Any, what: str) -> None:
    """Refuse unless lhs == rhs as rational functions."""
    assert_same_rf(norm, norm.rf(lhs), norm.rf(rhs), what)


def assert_same_rf(norm: Normalizer, a: P.RF, b: P.RF, what: str) -> None:
    """Refuse unless two rational forms are equal (cross-multiplied)."""
    left, right = (norm.canonical(x) for x in P.rf_difference(a, b))
    diff = P.first_difference(left, right)
    if diff is None:
        return
    mono, cl, cr = diff
    plain = P.is_const(a[1]) and P.is_const(b[1])
    where = "" if plain else " after cross-multiplying the denominators"
    raise KernelError(
        f"{what}: coefficient of {P.mono_str(mono)} is {cl} on the left, {cr} on the right{where}"
    )


def not_same(a: Any, b: Any, what: str) -> None:
    """Refuse two sides that are the same expression: the kernel would compare nothing."""
    if a == b:
        raise KernelError(
            f"trivial: {what} are the same expression ({render(a)}), so nothing is re-checked"
        )


def not_constant(e: Any, what: str) -> None:
    """Refuse a formula or term without any symbol: it states a constant, not a claim."""
    if not symbols(e) and not functions(e):
        raise KernelError(f"trivial: {what} ({render(e)}) has no symbol: a constant, not a claim")


def positive_functions(ob: Obligation) -> list[str]:
    """The obligation's `positive_functions` (function names declared positive-valued)."""
    return symbol_list(ob.get("positive_functions", []), "positive_functions")


# ---------------------------------------------------------------- identity, recurrence, sos
def check_identity(ob: Obligation) -> Json:
    """lhs == rhs for all values of the symbols where the declared expressions are nonzero."""
    fields(ob, ("lhs", "rhs"), ("nonzero", "positive_functions"))
    lhs, rhs = parse(ob["lhs"]), parse(ob["rhs"])
    not_same(lhs, rhs, "lhs and rhs")
    not_constant(("=", lhs, rhs), "the identity")
    norm = normalizer(ob)
    assert_equal(norm, lhs, rhs, "lhs != rhs")
    conds = expr_list(ob.get("nonzero", []), "nonzero")
    bound = props.binders([lhs, rhs, *conds], positive_functions=positive_functions(ob))
    return props.forall(
        bound, props.implies(props.nonzero_hypotheses(conds), ["=", to_json(lhs), to_json(rhs)])
    )


def check_recurrence(ob: Obligation) -> Json:
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
    if step == prev or k not in symbols(closed):
        raise KernelError(
            f"trivial: a recurrence whose step is {prev} or whose closed form "
            f"does not depend on {k} re-checks only an identity; state that instead"
        )
    nonzero = expr_list(ob.get("nonzero", []), "nonzero")
    assumed = []
    for i, cond in enumerate(nonzero, 1):
        if k in symbols(cond) and P.variables(Normalizer().poly(cond)) <= {k}:
            _nonzero_from(cond, k, start, i)
        else:
            assumed.append(cond)
    at_start = [substitute(c, {k: start}) for c in nonzero]
    satisfiable(at_start)
    base = Normalizer(at_start)
    assert_equal(base, substitute(closed, {k: start}), initial, f"base case {k} = {start}")
    shifted = shift(closed, k, start)
    assert_equal(Normalizer(nonzero), shifted, substitute(step, {prev: closed}), "step case")
    return _recurrence_conclusion(k, start, prev, initial, step, closed, assumed)


def _recurrence_conclusion(
    k: str, start: Fraction, prev: str, initial: Any, step: Any, closed: Any, assumed: list[Any]
) -> Json:
    sequence = ["rec", k, to_json(start), to_json(initial), prev, to_json(step)]
    others = [initial, closed, *assumed, substitute(step, {prev: Fraction(0)})]
    bound = [b for b in props.binders(others) if b[0] != k]
    bound = sorted(bound + [[k, "nat"]], key=lambda b: b[0])
    hyps: list[Json] = [[">=", k, to_json(start)]]
    hyps += props.nonzero_hypotheses([c for c in assumed if k not in symbols(c)])
    stepwise = [c for c in assumed if k in symbols(c)]
    if stepwise:
        i = fresh_name(k + "_", set().union(*(symbols(c) for c in stepwise)) | {k})
        hyps.append(
            [
                "forall",
                [[i, ["int", to_json(start), k]]],
                props.conj(props.nonzero_hypotheses([substitute(c, {k: i}) for c in stepwise])),
            ]
        )
    return props.forall(bound, props.implies(hyps, ["=", sequence, to_json(closed)]))


def shift(closed: Any, k: str, start: Fraction) -> Any:
    """closed(k + 1): k replaced by k + 1, except that a sum/prod whose upper bound is k + c
    (lower bound and body free of k) is split into the same sum/prod up to k + c and its
    last term, which is valid for every k >= start when start + c + 1 >= the lower bound."""
    if not isinstance(closed, tuple):
        return ("+", k, Fraction(1)) if closed == k else closed
    if closed[0] in BINDERS:
        return _peel(closed, k, start) if k in symbols(closed) else closed
    if closed[0] == "fn":
        return (closed[0], closed[1], *(shift(a, k, start) for a in closed[2:]))
    return (closed[0], *(shift(a, k, start) for a in closed[1:]))


def _peel(node: tuple, k: str, start: Fraction) -> Any:
    op, var, lo, hi, body = node
    if k in symbols(lo) or k in _free(body, var):
        raise KernelError(f"{op} with {k} in its lower bound or body: cannot step {k}")
    offset, low = Normalizer().poly(("-", hi, k)), Normalizer().poly(lo)
    if P.variables(offset) or P.variables(low):
        raise KernelError(f"{op}: its bounds are not a constant and {k} + c")
    c = P.const_value(offset)
    if c.denominator != 1 or start + c + 1 < P.const_value(low):
        raise KernelError(f"{op}: its range may be empty at {k} = {start}")
    last = substitute(body, {var: ("+", hi, Fraction(1))})
    return ("*" if op == "prod" else "+", node, last)


def _free(body: Any, var: str) -> set[str]:
    return symbols(body) - {var}


def _nonzero_from(cond: Any, k: str, start: Fraction, index: int) -> None:
    """Refuse a condition on k alone unless p(start + j) has coefficients of one sign in j."""
    p = Normalizer().poly(cond)
    shifted = P.substitute_var(p, k, P.add(P.var(k), P.const(start)))
    coeffs = list(shifted.values())
    lead = P.const_value(shifted)
    if lead == 0 or not all(c * lead > 0 for c in coeffs):
        raise KernelError(
            f"nonzero condition {index} ({render(cond)}) is not shown nonzero for "
            f"all {k} >= {start}"
        )


def check_sum_of_squares(ob: Obligation) -> Json:
    """target == sum of weight * base^2 with weights nonnegative, hence target >= 0."""
    fields(ob, ("target", "terms"), ("positive", "nonzero"))
    positive = symbol_list(ob.get("positive", []), "positive")
    if not isinstance(ob["terms"], list) or not ob["terms"]:
        raise KernelError("terms must be a nonempty list of [weight, base]")
    target = parse(ob["target"])
    not_constant(target, "the target")
    norm, total, parts = normalizer(ob, positive), [], [target]
    for i, term in enumerate(ob["terms"], 1):
        if not isinstance(term, list) or len(term) != 2:
            raise KernelError(f"term {i} must be [weight, base]")
        weight, base = parse(term[0]), parse(term[1])
        _nonnegative_weight(norm.rf(weight), set(positive), i)
        total.append(("*", weight, ("^", base, Fraction(2))))
        parts += [weight, base]
    if all(not norm.rf(w)[0] for w in (t[1] for t in total)):
        raise KernelError("trivial: every weight is zero")
    assert_equal(norm, target, ("+", *total), "target != sum of squares")
    conds = expr_list(ob.get("nonzero", []), "nonzero")
    bound = props.binders([*parts, *conds], positive=positive)
    return props.forall(
        bound, props.implies(props.nonzero_hypotheses(conds), [">=", to_json(target), 0])
    )


def _nonnegative_weight(w: P.RF, positive: set[str], index: int) -> None:
    for part, name in ((w[0], "numerator"), (w[1], "denominator")):
        bad = P.variables(part) - positive
        if bad:
            raise KernelError(f"weight {index}: {name} uses {min(bad)}, not declared positive")
        if any(c < 0 for c in part.values()):
            raise KernelError(f"weight {index}: {name} has a negative coefficient")
    if not w[1]:
        raise KernelError(f"weight {index}: denominator is zero")


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


def _truth(ob: Obligation) -> tuple[Any, bool]:
    fields(ob, ("formula", "assignment"))
    formula, env = parse(ob["formula"]), _assignment(ob["assignment"])
    not_constant(formula, "the formula")
    if functions(formula):
        raise KernelError(f"function {min(functions(formula))} has no value at a point")
    missing = sorted(symbols(formula) - set(env))
    if missing:
        raise KernelError(f"symbol {missing[0]} has no value in the assignment")
    value = compile_expr(formula)(env)  # other names play no part, nor in the statement
    if not isinstance(value, bool):
        raise KernelError("formula is a number, not a truth value")
    return formula, value


def check_witness(ob: Obligation) -> Json:
    """The formula evaluates to true under the assignment: there is such a point."""
    formula, value = _truth(ob)
    if not value:
        raise KernelError(f"formula is false under the assignment {_env_str(ob['assignment'])}")
    return props.exists(props.binders([formula]), to_json(formula))


def check_counterexample(ob: Obligation) -> Json:
    """The formula (the claim's statement) evaluates to false under the assignment."""
    formula, value = _truth(ob)
    if value:
        raise KernelError(
            f"formula is true under the assignment {_env_str(ob['assignment'])}: not "
            "a counterexample"
        )
    return ["not", props.forall(props.binders([formula]), to_json(formula))]


def _env_str(env: dict) -> str:
    text = ", ".join(f"{k}={v}" for k, v in env.items())
    return text if len(text) < 100 else text[:97] + "..."


# ---------------------------------------------------------------- trusted
# The tools whose word a trusted obligation may take (a closed list: not free text).
TOOLS = ("sympy", "z3")


def trust_tag(ob: Obligation) -> str:
    """The visible trust tag of a trusted obligation, e.g. `trusted: sympy 1.14.0`."""
    fields(ob, ("tool", "version", "statement"), ("detail",))
    for name in ("tool", "version", "statement"):
        if not isinstance(ob[name], str) or not ob[name].strip():
            raise KernelError(f"{name} must be a nonempty string")
    if ob["tool"] not in TOOLS:
        raise KernelError(f"tool {ob['tool']!r} is not one of {', '.join(TOOLS)}")
    return f"trusted: {ob['tool']} {ob['version']}"


def check_trusted(ob: Obligation) -> Json:
    """Nothing is re-checked: the conclusion names the tool whose word it is."""
    trust_tag(ob)
    return ["trusted", ob["tool"], ob["version"], ob["statement"]]
