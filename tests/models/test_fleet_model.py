"""The fleet model: safe expressions, TOML loading, overrides, phases, shipped model files."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fito.models.fleet.expr import ExprError, parse_expr
from fito.models.fleet.oscillators import (
    ModelError,
    PhaseSpec,
    load_fleet,
    parse_phase_flag,
    resolve_phases,
)

MODELS = sorted((Path(__file__).parents[2] / "models").glob("*.toml"))
BASE = 'jobs = 2\nwork = 10\nvolume = 4\nthroughput = "B"\n[params]\nB = 2\n'


@pytest.mark.parametrize(
    "text, n, value",
    [
        ("B", 3, Fraction(2)),
        ("n*b", 3, Fraction(3)),
        ("min(n, 4)*3/2", 7, Fraction(6)),
        ("2^3 - -1", 1, Fraction(9)),
        ("n**2/(n+1)", 2, Fraction(4, 3)),
        ("sqrt(n)", 4, Fraction(2)),
        ("max(1, n - 2) + abs(-1)", 5, Fraction(4)),
    ],
)
def test_expressions_evaluate_exactly(text, n, value):
    env = {"n": Fraction(n), "B": Fraction(2), "b": Fraction(1)}
    assert parse_expr(text).evaluate(env) == value


@pytest.mark.parametrize(
    "text",
    [
        "1+",
        "a b",
        "__import__('os')",
        "foo(1)",
        "min(1)",
        "$",
        "-" * 500 + "1",
        "(10^4000)^4000",
        "1/0",
        "2 ** (",
        ")",
    ],
)
def test_bad_expressions_raise_expr_error(text):
    with pytest.raises(ExprError):
        parse_expr(text).evaluate({})


@given(st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_expression_parser_never_crashes(text):
    try:
        parse_expr(text).evaluate({"n": Fraction(2)})
    except ExprError:
        pass


def test_irrational_throughput_is_float():
    assert isinstance(parse_expr("sqrt(n)").evaluate({"n": Fraction(2)}), float)


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_shipped_models_load(path):
    fleet = load_fleet(path.read_text(), path.stem)
    assert fleet.jobs == len(fleet.phases) >= 2
    assert all(0 <= p < w + v for p, w, v in zip(fleet.phases, fleet.work, fleet.volume))
    assert all(f > 0 for f in fleet.throughputs())


def test_overrides_replace_file_values():
    fleet = load_fleet(
        BASE + '[phases]\nkind = "even"\n',
        overrides={"jobs": "5", "work": "7/2", "throughput": "n*B", "capacity": "3"},
    )
    assert fleet.jobs == 5 and fleet.work == (Fraction(7, 2),) * 5
    assert fleet.f(3) == 6 and fleet.capacity == 3 and fleet.is_capped


def test_capacity_at_least_n_is_uncapped():
    fleet = load_fleet(BASE, overrides={"capacity": "2"})
    assert not fleet.is_capped
    assert [fleet.compute_throughput(n) for n in (1, 2)] == [1, 2]


@pytest.mark.parametrize(
    "text, status, fragment",
    [
        ("jobs = [", 2, "invalid TOML"),
        ("colour = 1\n" + BASE, 1, "unknown key"),
        (BASE.replace('"B"', '"B +"'), 2, "throughput"),
        (BASE.replace('"B"', '"Q"'), 1, "unknown name 'Q'"),
        (BASE.replace('"B"', '"B - 2*n"'), 1, "not positive"),
        (BASE.replace("work = 10", "work = -1"), 1, "positive"),
        (BASE.replace("work = 10", "work = [1, 2, 3]"), 1, "3 values for 2 jobs"),
        (BASE + "[phases]\nvalues = [0, 99]\n", 1, "outside"),
        (BASE + "[phases]\nvalues = [0]\n", 1, "1 values for 2 jobs"),
        (BASE + '[phases]\nkind = "spiral"\n', 1, "unknown phases kind"),
        (BASE.replace("jobs = 2", "jobs = 0"), 1, "positive integer"),
        (BASE.replace("jobs = 2", "jobs = true"), 1, "positive integer"),
        ("capacity = -3\n" + BASE, 1, "capacity"),
        (BASE + "0bad = 1\n", 1, "bad parameter name"),
        (BASE + "x = \n", 2, "invalid TOML"),
        (BASE + "n = 1\n", 1, "bad parameter name"),
    ],
)
def test_bad_models_give_model_errors(text, status, fragment):
    with pytest.raises(ModelError) as info:
        load_fleet(text)
    assert info.value.status == status
    assert fragment in str(info.value)


def test_phase_flag_syntax():
    assert parse_phase_flag("0, 3,7/2") == {"kind": "values", "values": ["0", "3", "7/2"]}
    assert parse_phase_flag("random:7") == {"kind": "random", "seed": 7}
    assert parse_phase_flag("ramp:1/2") == {"kind": "ramp", "step": "1/2"}
    with pytest.raises(ModelError):
        parse_phase_flag("random:x")


def test_phase_generators():
    work, volume = (Fraction(10),) * 4, (Fraction(2),) * 4
    ramp = resolve_phases(PhaseSpec(kind="ramp", step=Fraction(3)), work, volume)
    assert ramp == (10, 7, 4, 1)
    even = resolve_phases(PhaseSpec(kind="even"), work, volume)
    assert [(even[0] - p) % 12 for p in even] == [0, 3, 6, 9]
    a = resolve_phases(PhaseSpec(kind="random", seed=5), work, volume)
    assert a == resolve_phases(PhaseSpec(kind="random", seed=5), work, volume)
    assert a != resolve_phases(PhaseSpec(kind="random", seed=6), work, volume)


scalars = st.one_of(
    st.integers(-3, 50),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.booleans(),
    st.just("inf"),
    st.just("3/2"),
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=4),
    st.dictionaries(st.sampled_from(["kind", "values", "step", "seed", "x"]), scalars, max_size=3),
)
tables = st.dictionaries(
    st.sampled_from(
        [
            "jobs",
            "work",
            "volume",
            "throughput",
            "capacity",
            "cycles",
            "phases",
            "params",
            "name",
            "colour",
        ]
    ),
    values,
    max_size=7,
)


@given(tables)
@settings(max_examples=400, deadline=None)
def test_any_table_builds_or_gives_a_model_error(raw):
    from fito.models.fleet.oscillators import build_fleet

    try:
        fleet = build_fleet(raw)
    except ModelError as exc:
        assert exc.status in (1, 2) and str(exc)
    else:
        assert fleet.jobs == len(fleet.phases)


def test_a_number_too_large_for_an_expression_is_a_model_error():
    """A number in an expression field that cannot be made exact (too many digits) is a
    model error naming the field, not an ExprError (found by the table property above)."""
    from fito.models.fleet.oscillators import build_fleet

    with pytest.raises(ModelError) as info:
        build_fleet({"jobs": 1, "throughput": 1e30})
    assert "throughput" in str(info.value) and info.value.status == 1
