"""Finite recomputation: aggregates over a box of integers, and over the states a small
transition system reaches (the kernel walks them itself). Standard library only.

The kernel refuses enumerations that check nothing: an empty box, an expression or filter
that mentions no enumerated variable, a comparison of an expression with itself, and for
all, any, min and max a filter that no point satisfies (vacuous or undefined).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from fito.proof.kernel import props
from fito.proof.kernel.checks import fields, not_same
from fito.proof.kernel.expr import (
    COMPARISONS,
    KernelError,
    compile_expr,
    exact,
    functions,
    is_symbol,
    parse,
    parse_rational,
    symbols,
    to_json,
)

MAX_POINTS = 2_000_000
AGGREGATES = ("count", "sum", "min", "max", "all", "any", "set")
Json = Any
Obligation = dict[str, Any]


def _parts(ob: Obligation, bound: set[str]) -> tuple[str, Any, Any]:
    """The aggregate, expr and where of an enumeration, checked not to be vacuous."""
    agg = ob["aggregate"]
    if agg not in AGGREGATES:
        raise KernelError(f"aggregate must be one of {', '.join(AGGREGATES)}")
    if agg != "count" and "expr" not in ob:
        raise KernelError(f"aggregate {agg} needs an expr")
    expr = parse(ob["expr"]) if "expr" in ob else None
    where = parse(ob["where"]) if "where" in ob else None
    for name, part in (("expr", expr), ("where", where)):
        if part is None:
            continue
        free = sorted(symbols(part) - bound)
        if free:
            raise KernelError(f"symbol {free[0]} is not bound by the domain")
        if functions(part):
            raise KernelError(
                f"{name} applies the function {min(functions(part))}, which has no value"
            )
        if not symbols(part) & bound:
            raise KernelError(f"trivial: {name} mentions no enumerated variable: a constant")
        if isinstance(part, tuple) and part[0] in COMPARISONS:
            not_same(part[1], part[2], f"the two sides of the {name}")
    return agg, expr, where


def check_enumeration(ob: Obligation) -> Json:
    """Recompute an aggregate over a finite product of integer ranges and compare."""
    fields(ob, ("domain", "aggregate", "value"), ("expr", "where"))
    domain, bound_json = _domain(ob["domain"])
    agg, expr, where = _parts(ob, {name for name, _, _ in domain})
    points = _walk(domain)
    got = aggregate(agg, _select(points, expr, where), where is not None)
    want, value_json = claimed(agg, ob["value"])
    if got != want:
        raise KernelError(f"recomputed {agg} is {_show(got)}, the certificate says {_show(want)}")
    return conclusion(agg, bound_json, expr, where, value_json)


def conclusion(agg: str, over: Json, expr: Any, where: Any, value: Json) -> Json:
    """What an aggregate establishes, over binders (a box) or a reachable-state term."""
    body = to_json(expr) if expr is not None else None
    cond = to_json(where) if where is not None else True
    if agg in ("all", "any"):
        if not isinstance(over, list):  # reachable states: an aggregate term like the others
            return ["=", [agg, over, cond, body], value]
        if agg == "all":
            core = props.implies([cond] if where is not None else [], body)
            return ["forall", over, core] if value else ["not", ["forall", over, core]]
        core = props.conj([cond, body] if where is not None else [body])
        return ["exists", over, core] if value else ["not", ["exists", over, core]]
    term = [agg, over, cond] + ([body] if agg != "count" else [])
    return ["=", term, value]


def _domain(x: Any) -> tuple[list[tuple[str, Callable, Callable]], list]:
    if not isinstance(x, list) or not x:
        raise KernelError("domain must be a nonempty list of [symbol, lo, hi]")
    out, bound = [], []
    names: set[str] = set()
    size: int | None = 1
    for i, item in enumerate(x, 1):
        if not isinstance(item, list) or len(item) != 3 or not is_symbol(item[0]):
            raise KernelError(f"domain entry {i} must be [symbol, lo, hi]")
        if item[0] in names:
            raise KernelError(f"domain entry {i} binds {item[0]} twice")
        lo, hi = parse(item[1]), parse(item[2])
        stray = sorted((symbols(lo) | symbols(hi)) - names)
        if stray:
            raise KernelError(f"domain entry {i}: bound uses {stray[0]}, not an earlier variable")
        names.add(item[0])
        if size is not None and isinstance(lo, Fraction) and isinstance(hi, Fraction):
            size *= max(0, int(hi) - int(lo) + 1)
        else:
            size = None
        out.append((item[0], compile_expr(lo), compile_expr(hi)))
        bound.append([item[0], ["int", to_json(lo), to_json(hi)]])
    if size is not None and size > MAX_POINTS:
        raise KernelError(f"the domain has {size} points, more than {MAX_POINTS}")
    return out, bound


def _walk(domain: list) -> Iterator[dict]:
    budget = [MAX_POINTS]

    def walk(i: int, env: dict) -> Iterator[dict]:
        if i == len(domain):
            budget[0] -= 1
            if budget[0] < 0:
                raise KernelError(f"the domain has more than {MAX_POINTS} points")
            yield env
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


def _select(points: Iterator[dict], expr: Any, where: Any) -> Iterator[Any]:
    """expr (or True) at every point where `where` holds; raises on an empty domain."""
    e = compile_expr(expr) if expr is not None else (lambda env: True)
    w = compile_expr(where) if where is not None else (lambda env: True)
    seen = False
    for env in points:
        seen = True
        ok = w(env)
        if not isinstance(ok, bool):
            raise KernelError("where is not a truth value")
        if ok:
            yield e(env)
    if not seen:
        raise KernelError("trivial: the domain is empty")


def aggregate(agg: str, values: Iterator[Any], filtered: bool) -> Any:
    """count, sum, min, max, all, any or set of the values. No point selected: count, sum
    and set are 0, 0 and the empty set (a claim that nothing is selected); all and any
    would be vacuous and min and max undefined, so they are refused."""
    vals = list(values)
    if agg == "count":
        return len(vals)
    if not vals and agg in ("all", "any", "min", "max"):
        raise KernelError(
            "trivial: no point satisfies the filter (where): the aggregate is vacuous"
            if filtered
            else "trivial: nothing to aggregate"
        )
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
    return (min if agg == "min" else max)(vals)


def claimed(agg: str, v: Any) -> tuple[Any, Json]:
    """The certificate's value (closed expressions are evaluated here) and its JSON."""
    if agg in ("all", "any"):
        if not isinstance(v, bool):
            raise KernelError("value must be true or false")
        return v, v
    if agg == "set":
        if not isinstance(v, list):
            raise KernelError("value must be a list")
        items = [_closed(x, "set element") for x in v]
        return sorted(set(n for n, _ in items)), ["list", *(j for _, j in items)]
    value, shown = _closed(v, "value")
    if agg == "count" and (isinstance(value, Fraction) and value.denominator != 1):
        raise KernelError("count must be an integer")
    return value, shown


