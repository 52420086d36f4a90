"""`--engine symbolic` gives the explicit engine's answers: verdicts, model errors and the
lengths of shortest counterexamples, on shipped specs, the oracles' family and random specs
(issue 26, point 4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.check import run_spec
from tests.helpers.random_specs import Gen
from tests.oracles.family import spec
from tests.symbolic.agreement import compare

ROOT = Path(__file__).resolve().parents[2]
FAST = ("checkpoint_naive.fito", "checkpoint_commit_early.fito")
SLOW = (
    "checkpoint_commit.fito",
    "firmware_rollout.fito",
    "dining_philosophers.fito",
    "peterson.fito",
    "fleet_update.fito",
)


@pytest.mark.parametrize("name", FAST)
def test_symbolic_agrees_on_shipped_specs(name: str) -> None:
    assert compare((ROOT / "specs" / name).read_text(encoding="utf-8"), name) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_symbolic_agrees_on_the_larger_shipped_specs(name: str) -> None:
    assert compare((ROOT / "specs" / name).read_text(encoding="utf-8"), name, 120) > 0


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_symbolic_agrees_on_random_specs(seed: int) -> None:
    compare(Gen(seed).spec(), f"seed {seed}", seconds=5)


@pytest.mark.parametrize("variant", ["naive", "2pc"])
def test_oracle_family_same_answers(variant: str) -> None:
    compared = compare(spec(3, 2, variant), variant)
    assert compared == 2


def test_counterexample_is_an_ordinary_run() -> None:
    text = (ROOT / "specs" / "checkpoint_naive.fito").read_text(encoding="utf-8")
    explicit = run_spec(text).verdicts[0]
    symbolic = run_spec(text, engine="symbolic").verdicts[0]
    assert symbolic.engine == "symbolic" and symbolic.run is not None
    assert len(symbolic.run.steps) == len(symbolic.trace) == len(explicit.trace)
    assert symbolic.run.final.kind == explicit.run.final.kind  # type: ignore[union-attr]


def test_model_errors_agree() -> None:
    text = (
        "type T = 0..2\n"
        "channel a, b\n"
        "domain x: T = 0 durable\n"
        "domain y: T = 1 durable\n"
        "process P = a {x := x + 1} -> P [] (x == 2 & b {y := 4 / (x - 2)} -> STOP)\n"
        "system P\n"
        "assert always x < 3\n"
        "assert P :[deadlock free]\n"
        "assert reaches y == 2\n"
    )
    assert compare(text, "errors") == 3
    (v, *_) = run_spec(text, engine="symbolic").verdicts
    assert v.verdict == "fails" and v.error is not None


def test_other_assertions_are_refused_with_a_reason() -> None:
    text = "channel a\nprocess P = a -> P\nsystem P\nassert P |= eventually true\n"
    v = run_spec(text, engine="symbolic").verdicts[-1]
    assert v.verdict == "unknown" and "symbolic engine answers" in (v.reason or "")
