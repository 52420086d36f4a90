"""Syntax errors in words: what was found, what the parser expected, where a bracket opened.

Instead of listing every terminal the LALR state accepts, the expected set is summarised
by kind (`an event or a process`, `a value`, `an operator`, `a new declaration`) using what
stands on the parser's stack just before the error: after `->` a process is expected,
after `+` a value, after `const N =` a value, after `process P =` a process.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from fito.diagnostics import Diagnostic, Span, error
from fito.lang.syntax import lalr
from fito.lang.syntax.foreign import foreign_form
from fito.lang.syntax.lalr import MAX_STACK, ParseFailure
from fito.lang.syntax.lexer import end_token

if TYPE_CHECKING:
    from fito.lang.syntax.parser import Machinery

DECL_START = frozenset(
    {
        "CONST",
        "TYPE",
        "SYMMETRIC",
        "CHANNEL",
        "DOMAIN",
        "PROCESS",
        "SYSTEM",
        "ASSERT",
        "PIPELINE",
        "FUN",
        "END",
    }
)
TERM_START = frozenset(
    {
        "NAME",
        "INT",
        "TRUE",
        "FALSE",
        "STOP",
        "SKIP",
        "LPAR",
        "MINUS",
        "NOT",
        "LBRACE",
        "CHANSET_OPEN",
        "IF",
        "FORALL",
        "EXISTS",
        "EXTCHOICE",
        "INTCHOICE",
        "INTERLEAVE",
        "SYNC_OPEN",
    }
)
BINOPS = frozenset(
    {
        "BACKSLASH",
        "SYNC_OPEN",
        "INTERLEAVE",
        "INTERRUPT",
        "EXTCHOICE",
        "INTCHOICE",
        "SEMI",
        "AMP",
        "ARROW",
        "IMPLIES",
        "OR",
        "AND",
        "EQ",
        "NE",
        "LT",
        "LE",
        "GT",
        "GE",
        "PLUS",
        "MINUS",
        "STAR",
        "SLASH",
        "PERCENT",
    }
)
POSTFIX = frozenset({"LSQB", "DOT", "BANG", "QMARK", "LBRACE"})
OPENERS = {
    "LPAR": "')'",
    "LSQB": "']'",
    "LBRACE": "'}'",
    "CHANSET_OPEN": "'|}'",
    "SYNC_OPEN": "'|]'",
    "DEADLOCK_OPEN": "']'",
}
CLOSERS = frozenset({"RPAR", "RSQB", "RBRACE", "CHANSET_CLOSE", "SYNC_CLOSE"})

_PROCESS = "a process"
_EVENT_OR_PROCESS = "an event or a process"
_VALUE = "a value"
_CONDITION = "a condition (a Bool expression)"
_EITHER = "a value or a process"

#: What a term after this token (on top of the parser's stack) must be.
_AFTER_TOKEN = {
    "ARROW": _EVENT_OR_PROCESS,
    "AMP": _EVENT_OR_PROCESS,
    "EXTCHOICE": _EVENT_OR_PROCESS,
    "INTCHOICE": _EVENT_OR_PROCESS,
    "INTERLEAVE": _EVENT_OR_PROCESS,
    "INTERRUPT": _EVENT_OR_PROCESS,
    "SEMI": _EVENT_OR_PROCESS,
    "SYNC_CLOSE": _EVENT_OR_PROCESS,
    "SYSTEM": _PROCESS,
    "REFINES": _PROCESS,
    "ASSERT": "a process or a property",
    "IMPLIES": _CONDITION,
    "OR": _CONDITION,
    "AND": _CONDITION,
    "NOT": _CONDITION,
    "IF": _CONDITION,
    "REQUIRE": _CONDITION,
    "ALWAYS": _CONDITION,
    "EVENTUALLY": _CONDITION,
    "REACHES": _CONDITION,
    "EQ": _VALUE,
    "NE": _VALUE,
    "LT": _VALUE,
    "LE": _VALUE,
    "GT": _VALUE,
    "GE": _VALUE,
    "PLUS": _VALUE,
    "MINUS": _VALUE,
    "STAR": _VALUE,
    "SLASH": _VALUE,
    "PERCENT": _VALUE,
    "ASSIGN": _VALUE,
    "DOTDOT": "a bound (a constant value)",
    "LSQB": "an index value",
    "BANG": "a value (an atom: write c!(x + 1))",
    "DOT": "a field value",
    "THEN": _EITHER,
    "ELSE": _EITHER,
    "LPAR": _EITHER,
    "COMMA": _EITHER,
}
_AFTER_DECL_EQUALS = {
    "CONST": _VALUE,
    "DOMAIN": "the initial value",
    "PROCESS": _PROCESS,
    "LET": _VALUE,
}
_OP_CONTEXT = {
    "->": _EVENT_OR_PROCESS,
    "&": _EVENT_OR_PROCESS,
    "[]": _EVENT_OR_PROCESS,
    "|~|": _EVENT_OR_PROCESS,
    "|||": _EVENT_OR_PROCESS,
    "/\\": _EVENT_OR_PROCESS,
    ";": _EVENT_OR_PROCESS,
    "[||]": _EVENT_OR_PROCESS,
    "=>": _CONDITION,
    "or": _CONDITION,
    "and": _CONDITION,
}


def describe_failure(exc: ParseFailure, m: Machinery, text: str) -> Diagnostic:
    """The diagnostic for a parse that stopped at exc.token."""
    tok = exc.token
    span = _span(tok)
    if exc.too_deep:
        return error(
            "P005",
            f"the input nests more than {MAX_STACK:,} levels deep",
            span,
            hint="split the expression, or name parts of it with `const` or `process`",
        )
    expected = frozenset(m.tables.actions[exc.state])
    ttype = tok[0]
    reserved = _is_reserved_as_name(tok, expected)
    if reserved == "in a term" and example_hints(m).get((exc.state, ttype)) is not None:
        reserved = ""  # a known mistake (`assert P deadlock free`) has its own hint
    if reserved:
        return error(
            "P007",
            f"'{tok[1]}' is a reserved word and cannot be used as a name",
            span,
            hint=f"choose another name, such as '{tok[1]}_'",
        )
    wanted = expected_phrase(expected, exc.values, m.display)
    notes = (
        _open_bracket_note(exc.values)
        if ttype in CLOSERS or ttype == "$END" or ttype in DECL_START
        else ()
    )
    if example_hints(m).get((exc.state, ttype)) is None:
        foreign = _foreign(exc, m, text, bool(expected & DECL_START) or not exc.values)
        if foreign is not None:
            return error("P008", foreign[0], span, hint=foreign[1])
    if ttype == "$END":
        return error(
            "P004",
            f"unexpected end of file{wanted}",
            span,
            notes=notes,
            hint=example_hints(m).get((exc.state, ttype)),
        )
    found = m.display.get(ttype, "") if ttype not in ("NAME", "INT") else ""
    found = found if found else f"'{tok[1]}'"
    hint = example_hints(m).get((exc.state, ttype))
    if hint is None and ttype in DECL_START and ttype not in expected:
        hint = "the declaration before this one is incomplete"
    if hint is None and ttype == "NAME":
        hint = did_you_mean(tok[1], expected, m.display)
    if hint is None and ttype == "NAME" and expected & DECL_START:
        before = [t for t in m.scanner.scan(text) if t[2] < tok[2]]
        if before and before[-1][0] == "RBRACE":  # `{x := 1} P`: a block, then a process
            hint = "a prefix is followed by `->`: {x := 1} -> P, or a {x := 1} -> P"
    return error("P001", f"unexpected {found}{wanted}", span, notes=notes, hint=hint)


#: Syntax errors that people make, each with the hint that fixes it. At the first syntax
#: error, every snippet is parsed once and the (state, token) where it fails is recorded
#: (Lark's `match_examples` idea); an error in the same state on the same token gets the hint.
EXAMPLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "a range as a channel field type is written in parentheses: channel c: (0..3)",
        ("channel c: 0..3", "channel c: Dom.0..3", "channel c: -1..3"),
    ),
    (
        "a replicated operator after a binary operator needs parentheses: P [] ([] x: T @ Q)",
        (
            "process P = a -> P [] x: T @ P",
            "process P = a -> P ||| x: T @ P",
            "process P = a -> P |~| x: T @ P",
        ),
    ),
    (
        "`if` needs an `else` branch: if b then P else Q",
        (
            "process P = if b then STOP\nprocess Q = STOP",
            "process P = if b then STOP",
            "const N = if b then 1\nconst M = 1",
            "const N = if b then 1",
        ),
    ),
    (
        "a deadlock assertion is written `assert P :[deadlock free]`",
        ("assert P deadlock free", "assert deadlock free"),
    ),
    ("assignments use `:=`: a { x := 1 } -> P", ("process P = a { x = 1 } -> P",)),
    ("a declaration uses `=`: const N = 3", ("const N == 3", "type T == 0..3")),
    (
        "parameters need a type: process P(x: T) = ...",
        ("process P(x) = STOP", "process P(x, y: T) = STOP"),
    ),
    ("tuple channel types are written with dots: channel c: Dom.Epoch", ("channel c: Dom, Epoch",)),
    (
        "an input restricted to a range is written c?x:{0..2}",
        ("process P = c?x:0..2 -> P", "process P = c?x:(0..2) -> P"),
    ),
    (
        "a domain cell is `durable` or `volatile`: domain x: T = 0 durable",
        ("domain x: T = 0\nconst N = 1", "domain x: T = 0"),
    ),
    ("an invariant is written `assert P |= always <expr>`", ("assert P |= x > 0",)),
    (
        "a binder ranges over a type or a set: [] x: {0..2} @ P, forall x: {0..2} @ e",
        (
            "process P = [] x: 0..2 @ P",
            "process P = ||| x: 0..2 @ P",
            "assert P |= always forall x: 0..2 @ x",
            "assert P |= always exists x: 0..2 @ x",
        ),
    ),
)


_HINTS: dict[int, dict[tuple[int, str], str]] = {}


def example_hints(m: Machinery) -> dict[tuple[int, str], str]:
    """(state, token type) -> hint, from the failures of the EXAMPLES snippets (cached)."""
    if id(m.tables) not in _HINTS:
        out: dict[tuple[int, str], str] = {}
        for hint, snippets in EXAMPLES:
            for snippet in snippets:
                where = failure_point(m, snippet)
                if where is not None:
                    out.setdefault(where, hint)
        _HINTS[id(m.tables)] = out
    return _HINTS[id(m.tables)]


def failure_point(m: Machinery, snippet: str) -> tuple[int, str] | None:
    """Where a snippet fails to parse, as (state, token type); None if it parses."""
    recognizer = lalr.Tables(
        m.tables.actions,
        m.tables.gotos,
        tuple((size, origin, None if r is None else _ignore) for size, origin, r in m.tables.rules),
        m.tables.start,
        m.tables.end,
    )
    tokens = m.scanner.scan(snippet)
    try:
        lalr.run(recognizer, tokens, end_token(tokens))
    except lalr.ParseFailure as exc:
        return exc.state, exc.token[0]
    return None


def _ignore(children: list[Any]) -> None:
    return None


def expected_phrase(expected: frozenset[str], values: list[Any], display: dict[str, str]) -> str:
    """`; expected X, Y or Z` summarising the expected terminals (shown as `display` names
    them), or '' when there are none."""
    rest = set(expected)
    parts: list[str] = []
    if "NAME" in rest and "LPAR" in rest and "INT" in rest:
        parts.append(term_context(values))
        rest -= TERM_START
    if len(rest & BINOPS) >= len(BINOPS) // 2:
        parts.append("an operator")
        rest -= BINOPS | POSTFIX
    if DECL_START <= rest:
        parts.append("a new declaration")
        rest -= DECL_START | {"$END"}
    if parts and len(rest) > 2:
        rest = set()  # LALR look-aheads merged from other contexts: noise, not help
    if "NAME" in rest:
        parts.append("a name")
        rest.discard("NAME")
    if len(rest) <= 6:
        parts.extend(sorted(display.get(t, t) for t in rest))
    if not parts:
        return ""
    if len(parts) == 1:
        return f"; expected {parts[0]}"
    return f"; expected {', '.join(parts[:-1])} or {parts[-1]}"


def term_context(values: list[Any]) -> str:
    """What kind of term the parser wants next, judged from the top of its stack."""
    if not values:
        return "a declaration"
    top = values[-1]
    if isinstance(top, str):  # a reduced binary operator
        return _OP_CONTEXT.get(str(top), _VALUE)
    if type(top) is tuple:
        ttype = top[0]
        if ttype == "EQUALS":
            return _AFTER_DECL_EQUALS.get(_declaration_keyword(values), _VALUE)
        if ttype == "AT":
            return _after_binders(values)
        return _AFTER_TOKEN.get(ttype, _EITHER)
    return _EITHER


def _declaration_keyword(values: Iterable[Any]) -> str:
    for v in reversed(list(values)):
        if type(v) is tuple and (v[0] in DECL_START or v[0] == "LET"):
            return v[0]
    return ""


def _after_binders(values: list[Any]) -> str:
    for v in reversed(values):
        if type(v) is tuple and v[0] in ("FORALL", "EXISTS"):
            return _CONDITION
        if type(v) is tuple and v[0] in ("EXTCHOICE", "INTCHOICE", "INTERLEAVE", "SYNC_CLOSE"):
            return _EVENT_OR_PROCESS
        if type(v) is tuple and v[0] == "LET":
            return _VALUE  # `let x = snapshot(d) @ e`
    return _EITHER


def _foreign(exc: ParseFailure, m: Machinery, text: str, at_decl: bool) -> tuple[str, str] | None:
    """A Promela or CSPm form at the failure (fito.lang.syntax.foreign), as (message, hint)."""
    tokens = m.scanner.scan(text)
    i = next((k for k, t in enumerate(tokens) if t[2] == exc.token[2]), len(tokens))
    tokens = tokens + [exc.token] if i == len(tokens) else tokens
    return foreign_form(tokens, i, at_decl)


def did_you_mean(word: str, expected: frozenset[str], display: dict[str, str]) -> str | None:
    """`did you mean 'process'?` for a name one typo away from a keyword the parser
    accepts here (as mypy and ruff suggest a close name)."""
    keywords = {
        display.get(t, t).strip("'"): t for t in expected if t not in ("NAME", "INT", "$END")
    }
    words = [k for k in keywords if k.isalpha()]
    close = difflib.get_close_matches(word, words, n=1, cutoff=0.75)
    return f"did you mean '{close[0]}'?" if close else None


#: Keywords that can stand where a name is expected and mean something there (a declaration
#: after an incomplete one, `then`/`else` of an `if`): no "reserved word" message for them.
_STRUCTURAL = DECL_START | {"THEN", "ELSE", "AT", "WITHIN"}


def _is_reserved_as_name(tok: tuple[str, str, int, int, int], expected: frozenset[str]) -> str:
    """A reserved word where only a name would do ("a name"), or inside a term where a
    keyword that starts no term cannot be meant ("in a term": an enumeration member
    `{free, busy}`); "" otherwise."""
    word = tok[1]
    if not (
        tok[0] not in ("NAME", "$END")
        and word[:1].isalpha()
        and "NAME" in expected
        and tok[0] not in expected
    ):
        return ""
    if not (expected & (TERM_START - {"NAME"})):
        return "a name"
    if tok[0] not in TERM_START and tok[0] not in _STRUCTURAL and tok[0] not in BINOPS:
        return "in a term"
    return ""


def _open_bracket_note(values: list[Any]) -> tuple[str, ...]:
    for v in reversed(values):
        if type(v) is tuple and v[0] in OPENERS:
            return (
                f"the '{v[1]}' at line {v[3]}, column {v[4]} is not closed "
                f"(expected {OPENERS[v[0]]})",
            )
    return ()


def _span(tok: tuple[str, str, int, int, int]) -> Span:
    n = max(1, len(tok[1]))
    return Span(tok[3], tok[4], tok[3], tok[4] + n, tok[2], tok[2] + n)
