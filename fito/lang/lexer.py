"""The scanner: text -> Lark tokens, with comments removed and limits enforced.

Comments are handled here rather than in the grammar because block comments `{- ... -}`
nest. The scanner also bounds bracket nesting, so that no later (recursive) phase can be
driven into the ground by a pathological file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from lark import Token

MAX_NESTING = 256
MAX_INT_DIGITS = 18

#: Words reserved by LANGUAGE.md that the grammar does not (yet) use.
RESERVED_UNUSED = frozenset({"within", "Snap", "Conv"})

_OPERATORS = (
    "|~|", "|||", "{|", "|}", "[|", "|]", "[]", "/\\", "->", "=>", "==", "!=", "<=", ">=",
    "..", ":=", ":[", "|=", "(", ")", "[", "]", "{", "}", "\\", ";", "&", "<", ">", "+",
    "-", "*", "/", "%", ".", "!", "?", ":", ",", "@", "=",
)
_MASTER = re.compile(
    r"(?P<NL>\n)|(?P<WS>[ \t\r\f]+)|(?P<LC>--[^\n]*)|(?P<BC>\{-)"
    r"|(?P<ID>[A-Za-z_][A-Za-z0-9_']*)|(?P<NUM>[0-9]+)"
    r"|(?P<OP>\[T=(?!=)|" + "|".join(re.escape(o) for o in _OPERATORS) + r")"
    r"|(?P<BAD>.)",
    re.S,
)
_OPENERS = {"(": ")", "[": "]", "{": "}", "{|": "|}", "[|": "|]"}
_CLOSERS = frozenset(_OPENERS.values())


@dataclass(frozen=True, slots=True)
class ScanError(Exception):
    """A lexical error: a diagnostic code, message and 1-based position."""

    code: str
    message: str
    line: int
    column: int
    offset: int
    length: int = 1


class Scanner:
    """Turns text into Lark tokens; built once per grammar from its terminal names."""

    def __init__(self, terminal_of: dict[str, str]) -> None:
        # terminal_of maps a literal ("process", "->") to the grammar's terminal name
        self._terminal_of = terminal_of

    def scan(self, text: str) -> list[Token]:
        """All tokens of the text, or a ScanError at the first lexical problem."""
        terminal_of = self._terminal_of
        match = _MASTER.match
        tokens: list[Token] = []
        append = tokens.append
        pos, line, line_start, depth = 0, 1, 0, 0
        n = len(text)
        while pos < n:
            m = match(text, pos)
            kind = m.lastgroup
            end = m.end()
            if kind == "NL":
                line += 1
                line_start = end
            elif kind == "ID":
                value = m.group()
                ttype = terminal_of.get(value, "NAME")
                if value in RESERVED_UNUSED:
                    raise ScanError("P007", f"'{value}' is a reserved word and cannot be a name",
                                    line, pos - line_start + 1, pos, end - pos)
                col = pos - line_start + 1
                append(Token(ttype, value, pos, line, col, line, col + end - pos, end))
            elif kind == "OP":
                value = m.group()
                col = pos - line_start + 1
                if value in _OPENERS:
                    depth += 1
                    if depth > MAX_NESTING:
                        raise ScanError("P005", f"brackets nest deeper than {MAX_NESTING} levels",
                                        line, col, pos)
                elif value in _CLOSERS:
                    depth -= 1
                append(Token(terminal_of[value], value, pos, line, col, line, col + end - pos, end))
            elif kind == "NUM":
                value = m.group()
                col = pos - line_start + 1
                if len(value) > MAX_INT_DIGITS:
                    raise ScanError("P006", f"integer literal with {len(value)} digits is too large",
                                    line, col, pos, end - pos)
                append(Token("INT", value, pos, line, col, line, col + end - pos, end))
            elif kind == "BC":
                end, line, line_start = _skip_block_comment(text, pos, line, line_start)
            elif kind == "BAD":
                ch = m.group()
                raise ScanError("P002", f"unexpected character {_show_char(ch)}",
                                line, pos - line_start + 1, pos)
            pos = end
        return tokens


def _skip_block_comment(text: str, pos: int, line: int, line_start: int) -> tuple[int, int, int]:
    """Skip a nested `{- ... -}` starting at pos; returns (end, line, line_start)."""
    start_line, start_col = line, pos - line_start + 1
    depth, i, n = 1, pos + 2, len(text)
    while depth:
        j = _next_comment_mark(text, i)
        if j < 0:
            raise ScanError("P003", "block comment is never closed (missing '-}')",
                            start_line, start_col, pos, 2)
        depth += 1 if text.startswith("{-", j) else -1
        i = j + 2
    newlines = text.count("\n", pos, i)
    if newlines:
        line += newlines
        line_start = text.rfind("\n", pos, i) + 1
    return i, line, line_start


def _next_comment_mark(text: str, i: int) -> int:
    a, b = text.find("{-", i), text.find("-}", i)
    if a < 0:
        return b
    if b < 0:
        return a
    return min(a, b)


def _show_char(ch: str) -> str:
    if ch.isprintable() and not ch.isspace():
        return f"'{ch}'"
    return f"U+{ord(ch):04X}"