def _closed(x: Any, what: str) -> tuple[Any, Json]:
    """A closed expression (no symbol) evaluated exactly: the paper's formula at an instance."""
    e = parse(x)
    if symbols(e) or functions(e) or isinstance(e, bool):
        raise KernelError(f"{what} must be a closed numeric expression")
    return exact(Fraction(compile_expr(e)({}))), to_json(e)


def _show(v: Any) -> str:
    if isinstance(v, list):
        text = "[" + ", ".join(str(x) for x in v) + "]"
        return text if len(text) < 100 else text[:97] + "...]"
    return str(to_json(v)) if isinstance(v, (Fraction, bool)) else str(v)


# ---------------------------------------------------------------- reachable states
def check_reachability(ob: Obligation) -> Json:
    """Walk every state a transition system reaches (breadth first, exactly) and recompute
    an aggregate over the reachable states where `where` holds."""
    fields(ob, ("system", "aggregate", "value"), ("expr", "where"))
    system = ob["system"]
    names, states = reachable(system)
    agg, expr, where = _parts(ob, set(names))
    envs = (dict(zip(names, s)) for s in states)
    got = aggregate(agg, _select(envs, expr, where), where is not None)
    want, value_json = claimed(agg, ob["value"])
    if got != want:
        raise KernelError(
            f"recomputed {agg} over the reachable states is {_show(got)}, "
            f"the certificate says {_show(want)}"
        )
    return conclusion(agg, ["reachable", system], expr, where, value_json)


