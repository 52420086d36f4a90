"""The independent judge, continued: the obligation kinds added with statement binding
(reachability, samples, range facts, integrals). Plain Python, mpmath and statistics; no
kernel code. Each answers: is what the obligation asserts true?"""

from __future__ import annotations

import math
import random
from collections import deque
from fractions import Fraction
from typing import Any

import mpmath


class Bad(Exception):
    """Malformed in a way this judge notices."""


def _ev(e: Any, env: dict) -> Any:
    from tests.proof.oracle import evaluator

    return evaluator(e)(env)


def _reachability(ob: dict, rng) -> bool:
    system = ob["system"]
    names = [v[0] for v in system["vars"]]
    ranges = {v[0]: (v[1], v[2]) for v in system["vars"]}
    start = tuple(Fraction(v) for v in system["init"])
    seen, queue = {start}, deque([start])
    while queue:
        state = queue.popleft()
        env = dict(zip(names, state))
        for guard, update in system["rules"]:
            if _ev(guard, env) is True:
                new = dict(env)
                for k, e in update.items():
                    new[k] = Fraction(_ev(e, env))
                    lo, hi = ranges[k]
                    if not lo <= new[k] <= hi:
                        return False
                nxt = tuple(new[n] for n in names)
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
    from tests.proof.oracle import _enumeration_values

    envs = [dict(zip(names, s)) for s in seen]
    return _enumeration_values(ob, envs)


T99 = {
    1: 63.66,
    2: 9.93,
    3: 5.85,
    4: 4.61,
    5: 4.04,
    6: 3.71,
    7: 3.50,
    8: 3.36,
    9: 3.25,
    10: 3.17,
    15: 2.95,
    20: 2.85,
    30: 2.75,
    40: 2.71,
    60: 2.67,
    120: 2.62,
}
T95 = {
    1: 12.71,
    2: 4.31,
    3: 3.19,
    4: 2.78,
    5: 2.58,
    6: 2.45,
    7: 2.37,
    8: 2.31,
    9: 2.27,
    10: 2.23,
    15: 2.14,
    20: 2.09,
    30: 2.05,
    40: 2.03,
    60: 2.01,
    120: 1.99,
}


def _t(level: str, df: int) -> float:
    table = T99 if level == "99%" else T95
    return table[max(d for d in table if d <= df)]


def _samples(ob: dict, rng) -> bool:
    stats = {}
    for name, values in ob["samples"].items():
        xs = [float(Fraction(v)) for v in values]
        n = len(xs)
        mean = sum(xs) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
        stats[name] = (mean, _t(ob["level"], n - 1) * sd / math.sqrt(n), xs)
    return all(_sample_fact(fact[0], fact[1:], stats) for fact in ob["facts"])


def _sample_fact(op: str, args: list, stats: dict) -> bool:
    """One fact about the samples' confidence intervals (oracle of the kernel's `samples`)."""
    m, h, xs = stats[args[0]]

    def value(e: object) -> float:
        return float(_ev(e, {}))

    return {
        "mean_in": lambda: m - h >= value(args[1]) and m + h <= value(args[2]),
        "mean_above_value": lambda: m - h > value(args[1]),
        "mean_below_value": lambda: m + h < value(args[1]),
        "mean_above": lambda: m - h > stats[args[1]][0] + stats[args[1]][1],
        "all_above": lambda: all(x > value(args[1]) for x in xs),
        "all_below": lambda: all(x < value(args[1]) for x in xs),
        "ratio_in": lambda: (
            (m - h) / (stats[args[1]][0] + stats[args[1]][1]) >= value(args[2])
            and (m + h) / (stats[args[1]][0] - stats[args[1]][1]) <= value(args[3])
        ),
    }[op]()


def _params(ob: dict, rng, names: set[str]) -> dict:
    out = {}
    for name in names:
        out[name] = Fraction(rng.randint(1, 9)) if name in ob.get("positive", []) else None
    return out


