"""The typing rule of every pipeline statement (docs/types.md), observed through reveal_types."""

from __future__ import annotations

from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import parse
from fito.types import reveal_types
from tests.types.types_helpers import codes, pipeline, type_check


def revealed(body: str) -> dict[str, str]:
    model, _ = resolve(parse(pipeline(body)).spec)
    return {r.name: r.type for r in reveal_types(model)}


def test_epoch_declares_epoch_variables():
    assert revealed("epoch e1, e2") == {"e1": "Epoch (e1)", "e2": "Epoch (e2)"}


def test_require_binds_nothing_and_needs_a_fact():
    assert revealed("epoch e\nrequire e >= 0") == {"e": "Epoch (e)"}
    assert codes(type_check(pipeline("epoch e\nrequire e"))) == ["T001"]


def test_let_binds_numbers_with_their_terms():
    got = revealed("""
        epoch e
        let n = 3
        let f = e + n
        let b = f > e
    """)
    assert got["n"] == "Int (3)" and got["f"] == "Epoch (e + n)" and got["b"] == "Bool"


def test_snapshot_with_and_without_epoch_metadata():
    got = revealed("""
        epoch e
        let a = snapshot(gpu)
        let b = snapshot(host) @ e + 1
        let m = snapshot(gpu, nvme) @ e
    """)
    assert got["a"] == "Snap(gpu, t1)"
    assert got["b"] == "Snap(host, t2) @ e + 1"
    assert got["m"] == "Snap(gpu, t3) x Snap(nvme, t4) @ e"


def test_epoch_metadata_only_on_snapshots():
    text = pipeline("""
        epoch e
        let c = commit(Trained, e, gpu) @ e
    """)
    assert codes(type_check(text)) == ["T001"]


def test_converge_commit_and_assume_give_conv():
    got = revealed("""
        epoch e
        let s = snapshot(gpu) @ e
        let a = converge(TwoPhase, e, s)
        let b = commit(TwoPhase, e + 1, gpu, nvme)
        let c = assume(Other, e, s)
    """)
    assert (got["a"], got["b"], got["c"]) == (
        "Conv(TwoPhase, e)",
        "Conv(TwoPhase, e + 1)",
        "Conv(Other, e)",
    )


def test_time_gives_a_time():
    assert revealed("let s = snapshot(gpu)\nlet t = time(s)")["t"] == "Time"


def test_min_max_and_if_are_numbers():
    got = revealed("""
        epoch e, f
        let lo = min(e, f)
        let k = max(1, 2)
        let i = if e < f then f else e
    """)
    assert got["lo"] == "Epoch (min(e, f))" and got["k"] == "Int (max(1, 2))"
    assert got["i"].startswith("Epoch")


def test_restore_resume_deploy_save_log_are_statements():
    text = pipeline("""
        epoch e
        let c = commit(P, e, gpu)
        restore(c)
        resume(c)
        deploy(c)
        save(c, nvme)
        save(snapshot(gpu), nvme)
        log(c, e, 1, snapshot(host))
    """)
    assert type_check(text) == []
    assert codes(type_check(pipeline("let c = commit(P, 0, gpu)\nlet r = resume(c)"))) == ["T001"]


def test_save_needs_a_state():
    assert codes(type_check(pipeline("epoch e\nsave(e, nvme)"))) == ["T001"]


def test_a_pipeline_is_straight_line_if_cannot_choose_states():
    text = pipeline("""
        epoch e
        let s = if e > 0 then snapshot(gpu) else snapshot(host)
    """)
    assert codes(type_check(text)) == ["T001"]
