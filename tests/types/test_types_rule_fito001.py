"""FITO001: a snapshot (Snap) is used where a converged state (Conv) is required."""

from __future__ import annotations

import pytest

from tests.types.types_helpers import codes, column_of, line_of, only, pipeline, type_check


@pytest.mark.parametrize("consumer", ["restore", "resume", "deploy"])
def test_snapshot_given_to_a_consumer_is_fito001_at_the_argument(consumer):
    text = pipeline(f"""
        let s = snapshot(gpu)
        {consumer}(s)
    """)
    d = only(type_check(text), "FITO001")
    assert d.severity == "error"
    assert (d.span.line, d.span.column) == (
        line_of(text, f"{consumer}(s)"),
        column_of(text, "s", f"{consumer}("),
    )
    assert d.span.end_column == d.span.column + 1
    assert f"{consumer}(s)" in d.message and "'s'" in d.message and "Snap(gpu, t1)" in d.message
    assert "commit(P, e, gpu)" in (d.hint or "") and "converge(" in (d.hint or "")


@pytest.mark.parametrize("consumer", ["restore", "resume", "deploy"])
def test_a_convergence_is_accepted_by_every_consumer(consumer):
    text = pipeline(f"""
        epoch e
        let c = commit(Trained, e, gpu, nvme)
        let s = snapshot(host) @ e
        let k = converge(Trained, e, s)
        {consumer}(c)
        {consumer}(k)
    """)
    assert type_check(text) == []


def test_epoch_metadata_does_not_make_a_snapshot_a_convergence():
    text = pipeline("""
        epoch e1
        let s = snapshot(nvme) @ e1
        restore(s)
    """)
    d = only(type_check(text), "FITO001")
    assert "of epoch e1" in d.message
    assert "converge(P, e1, s)" in (d.hint or "")


def test_inline_snapshot_is_fito001_and_each_use_is_reported():
    text = pipeline("""
        let s = snapshot(gpu)
        deploy(snapshot(host))
        restore(s)
        resume(s)
    """)
    diags = type_check(text)
    assert codes(diags) == ["FITO001"] * 3
    assert sorted(d.span.line for d in diags) == [
        line_of(text, x) for x in ("deploy(", "restore(", "resume(")
    ]


def test_a_non_state_given_to_a_consumer_is_a_type_mismatch_not_fito001():
    text = pipeline("""
        epoch e
        restore(e)
    """)
    assert codes(type_check(text)) == ["T001"]
