"""The frontier engine (whole levels of packed states) and the state-by-state engine give the
same answers: verdicts, state and transition counts, and the very same traces, since both
number new states in the order a breadth-first search finds them (issue 12, point 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fito.check.options import CheckOptions
from fito.pipeline import check_source
from fito.source import Source
from tests.helpers.agreement import answers, assert_same
from tests.helpers.random_specs import Gen
from tests.oracles.family import closed_form, spec

ROOT = Path(__file__).resolve().parents[2]
SAFETY = ("deadlock", "always", "reaches")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
@example(seed=39448290)  # a component whose terms grow: the width estimate once ran away
def test_frontier_agrees_with_scalar_on_random_specs(seed: int) -> None:
    # 5 s per assertion: a spec whose terms grow at every step is compared up to there
    # (before, 20 s: one such draw could take minutes of the suite)
    assert_same(Gen(seed).spec(), f"seed {seed}", seconds=5)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_frontier_agrees_with_scalar_on_random_specs_with_the_new_forms(seed: int) -> None:
    """The forms of issue 13 (buffers, process variables, assert, atomic, if :: fi, [A || B],
    renaming, sets of events, [>, functions, let) on both engines, at a smaller bound."""
    assert_same(Gen(seed, forms=True).spec(), f"seed {seed}", limit=2_000, seconds=3)


@pytest.mark.parametrize(
    "name",
    sorted(
        p.name
        for p in (ROOT / "specs").glob("*.fito")
        if "assert " in p.read_text(encoding="utf-8")
    ),
)
def test_frontier_agrees_with_scalar_on_shipped_specs(name: str) -> None:
    assert_same((ROOT / "specs" / name).read_text(encoding="utf-8"), name)


def test_oracle_family_counts_match_the_closed_form_on_both_engines() -> None:

    for k, e, variant in ((3, 2, "naive"), (4, 3, "2pc"), (2, 3, "naive")):
        text = spec(k, e, variant).replace("assert always true\n", "")
        for engine in ("scalar", "frontier", "auto"):
            report = check_source(Source("f.fito", text), CheckOptions(engine=engine))
            (v,) = report.verdicts
            if variant == "2pc":
                assert (v.verdict, v.states) == ("holds", closed_form(k, e, variant)), engine
            else:
                assert (v.verdict, len(v.trace)) == ("fails", 3), engine


@pytest.mark.slow  # three of its four assertions use their 5 s on both engines
@pytest.mark.parametrize("seed", [2930531])
def test_frontier_answers_where_terms_keep_changing(seed: int) -> None:
    """A random spec whose terms change at almost every step: each group meets a row or two.
    The frontier engine runs such groups state by state instead of compiling numpy code for
    each (it once spent its whole time compiling and answered nothing), so within the same
    time it answers what the scalar engine answers."""
    text = Gen(seed).spec()
    scalar = answers(text, "scalar", 20_000, 5)
    frontier = answers(text, "frontier", 20_000, 5)
    decided = [i for i, a in enumerate(scalar) if a is not None]
    assert decided, "the scalar engine no longer answers any assertion of this spec"
    assert [frontier[i] for i in decided] == [scalar[i] for i in decided]
