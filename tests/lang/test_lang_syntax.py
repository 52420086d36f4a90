"""Syntax errors: one diagnostic at the exact token, worded by what was expected."""

from __future__ import annotations

import pytest

from fito.lang.syntax.lalr import MAX_STACK
from fito.lang.syntax.messages import EXAMPLES, failure_point
from fito.lang.syntax.parser import machinery, parse


def only_error(text: str):  # type: ignore[no-untyped-def]
    result = parse(text)
    assert result.spec is None
    assert len(result.diagnostics) == 1
    return result.diagnostics[0]


def test_contract_example_points_at_the_second_arrow() -> None:
    d = only_error("type Epoch = 0..3\nchannel step: Epoch\nprocess P = step?e -> -> STOP\n")
    assert (d.code, d.span.line, d.span.column, d.span.end_column) == ("P001", 3, 23, 25)
    assert d.message == "unexpected '->'; expected an event or a process"


@pytest.mark.parametrize(
    "text, message",
    [
        ("const N = 1 +", "unexpected end of file; expected a value"),
        ("const N = 1 + * 2", "unexpected '*'; expected a value"),
        ("process P = a [] ; STOP", "unexpected ';'; expected an event or a process"),
        (
            "const B = true and or false",
            "unexpected 'or'; expected a condition (a Bool expression)",
        ),
        ("process P = a -> STOP\nconst", "unexpected end of file; expected a name"),
        ("process P =", "unexpected end of file; expected a process"),
        ("const N =", "unexpected end of file; expected a value"),
        ("assert P |= always", "unexpected end of file; expected a condition (a Bool expression)"),
        ("channel c: Dom,", "unexpected ','; expected a new declaration, '.' or 'buffer'"),
    ],
)
def test_expected_sets_are_summarised_in_words(text: str, message: str) -> None:
    assert only_error(text).message == message


def test_an_incomplete_declaration_is_named_in_the_hint() -> None:
    d = only_error("process P = a ->\nprocess Q = STOP\n")
    assert (d.span.line, d.span.column) == (2, 1)
    assert d.message == "unexpected 'process'; expected an event or a process"
    assert d.hint == "the declaration before this one is incomplete"


def test_unexpected_end_points_just_after_the_last_token() -> None:
    d = only_error("channel a\nprocess P = a ->   \n\n")
    assert (d.code, d.span.line, d.span.column) == ("P004", 2, 17)


def test_an_unclosed_bracket_is_noted() -> None:
    d = only_error("const N = (1 + (2 * 3)\nconst M = 1\n")
    assert d.code == "P001" and (d.span.line, d.span.column) == (2, 1)
    assert d.notes == ("the '(' at line 1, column 11 is not closed (expected ')')",)
    d = only_error("process P = a -> (STOP [] b -> STOP")
    assert d.code == "P004" and "the '(' at line 1, column 18 is not closed" in d.notes[0]


@pytest.mark.parametrize(
    "text, column, word",
    [
        ("const process = 1", 7, "process"),
        ("channel a, if", 12, "if"),
        ("type T = 0..1\nprocess P(then: T) = STOP", 11, "then"),
        ("channel c: (0..1)\nprocess P = c?true -> STOP", 15, "true"),
        ("channel Snap", 9, "Snap"),
    ],
)
def test_a_reserved_word_used_as_a_name(text: str, column: int, word: str) -> None:
    d = only_error(text)
    assert (d.code, d.span.column) == ("P007", column)
    assert word in d.message and "reserved word" in d.message


@pytest.mark.parametrize("hint, snippet", [(h, s) for h, snippets in EXAMPLES for s in snippets])
def test_each_example_of_a_common_mistake_gets_its_hint(hint: str, snippet: str) -> None:
    assert failure_point(machinery(), snippet) is not None, "the example must not parse"
    d = only_error(snippet)
    assert d.hint == hint


def test_messages_stay_short_whatever_the_lalr_state() -> None:
    """No message lists the parser's whole look-ahead set."""
    for text in (
        "process P = a -> P [] x: T @ P",
        "const N = 1 1",
        "process P = (a",
        "assert P :[deadlock",
        "pipeline p { let x = }",
    ):
        d = only_error(text)
        assert len(d.message) < 110, d.message


@pytest.mark.parametrize(
    "text, code, column",
    [
        ("const N = 1 $ 2", "P002", 13),
        ("const N = 1 # 2", "P008", 13),
        ("const N = 1 é", "P002", 13),
        ("const N = 1\x0b", "P002", 12),
        ("const N = 1 {- open", "P003", 13),
        ("const N = 99999999999999999999", "P006", 11),
        ("const N = " + "(" * 257 + "1" + ")" * 257, "P005", 267),
        ("const N = " + "[" * 300, "P005", 267),
    ],
)
def test_lexical_errors(text: str, code: str, column: int) -> None:
    d = only_error(text)
    assert (d.code, d.span.line, d.span.column) == (code, 1, column)


def test_nesting_without_brackets_is_bounded() -> None:
    d = only_error("const N = " + "- " * (MAX_STACK + 10) + "1")
    assert d.code == "P005"
    assert parse("const N = " + "- " * 2000 + "1").spec is not None


def test_a_second_parse_is_not_affected_by_the_first() -> None:
    assert parse("const N = 1 + ").spec is None
    result = parse("const N = 1 < 2 < 3")
    assert [d.code for d in result.diagnostics] == ["T001"]
    assert parse("const N = 1").diagnostics == ()
