"""Names in pipelines: R001 undefined, R002 duplicate, R003 arity, R004 wrong kind."""

from __future__ import annotations

import pytest

from tests.types.types_helpers import DOMAINS, codes, line_of, only, pipeline, type_check


def test_an_undefined_variable_is_r001_at_its_span():
    text = pipeline("""
        epoch e
        restore(k)
    """)
    d = only(type_check(text), "R001")
    assert d.message == "'k' is not defined" and d.span.line == line_of(text, "restore(k)")


def test_a_use_before_definition_says_where_the_definition_is():
    text = pipeline("""
        let t = time(s)
        let s = snapshot(gpu)
    """)
    d = only(type_check(text), "R001")
    assert f"defined later, at line {line_of(text, 'let s')}" in (d.hint or "")


def test_an_undeclared_epoch_in_a_require():
    text = pipeline("""
        epoch e1
        require e1 < e3
    """)
    d = only(type_check(text), "R001")
    assert "'e3'" in d.message and "`epoch e3`" in (d.hint or "")


def test_unknown_operations_are_r001_with_a_suggestion():
    text = pipeline("let c = comit(P, 0, gpu)")
    d = only(type_check(text), "R001")
    assert codes(type_check(text)) == ["R001"]
    assert d.hint == "did you mean 'commit'?"
    d = only(type_check(pipeline("frobnicate(1)")), "R001")
    assert "restore" in (d.hint or "")


@pytest.mark.parametrize(
    "body,clash",
    [
        ("epoch e\nepoch e", "an epoch"),
        ("let s = snapshot(gpu)\nlet s = snapshot(host)", "a let-bound variable"),
        ("epoch gpu", "an enumeration member"),
        ("let Dom = 1", "a type"),
        ("epoch p", "a pipeline"),
    ],
)
def test_one_environment_no_redeclaration(body, clash):
    d = only(type_check(pipeline(body)), "R002")
    assert clash in d.message


def test_locals_are_per_pipeline():
    text = pipeline("let s = snapshot(gpu)", name="one") + pipeline(
        "let s = snapshot(host)", header="", name="two"
    )
    assert type_check(text) == []


@pytest.mark.parametrize(
    "stmt",
    [
        "let c = converge(Trained, 0)",
        "let c = commit(Trained, 0)",
        "let c = assume(Trained, 0)",
        "let s = snapshot()",
        "let t = time()",
        "restore()",
        "save(snapshot(gpu))",
        "log()",
        "let x = min(1)",
    ],
)
def test_wrong_arity_is_r003(stmt):
    assert codes(type_check(pipeline(stmt))) == ["R003"]


@pytest.mark.parametrize("expr", ["gpu", "weights", "Worker", "weights[1]"])
def test_domains_and_processes_are_not_values_r004(expr):
    header = (
        DOMAINS
        + "domain weights: 0..3 = 0 durable\nchannel step\nprocess Worker = step -> Worker\n"
    )
    assert codes(type_check(pipeline(f"log({expr})", header=header))) == ["R004"]


def test_a_protocol_is_a_free_name_but_not_a_local_value():
    assert type_check(pipeline("let c = commit(AnyProtocolName, 0, gpu)")) == []
    text = pipeline("""
        epoch e
        let c = commit(e, e, gpu)
    """)
    assert codes(type_check(text)) == ["T001"]


def test_constants_are_integers_in_pipelines():
    header = DOMAINS + "const K = 3\n"
    text = pipeline(
        """
        epoch e
        require e == K
        let a = snapshot(gpu) @ 3
        let b = snapshot(host) @ e
        restore(converge(Trained, K, a, b))
    """,
        header=header,
    )
    assert type_check(text) == []
