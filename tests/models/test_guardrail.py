"""The guardrail API: classification of restored epochs, rollback targets, invariant checks on
arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fito.models.epochs import guardrail as gr


def test_consistent_mixed_and_torn() -> None:
    ok = gr.classify({"gpu": 4, "host": 4, "nvme": 4})
    assert (ok.kind, ok.rollback, ok.is_consistent) == ("consistent", 4, True)
    mixed = gr.classify({"nvme": 6, "gpu": 7, "host": 7})
    assert (mixed.kind, mixed.rollback, mixed.torn) == ("mixed", 6, ())
    assert mixed.epochs == (("gpu", 7), ("host", 7), ("nvme", 6))
    split = gr.classify({"gpu": [7, 7, 6], "host": 7})
    assert (split.kind, split.torn, split.rollback) == ("torn", ("gpu",), 6)
    missing = gr.classify({"gpu": None, "host": 3})
    assert (missing.kind, missing.rollback) == ("torn", None)
    assert "gpu" in missing.reason


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e"]), st.integers(0, 9), min_size=1))
def test_rollback_is_the_best_recovery_point(epochs: dict[str, int]) -> None:
    verdict = gr.classify(epochs)
    assert verdict.rollback == min(epochs.values())
    assert verdict.kind == ("consistent" if len(set(epochs.values())) == 1 else "mixed")


def test_common_epoch() -> None:
    assert gr.common_epoch({"a": [5, 6, 7], "b": [6, 7], "c": [5, 6]}) == 6
    assert gr.common_epoch({"a": [1], "b": [2]}) is None


@pytest.mark.parametrize(
    "bad", [{}, {"a": -1}, {"a": "3"}, {"a": [1, "x"]}, {"a": []}, {"a": True}]
)
def test_bad_metadata_is_refused(bad) -> None:
    with pytest.raises(ValueError):
        gr.classify(bad)


def _momentum_run(steps: int, beta: float, lr: float, seed: int):
    rng = np.random.default_rng(seed)
    theta, m = rng.normal(size=(4, 3)), np.zeros((4, 3))
    states = [(theta, m)]
    for _ in range(steps):
        m = beta * m + rng.normal(size=(4, 3))
        theta = theta - lr * m
        states.append((theta, m))
    return states


def test_momentum_check_passes_real_steps_and_flags_mixed_ones() -> None:
    states = _momentum_run(10, 0.9, 0.05, seed=1)
    for t in range(1, 11):
        assert gr.check_momentum(states[t - 1][0], states[t][0], states[t][1], 0.05).holds
    mixed = gr.check_momentum(states[4][0], states[5][0], states[8][1], 0.05)
    assert not mixed.holds and mixed.violations > 0 and mixed.worst_index is not None


def _adam_run(gradients, b1: float, b2: float):
    m = v = np.zeros_like(gradients[0])
    out = [(m, v)]
    for g in gradients:
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        out.append((m, v))
    return out


def paper_K(t: int, b1: float, b2: float) -> float:
    return (1 - b1) ** 2 / (1 - b2) * sum((b1 * b1 / b2) ** i for i in range(t))


@pytest.mark.parametrize("b1,b2", [(0.9, 0.999), (0.5, 0.9), (0.95, 0.5)])
def test_adam_constant_is_the_papers(b1: float, b2: float) -> None:
    for t in (1, 2, 5, 40):
        assert gr.adam_constant(t, b1, b2) == pytest.approx(paper_K(t, b1, b2), rel=1e-12)


def test_adam_check_passes_real_runs() -> None:
    rng = np.random.default_rng(7)
    grads = [rng.standard_cauchy(size=500) * 10 ** rng.uniform(-3, 3) for _ in range(60)]
    for t, (m, v) in enumerate(_adam_run(grads, 0.9, 0.999)[1:], 1):
        assert gr.check_adam(m, v, t).holds


def test_adam_check_flags_mixed_epochs_and_counters() -> None:
    grads = [np.full(3, 1e-3)] * 5 + [np.full(3, 10.0)] * 5
    run = _adam_run(grads, 0.9, 0.999)
    assert not gr.check_adam(run[10][0], run[3][1], 10).holds  # v from an early epoch
    const = _adam_run([np.ones(2)] * 2, 0.9, 0.999)  # constant gradients
    assert gr.check_adam(const[2][0], const[2][1], 2).holds
    assert not gr.check_adam(const[2][0], const[2][1], 1).holds  # counter from epoch 1


def test_invariant_checks_refuse_bad_input() -> None:
    with pytest.raises(ValueError):
        gr.check_adam(np.ones(2), np.ones(3), 1)
    with pytest.raises(ValueError):
        gr.check_adam(np.array([math.nan]), np.ones(1), 1)
    with pytest.raises(ValueError):
        gr.check_adam(np.ones(1), np.ones(1), 0)
    with pytest.raises(ValueError):
        gr.adam_constant(3, 1.0, 0.5)
    with pytest.raises(ValueError):
        gr.check_momentum(np.ones(1), np.ones(1), np.ones(1), 0.0)
    negative = gr.check_adam(np.zeros(2), np.array([1.0, -1.0]), 3)
    assert not negative.holds and negative.invariant == "v >= 0"


def test_reliable_invariants_come_from_the_derivation() -> None:
    advice = gr.reliable_invariants()
    assert any(a.optimizer == "adam" and a.reliable for a in advice)
    assert any(a.optimizer == "sgd" and not a.reliable for a in advice)
