"""Text -> AST: the scanner, an LALR(1) driver over Lark's strict table, and the builder.

Public surface: `parse(text) -> ParseResult`. Nothing here raises on bad input: syntax
problems come back as diagnostics (codes P001-P007), worded by `fito.lang.syntax.messages`.
`lark_parser()` gives a plain Lark parser of the same grammar for tools such as
Hypothesis's `from_lark`.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from fito.diagnostics import Diagnostic, Span, error
from fito.lang import nodes as A
from fito.lang.build.terms import Builder
from fito.lang.syntax import lalr
from fito.lang.syntax.lexer import ScanError, Scanner, end_token
from fito.lang.syntax.tables import analysis, grammar_text
from fito.lang.syntax.temporal_tokens import TEMPORAL_DISPLAY

if TYPE_CHECKING:
    from lark import Lark


@dataclass(frozen=True, slots=True)
class ParseResult:
    spec: A.Spec | None  # None when the text could not be parsed at all
    diagnostics: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class Machinery:
    """Everything built once per process: our tables, scanner and builder."""

    tables: lalr.Tables
    builder: Builder
    scanner: Scanner
    display: dict[str, str]  # terminal name -> how messages show it
    lock: threading.Lock


@lru_cache(maxsize=1)
def machinery() -> Machinery:
    """Build the parser from the grammar's strict LALR analysis (fito.lang.syntax.tables), once."""
    a = analysis()
    terminal_of = {value: name for name, value in a.literals.items()}
    terminal_of["[T="] = "REFINES"
    display = {name: f"'{value}'" for name, value in a.literals.items()}
    display.update(
        {"NAME": "a name", "INT": "an integer", "REFINES": "'[T='", "$END": "end of file"}
    )
    display.update(TEMPORAL_DISPLAY)
    builder = Builder()
    return Machinery(
        lalr.build_tables(a, builder), builder, Scanner(terminal_of), display, threading.Lock()
    )


def lark_parser() -> Lark:
    """A plain Lark parser of the same grammar (tree output), for tools such as Hypothesis."""
    from lark import Lark  # lazy-import: Lark costs 0.1 s; parsing never needs it

    return Lark(grammar_text(), parser="lalr", lexer="basic", strict=True, maybe_placeholders=True)


def parse(text: str) -> ParseResult:
    """Parse a whole file; returns the AST (or None) and every diagnostic found."""
    m = machinery()
    try:
        tokens = m.scanner.scan(text)
    except ScanError as exc:
        span = Span(
            exc.line,
            exc.column,
            exc.line,
            exc.column + exc.length,
            exc.offset,
            exc.offset + exc.length,
        )
        return ParseResult(None, (error(exc.code, exc.message, span, hint=exc.hint),))
    with m.lock, no_gc():
        m.builder.reset()
        try:
            spec = lalr.run(m.tables, tokens, end_token(tokens))
        except lalr.ParseFailure as exc:
            from fito.lang.syntax.messages import describe_failure  # lazy-import: errors only

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


def lark_runtime_parse(text: str) -> Any:
    """The peer of `bench/parse.py`: Lark's own LALR loop and tree builder on our tokens."""
    from lark import Token  # lazy-import: Lark costs 0.1 s; parsing never needs it

    m = machinery()
    tokens = [
        Token(t[0], t[1], t[2], t[3], t[4], t[3], t[4] + len(t[1]), t[2] + len(t[1]))
        for t in m.scanner.scan(text)
    ]
    return _lark_analyser().parse(tokens)


@lru_cache(maxsize=1)
def _lark_analyser() -> Any:
    from fito.lang.syntax.larkgrammar import lark_analyser  # lazy-import: Lark (0.1 s)

    return lark_analyser(grammar_text())
