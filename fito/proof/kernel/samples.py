"""Statistical facts recomputed from stored samples: means, confidence intervals, bounds.

A sample is a list of exact rationals stored in the certificate (what a seeded simulation
produced); the kernel recomputes its mean and unbiased variance exactly and the two-sided
Student-t confidence interval mean +- t s / sqrt(n) at 95% or 99%, comparing squares so that
no square root is ever rounded. The critical values t are a table (the usual quantiles
rounded *up* at the third decimal, and for degrees of freedom between rows the smaller row,
so every interval is at least as wide as the exact one). Standard library only.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fito.proof.kernel.checks import fields
from fito.proof.kernel.expr import (
    KernelError,
    compile_expr,
    functions,
    parse,
    parse_rational,
    symbols,
    to_json,
)

_DF = (
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    14,
    15,
    16,
    17,
    18,
    19,
    20,
    21,
    22,
    23,
    24,
    25,
    26,
    27,
    28,
    29,
    30,
    40,
    60,
    120,
)
_T = {  # two-sided critical values, rounded up
    "95%": (
        12.707,
        4.304,
        3.183,
        2.777,
        2.572,
        2.448,
        2.366,
        2.307,
        2.263,
        2.229,
        2.202,
        2.179,
        2.161,
        2.145,
        2.132,
        2.120,
        2.110,
        2.101,
        2.094,
        2.086,
        2.080,
        2.074,
        2.069,
        2.064,
        2.060,
        2.056,
        2.052,
        2.049,
        2.046,
        2.043,
        2.022,
        2.001,
        1.980,
    ),
    "99%": (
        63.657,
        9.925,
        5.841,
        4.605,
        4.033,
        3.708,
        3.500,
        3.356,
        3.250,
        3.170,
        3.106,
        3.055,
        3.013,
        2.977,
        2.947,
        2.921,
        2.899,
        2.879,
        2.861,
        2.846,
        2.832,
        2.819,
        2.808,
        2.797,
        2.788,
        2.779,
        2.771,
        2.764,
        2.757,
        2.750,
        2.705,
        2.661,
        2.618,
    ),
}
MAX_SAMPLE = 100_000
FACTS = {
    "mean_in": 3,
    "mean_above": 2,
    "mean_above_value": 2,
    "mean_below_value": 2,
    "ratio_in": 4,
    "all_above": 2,
    "all_below": 2,
}


def critical(level: str, df: int) -> Fraction:
    """t at `level` for df degrees of freedom (the row at or below df: a wider interval)."""
    row = max(i for i, d in enumerate(_DF) if d <= df)
    return Fraction(str(_T[level][row]))


class Sample:
    """n, the exact mean, and h^2 = t^2 s^2 / n (the squared half-width of the interval)."""

    def __init__(self, name: str, values: Any, level: str) -> None:
        if not isinstance(values, list) or not 2 <= len(values) <= MAX_SAMPLE:
            raise KernelError(f"sample {name} must be a list of 2..{MAX_SAMPLE} rationals")
        xs = [parse_rational(v, f"sample {name}") for v in values]
        self.name, self.values, self.n = name, xs, len(xs)
        self.mean = sum(xs, Fraction(0)) / self.n
        var = sum(((x - self.mean) ** 2 for x in xs), Fraction(0)) / (self.n - 1)
        self.h2 = critical(level, self.n - 1) ** 2 * var / self.n

    def lower_at_least(self, v: Fraction) -> bool:
        """mean - h >= v."""
        return self.mean >= v and (self.mean - v) ** 2 >= self.h2

    def upper_at_most(self, v: Fraction) -> bool:
        """mean + h <= v."""
        return self.mean <= v and (v - self.mean) ** 2 >= self.h2


def _at_least_two_roots(x: Fraction, a: Fraction, b: Fraction, strict: bool) -> bool:
    """x >= sqrt(a) + sqrt(b) (or >), exactly, for a, b >= 0."""
    if x < 0:
        return False
    rest = x * x - a - b
    if rest < 0:
        return False
    return rest * rest > 4 * a * b if strict else rest * rest >= 4 * a * b


def _value(x: Any) -> Fraction:
    e = parse(x)
    if symbols(e) or functions(e) or isinstance(e, bool):
        raise KernelError("a bound must be a closed numeric expression")
    return Fraction(compile_expr(e)({}))


def check_samples(ob: dict) -> Any:
    """Every fact about the stored samples holds, recomputed from them."""
    fields(ob, ("level", "samples", "facts"))
    level = ob["level"]
    if level not in _T:
        raise KernelError(f"level must be one of {', '.join(_T)}")
    if not isinstance(ob["samples"], dict) or not ob["samples"]:
        raise KernelError("samples must be an object name -> list of rationals")
    data = {k: Sample(k, v, level) for k, v in ob["samples"].items()}
    facts = ob["facts"]
    if not isinstance(facts, list) or not facts:
        raise KernelError("facts must be a nonempty list")
    for i, fact in enumerate(facts, 1):
        _check_fact(fact, data, i)
    samples = {k: [to_json(x) for x in s.values] for k, s in sorted(data.items())}
    return ["samples", level, samples, ["and", *facts]]


def _check_fact(fact: Any, data: dict[str, Sample], i: int) -> None:
    if (
        not isinstance(fact, list)
        or not fact
        or fact[0] not in FACTS
        or len(fact) != FACTS[fact[0]] + 1
    ):
        raise KernelError(f"fact {i} must be one of {', '.join(FACTS)} with its arguments")
    op, args = fact[0], fact[1:]
    names = {"mean_above": 2, "ratio_in": 2}.get(op, 1)
    for name in args[:names]:
        if name not in data:
            raise KernelError(f"fact {i}: no sample named {name!r}")
    a = data[args[0]]
    if op == "mean_in":
        ok = a.lower_at_least(_value(args[1])) and a.upper_at_most(_value(args[2]))
    elif op == "mean_above_value":
        ok = a.lower_at_least(_value(args[1])) and (a.mean - _value(args[1])) ** 2 > a.h2
    elif op == "mean_below_value":
        ok = a.upper_at_most(_value(args[1])) and (_value(args[1]) - a.mean) ** 2 > a.h2
    elif op == "mean_above":
        b = data[args[1]]
        ok = _at_least_two_roots(a.mean - b.mean, a.h2, b.h2, strict=True)
    elif op == "all_above":
        ok = all(x > _value(args[1]) for x in a.values)
    elif op == "all_below":
        ok = all(x < _value(args[1]) for x in a.values)
    else:
        ok = _ratio_in(a, data[args[1]], _value(args[2]), _value(args[3]))
    if not ok:
        raise KernelError(
            f"fact {i} ({op} {' '.join(str(x) for x in args)}) does not hold "
            f"for the stored samples (mean {float(a.mean):.6g}, n = {a.n})"
        )


def _ratio_in(a: Sample, b: Sample, lo: Fraction, hi: Fraction) -> bool:
    """[(ma - ha)/(mb + hb), (ma + ha)/(mb - hb)] within [lo, hi], with mb - hb > 0."""
    if not b.lower_at_least(Fraction(0)) or b.mean**2 == b.h2:
        return False
    low = _at_least_two_roots(a.mean - lo * b.mean, a.h2, lo * lo * b.h2, strict=False)
    high = _at_least_two_roots(hi * b.mean - a.mean, a.h2, hi * hi * b.h2, strict=False)
    return lo >= 0 and low and high
