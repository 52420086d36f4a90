"""Bad input gives diagnostics, never an exception: arbitrary text, random bytes through the
CLI, and programs generated from the grammar itself (hypothesis.extra.lark)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from fito.errorcodes import CODES
from fito.lang.printer.canonical import print_spec
from fito.lang.syntax.lexer import RESERVED_UNUSED
from fito.lang.syntax.parser import parse
from tests.lang.grammar_programs import parser_without_ltl, programs
from tests.lang.lang_helpers import front_end, round_trip

SETTINGS = settings(
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
TOKENS = [
    "process",
    "P",
    "=",
    "a",
    "->",
    "STOP",
    "[]",
    "(",
    ")",
    "{",
    "}",
    "{-",
    "-}",
    "--",
    "\n",
    " ",
    "1",
    "..",
    ":",
    "const",
    "|||",
    "[|",
    "|]",
    "{|",
    "|}",
    "!",
    "?",
    ".",
    "@",
    "forall",
    "if",
    "then",
    "else",
    "&",
    "assert",
    ":[deadlock free]",
    "x",
    ":=",
    ",",
    "var",
    "fun",
    "buffer",
    "atomic",
    "fi",
    "::",
    "||",
    "[[",
    "]]",
    "<-",
    "[>",
    "in",
    "let",
    "Events",
    "assert(",
    "q!1",
    "len(q)",
    "channel q: (0..1) buffer 2",
    "[a || b]",
    "proctype",
    "&&",
    "do",
    "within",
]


def assert_only_diagnostics(text: str) -> None:
    spec, diags = front_end(text)
    assert all(d.code in CODES for d in diags)
    assert all(d.span.line >= 1 and d.span.column >= 1 for d in diags)
    if spec is None:
        assert len(diags) == 1 and diags[0].code.startswith("P")


@settings(SETTINGS, max_examples=300)
@given(st.text(max_size=200))
def test_arbitrary_text(text: str) -> None:
    assert_only_diagnostics(text)


@settings(SETTINGS, max_examples=300)
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join))
def test_arbitrary_token_soup(text: str) -> None:
    assert_only_diagnostics(text)


def _raw_grammar_programs() -> st.SearchStrategy[str]:
    """`from_lark` on the parser's grammar as it is (most draws exceed Hypothesis's depth limit,
    so few examples are affordable; `grammar_programs` bounds the depth instead)."""
    parser = parser_without_ltl()  # the words of ltl formulas are typed only inside one
    keywords = {t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_']{0,6}", fullmatch=True).filter(
        lambda n: n not in keywords and n not in RESERVED_UNUSED
    )
    explicit = {
        t.name: st.just(t.pattern.value + " ") for t in parser.terminals if t.pattern.type == "str"
    }
    explicit["NAME"] = names.map(lambda n: n + " ")
    explicit["INT"] = st.integers(0, 10**6).map(lambda i: f"{i} ")
    explicit["__IGNORE_0"] = st.sampled_from([" ", "\n", "\t"])
    return from_lark(parser, explicit=explicit)


def check_program(text: str) -> None:
    """A program of the grammar scans and parses; the front end reports only diagnostics;
    when it builds cleanly, printing round-trips."""
    result = parse(text)
    codes = [d.code for d in result.diagnostics]
    assert result.spec is not None or codes == ["P005"], (text, result.diagnostics)
    assert_only_diagnostics(text)
    if result.spec is not None and not any(d.is_error for d in result.diagnostics):
        assert round_trip(result.spec) == result.spec
        assert print_spec(round_trip(result.spec)) == print_spec(result.spec)


@settings(SETTINGS, max_examples=20)
@given(_raw_grammar_programs())
def test_programs_of_the_grammar(text: str) -> None:
    check_program(text)


@settings(SETTINGS, max_examples=150)
@given(programs(12))
def test_programs_of_the_depth_bounded_grammar(text: str) -> None:
    check_program(text)


@settings(SETTINGS, max_examples=12)
@given(st.binary(min_size=1, max_size=300))
def test_random_bytes_through_the_cli(tmp_path_factory, data: bytes) -> None:  # type: ignore[no-untyped-def]
    path = Path(tmp_path_factory.mktemp("bytes")) / "random.fito"
    path.write_bytes(data)
    proc = subprocess.run(
        [sys.executable, "-m", "fito", "check", "--no-progress", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.returncode in (0, 1, 2, 3)
    if proc.returncode == 2:
        first = (proc.stdout or proc.stderr).splitlines()[0]
        assert first.startswith(f"{path}:") and "error:" in first and first.endswith("]")
