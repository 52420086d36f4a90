"""Optimizer algebra against the paper's formulas, replayed independently with exact Fractions."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from fito.models.epochs import optimizer as opt
from fito.models.epochs import optimizer_search as search

S = opt.symbols()


def paper_K(t: int, b1: Fraction, b2: Fraction) -> Fraction:
    """K_t = (1-b1)^2/(1-b2) * sum_{i=0}^{t-1} (b1^2/b2)^i (PAPERS.md, claim 3)."""
    return (1 - b1) ** 2 / (1 - b2) * sum((b1**2 / b2) ** i for i in range(t))


def adam_moments(gradients, b1, b2):
    """Adam's moments by the definition, from m_0 = v_0 = 0: [(m_t, v_t)] for t = 0..T."""
    m = v = Fraction(0)
    out = [(m, v)]
    for g in gradients:
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        out.append((m, v))
    return out


def test_gradient_descent_step_and_trajectory() -> None:
    theta, eta, a, b = S["theta"], S["eta"], S["a"], S["b"]
    assert sp.expand(opt.gradient_descent().update[0] - (theta - eta * (a * theta - b))) == 0
    closed = opt.gd_trajectory()
    values = {
        a: sp.Rational(3, 2),
        b: sp.Rational(1, 3),
        eta: sp.Rational(1, 5),
        sp.Symbol("theta0", real=True): sp.Rational(7, 4),
    }
    x = Fraction(7, 4)
    for t in range(8):
        assert closed.subs(values).subs(S["t"], t) == sp.Rational(x.numerator, x.denominator)
        x = x - Fraction(1, 5) * (Fraction(3, 2) * x - Fraction(1, 3))


def test_momentum_two_state_identity() -> None:
    assert opt.momentum_two_state_residual() == 0
    rng = random.Random(5)
    beta, eta = Fraction(9, 10), Fraction(1, 20)
    theta, m = Fraction(1), Fraction(0)
    for _ in range(20):
        g = Fraction(rng.randint(-50, 50), 7)
        m_new = beta * m + g
        theta_new = theta - eta * m_new
        assert theta_new - theta == -eta * m_new
        theta, m = theta_new, m_new


@pytest.mark.parametrize(
    "b1,b2",
    [
        (Fraction(9, 10), Fraction(999, 1000)),
        (Fraction(1, 2), Fraction(1, 4)),
        (Fraction(3, 4), Fraction(9, 16)),
    ],
)
def test_adam_K_matches_the_paper(b1: Fraction, b2: Fraction) -> None:
    for t in range(1, 7):
        derived = opt.adam_K(t).subs(
            {
                S["beta1"]: sp.Rational(b1.numerator, b1.denominator),
                S["beta2"]: sp.Rational(b2.numerator, b2.denominator),
            }
        )
        want = paper_K(t, b1, b2)
        assert derived == sp.Rational(want.numerator, want.denominator)


def test_adam_bound_recurrence_and_induction_step() -> None:
    bound = opt.adam_bound()
    b1, b2 = S["beta1"], S["beta2"]
    assert sp.simplify(bound.c - (1 - b1) ** 2 / (1 - b2)) == 0
    assert sp.simplify(bound.q - b1**2 / b2) == 0
    assert opt.adam_induction_step().residual == 0


def test_adam_bound_holds_and_is_tight_on_gradient_sequences() -> None:
    rng = random.Random(11)
    b1, b2 = Fraction(4, 5), Fraction(19, 20)
    for _ in range(30):
        gs = [Fraction(rng.randint(-100, 100), rng.randint(1, 9)) for _ in range(6)]
        for t, (m, v) in enumerate(adam_moments(gs, b1, b2)[1:], 1):
            assert m * m <= paper_K(t, b1, b2) * v
    for t in range(1, 6):  # g_i = a_i / d_i attains the bound
        a = [(1 - b1) * b1 ** (t - i) for i in range(1, t + 1)]
        d = [(1 - b2) * b2 ** (t - i) for i in range(1, t + 1)]
        m, v = adam_moments([x / y for x, y in zip(a, d)], b1, b2)[-1]
        assert m * m == paper_K(t, b1, b2) * v


def test_adam_bound_on_random_float_runs() -> None:
    rng = np.random.default_rng(0)
    b1, b2 = 0.9, 0.999
    m = v = np.zeros(1000)
    for t in range(1, 200):
        g = rng.standard_cauchy(1000)
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        K = float(paper_K(t, Fraction(9, 10), Fraction(999, 1000)))
        assert (m * m <= K * v * (1 + 1e-9)).all()


