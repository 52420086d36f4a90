"""The syntax of `ltl` assertions (docs/ltl.md): precedence, printing that parses back,
words that are operators only inside a formula, and diagnostics on the offending span."""

from __future__ import annotations

import random

import pytest

from fito.lang import temporal as T
from fito.lang.printer.canonical import print_assertion
from fito.pipeline import front_end

HEAD = """channel a, b
channel c: (0..2)
domain x: 0..3 = 0 volatile
domain X: Bool = false volatile
domain p: Bool = false volatile
process U = a -> U
system U
"""


def assertion(text: str) -> str:
    front = front_end(HEAD + text + "\n")
    assert not front.errors, front.errors
    assert front.model is not None
    return print_assertion(front.model.assertions[-1])


@pytest.mark.parametrize(
    ("written", "printed"),
    [
        ("assert ltl [] x == 1 and <> x > 0", "ltl ([] (x == 1) and <> (x > 0))"),
        ("assert ltl [] p U x == 1", "ltl ([] p U (x == 1))"),
        ("assert ltl x == 0 U x == 1 U x == 2", "ltl ((x == 0) U ((x == 1) U (x == 2)))"),
        ("assert ltl not [] x == 1", "ltl not [] (x == 1)"),
        ("assert ltl [] (p => <> fired(c.1))", "ltl [] (p => <> fired(c.1))"),
        ("assert U |= ltl X X x == 1 R x < 2", "U |= ltl (X X (x == 1) R (x < 2))"),
        ("assert ltl (x == 1) W fired({| a, b |})", "ltl ((x == 1) W fired({| a, b |}))"),
        (
            "assert ltl <> x == 1 fair weak, strong(U), weak({| a |})",
            "ltl <> (x == 1) fair weak, strong(U), weak({| a |})",
        ),
        ("assert ltl x == 1 or x == 2", "ltl (x == 1 or x == 2)"),  # one proposition
    ],
)
def test_precedence_and_the_canonical_text(written: str, printed: str) -> None:
    assert assertion(written) == printed
    assert assertion("assert " + printed) == printed  # the printed text parses back


def test_words_keep_their_meaning_outside_formulas() -> None:
    text = HEAD + "process ltl = b -> ltl\nassert ltl :[deadlock free]\nassert U reaches X\n"
    front = front_end(text)
    assert not front.errors and front.model is not None
    assert [a.kind for a in front.model.assertions] == ["deadlock", "reaches"]


def _formula(r: random.Random, depth: int = 0) -> str:
    k = r.randrange(8 if depth < 3 else 1)
    if k == 0:
        return r.choice(["x == 1", "p", "fired(a)", "fired(c.2)", "x < 3 and p", "true"])
    if k < 4:
        return f"{r.choice(['[]', '<>', 'X', 'not'])} ({_formula(r, depth + 1)})"
    op = r.choice(["U", "R", "W", "and", "or", "=>"])
    return f"({_formula(r, depth + 1)} {op} {_formula(r, depth + 1)})"


@pytest.mark.parametrize("seed", range(30))
def test_random_formulas_print_and_parse_back(seed: int) -> None:
    printed = assertion(f"assert ltl {_formula(random.Random(seed))}")
    assert assertion("assert " + printed) == printed


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("assert ltl ([] x == 1) == 1", "T001"),  # a formula compared
        ("assert ltl [] x + 1", "T001"),  # a proposition that is not Bool
        ("assert ltl <> fired(nochan)", "R001"),
        ("assert ltl forall i: {0..1} @ [] x == i", "T001"),
        ("assert ltl <> fired(c?v)", "T001"),  # an input is no set of events
    ],
)
def test_diagnostics(text: str, code: str) -> None:
    front = front_end(HEAD + text + "\n")
    codes = [d.code for d in front.diagnostics]
    assert code in codes, front.diagnostics
    assert all(d.span.line == 8 for d in front.diagnostics if d.code == code)


def test_the_formula_is_data() -> None:
    front = front_end(HEAD + "assert ltl [] <> fired(a)\n")
    assert front.model is not None
    f = front.model.assertions[-1].formula
    assert isinstance(f, T.TUnary) and f.op == "[]"
    assert isinstance(f.operand, T.TUnary) and isinstance(f.operand.operand, T.Fired)


def test_a_syntax_error_names_the_formula_words() -> None:
    front = front_end(HEAD + "assert ltl [] x == 1 fair\n")
    (d,) = front.diagnostics
    assert d.code == "P004" and "'weak'" in d.message and "LTL" not in d.message
