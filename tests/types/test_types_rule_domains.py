"""T012: a pipeline domain is a declared domain cell or an enumeration member, nothing else."""

from __future__ import annotations

import pytest

from tests.types.types_helpers import DOMAINS, codes, column_of, line_of, only, pipeline, type_check

HEADER = (
    DOMAINS
    + """domain weights: 0..3 = 0 durable
domain shard[d: Dom][e: 0..2]: Bool = false volatile
channel step
const K = 2
process Worker = step -> Worker
"""
)


@pytest.mark.parametrize("dom", ["gpu", "nvme", "weights", "shard", "shard[gpu]", "shard[host][1]"])
def test_cells_members_and_cell_elements_are_domains(dom):
    text = pipeline(
        f"""
        epoch e
        let s = snapshot({dom}) @ e
        let c = commit(Trained, e, {dom})
        save(c, {dom})
    """,
        header=HEADER,
    )
    assert type_check(text) == []


@pytest.mark.parametrize(
    "dom,why",
    [
        ("gpux", "declared neither"),
        ("step", "a channel"),
        ("K", "a constant"),
        ("Worker", "a process"),
        ("Dom", "a type"),
        ("e", "an epoch"),
        ("s0", "a let-bound"),
        ("shard[gpu][1][2]", "2 indexes"),
        ("weights[gpu]", "0 indexes"),
        ("1 + 2", "not a domain"),
    ],
)
def test_anything_else_is_t012_at_the_bad_name(dom, why):
    text = pipeline(
        f"""
        epoch e
        let s0 = snapshot(gpu) @ e
        let s = snapshot(host, {dom})
    """,
        header=HEADER,
    )
    d = only(type_check(text), "T012")
    assert codes(type_check(text)) == ["T012"]
    assert (d.span.line, d.span.column) == (
        line_of(text, "let s = "),
        column_of(text, dom, "snapshot(host, "),
    )
    assert d.span.end_column - d.span.column == len(dom)
    assert why in d.message


def test_a_misspelled_domain_gets_a_suggestion():
    text = pipeline("let s = snapshot(nvm)")
    d = only(type_check(text), "T012")
    assert d.hint == "did you mean 'nvme'?"


@pytest.mark.parametrize("stmt", ["let c = commit(Trained, 0, disk)", "save(snapshot(gpu), disk)"])
def test_commit_and_save_check_their_domains(stmt):
    assert codes(type_check(pipeline(stmt))) == ["T012"]


def test_members_of_any_enumeration_are_domains():
    text = pipeline(
        """
        let s = snapshot(east, gpu)
        log(s)
    """,
        header=DOMAINS + "type Region = {east, west}\n",
    )
    assert type_check(text) == []