def test_adam_counter_rescale() -> None:
    b1, b2, t = S["beta1"], S["beta2"], S["t"]
    t2 = sp.Symbol("t2", integer=True, positive=True)
    paper = (1 - b1**t) / (1 - b1**t2) * sp.sqrt((1 - b2**t2) / (1 - b2**t))
    values = {b1: sp.Rational(9, 10), b2: sp.Rational(999, 1000), t: 7, t2: 3}
    assert sp.N(opt.adam_counter_rescale().subs(values) - paper.subs(values)) == pytest.approx(
        0, abs=1e-12
    )


def test_reachability_of_sgd_and_momentum() -> None:
    assert opt.reach(opt.sgd(), 1).everything
    one, two = opt.reach(opt.momentum(), 1), opt.reach(opt.momentum(), 2)
    assert not one.everything and two.everything and opt.reach(opt.momentum(), 3).everything
    # the two gradients really reach an arbitrary target from an arbitrary start
    values = {
        sp.Symbol("theta_0", real=True): sp.Rational(3),
        sp.Symbol("m_0", real=True): sp.Rational(-2),
        sp.Symbol("theta_target", real=True): sp.Rational(-5, 3),
        sp.Symbol("m_target", real=True): sp.Rational(7, 2),
        S["beta"]: sp.Rational(9, 10),
        S["eta"]: sp.Rational(1, 10),
    }
    g1, g2 = (g.subs(values) for g in two.gradients)
    beta, eta = Fraction(9, 10), Fraction(1, 10)
    theta, m = Fraction(3), Fraction(-2)
    for g in (g1, g2):
        m = beta * m + Fraction(str(g))
        theta = theta - eta * m
    assert (theta, m) == (Fraction(-5, 3), Fraction(7, 2))
    # one step stays on theta + eta m = theta_0
    theta0, theta1, m1 = (sp.Symbol(n, real=True) for n in ("theta_0", "theta_target", "m_target"))
    assert sp.expand(one.constraint - (theta0 - theta1 - S["eta"] * m1)) == 0


def test_invariant_advice() -> None:
    advice = {(a.optimizer, a.invariant): a.reliable for a in opt.invariant_advice()}
    assert advice[("sgd", "theta alone")] is False
    assert advice[("momentum", "(theta, m) alone")] is False
    assert advice[("momentum", "theta_t - theta_(t-1) == -eta m_t (two states)")] is True
    assert advice[("adam", "m_t^2 <= K_t v_t (per coordinate)")] is True


def _assignment(found: search.MixedState) -> dict[str, Fraction]:
    return dict(found.assignment)


def test_momentum_mixed_state_violates_the_identity() -> None:
    found = search.momentum_violation()
    assert found is not None and not found.holds()
    epochs, x = dict(found.epochs), _assignment(found)
    beta, eta = dict(found.hyper)["beta"], dict(found.hyper)["eta"]
    theta, m, states = x["theta0"], x["m0"], [(x["theta0"], x["m0"])]
    for i in range(1, max(epochs.values()) + 1):
        m = beta * m + x[f"g{i}"]
        theta = theta - eta * m
        states.append((theta, m))
    restored = dict(found.restored)
    assert restored["theta"] == states[epochs["theta"]][0]
    assert restored["theta_prev"] == states[epochs["theta_prev"]][0]
    assert restored["m"] == states[epochs["m"]][1]
    assert epochs["m"] != epochs["theta"]
    assert restored["theta"] - restored["theta_prev"] != -eta * restored["m"]


def test_adam_mixed_state_violates_the_bound() -> None:
    found = search.adam_violation()
    assert found is not None and not found.holds()
    epochs, x, hyper = dict(found.epochs), _assignment(found), dict(found.hyper)
    gs = [x.get(f"g{i}", Fraction(0)) for i in range(1, max(epochs.values()) + 1)]
    states = adam_moments(gs, hyper["beta1"], hyper["beta2"])
    m, v = states[epochs["m"]][0], states[epochs["v"]][1]
    assert epochs["m"] == epochs["t"] != epochs["v"]
    assert m * m > paper_K(epochs["t"], hyper["beta1"], hyper["beta2"]) * v


def test_gd_mixed_state_is_off_the_trajectory() -> None:
    found = search.gd_violation()
    assert found is not None and not found.holds()
    epochs, x, hyper = dict(found.epochs), _assignment(found), dict(found.hyper)
    traj = []
    for c in range(2):
        theta, path = x[f"theta0_{c}"], []
        for _ in range(4):
            path.append(theta)
            theta = theta - hyper["eta"] * (hyper[f"a_{c}"] * theta - hyper[f"b_{c}"])
        traj.append(path)
    restored = dict(found.restored)
    assert restored["theta_1"] == traj[1][epochs["theta_1"]]
    assert (restored["theta_0"], restored["theta_1"]) != (
        traj[0][epochs["t"]],
        traj[1][epochs["t"]],
    )
