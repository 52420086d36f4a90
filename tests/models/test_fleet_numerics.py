"""The numerics scripts (models/*.py): their key figures against formulas computed here."""

from __future__ import annotations

import importlib.util
import math
from fractions import Fraction
from pathlib import Path

import pytest

MODELS = Path(__file__).parents[2] / "models"


def script(name: str):
    spec = importlib.util.spec_from_file_location(f"fleet_numerics_{name}", MODELS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("N", [3, 5])
def test_separation_from_overlap_is_theorem8_multiplier(N):
    """One cycle from a fully overlapping start stretches a_1 by (N-1) f(1)/f(N-1) = N-1."""
    assert script("separation").overlap_factor(N) == Fraction(N - 1)


def test_random_starts_separate():
    rates = script("separation").random_rates(jobs=6, cycles=15, seeds=4)
    assert all(r > 0 for r in rates)


def test_unequal_volumes_drift_every_cycle():
    mod = script("unequal_volumes")
    fleet, deltas = mod.gaps(8)
    (w_a, w_b), (v_a, v_b) = fleet.work, fleet.volume
    drift = (v_b - v_a) / fleet.f(1) + (w_b - w_a)
    assert drift != 0
    assert all(b - a == drift for a, b in zip(deltas, deltas[1:]))
    assert mod.engine_drift(fleet) == drift
    fleet2, deltas2 = mod.gaps(6, work=["10", "11"], volume=["8", "7"])
    drift2 = Fraction(7 - 8) / fleet2.f(1) + (11 - 10)
    assert all(b - a == drift2 for a, b in zip(deltas2, deltas2[1:]))


def test_stagger_lifetime_n2_mean_and_exponent():
    mod = script("stagger_lifetime")
    ratios = [8, 16]
    margin, means = mod.compute(2, ratios, runs=120, seed=7)
    assert margin == 4
    for r, mean in zip(ratios, means):
        assert 0.8 * r * r / 2 < mean < 1.35 * r * r / 2  # m^2 / (2 sigma^2)
        # with Siegmund's overshoot -zeta(1/2)/sqrt(2 pi) of a Gaussian walk, s = sqrt(2) sigma
        corrected = (r / math.sqrt(2) + 1.4603545088 / math.sqrt(2 * math.pi)) ** 2
        assert abs(mean - corrected) < 0.2 * corrected
    assert 1.6 < mod.fit_exponent(ratios, means) < 2.4


def test_writer_tail_is_heavier_than_independent():
    mod = script("writer_tail")
    tail, indep, p = mod.compute(jobs=16, cycles=100, seeds=2, volume="1")
    assert 0 < p < 1 and math.isclose(sum(tail[1:]), 16 * p)
    # the independent baseline, computed here: Binomial(16, p)
    binom = [
        sum(math.comb(16, j) * p**j * (1 - p) ** (16 - j) for j in range(k, 17)) for k in range(17)
    ]
    assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15) for a, b in zip(indep, binom))
    assert all(tail[k] > 2 * binom[k] for k in (5, 6, 7))


def test_no_clustering_from_random_starts():
    mod = script("clustering")
    s = mod.summary(mod.compute(jobs=8, cycles=150, seeds=3))
    assert s["R_last"] < 0.6  # far from synchrony (R = 1)
    assert s["gap_last"] > 0.5 * s["gap_first"]  # the smallest gap does not shrink
