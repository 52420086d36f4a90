"""T013: epoch facts are quantifier-free linear integer arithmetic; T009 division by zero."""

from __future__ import annotations

import pytest

from tests.types.types_helpers import codes, only, pipeline, type_check


@pytest.mark.parametrize(
    "fact", ["e * f == 2", "e / f == 1", "e % f == 0", "forall x: Dom @ e == e"]
)
def test_non_linear_facts_are_t013(fact):
    text = pipeline(f"""
        epoch e, f
        require {fact}
    """)
    assert codes(type_check(text)) == ["T013"]


@pytest.mark.parametrize(
    "fact",
    [
        "3 * e == f * 2",
        "e / 2 == f",
        "e % 3 == 1",
        "-e <= 2 * -f",
        "min(e, f) == max(e, 0)",
        "(if e < f then e else f) >= 0",
        "e == f => f == e",
        "(e < f) == (f > e)",
        "true",
        "not false",
    ],
)
def test_linear_facts_are_accepted(fact):
    text = pipeline(f"""
        epoch e, f
        require {fact}
    """)
    assert type_check(text) == []


def test_division_by_a_zero_constant_is_t009():
    text = pipeline("""
        epoch e
        require e / (2 - 2) == 0
    """)
    d = only(type_check(text), "T009")
    assert "divides by zero" in d.message


@pytest.mark.parametrize(
    "fact,why",
    [("e + 1", "Bool fact"), ("snapshot(gpu)", "Bool fact"), ("e == true", "an Epoch or an Int")],
)
def test_require_needs_a_bool_fact(fact, why):
    text = pipeline(f"""
        epoch e
        require {fact}
    """)
    d = only(type_check(text), "T001")
    assert why in d.message
