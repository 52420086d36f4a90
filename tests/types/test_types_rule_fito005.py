"""FITO005: contradictory requires (no epochs satisfy them together)."""

from __future__ import annotations

from tests.types.types_helpers import codes, line_of, only, pipeline, type_check


def test_a_cycle_of_strict_orderings_is_contradictory_and_names_every_require():
    text = pipeline("""
        epoch e1, e2, e3
        require e1 < e2
        require e2 < e3
        require e3 < e1
        require e1 >= 0
    """)
    d = only(type_check(text), "FITO005")
    assert d.span.line == line_of(text, "require e3 < e1")
    lines = [line_of(text, f"require {r}") for r in ("e1 < e2", "e2 < e3", "e3 < e1")]
    assert f"lines {lines[0]}, {lines[1]}, {lines[2]}" in d.message
    assert len([n for n in d.notes if n.startswith("line ")]) == 3  # e1 >= 0 is not to blame


def test_contradictory_facts_skip_the_converge_checks():
    text = pipeline("""
        epoch e1, e2
        require e1 < e2
        require e2 < e1
        let w = snapshot(gpu) @ e1
        let o = snapshot(nvme) @ e2
        let c = converge(Trained, e1, w, o)
    """)
    d = only(type_check(text), "FITO005")
    assert codes(type_check(text)) == ["FITO005"]
    assert any("skipped" in n for n in d.notes)


def test_integer_reasoning_finds_contradictions_rationals_would_not():
    text = pipeline("""
        epoch e
        require 2 * e == 7
    """)
    d = only(type_check(text), "FITO005")
    assert "can never hold" in d.message


def test_each_independent_contradiction_is_reported():
    text = pipeline("""
        epoch a, b, x
        require a < b
        require b < a
        require x > 3
        require x < 2
    """)
    diags = type_check(text)
    assert codes(diags) == ["FITO005", "FITO005"]
    assert sorted(d.span.line for d in diags) == [line_of(text, "b < a"), line_of(text, "x < 2")]


def test_consistent_requires_are_silent():
    text = pipeline("""
        epoch a, b
        require a < b
        require b < a + 2
        require a % 3 == 1
    """)
    assert type_check(text) == []
