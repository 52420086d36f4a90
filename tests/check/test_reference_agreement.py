"""The fast explorer agrees with the naive reference interpreter on random small specs:
same verdicts, same state counts, same trace lengths (issue #3, point 6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.agreement import agree
from tests.helpers.random_specs import Gen

SPECS = Path(__file__).resolve().parents[2] / "specs"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_explorer_agrees_with_reference(seed: int) -> None:
    agree(Gen(seed).spec(), 600, f"seed {seed}", seconds=2.0)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_explorer_agrees_with_reference_at_length(seed: int) -> None:
    agree(Gen(seed).spec(), 1500, f"seed {seed}", seconds=2.0)


@pytest.mark.parametrize(
    "name", ["checkpoint_naive.fito", "firmware_rollout.fito", "checkpoint_commit_early.fito"]
)
def test_reference_agrees_on_shipped_specs(name: str) -> None:
    assert agree((SPECS / name).read_text(encoding="utf-8"), 2000, name) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["checkpoint_commit.fito", "runtime_commit.fito"])
def test_reference_agrees_on_large_shipped_specs(name: str) -> None:
    # the naive reference runs about 2,000 states/s: the assertions past 2,000 states are
    # left to the oracle-family and semantics tests
    assert agree((SPECS / name).read_text(encoding="utf-8"), 2_000, name) >= 1


# An interrupt over an external choice whose left side is a parallel: once the choice
# resolves to its right side, the parallel operator disappears but the interrupt's other
# side must stay a component (the random spec of seed 13450 found the engine losing it:
# a false deadlock, and 45 states instead of the reference's 48).
INTERRUPT_OVER_CHOICE = """
channel b, crash
channel c: (0..2)
domain x: 0..2 = 2 durable
process P0 = {x := 1} -> STOP
process P1 = b -> P1
process P2 = c?v {x := 0} -> STOP
process Sys = ((P0 ||| P1) [] P2) /\\ (crash -> P1)
system Sys
assert Sys :[deadlock free]
assert Sys reaches x == 0
"""


@pytest.mark.parametrize("seed", [13450])
def test_reference_agrees_on_found_seeds(seed: int) -> None:
    assert agree(Gen(seed).spec(), 1500, f"seed {seed}", seconds=30.0) >= 1


def test_interrupt_keeps_its_side_when_a_choice_drops_a_parallel() -> None:
    assert agree(INTERRUPT_OVER_CHOICE, 1500, "interrupt over choice", seconds=30.0) == 2
