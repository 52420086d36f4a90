"""`fito fmt` is a round trip on every input it accepts: the output parses to the same tree
(with the same diagnostics), keeps every comment, and is its own canonical form. Inputs:
random trees, with declarations that hold a build error among them, comments and line
breaks put between their tokens, laid out in several widths."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fito.lang.printer.canonical import print_spec
from fito.lang.printer.fmt import find_comments, format_text
from fito.lang.syntax.parser import machinery, parse
from tests.lang.ast_strategies import specs

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
SEPARATORS = st.sampled_from(
    [" ", "\n", "\n\n", "  ", " {- c -} ", " -- note\n", "\n-- own\n", " {- a {- nested -} b -}\n"]
)


def interleave(text: str, draw: st.DrawFn) -> str:
    """The text with a separator drawn for the gap after each token (comments and breaks)."""
    try:
        tokens = machinery().scanner.scan(text)
    except Exception:  # noqa: BLE001 - such texts are tested as they are
        return text
    out = []
    pos = 0
    for tok in tokens:
        out.append(text[pos : tok[2]] if pos else "")
        out.append(tok[1])
        pos = tok[2] + len(tok[1])
        out.append(draw(SEPARATORS) if draw(st.integers(0, 3)) == 0 else " ")
    return "".join(out) + "\n"


# declarations the builder reports an error in (fmt leaves them as written)
MALFORMED = [
    "const Q = 1 < 2 < 3",
    "process R = {x := 1}",
    "process S = c.1",
    "const T = a -> STOP",
    "process U = (a -> STOP) \\ x",
    "const V = {| a |}",
]


@st.composite
def commented_specs(draw: st.DrawFn) -> str:
    """Random trees printed (and, at random places, declarations with a build error), with
    comments and breaks between their tokens."""
    decls = print_spec(draw(specs)).splitlines()
    for bad in draw(st.lists(st.sampled_from(MALFORMED), max_size=2)):
        decls.insert(draw(st.integers(0, len(decls))), bad)
    return interleave("\n".join(decls) + "\n", draw)


def check_round_trip(source: str, width: int = 100) -> None:
    first = format_text(source, width)
    if first.text is None:
        assert any(d.code.startswith("P") for d in first.diagnostics)
        return
    out = first.text
    before, after = parse(source), parse(out)
    assert after.spec == before.spec, out
    assert [d.code for d in after.diagnostics] == [d.code for d in before.diagnostics], out
    assert [c.text for c in find_comments(out)] == [c.text for c in find_comments(source)]
    assert format_text(out, width).text == out


@SETTINGS
@given(source=commented_specs(), width=st.sampled_from([100, 60, 24]))
def test_fmt_round_trips_random_specs_with_comments(source: str, width: int) -> None:
    check_round_trip(source, width)


@pytest.mark.parametrize(
    "source",
    [
        "const N = (1 + {- c -} 2)\n",  # issue 14: a lost parenthesis
        "const N = (1 + 2) {- c -}\nconst M = 1\n",
        "process P = (a -> {- x -} STOP)\n",
        "const M = 1 < 2 < 3\nconst   K=1\n",  # a build error: left alone
        "channel a\nprocess P =  -- the worker\n  a ->\n  P\n",
        "assert reaches x == 1 and y == 2 and z == 3 and w == 4 and v == 5 and u == 6 and t == 7"
        " and s == 8  -- expect: holds\n",
    ],
)
def test_fmt_round_trips_known_cases(source: str) -> None:
    check_round_trip(source)


def test_a_type_error_fmt_need_not_judge_is_kept_as_written() -> None:
    out = format_text("const M = 1 < 2 < 3\nconst   K=1\n")
    assert out.text == "const M = 1 < 2 < 3\nconst K = 1\n"


def test_the_lost_parenthesis_is_back() -> None:
    assert format_text("const N = (1 + {- c -} 2)\n").text == "const N = (1 + {- c -} 2)\n"


def test_long_assertions_keep_their_expectation_on_their_first_line() -> None:
    source = (
        "assert reaches x == 1 and y == 2 and z == 3 and w == 4 and v == 5 and u == 6"
        " and t == 7 and s == 8 and r == 9 and q == 10  -- expect: holds\n"
    )
    out = format_text(source).text
    assert out is not None
    first, *rest = out.splitlines()
    assert first.endswith("-- expect: holds") and rest and all(len(line) <= 100 for line in rest)


def test_the_shipped_specs_are_in_canonical_form() -> None:
    from tests.lang.lang_helpers import SPECS

    for path in SPECS:
        if path.name != "bad_syntax.fito":
            text = path.read_text(encoding="utf-8")
            assert format_text(text).text == text, path.name
