"""Text -> AST: the scanner, an LALR(1) driver over Lark's strict table, and the builder.

Public surface: `parse(text) -> ParseResult`. Nothing here raises on bad input: syntax
problems come back as diagnostics (codes P001-P007), worded by `fito.lang.syntax`.
`lark_parser()` gives a plain Lark parser of the same grammar for tools such as
Hypothesis's `from_lark`.
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Iterator

from lark import Lark, Token
from lark.lexer import Lexer

from fito.diagnostics import Diagnostic, Span, error
from fito.lang import lalr
from fito.lang import nodes as A
from fito.lang.build import Builder
from fito.lang.lexer import ScanError, Scanner, Tok


@dataclass(frozen=True, slots=True)
class ParseResult:
    spec: A.Spec | None  # None when the text could not be parsed at all
    diagnostics: tuple[Diagnostic, ...]


class _TokenFeed(Lexer):
    """Hands Lark the tokens our scanner produced (used to build the table, and by the peer)."""

    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, data: Any) -> Iterator[Token]:  # type: ignore[override]
        return iter(data)


def grammar_text() -> str:
    """The grammar, shipped as package data."""
    return resources.files("fito.lang").joinpath("grammar.lark").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Machinery:
    """Everything built once per process: Lark's analysis, our tables, scanner and builder."""

    lark: Lark
    tables: lalr.Tables
    builder: Builder
    scanner: Scanner
    display: dict[str, str]  # terminal name -> how messages show it
    lock: threading.Lock


@lru_cache(maxsize=1)
def machinery() -> Machinery:
    """Build (or load from Lark's cache) the strict LALR analysis, once."""
    # strict: any LALR conflict or terminal collision is an error. The analysis is cached
    # (keyed by a hash of grammar and options) so that it runs once per grammar version.
    parser = Lark(grammar_text(), parser="lalr", lexer=_TokenFeed, strict=True,
                  keep_all_tokens=True, maybe_placeholders=True, cache=True)
    literal = {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    terminal_of = {value: name for name, value in literal.items()}
    terminal_of["[T="] = "REFINES"
    display = {name: f"'{value}'" for name, value in literal.items()}
    display.update({"NAME": "a name", "INT": "an integer", "REFINES": "'[T='",
                    "$END": "end of file"})
    builder = Builder()
    return Machinery(parser, lalr.build_tables(parser, builder), builder, Scanner(terminal_of),
                     display, threading.Lock())


def lark_parser() -> Lark:
    """A plain Lark parser of the same grammar (tree output), for tools such as Hypothesis."""
    return Lark(grammar_text(), parser="lalr", lexer="basic", strict=True, maybe_placeholders=True)


def parse(text: str) -> ParseResult:
    """Parse a whole file; returns the AST (or None) and every diagnostic found."""
    m = machinery()
    try:
        tokens = m.scanner.scan(text)
    except ScanError as exc:
        span = Span(exc.line, exc.column, exc.line, exc.column + exc.length, exc.offset,
                    exc.offset + exc.length)
        return ParseResult(None, (error(exc.code, exc.message, span, hint=exc.hint),))
    with m.lock, no_gc():
        m.builder.reset()
        try:
            spec = lalr.run(m.tables, tokens, end_token(tokens))
        except lalr.ParseFailure as exc:
            from fito.lang.syntax import describe_failure

            return ParseResult(None, (describe_failure(exc, m, text),))
        except RecursionError:
            return ParseResult(None, (error("P005", "the input nests too deeply to be parsed"),))
        return ParseResult(spec, tuple(m.builder.diagnostics))


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector: the trees built here hold no cycles, and its passes
    over a large, young heap cost a quarter of the parse."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def end_token(tokens: list[Tok]) -> Tok:
    """The `$END` token, placed just after the last token (or at 1:1 in an empty file)."""
    if not tokens:
        return ("$END", "", 0, 1, 1)
    last = tokens[-1]
    n = len(last[1])
    return ("$END", "", last[2] + n, last[3], last[4] + n)


def lark_runtime_parse(text: str) -> Any:
    """The peer of `bench/parse.py`: Lark's own LALR loop and tree builder on our tokens."""
    m = machinery()
    tokens = [Token(t[0], t[1], t[2], t[3], t[4], t[3], t[4] + len(t[1]), t[2] + len(t[1]))
              for t in m.scanner.scan(text)]
    return m.lark.parse(tokens)
