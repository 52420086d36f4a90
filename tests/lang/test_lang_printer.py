"""The canonical printer: parse(print(tree)) == tree, spans aside, on every spec we ship and
on random trees; printing is idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from fito.lang import nodes as A
from fito.lang.printer.canonical import print_expr, print_proc, print_spec
from tests.lang.ast_strategies import exprs, procs, specs
from tests.lang.lang_helpers import round_trip, spec_of, well_formed

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("path", well_formed(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_round_trip_of_every_shipped_and_corpus_spec(path: Path) -> None:
    spec = spec_of(path.read_text(encoding="utf-8"))
    assert round_trip(spec) == spec
    assert print_spec(round_trip(spec)) == print_spec(spec)


@SETTINGS
@given(specs)
def test_round_trip_of_random_specs(spec: A.Spec) -> None:
    text = print_spec(spec)
    assert round_trip(spec) == spec, text
    assert print_spec(spec_of(text)) == text


@SETTINGS
@given(exprs)
def test_round_trip_of_random_expressions(e: A.Expr) -> None:
    spec = spec_of(f"const k = {print_expr(e)}\n")
    assert spec.decls[0].value == e  # type: ignore[union-attr]


@SETTINGS
@given(procs)
def test_round_trip_of_random_processes(p: A.Proc) -> None:
    spec = spec_of(f"process K = {print_proc(p)}\n")
    assert spec.decls[0].body == p  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text, printed",
    [
        ("const N = (1 + 2) * 3 - (4 - 5)", "const N = (1 + 2) * 3 - (4 - 5)"),
        ("const N = ((1 - 2) - 3)", "const N = 1 - 2 - 3"),
        ("const B = (a => b) => (c => d)", "const B = (a => b) => c => d"),
        ("const B = - -1 + -(2)", "const B = - -1 + -2"),
        ("const B = not (a and b) or c", "const B = not (a and b) or c"),
        ("process P = (a -> b -> STOP) [] (c -> STOP)", "process P = a -> b -> STOP [] c -> STOP"),
        ("process P = a -> (b -> STOP [] c -> STOP)", "process P = a -> (b -> STOP [] c -> STOP)"),
        ("process P = (x > 0 and y) & a -> P", "process P = (x > 0 and y) & a -> P"),
        ("process P = x > 0 & a -> P", "process P = x > 0 & a -> P"),
        (
            "process P = ([] x: {  -1, 2} @ a.x -> STOP) [] b -> STOP",
            "process P = ([] x: { -1, 2} @ a.x -> STOP) [] b -> STOP",
        ),
        (
            "process P = c!(x + 1)?y:{0..2}.(-1) -> STOP",
            "process P = c!(x + 1)?y:{0..2}.(-1) -> STOP",
        ),
        ("process P = { } -> STOP", "process P = {} -> STOP"),
        ("channel c: (0..3).Bool.{a, b}", "channel c: (0..3).Bool.{a, b}"),
        (
            "assert (if b then P else Q) :[deadlock free]",
            "assert (if b then P else Q) :[deadlock free]",
        ),
    ],
)
def test_canonical_form(text: str, printed: str) -> None:
    assert print_spec(spec_of(text)) == printed + "\n"


def test_printed_text_never_opens_a_comment() -> None:
    spec = A.Spec(
        (A.TypeDecl("T", A.SetType((A.Unary("-", A.IntLit(1)),))), A.TypeDecl("U", A.IntType()))
    )
    text = print_spec(spec)
    assert "{-" not in text and "--" not in text
    assert round_trip(spec) == spec
