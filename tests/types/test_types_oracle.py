"""Canonical epoch facts and the cached Z3 oracle: one Z3 question per distinct question."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from fito.types import EpochOracle
from fito.types.epochs import FALSE, TRUE, Cmp, Div, Lin, Mod, compare, equality
from fito.types.oracle import NEVER, POSSIBLE, PROVED, lin_to_z3
from tests.types.types_helpers import pipeline, type_check

e1, e2 = Lin.var("e1"), Lin.var("e2")


def test_equal_facts_written_differently_are_one_canonical_formula():
    one = compare("==", e2, e1.plus(Lin.lit(1)))
    assert one == compare("==", e1.plus(Lin.lit(1)), e2)
    assert one == compare("==", e2.scale(2), e1.scale(2).plus(Lin.lit(2)))
    assert compare("<", e1, e2) == compare("<=", e1.plus(Lin.lit(1)), e2)
    assert compare(">", e2, e1) == compare("<", e1, e2)


def test_integer_normalization_of_coefficients():
    assert compare("==", e1.scale(2), Lin.lit(7)) == FALSE  # 2 e1 = 7 has no integer solution
    assert compare("<=", e1.scale(2), Lin.lit(7)) == compare("<=", e1, Lin.lit(3))
    assert compare("<=", Lin.lit(1), Lin.lit(2)) == TRUE
    assert equality(e1, e1) == TRUE
    assert isinstance(compare("==", e1, e2), Cmp)


@settings(max_examples=40, deadline=None)
@given(st.integers(-50, 50), st.integers(-7, 7).filter(bool))
def test_division_and_remainder_round_toward_negative_infinity_in_z3(a, k):
    import z3

    x = z3.Int("x")
    s = z3.Solver()
    s.add(x == a)
    assert s.check() == z3.sat
    m = s.model()
    div = m.eval(lin_to_z3(Lin.atom(Div(Lin.var("x"), k)))).as_long()
    mod = m.eval(lin_to_z3(Lin.atom(Mod(Lin.var("x"), k)))).as_long()
    assert (div, mod) == (a // k, a % k)


def _same_question_pipelines(n: int) -> str:
    body = [
        "epoch e1, e2",
        "require e2 == e1 + 1",
        "let w = snapshot(gpu) @ e1",
        "let o = snapshot(nvme) @ e2",
    ]
    body += [f"let c{i} = converge(Trained, e1, w, o)" for i in range(n)]
    return pipeline("\n".join(body))


def test_each_distinct_question_goes_to_z3_once():
    small, large = EpochOracle(), EpochOracle()
    assert len(type_check(_same_question_pipelines(1), oracle=small)) == 1
    assert len(type_check(_same_question_pipelines(40), oracle=large)) == 40
    assert small.stats.checks == large.stats.checks
    assert large.stats.questions - small.stats.questions == 39 * 2  # two inputs per converge
    assert large.stats.cache_hits - small.stats.cache_hits == 39


def test_unrelated_facts_do_not_change_the_question():
    oracle = EpochOracle()
    type_check(_same_question_pipelines(1), oracle=oracle)
    checks = oracle.stats.checks
    text = pipeline("""
        epoch e1, e2, x, y
        require e2 == e1 + 1
        require x < y
        let w = snapshot(gpu) @ e1
        let o = snapshot(nvme) @ e2
        let c = converge(Trained, e1, w, o)
    """)
    assert [d.code for d in type_check(text, oracle=oracle)] == ["FITO002"]
    assert oracle.stats.checks == checks + 1  # only the new group's consistency


def test_the_cache_can_be_disabled_and_answers_agree():
    text = _same_question_pipelines(5)
    cached, uncached = EpochOracle(), EpochOracle(cache=False)
    assert [d.message for d in type_check(text, oracle=cached)] == [
        d.message for d in type_check(text, oracle=uncached)
    ]
    assert uncached.stats.checks > cached.stats.checks


coef = st.integers(-3, 3)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(coef, coef, coef, st.sampled_from(["==", "<=", "<"])), min_size=0, max_size=3
    ),
    coef,
    coef,
)
def test_verdicts_agree_with_enumeration_of_small_epochs(facts, a_shift, b_scale):
    """proved / never / possible against brute force over a box of values (sound one way:
    a box model refutes `proved` or `never`; `proved` means no box model differs)."""
    x, y = Lin.var("x"), Lin.var("y")
    formulas = [compare(op, x.scale(p).plus(y.scale(q)), Lin.lit(r)) for p, q, r, op in facts]
    if EpochOracle().consistency(formulas).status != "sat":
        return
    a, b = x.plus(Lin.lit(a_shift)), y.scale(b_scale)
    answer = EpochOracle().equality(formulas, a, b, ("x", "y"))
    holds = {"==": lambda v, r: v == r, "<=": lambda v, r: v <= r, "<": lambda v, r: v < r}
    models = [
        (vx, vy)
        for vx, vy in itertools.product(range(-12, 13), repeat=2)
        if all(holds[op](p * vx + q * vy, r) for p, q, r, op in facts)
    ]
    differ = [m for m in models if m[0] + a_shift != b_scale * m[1]]
    meet = [m for m in models if m[0] + a_shift == b_scale * m[1]]
    if answer.status == PROVED:
        assert not differ
    if answer.status == NEVER:
        assert not meet
    if answer.status in (NEVER, POSSIBLE):
        # the witness shows the question's epochs; some model of the facts extends it
        w = dict(answer.witness)
        assert set(w) == {n for n, used in (("x", True), ("y", b_scale != 0)) if used}
        wide = range(-200, 201)  # facts have coefficients and constants of at most 3
        vx = [w["x"]] if "x" in w else wide
        vy = [w["y"]] if "y" in w else wide
        assert any(
            all(holds[op](p * i + q * j, r) for p, q, r, op in facts) and i + a_shift != b_scale * j
            for i in vx
            for j in vy
        )
    if differ:
        assert answer.status != PROVED
    if meet:
        assert answer.status != NEVER
