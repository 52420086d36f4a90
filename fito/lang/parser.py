"""Text -> AST: the scanner, Lark's LALR parser (strict) and the builder, with diagnostics.

Public surface: `parse(text) -> ParseResult`. Nothing here raises on bad input: syntax
problems come back as diagnostics (codes P001-P007).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Iterator

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer

from fito.diagnostics import Diagnostic, Span, error
from fito.lang import ast as A
from fito.lang.build import Builder
from fito.lang.lexer import ScanError, Scanner


@dataclass(frozen=True, slots=True)
class ParseResult:
    spec: A.Spec | None  # None when the text could not be parsed at all
    diagnostics: tuple[Diagnostic, ...]


class _TokenFeed(Lexer):
    """Hands Lark the tokens our scanner produced."""

    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, data: Any) -> Iterator[Token]:  # type: ignore[override]
        return iter(data)


def grammar_text() -> str:
    """The grammar, shipped as package data."""
    return resources.files("fito.lang").joinpath("grammar.lark").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class _Machinery:
    lark: Lark
    builder: Builder
    scanner: Scanner
    display: dict[str, str]  # terminal name -> how to show it in messages
    lock: threading.Lock


@lru_cache(maxsize=1)
def _machinery() -> _Machinery:
    builder = Builder()
    # strict: any LALR conflict or terminal collision is an error. The analysis is cached
    # (keyed by a hash of grammar and options) so that it runs once per grammar version.
    parser = Lark(grammar_text(), parser="lalr", lexer=_TokenFeed, strict=True,
                  keep_all_tokens=True, maybe_placeholders=True, transformer=builder, cache=True)
    literal = {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    terminal_of = {value: name for name, value in literal.items()}
    terminal_of["[T="] = "REFINES"
    display = {name: f"'{value}'" for name, value in literal.items()}
    display.update({"NAME": "a name", "INT": "an integer", "REFINES": "'[T='", "$END": "end of file"})
    return _Machinery(parser, builder, Scanner(terminal_of), display, threading.Lock())


def lark_parser() -> Lark:
    """A plain Lark parser of the same grammar (tree output), for tools such as Hypothesis."""
    return Lark(grammar_text(), parser="lalr", lexer="basic", strict=True, maybe_placeholders=True)


def parse(text: str) -> ParseResult:
    """Parse a whole file; returns the AST (or None) and every diagnostic found."""
    m = _machinery()
    try:
        tokens = m.scanner.scan(text)
    except ScanError as exc:
        span = Span(exc.line, exc.column, exc.line, exc.column + exc.length, exc.offset,
                    exc.offset + exc.length)
        return ParseResult(None, (error(exc.code, exc.message, span),))
    with m.lock:
        m.builder.diagnostics = []
        try:
            spec = m.lark.parse(tokens)
        except UnexpectedInput as exc:
            return ParseResult(None, (_syntax_diagnostic(exc, m.display, text),))
        except RecursionError:
            return ParseResult(None, (error("P005", "the input nests too deeply to be parsed"),))
        return ParseResult(spec, tuple(m.builder.diagnostics))


def _syntax_diagnostic(exc: UnexpectedInput, display: dict[str, str], text: str) -> Diagnostic:
    expected = sorted({display.get(e, e) for e in getattr(exc, "expected", ()) or ()})
    shown = _expected_phrase(expected)
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        tok = exc.token
        span = Span(tok.line, tok.column, tok.end_line, tok.end_column, tok.start_pos, tok.end_pos)
        what = display.get(tok.type, repr(str(tok)))
        if tok.type in ("NAME", "INT"):
            what = f"'{tok}'"
        return error("P001", f"unexpected {what}{shown}", span, hint=_hint(tok, expected))
    if isinstance(exc, (UnexpectedEOF, UnexpectedToken)):
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        return error("P004", f"unexpected end of file{shown}",
                     Span(line, col, line, col + 1, len(text), len(text)))
    if isinstance(exc, UnexpectedCharacters):  # not produced with our scanner, kept for safety
        return error("P002", "unexpected character", Span.point(exc.line, exc.column))
    return error("P001", "syntax error")


def _expected_phrase(expected: list[str]) -> str:
    if not expected:
        return ""
    if len(expected) > 8:
        return ""
    if len(expected) == 1:
        return f"; expected {expected[0]}"
    return "; expected one of " + ", ".join(expected)


def _hint(tok: Token, expected: list[str]) -> str | None:
    if str(tok) in ("->",) and "a name" in expected:
        return "an event or a process is missing before this arrow"
    if tok.type in {"CONST", "TYPE", "CHANNEL", "DOMAIN", "PROCESS", "SYSTEM", "ASSERT", "PIPELINE"}:
        return "the previous declaration is incomplete"
    return None
