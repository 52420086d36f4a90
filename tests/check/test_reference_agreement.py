"""The fast explorer agrees with the naive reference interpreter on random small specs:
same verdicts, same state counts, same trace lengths (issue #3, point 6)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fito.check.options import CheckOptions
from fito.check.verdicts import check_assertions
from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import parse
from fito.reference.interpreter import RefLimit, check

sys.path.insert(0, str(Path(__file__).parent))
from random_specs import Gen

SPECS = Path(__file__).resolve().parents[2] / "specs"


def agree(text: str, limit: int, label: str, seconds: float = 5.0, engine: str = "auto") -> int:
    """Check every assertion of text both ways; returns how many were compared.

    Both engines are bounded in states and in seconds: a random spec whose process terms
    grow without bound (a tau under an external choice that recurses into it) makes every
    state a new term, which is correct but slow, and is skipped once either limit is hit."""
    parsed = parse(text)
    assert parsed.spec is not None, parsed.diagnostics
    model, diags = resolve(parsed.spec)
    if any(d.is_error for d in diags):
        return 0  # the generator may write a constant out of range: a static error, fine
    compared = 0
    options = CheckOptions(max_states=limit, timeout=seconds, engine=engine)
    for a, v in zip(model.assertions, check_assertions(model, options)):
        if v.limit_hit:
            continue
        try:
            ref = check(model, a, limit, seconds)  # the naive reference can be very slow
        except RefLimit:
            continue
        assert (v.verdict, v.states, len(v.trace)) == (ref.verdict, ref.states, ref.trace_length), (
            f"{label}, {a.kind} on line {a.span.line}: {v.reason}\n{text}"
        )
        compared += 1
    return compared


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
