"""Diagnostics a newcomer can act on (issue 32, point 3): each of the issue's reproducers
gets a message that names the fix."""

from __future__ import annotations

import pytest

from fito.check.options import CheckOptions
from fito.pipeline import check_source
from fito.render.report import render_report
from fito.source import Source


def diagnostics(text: str) -> list[tuple[str, str, str | None]]:
    report = check_source(Source("t.fito", text), CheckOptions(model_check=False))
    return [(d.code, d.message, d.hint) for d in report.diagnostics]


ARROW = "a prefix is followed by `->`: {x := 1} -> P, or a {x := 1} -> P"


@pytest.mark.parametrize(
    "text",
    [
        "domain live: 0..2 = 0 volatile\nprocess Trainer = live < 2 & {live := live + 1} Trainer\n",
        "domain x: 0..1 = 0 volatile\nchannel a\nprocess P = a {x := 1} P\n",
    ],
)
def test_a_missing_arrow_is_named(text: str) -> None:
    ((code, _, hint),) = diagnostics(text)
    assert (code, hint) == ("P001", ARROW)


@pytest.mark.parametrize(
    "typo, word", [("proces", "process"), ("sytem", "system"), ("chanel", "channel")]
)
def test_a_keyword_typo_gets_did_you_mean(typo: str, word: str) -> None:
    text = f"channel a\nprocess P = a -> P\n{typo} P\n".replace("chanel P", "chanel b")
    ((code, _, hint),) = diagnostics(text)
    assert (code, hint) == ("P001", f"did you mean '{word}'?")


def test_an_enumeration_member_named_like_a_reserved_word_is_told_so() -> None:
    ((code, message, _),) = diagnostics("type Mt = {free, busy}\n")  # SPIN's own examples
    assert code == "P007" and message == "'free' is a reserved word and cannot be used as a name"
    cell = diagnostics("domain free: 0..1 = 0 volatile\n")
    assert [c for c, _, _ in cell] == ["P007"]  # the same message as for a cell of that name


@pytest.mark.parametrize(
    "text",
    [
        "channel c: (0..2)\nprocess P = [] x: 0..2 @ c!x -> P\n",
        "assert STOP |= always forall y: 0..2 @ y >= 0\n",
    ],
)
def test_a_binder_range_without_braces_gets_a_hint(text: str) -> None:
    ((code, _, hint),) = diagnostics(text)
    assert code == "P001" and hint is not None and "x: {0..2}" in hint


def test_a_field_type_is_shown_as_declared_and_the_field_is_named() -> None:
    text = "type Epoch = 0..3\ntype Dom = {a, b}\nchannel c: Dom.Epoch\nprocess P = c.a!true -> P\n"
    ((code, message, _),) = diagnostics(text)
    assert code == "T003" and message == "field 2 of 'c' (Epoch = 0..3) must be Int, not Bool"


def test_a_model_error_is_said_once() -> None:
    text = "domain x: 0..1 = 0 volatile\nprocess P = {x := x + 1} -> P\nassert P :[deadlock free]\n"
    out = render_report([check_source(Source("t.fito", text), CheckOptions())], "text")
    said = [line for line in out.split("\n") if "value outside the type of 'x'" in line]
    assert said == [
        "  model error [M001] at line 2, column 19: value outside the type of 'x': x := 2"
    ]