def _range_points(ob: dict, rng, top: int = 24):
    """(env) points: integer parameters and the var over its range; positive ones random."""
    ints = list(ob.get("integers", [])) + ([ob["param"]] if "param" in ob else [])
    for _ in range(30):
        env = {p: Fraction(rng.randint(int(ob.get("from", -3)), top)) for p in ints}
        env.update(
            {p: Fraction(rng.randint(1, 9), rng.randint(1, 5)) for p in ob.get("positive", [])}
        )
        lo, hi = _ev(ob["lo"], env), _ev(ob["hi"], env)
        yield env, int(lo), int(hi)


def _range_sign(ob: dict, rng) -> bool:
    for env, lo, hi in _range_points(ob, rng):
        for j in range(lo, hi + 1):
            v = _ev(ob["expr"], {**env, ob["var"]: Fraction(j)})
            if v < 0 or (ob["sign"] == ">" and v == 0):
                return False
    return True


def _product_one(ob: dict, rng) -> bool:
    for env, lo, hi in _range_points(ob, rng, top=14):
        prod = Fraction(1)
        for j in range(lo, hi + 1):
            prod *= _ev(ob["factor"], {**env, ob["var"]: Fraction(j)})
        if prod != 1:
            return False
    return True


def _interval_count(ob: dict, rng) -> bool:
    start = int(ob["from"])
    for n in range(start, start + 40):
        env = {ob["param"]: Fraction(n)}
        env.update({p: Fraction(rng.randint(1, 9)) for p in ob.get("positive", [])})
        lo, hi = int(_ev(ob["lo"], env)), int(_ev(ob["hi"], env))
        count = sum(
            1 for j in range(lo, hi + 1) if _ev(ob["predicate"], {**env, ob["var"]: Fraction(j)})
        )
        if count != _ev(ob["value"], env):
            return False
    return True


def _mp(e: Any, env: dict) -> Any:
    """An expression in mpmath floats (exp, functions as fixed positive values)."""
    if isinstance(e, bool):
        return e
    if isinstance(e, int):
        return mpmath.mpf(e)
    if isinstance(e, str):
        if e in env:
            return env[e]
        return mpmath.mpf(Fraction(e).numerator) / Fraction(e).denominator
    op, args = e[0], e[1:]
    if op == "fn":
        return mpmath.mpf(2) + sum(_mp(a, env) ** 2 for a in args[1:])
    vals = [_mp(a, env) for a in args]
    if op == "+":
        return mpmath.fsum(vals)
    if op == "*":
        return mpmath.fprod(vals)
    if op == "-":
        return -vals[0] if len(vals) == 1 else vals[0] - vals[1]
    if op == "/":
        return vals[0] / vals[1]
    if op == "^":
        return vals[0] ** vals[1]
    if op == "exp":
        return mpmath.exp(vals[0])
    raise Bad(f"operator {op}")


def _integral(ob: dict, rng) -> bool:
    from tests.proof.oracle import symbols_of

    x = ob["var"]
    names = (
        symbols_of(ob["integrand"])
        | symbols_of(ob["value"])
        | symbols_of(ob["lo"])
        | (symbols_of(ob["hi"]) if ob["hi"] != "oo" else set())
    ) - {x}
    mpmath.mp.dps = 30
    for _ in range(3):
        env = {n: mpmath.mpf(rng.randint(1, 9)) / rng.randint(1, 4) for n in names}
        lo = _mp(ob["lo"], env)
        hi = mpmath.inf if ob["hi"] == "oo" else _mp(ob["hi"], env)
        got = mpmath.quad(lambda t, env=env: _mp(ob["integrand"], {**env, x: t}), [lo, hi])
        want = _mp(ob["value"], env)
        if abs(got - want) > mpmath.mpf(10) ** -12 * (1 + abs(want)):
            return False
    return True


NEW_KINDS = {
    "reachability": _reachability,
    "samples": _samples,
    "range_sign": _range_sign,
    "product_one": _product_one,
    "interval_count": _interval_count,
    "integral": _integral,
}
random.Random  # noqa: B018 -- rng objects are passed in by the caller