def reachable(system: Any) -> tuple[list[str], list[tuple[int, ...]]]:
    """(state variables, every reachable state) of {"vars": [[x, lo, hi], ...], "init":
    [values], "rules": [[guard, {x: expr, ...}], ...]}: a rule whose guard holds assigns
    its expressions simultaneously; a value outside a declared range is refused."""
    if not isinstance(system, dict) or set(system) != {"vars", "init", "rules"}:
        raise KernelError('system must be {"vars", "init", "rules"}')
    names, ranges = _state_vars(system["vars"])
    init = system["init"]
    if not isinstance(init, list) or len(init) != len(names):
        raise KernelError("init must give one value per state variable")
    start = tuple(
        _in_range(exact(parse_rational(v, "init")), r, n) for v, r, n in zip(init, ranges, names)
    )
    rules = _rules(system["rules"], names)
    seen, queue = {start}, deque([start])
    while queue:
        state = queue.popleft()
        env = dict(zip(names, state))
        for i, (guard, updates) in enumerate(rules, 1):
            ok = guard(env)
            if ok is not True and ok is not False:
                raise KernelError(f"rule {i}: guard is not a truth value")
            if not ok:
                continue
            new = list(state)
            for j, run in updates:
                new[j] = _in_range(run(env), ranges[j], names[j], i)
            nxt = tuple(new)
            if nxt not in seen:
                if len(seen) >= MAX_POINTS:
                    raise KernelError(f"more than {MAX_POINTS} reachable states")
                seen.add(nxt)
                queue.append(nxt)
    return names, sorted(seen)


def _state_vars(x: Any) -> tuple[list[str], list[tuple[int, int]]]:
    if not isinstance(x, list) or not x:
        raise KernelError("vars must be a nonempty list of [name, lo, hi]")
    names, ranges = [], []
    for item in x:
        if (
            not isinstance(item, list)
            or len(item) != 3
            or not is_symbol(item[0])
            or item[0] in names
        ):
            raise KernelError("vars must be distinct [name, lo, hi] entries")
        lo, hi = parse_rational(item[1], "lo"), parse_rational(item[2], "hi")
        if lo.denominator != 1 or hi.denominator != 1 or lo > hi:
            raise KernelError(f"the range of {item[0]} must be integers lo <= hi")
        names.append(item[0])
        ranges.append((int(lo), int(hi)))
    return names, ranges


def _rules(x: Any, names: list[str]) -> list[tuple[Callable, list[tuple[int, Callable]]]]:
    if not isinstance(x, list) or not x:
        raise KernelError("rules must be a nonempty list of [guard, {var: expr}]")
    out = []
    for i, rule in enumerate(x, 1):
        if (
            not isinstance(rule, list)
            or len(rule) != 2
            or not isinstance(rule[1], dict)
            or not rule[1]
        ):
            raise KernelError(f"rule {i} must be [guard, {{var: expr, ...}}] with an assignment")
        guard = parse(rule[0])
        exprs = {k: parse(v) for k, v in rule[1].items()}
        used = symbols(guard).union(*(symbols(e) for e in exprs.values())) | set(exprs)
        stray = sorted(used - set(names))
        if stray:
            raise KernelError(f"rule {i} uses {stray[0]}, which is not a state variable")
        updates = [(names.index(k), compile_expr(e)) for k, e in exprs.items()]
        out.append((compile_expr(guard), updates))
    return out


def _in_range(v: Any, r: tuple[int, int], name: str, rule: int = 0) -> int:
    if type(v) is not int or not r[0] <= v <= r[1]:
        where = f"rule {rule} sets" if rule else "init gives"
        raise KernelError(f"{where} {name} = {v}, outside its range {r[0]}..{r[1]}")
    return v
