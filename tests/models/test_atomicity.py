"""P(atomic) under the three models of PAPERS.md, against the paper's formulas and Monte Carlo."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp

from fito.models.epochs import atomicity as at

S = at.symbols()
k, p, r, mu, lam, tau = S["k"], S["p"], S["r"], S["mu"], S["lam"], S["tau"]


def test_independent_model_is_p_to_the_k() -> None:
    d = at.derive_independent()
    assert sp.simplify(d.atomic - p**k) == 0
    assert sp.simplify(d.all_old - (1 - p) ** k) == 0
    assert sp.simplify(d.mixed - (1 - p**k - (1 - p) ** k)) == 0
    assert d.ratio == p


def test_fixed_delay_model_is_a_product_of_cdfs() -> None:
    equal = at.derive_fixed_delay(True)
    assert sp.simplify(equal.atomic - (1 - sp.exp(-mu * tau)) ** k) == 0
    assert sp.simplify(equal.ratio - (1 - sp.exp(-mu * tau))) == 0
    general = at.derive_fixed_delay()
    three = general.atomic.subs(k, 3).doit()
    rates = [sp.Rational(1, 2), 1, 3]
    value = three.subs({S["mu_d"][i + 1]: v for i, v in enumerate(rates)}).subs(tau, 1)
    assert sp.simplify(value - sp.Mul(*(1 - sp.exp(-v) for v in rates))) == 0


def test_random_crash_model_is_the_gamma_ratio() -> None:
    d = at.derive_random_crash()
    paper = sp.gamma(k + 1) * sp.gamma(1 + r) / sp.gamma(k + 1 + r)
    assert sp.simplify(sp.gammasimp(d.atomic / paper)) == 1
    assert sp.simplify(d.ratio - (k + 1) / (k + 1 + r)) == 0
    assert sp.simplify(d.all_old - r / (r + k)) == 0
    for size in range(1, 7):
        product = sp.Mul(*(j * mu / (j * mu + lam) for j in range(1, size + 1)))
        assert sp.simplify(d.atomic.subs(k, size) - product.subs(lam, r * mu)) == 0


def test_integration_by_parts() -> None:
    parts = at.random_crash_by_parts()
    assert parts.residual == 0
    assert parts.boundary == (0, 0)
    assert sp.simplify(parts.ratio - k * mu / (k * mu + lam)) == 0


@pytest.mark.parametrize("size", range(1, 6))
def test_binomial_expansion_agrees_with_the_product(size: int) -> None:
    product = sp.Mul(*(sp.Rational(1) * j / (j + r) for j in range(1, size + 1)))
    assert sp.simplify(at.random_crash_expanded(size) - product) == 0


@pytest.mark.parametrize("size", [1, 2, 3, 6, 10])
@pytest.mark.parametrize("ratio", [Fraction(1), Fraction(1, 3), Fraction(5, 2)])
def test_exact_values(size: int, ratio: Fraction) -> None:
    rc = at.random_crash_values(size, ratio)
    assert rc["atomic"] == math.prod(Fraction(j) / (j + ratio) for j in range(1, size + 1))
    assert rc["all_old"] == ratio / (size + ratio)
    assert rc["mixed"] == 1 - rc["atomic"] - rc["all_old"]
    q = Fraction(2, 7)
    ind = at.independent_values(size, q)
    assert ind == {
        "atomic": q**size,
        "all_old": (1 - q) ** size,
        "mixed": 1 - q**size - (1 - q) ** size,
    }


def test_float_values() -> None:
    rates = [Fraction(1, 2), Fraction(1), Fraction(2)]
    fd = at.fixed_delay_values(rates)
    assert fd["atomic"] == pytest.approx(math.prod(1 - math.exp(-float(x)) for x in rates))
    assert fd["all_old"] == pytest.approx(math.exp(-3.5))
    for size, ratio in [(5, 0.7), (100, 2.5)]:
        paper = math.exp(
            math.lgamma(size + 1) + math.lgamma(1 + ratio) - math.lgamma(size + 1 + ratio)
        )
        assert at.random_crash_float(size, ratio) == pytest.approx(paper, rel=1e-12)
    assert at.leading_term_value(50, Fraction(3, 2)) == pytest.approx(math.gamma(2.5) * 50**-1.5)


def _within(estimate: at.Estimate, exact: float) -> None:
    assert abs(estimate.mean - exact) <= 3 * estimate.stderr, (estimate, exact)


def test_monte_carlo_independent() -> None:
    _within(at.monte_carlo("independent", 4, 200_000, seed=1, p=0.7), 0.7**4)


def test_monte_carlo_fixed_delay() -> None:
    rates, delay = [0.5, 1.0, 2.0], 1.3
    exact = math.prod(1 - math.exp(-m * delay) for m in rates)
    _within(at.monte_carlo("fixed-delay", 3, 200_000, seed=2, mu=rates, tau=delay), exact)


@pytest.mark.parametrize("size,ratio", [(1, 1.0), (5, 0.7), (12, 2.0)])
def test_monte_carlo_random_crash(size: int, ratio: float) -> None:
    exact = math.gamma(size + 1) * math.gamma(1 + ratio) / math.gamma(size + 1 + ratio)
    _within(at.monte_carlo("random-crash", size, 200_000, seed=3 + size, r=ratio), exact)


def test_monte_carlo_unknown_model() -> None:
    with pytest.raises(ValueError):
        at.monte_carlo("bogus", 2, 10, seed=0)


def test_polynomial_against_exponential_decay() -> None:
    # the random-crash ratio tends to 1; the independent model's stays at p
    ratios = [(size + 1) / (size + 1 + 2.0) for size in (10, 100, 1000)]
    assert ratios == sorted(ratios) and ratios[-1] > 0.99
    assert at.random_crash_float(1000, 2.0) > 0.5**20


@pytest.mark.slow
def test_beta_route_and_asymptotic() -> None:
    closed = sp.gamma(k + 1) * sp.gamma(1 + r) / sp.gamma(k + 1 + r)
    assert sp.simplify(sp.gammasimp(at.random_crash_beta() / closed)) == 1
    term, limit = at.asymptotic_random_crash()
    assert sp.simplify(limit - sp.gamma(1 + r)) == 0
    assert sp.simplify(term - sp.gamma(1 + r) * k ** (-r)) == 0
