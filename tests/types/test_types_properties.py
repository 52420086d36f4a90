"""Properties of the checker on generated pipelines (Hypothesis)."""

from __future__ import annotations

import functools
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fito.errorcodes import CODES
from fito.types import EpochOracle
from tests.types.types_gen import (
    EPOCHS,
    FIRST_LINE,
    committed_pipelines,
    independent,
    pipelines,
    render,
)
from tests.types.types_helpers import type_check

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ORACLE = EpochOracle()  # shared: the cache makes repeated questions free


def verdict(text: str, index_of_line=None) -> Counter:
    """The diagnostics as (statement, code); FITO005 counted without its statement, since
    which require of a contradictory set gets the report is Z3's choice of core."""
    out: Counter = Counter()
    for d in type_check(text, oracle=ORACLE):
        where = d.span.line if index_of_line is None else index_of_line(d.span.line)
        out[(None if d.code == "FITO005" else where, d.code)] += 1
    return out


@SETTINGS
@given(pipelines())
def test_generated_pipelines_never_crash_and_every_diagnostic_is_well_formed(stmts):
    text = render(stmts)
    lines = text.splitlines()
    for d in type_check(text, oracle=ORACLE):
        assert d.code in CODES and d.severity in ("error", "warning")
        assert FIRST_LINE <= d.span.line < FIRST_LINE + len(stmts)
        assert 1 <= d.span.column <= len(lines[d.span.line - 1])
        assert d.message


@SETTINGS
@given(st.text(alphabet="abcegnpstvmor(),@=+-*/%<>!01 ", max_size=60))
def test_arbitrary_statement_text_never_crashes(junk):
    from fito.lang.syntax.parser import parse

    text = "type Dom = {gpu, host, nvme}\npipeline p {\n  epoch e\n  " + junk + "\n}\n"
    parsed = parse(text)
    if parsed.spec is not None:
        from fito.lang.resolve.resolver import resolve
        from fito.types import check_pipelines

        model, _ = resolve(parsed.spec)
        for d in check_pipelines(model, oracle=ORACLE):
            assert d.code in CODES


@functools.cache
def _grammar_pipelines():
    """Pipelines generated from the language's own grammar (hypothesis.extra.lark)."""
    from hypothesis.extra.lark import from_lark
    from lark import Lark

    from fito.lang.syntax.parser import grammar_text

    grammar = Lark(grammar_text(), parser="lalr", start="pipeline_decl")
    words = [
        " e1 ",
        " e2 ",
        " gpu ",
        " nvme ",
        " s ",
        " c ",
        " P ",
        " snapshot ",
        " converge ",
        " commit ",
        " assume ",
        " time ",
        " restore ",
        " save ",
        " log ",
        " min ",
    ]
    return from_lark(
        grammar,
        start="pipeline_decl",
        explicit={"NAME": st.sampled_from(words), "INT": st.sampled_from([" 0 ", " 1 ", " 7 "])},
    )


@pytest.mark.slow  # generating from the grammar costs about 0.2 s per example
@settings(SETTINGS, max_examples=30)
@given(st.deferred(lambda: _grammar_pipelines()))
def test_pipelines_from_the_grammar_never_crash_the_checker(generated):
    from fito.lang.resolve.resolver import resolve
    from fito.lang.syntax.parser import parse
    from fito.types import check_pipelines

    text = "type Dom = {gpu, host, nvme}\n" + generated
    parsed = parse(text)
    if parsed.spec is not None:
        model, _ = resolve(parsed.spec)
        for d in check_pipelines(model, oracle=ORACLE):
            assert d.code in CODES and d.span.line >= 1


@SETTINGS
@given(committed_pipelines())
def test_converging_commits_of_the_same_epoch_is_accepted(stmts):
    assert type_check(render(stmts), oracle=ORACLE) == []


@SETTINGS
@given(pipelines(), st.permutations(["z0", "z1", "z2", "z3"]))
def test_renaming_epochs_consistently_keeps_the_verdict(stmts, fresh):
    rename = dict(zip(EPOCHS, fresh))
    assert verdict(render(stmts)) == verdict(render(stmts, rename))


@SETTINGS
@given(pipelines(), st.lists(st.integers(0, 20), max_size=12))
def test_reordering_independent_statements_keeps_the_verdict(stmts, swaps):
    order = list(range(len(stmts)))
    for k in swaps:
        i = k % max(1, len(order) - 1)
        if i + 1 < len(order) and independent(stmts[order[i]], stmts[order[i + 1]]):
            order[i], order[i + 1] = order[i + 1], order[i]
    moved = [stmts[i] for i in order]
    before = verdict(render(stmts), lambda line: line - FIRST_LINE)
    after = verdict(render(moved), lambda line: order[line - FIRST_LINE])
    assert before == after
