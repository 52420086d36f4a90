"""The scanner: tokens with exact positions, nested comments, limits."""

from __future__ import annotations

import pytest

from fito.lang.syntax.lexer import ScanError, blank_block_comments
from fito.lang.syntax.parser import machinery


def scan(text: str) -> list[tuple[str, str, int, int, int]]:
    return machinery().scanner.scan(text)


def test_tokens_carry_offset_line_and_column() -> None:
    toks = scan("const N = 3\n  process P=a->P [T= Q |~| R\n")
    assert toks[:4] == [
        ("CONST", "const", 0, 1, 1),
        ("NAME", "N", 6, 1, 7),
        ("EQUALS", "=", 8, 1, 9),
        ("INT", "3", 10, 1, 11),
    ]
    assert [t[:2] for t in toks[4:]] == [
        ("PROCESS", "process"),
        ("NAME", "P"),
        ("EQUALS", "="),
        ("NAME", "a"),
        ("ARROW", "->"),
        ("NAME", "P"),
        ("REFINES", "[T="),
        ("NAME", "Q"),
        ("INTCHOICE", "|~|"),
        ("NAME", "R"),
    ]
    assert toks[4][2:] == (14, 2, 3)


def test_longest_operator_wins() -> None:
    assert [t[1] for t in scan("[| |] [] {| |} ||| |= := :[ .. => ==")] == [
        "[|",
        "|]",
        "[]",
        "{|",
        "|}",
        "|||",
        "|=",
        ":=",
        ":[",
        "..",
        "=>",
        "==",
    ]
    assert [t[1] for t in scan("a[T==b")] == ["a", "[", "T", "==", "b"]


@pytest.mark.parametrize(
    "text, kept",
    [
        ("a {- x -} b", "a b"),
        ("a {- {- nested -} still -} b", "a b"),
        ("a -- {- not a block\nb", "a b"),
        ("a {- -- not a line comment -} b", "a b"),
        ("a {--} b {---} c", "a b c"),
        ("x' _y x'' -- trailing", "x' _y x''"),
    ],
)
def test_comments(text: str, kept: str) -> None:
    assert " ".join(t[1] for t in scan(text)) == kept


def test_block_comments_keep_line_numbers() -> None:
    toks = scan("{- one\n two\n three -} a\nb")
    assert [(t[1], t[3], t[4]) for t in toks] == [("a", 3, 11), ("b", 4, 1)]
    text = "x {- a\nb -} y"
    assert len(blank_block_comments(text)) == len(text)
    assert blank_block_comments(text).count("\n") == 1


def test_brace_minus_always_opens_a_comment() -> None:
    with pytest.raises(ScanError) as err:
        scan("type T = {-1, 2}")
    assert (err.value.code, err.value.column) == ("P003", 10)
    assert [t[1] for t in scan("type T = { -1, 2}")][3:6] == ["{", "-", "1"]


def test_keywords_are_terminals_and_reserved_words_refused() -> None:
    assert [t[0] for t in scan("if then else forall Bool Int")] == [
        "IF",
        "THEN",
        "ELSE",
        "FORALL",
        "BOOL",
        "__ANON_0",
    ]
    with pytest.raises(ScanError) as err:
        scan("const Conv = 1")
    assert err.value.code == "P007"
    assert "Snap" in machinery().scanner.keywords and "process" in machinery().scanner.keywords
