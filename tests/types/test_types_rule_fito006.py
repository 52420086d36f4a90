"""FITO006: a snapshot without epoch metadata cannot be converged."""

from __future__ import annotations

from tests.types.types_helpers import SHARED, codes, column_of, line_of, only, pipeline, type_check


def test_converging_a_bare_snapshot_is_fito006_with_a_fix():
    text = pipeline("""
        epoch e
        let s = snapshot(gpu)
        let c = converge(Trained, e, s)
        restore(c)
    """)
    d = only(type_check(text), "FITO006")
    assert codes(type_check(text)) == ["FITO006"]  # c is still a Conv: no FITO001 cascade
    assert (d.span.line, d.span.column) == (line_of(text, "converge"), column_of(text, "s", "e, "))
    assert "without epoch metadata" in d.message
    assert "let s = snapshot(gpu) @ e" in (d.hint or "")


def test_a_bare_product_cannot_be_converged_either():
    text = pipeline("""
        epoch e
        let m = snapshot(gpu, nvme)
        let c = converge(Trained, e, m)
    """)
    assert codes(type_check(text)) == ["FITO006"]


def test_fito006_and_fito002_are_independent():
    text = pipeline("""
        epoch e1, e2
        let s = snapshot(gpu)
        let o = snapshot(nvme) @ e2
        let c = converge(Trained, e1, s, o)
    """)
    assert codes(type_check(text)) == ["FITO002", "FITO006"]


def test_restore_of_a_bare_snapshot_is_fito001_not_fito006():
    # the shared example's resume_from_snapshot: only converge asks for the epoch metadata
    text = (SHARED / "examples" / "pipelines.fito").read_text()
    assert "FITO006" not in codes(type_check(text))
    text = pipeline("""
        let s = snapshot(gpu)
        restore(s)
    """)
    assert codes(type_check(text)) == ["FITO001"]
