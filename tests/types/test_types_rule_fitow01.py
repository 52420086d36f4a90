"""FITOW01: an unchecked convergence assumption (a warning; the cast is allowed)."""

from __future__ import annotations

from fito.check.options import CheckOptions
from fito.pipeline import check_source
from fito.source import Source
from tests.types.types_helpers import codes, line_of, only, pipeline, type_check


def test_assume_is_a_warning_spanning_the_call_and_gives_a_conv():
    text = pipeline("""
        epoch e
        let s = snapshot(gpu) @ e
        let c = assume(Trained, e, s)
        deploy(c)
    """)
    d = only(type_check(text), "FITOW01")
    assert d.severity == "warning"
    line = text.splitlines()[d.span.line - 1]
    assert d.span.line == line_of(text, "assume(")
    assert line[d.span.column - 1 : d.span.end_column - 1] == "assume(Trained, e, s)"
    assert "Conv(Trained, e)" in d.message and "Snap(gpu, t1)" in d.notes[0]
    assert "converge(Trained, e" in (d.hint or "") and "commit(Trained, e, gpu)" in (d.hint or "")


def test_a_warning_alone_keeps_the_exit_status_zero():
    text = pipeline("""
        epoch e
        let s = snapshot(gpu) @ e
        let c = assume(Trained, e, s)
        resume(c)
    """)
    report = check_source(Source("w.fito", text), CheckOptions(model_check=False))
    assert [d.code for d in report.diagnostics] == ["FITOW01"] and report.status == 0


def test_assume_does_not_check_epochs_but_still_types_its_arguments():
    text = pipeline("""
        epoch e, f
        let s = snapshot(gpu) @ f
        let u = snapshot(host)
        let a = assume(Trained, e, s, u)
        let b = assume(Trained, e, f)
    """)
    assert codes(type_check(text)) == ["FITOW01", "FITOW01", "T001"]
