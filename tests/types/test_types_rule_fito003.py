"""FITO003: a time is asked of a converged state, which has none."""

from __future__ import annotations

from tests.types.types_helpers import codes, column_of, line_of, only, pipeline, type_check


def test_time_of_a_commit_is_fito003_at_the_argument():
    text = pipeline("""
        epoch e
        let c = commit(Trained, e, gpu, host)
        let t = time(c)
    """)
    d = only(type_check(text), "FITO003")
    assert (d.span.line, d.span.column) == (line_of(text, "time(c)"), column_of(text, "c", "time("))
    assert "'c'" in d.message and "Conv(Trained, e)" in d.message and "has none" in d.message
    assert "epoch (e)" in (d.hint or "")


def test_time_of_a_converge_result_and_of_an_assumption():
    text = pipeline("""
        epoch e
        let s = snapshot(gpu) @ e
        let k = converge(Trained, e, s)
        let a = assume(Trained, e, s)
        log(time(k))
        let u = time(a)
    """)
    assert codes(type_check(text)) == ["FITO003", "FITO003", "FITOW01"]


def test_time_of_one_snapshot_is_a_time():
    text = pipeline("""
        epoch e
        let s = snapshot(gpu) @ e
        let u = snapshot(host)
        let t = time(s)
        let v = time(u)
        log(t, v)
    """)
    assert type_check(text) == []


def test_time_of_a_plain_value_is_a_type_mismatch():
    text = pipeline("""
        epoch e
        let t = time(e)
        let u = time(3)
    """)
    assert codes(type_check(text)) == ["T001", "T001"]
