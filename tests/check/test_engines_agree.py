"""The frontier engine (whole levels of packed states) and the state-by-state engine give the
same answers: verdicts, state and transition counts, and the very same traces, since both
number new states in the order a breadth-first search finds them (issue 12, point 5)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fito.check.options import CheckOptions
from fito.pipeline import check_source
from fito.source import Source

sys.path.insert(0, str(Path(__file__).parent))
from random_specs import Gen  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAFETY = ("deadlock", "always", "reaches")


def answers(text: str, engine: str, limit: int = 20_000, seconds: float = 20) -> list[tuple | None]:
    """Each verdict's figures and trace; None where a limit was hit."""
    options = CheckOptions(max_states=limit, timeout=seconds, engine=engine)
    report = check_source(Source("t.fito", text), options)
    return [
        None
        if v.limit_hit
        else (v.text, v.verdict, v.states, v.transitions, v.trace, v.reason, v.error)
        for v in report.verdicts
    ]


def assert_same(text: str, label: str, limit: int = 20_000, seconds: float = 20) -> int:
    """Both engines on text; the verdicts neither gave up on are the same. Returns how many
    were compared."""
    scalar = answers(text, "scalar", limit, seconds)
    frontier = answers(text, "frontier", limit, seconds)
    assert len(scalar) == len(frontier), label
    pairs = [(a, b) for a, b in zip(scalar, frontier) if a is not None and b is not None]
    for a, b in pairs:
        assert a == b, f"{label}\n{text}"
    return len(pairs)


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
    sys.path.insert(0, str(ROOT / "tests" / "oracles"))
    from family import closed_form, spec

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
