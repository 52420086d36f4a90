"""FITO007: Z3 answers unknown (a timeout, a resource limit): reported, never accepted."""

from __future__ import annotations

from fito.types import EpochOracle
from tests.types.types_helpers import codes, only, pipeline, type_check

HARD = pipeline("""
    epoch a, b, c, d, e
    require 3 * a + 5 * b - 7 * c >= 11
    require 2 * b - 9 * d + 4 * e <= 5
    require a % 7 == c % 5
    require (d + e) / 3 == a - b
    let x = snapshot(gpu) @ a
    let y = snapshot(host) @ d + e
    let k = converge(Trained, a, x, y)
""")


def test_a_resource_limit_gives_fito007_and_never_acceptance():
    oracle = EpochOracle(rlimit=1)
    diags = type_check(HARD, oracle=oracle)
    assert "FITO007" in codes(diags)
    assert all(d.is_error for d in diags if d.code == "FITO007")
    assert any("unknown" in d.message for d in diags)


def test_without_the_limit_the_same_pipeline_is_decided():
    diags = type_check(HARD, oracle=EpochOracle())
    assert "FITO007" not in codes(diags)
    assert codes(diags) == ["FITO002"]


def test_an_undecided_converge_is_reported_at_its_input():
    text = pipeline("""
        epoch a, b
        let x = snapshot(gpu) @ a
        let y = snapshot(host) @ b
        let k = converge(Trained, a, x, y)
    """)
    d = only(type_check(text, oracle=EpochOracle(rlimit=1)), "FITO007")
    assert "'y'" in d.message and "equals a" in d.message
