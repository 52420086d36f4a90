"""The scanner: text -> tokens, with comments removed and limits enforced.

A token is a plain tuple `(type, text, offset, line, column)`: `type` is the grammar's
terminal name (`NAME`, `INT`, `ARROW`, the upper-cased keyword, ...), offsets are 0-based
and lines and columns 1-based. Tokens never span lines, so the end is `offset + len(text)`
on the same line. Plain tuples keep scanning cheap; `fito.lang.syntax.lalr` feeds them to the
parse table without wrapping them.

Comments are handled here rather than in the grammar because block comments `{- ... -}`
nest. `{-` always opens a comment (write `{ -1, 2}` for a set starting with a negative
number); `--` starts a line comment outside block comments; inside a block comment only
`{-` and `-}` count. The scanner also bounds bracket nesting, so that no later phase can be
driven into the ground by a pathological file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from fito.lang.syntax.temporal_tokens import mark_temporal

MAX_NESTING = 256
MAX_INT_DIGITS = 18

Tok = tuple[str, str, int, int, int]  # (type, text, offset, line, column)

#: Words reserved by LANGUAGE.md that the grammar does not (yet) use.
RESERVED_UNUSED = frozenset({"within", "Snap", "Conv"})
# Keywords added after LANGUAGE.md's list: names everywhere except where they open their
# declaration (`symmetric type D = ...`; `end P, Q`), so that no spec
# using them as names (`channel start, end`) breaks.
SOFT_KEYWORDS = frozenset({"end", "symmetric"})

OPERATORS = (
    "|~|",
    "|||",
    "{|",
    "|}",
    "[|",
    "|]",
    "[]",
    "/\\",
    "->",
    "=>",
    "==",
    "!=",
    "<=",
    ">=",
    "[>",
    "||",
    "[[",
    "<-",
    "::",
    "..",
    ":=",
    ":[",
    "|=",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "\\",
    ";",
    "&",
    "<",
    ">",
    "+",
    "-",
    "*",
    "/",
    "%",
    ".",
    "!",
    "?",
    ":",
    ",",
    "@",
    "=",
)
_MULTI = sorted((o for o in OPERATORS if len(o) > 1), key=len, reverse=True)
_SINGLE = "".join(re.escape(o) for o in OPERATORS if len(o) == 1)
# One match per token: (whitespace and a line comment before it, the token). The token is a
# newline, a word, a number, an operator, one stray character, or "" at the end of the text.
_TOKEN = re.compile(
    r"((?:[ \t\r\f]|--[^\n]*)*)"
    r"(\n|[A-Za-z_][A-Za-z0-9_']*|[0-9]+|\[T=(?!=)|"
    + "|".join(re.escape(o) for o in _MULTI)
    + "|["
    + _SINGLE
    + r"]|.|\Z)",
    re.S,
)
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_COMMENT_MARK = re.compile(r"--|\{-")
_NOT_NEWLINE = re.compile(r"[^\n]")
OPENERS = {"(": ")", "[": "]", "{": "}", "{|": "|}", "[|": "|]", ":[": "]", "[[": "]"}
CLOSERS = frozenset(OPENERS.values())


@dataclass(frozen=True, slots=True)
class ScanError(Exception):
    """A lexical error: a diagnostic code, message and 1-based position."""

    code: str
    message: str
    line: int
    column: int
    offset: int
    length: int = 1
    hint: str | None = None


def _mark_soft_keywords(tokens: list[Tok], terminal_of: Mapping[str, str]) -> None:
    """Re-type (in place) each soft keyword that opens its declaration: `symmetric` before
    `type`; `end` before a name that no `(` follows (a name `end` is never followed by a
    name, except in a pipeline where a call statement `f(...)` may come next)."""
    n = len(tokens)
    for i, (kind, value, pos, line, column) in enumerate(tokens):
        if kind != "NAME" or value not in terminal_of:
            continue
        after = tokens[i + 1] if i + 1 < n else None
        if value == "symmetric":
            opens = after is not None and after[1] == "type"
        else:  # `end P, Q`; a name `end` is never followed by a name, but for `f(...)`
            beyond = tokens[i + 2] if i + 2 < n else None
            field = i > 0 and tokens[i - 1][1] in (".", "!", "?")
            opens = (
                not field
                and after is not None
                and after[0] == "NAME"
                and (beyond is None or beyond[1] != "(")
            )
        if opens:
            tokens[i] = (terminal_of[value], value, pos, line, column)


class Scanner:
    """Turns text into tokens; built once per grammar from its terminal names."""

    def __init__(self, terminal_of: Mapping[str, str]) -> None:
        # terminal_of maps a literal ("process", "->") to the grammar's terminal name
        self._soft = {w: terminal_of[w] for w in SOFT_KEYWORDS if w in terminal_of}
        self._fixed = {k: v for k, v in terminal_of.items() if k not in SOFT_KEYWORDS}
        missing = [o for o in OPERATORS + ("[T=",) if o not in self._fixed]
        if missing:
            raise ValueError(f"the grammar names no terminal for {missing}")
        self._opener_types = frozenset(terminal_of[o] for o in OPENERS)
        self._closer_types = frozenset(terminal_of[c] for c in CLOSERS)
        self._reserved = frozenset(w for w in self._fixed if w[:1].isalpha()) | RESERVED_UNUSED

    @property
    def keywords(self) -> frozenset[str]:
        """Every reserved word (the grammar's keywords and the unused reserved ones)."""
        return self._reserved

    def scan(self, text: str) -> list[Tok]:
        """All tokens of the text, or a ScanError at the first lexical problem."""
        if "{-" in text:
            text = blank_block_comments(text)
        fixed, openers, closers = self._fixed, self._opener_types, self._closer_types
        tokens: list[Tok] = []
        append = tokens.append
        pos, line, line_start, depth = 0, 1, 0, 0
        for space, value in _TOKEN.findall(text):
            pos += len(space)
            if value == "\n":
                pos += 1
                line += 1
                line_start = pos
                continue
            ttype = fixed.get(value)
            if ttype is None:
                if value[:1] in _NAME_START and value not in RESERVED_UNUSED:
                    ttype = "NAME"
                elif value == "within" and _after_let(tokens):
                    raise ScanError(
                        "P008",
                        "CSPm's `let ... within` is not fito syntax",
                        line,
                        pos - line_start + 1,
                        pos,
                        len(value),
                        "write let x = e in e2",
                    )
                else:
                    ttype = self._classify(value, pos, line, pos - line_start + 1)
                    if ttype == "":
                        break  # the end of the text
            elif ttype in openers:
                depth += len(value) if value == "[[" else 1  # `[[` is closed by `] ]`
                if depth > MAX_NESTING:
                    raise ScanError(
                        "P005",
                        f"brackets nest deeper than {MAX_NESTING} levels",
                        line,
                        pos - line_start + 1,
                        pos,
                        len(value),
                    )
            elif ttype in closers:
                depth -= 1
            append((ttype, value, pos, line, pos - line_start + 1))
            pos += len(value)
        if self._soft and ("end" in text or "symmetric" in text):
            _mark_soft_keywords(tokens, self._soft)
        return mark_temporal(tokens) if "ltl" in text else tokens

    def _classify(self, value: str, pos: int, line: int, column: int) -> str:
        """The type of a token that is not a keyword or an operator: NAME, INT, or an error."""
        if not value:
            return ""
        first = value[0]
        if first == "_" or "a" <= first.lower() <= "z":
            if value in RESERVED_UNUSED:
                raise ScanError(
                    "P007",
                    f"'{value}' is a reserved word and cannot be a name",
                    line,
                    column,
                    pos,
                    len(value),
                )
            return "NAME"
        if "0" <= first <= "9":
            if len(value) > MAX_INT_DIGITS:
                raise ScanError(
                    "P006",
                    f"integer literal with {len(value)} digits is too large "
                    f"(at most {MAX_INT_DIGITS})",
                    line,
                    column,
                    pos,
                    len(value),
                )
            return "INT"
        if value in _FOREIGN_CHARACTERS:
            message, hint = _FOREIGN_CHARACTERS[value]
            raise ScanError("P008", message, line, column, pos, 1, hint)
        raise ScanError("P002", f"unexpected character {show_char(value)}", line, column, pos)


#: Characters of Promela and CSPm with no fito meaning -> (message, hint), P008.
_FOREIGN_CHARACTERS = {
    "|": (
        "a lone `|` is not fito syntax (CSPm's `datatype T = A | B`, comprehensions)",
        "write an enumeration type T = {A, B}; list sets of events: {| a, b |}",
    ),
    "#": ("a `#` line (Promela's #define, #include) is not fito syntax", "write const N = 3"),
    '"': (
        "fito has no strings (Promela's printf, CSPm's include)",
        "leave output statements out: a counterexample lists every step",
    ),
}


def _after_let(tokens: list[Tok]) -> bool:
    """Whether the last `let` among the tokens has no `in` yet."""
    for t in reversed(tokens[-200:]):
        if t[0] == "IN":
            return False
        if t[0] == "LET":
            return True
    return False


def blank_block_comments(text: str) -> str:
    """The text with every block comment replaced by spaces (newlines kept, offsets kept)."""
    out: list[str] = []
    last = pos = 0
    search = _COMMENT_MARK.search
    while (m := search(text, pos)) is not None:
        if m.group() == "--":  # a line comment: a `{-` inside it opens nothing
            nl = text.find("\n", m.end())
            pos = len(text) if nl < 0 else nl
            continue
        start = m.start()
        end = block_comment_end(text, start)
        out.append(text[last:start])
        out.append(_blank(text[start:end]))
        last = pos = end
    out.append(text[last:])
    return "".join(out)


def _blank(s: str) -> str:
    return _NOT_NEWLINE.sub(" ", s)


def block_comment_end(text: str, pos: int) -> int:
    """The offset just after the `-}` that closes the `{-` at pos (comments nest)."""
    depth, i = 1, pos + 2
    while depth:
        a, b = text.find("{-", i), text.find("-}", i)
        if b < 0:
            line = text.count("\n", 0, pos) + 1
            col = pos - (text.rfind("\n", 0, pos) + 1) + 1
            raise ScanError(
                "P003", "block comment is never closed (missing '-}')", line, col, pos, 2
            )
        if 0 <= a < b:
            depth, i = depth + 1, a + 2
        else:
            depth, i = depth - 1, b + 2
    return i


def show_char(ch: str) -> str:
    """A character as a message shows it: quoted when printable, else its code point."""
    if ch.isprintable() and not ch.isspace():
        return f"'{ch}'"
    return f"U+{ord(ch):04X}"


def end_token(tokens: list[Tok]) -> Tok:
    """The `$END` token, placed just after the last token (or at 1:1 in an empty file)."""
    if not tokens:
        return ("$END", "", 0, 1, 1)
    last = tokens[-1]
    n = len(last[1])
    return ("$END", "", last[2] + n, last[3], last[4] + n)
