"""Property tests: the kernel agrees with SymPy and Z3 on random identities, points and systems."""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
import z3
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fito.proof import linear_infeasible, prove_linear, to_expr
from fito.proof.kernel import check
from fito.proof.kernel.expr import KernelError, evaluate, parse, symbols, to_json
from fito.proof.kernel.linear import hypotheses
from fito.proof.lp import farkas_multipliers
from tests.proof.oracle import to_sympy, to_z3
from tests.proof.proof_helpers import certificate as _cert

NAMES = ("x", "y", "z")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _leaf():
    return st.one_of(
        st.sampled_from(NAMES),
        st.integers(-4, 4),
        st.builds(lambda p, q: f"{p}/{q}", st.integers(-5, 5), st.integers(2, 5)),
    )


def _poly():
    return st.recursive(
        _leaf(),
        lambda kids: st.one_of(
            st.builds(lambda a, b: ["+", a, b], kids, kids),
            st.builds(lambda a, b: ["*", a, b], kids, kids),
            st.builds(lambda a, b: ["-", a, b], kids, kids),
            st.builds(lambda a, n: ["^", a, n], kids, st.integers(0, 3)),
        ),
        max_leaves=8,
    )


def _symbolic(*exprs) -> bool:
    return any(symbols(parse(e)) for e in exprs)


@SETTINGS
@given(_poly())
def test_expansion_by_sympy_is_accepted_and_perturbation_rejected(e):
    expanded = to_expr(sp.expand(to_sympy(e)))
    assume(_symbolic(e, expanded) and to_expr(e) != expanded)  # else trivial: refused
    assert check(_cert({"kind": "identity", "lhs": e, "rhs": expanded})).accepted
    assert not check(_cert({"kind": "identity", "lhs": e, "rhs": ["+", expanded, "1/7"]})).accepted


@SETTINGS
@given(_poly(), _poly())
def test_rational_function_identity_against_sympy_cancel(a, b):
    den = sp.expand(to_sympy(b))
    assume(den != 0 and _symbolic(a, b))
    lhs = ["/", a, b]
    num, cden = sp.fraction(sp.cancel(to_sympy(a) / den))
    rhs = ["/", to_expr(num), to_expr(cden)]
    assume(to_expr(lhs) != to_expr(rhs))  # the same expression: refused as trivial
    ob = {"kind": "identity", "lhs": lhs, "rhs": rhs, "nonzero": [b, to_expr(cden)]}
    assert check(_cert(ob)).accepted


@SETTINGS
@given(
    st.recursive(
        _leaf(),
        lambda kids: st.one_of(
            st.builds(lambda a, b: ["+", a, b], kids, kids),
            st.builds(lambda a, b: ["*", a, b], kids, kids),
            st.builds(lambda a, b: ["/", a, b], kids, kids),
            st.builds(lambda a: ["-", a], kids),
            st.builds(lambda a, n: ["^", a, n], kids, st.integers(-2, 3)),
        ),
        max_leaves=10,
    ),
    st.tuples(*[st.fractions(min_value=-5, max_value=5, max_denominator=6)] * 3),
)
def test_evaluation_agrees_with_sympy(e, point):
    env = dict(zip(NAMES, point))
    try:
        expected = to_sympy(e).subs(
            {sp.Symbol(k): sp.Rational(v.numerator, v.denominator) for k, v in env.items()}
        )
    except ZeroDivisionError:
        return
    if expected.has(sp.zoo, sp.nan, sp.oo) or not expected.is_Rational:
        return  # SymPy simplified a 0/0 or x/x differently: no verdict to compare
    try:
        got = evaluate(parse(e), env)
    except KernelError as exc:  # a division by zero that SymPy cancelled symbolically
        assert "division by zero" in str(exc)
        return
    assert Fraction(got) == Fraction(int(expected.p), int(expected.q))


def _linear(coeffs, const):
    return ["+", *[["*", c, v] for c, v in zip(coeffs, NAMES)], const]


_CONSTRAINT = st.builds(
    lambda op, cs, k: [op, _linear(cs, k), 0],
    st.sampled_from(["<", "<=", "=", ">=", ">"]),
    st.lists(st.integers(-3, 3), min_size=3, max_size=3).filter(any),
    st.integers(-4, 4),
)


def _z3_sat(constraints) -> bool:
    s, env = z3.Solver(), {}
    for c in constraints:
        s.add(to_z3(c, env))
    return s.check() == z3.sat


@SETTINGS
@given(st.lists(_CONSTRAINT, min_size=1, max_size=5))
def test_farkas_multipliers_exist_exactly_when_z3_says_unsat(constraints):
    y = farkas_multipliers([parse(c) for c in constraints])
    assert (y is None) == _z3_sat(constraints)
    outcome = linear_infeasible(constraints)
    assert outcome.verdict == ("refuted" if y is None else "proved")
    assert check(_cert(*outcome.obligations, verdict=outcome.verdict)).accepted


_FORMULA = st.recursive(
    _CONSTRAINT,
    lambda kids: st.one_of(
        st.builds(lambda a, b: ["and", a, b], kids, kids),
        st.builds(lambda a, b: ["or", a, b], kids, kids),
        st.builds(lambda a: ["not", a], kids),
        st.builds(lambda a, b: ["implies", a, b], kids, kids),
    ),
    max_leaves=5,
)


@SETTINGS
@given(_FORMULA)
def test_linear_validity_agrees_with_z3(f):
    valid = not _z3_sat([["not", f]])
    outcome = prove_linear(f)
    if valid and any(not _z3_sat([to_json(h)]) for h in hypotheses(parse(f))):
        assert outcome.verdict == "unknown" and "vacuous" in outcome.reason
        return
    assert outcome.verdict == ("proved" if valid else "refuted")
    assert check(_cert(*outcome.obligations, verdict=outcome.verdict)).accepted


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.lists(
            st.lists(st.fractions(-3, 3, max_denominator=3), min_size=n, max_size=n),
            min_size=n,
            max_size=n,
        )
    ),
    st.booleans(),
)
def test_matrix_det_and_charpoly_agree_with_sympy(rows, symbolic):
    m = sp.Matrix([[sp.Rational(v.numerator, v.denominator) for v in r] for r in rows])
    if (
        symbolic and m.rows <= 4
    ):  # a symbol on the diagonal exercises the Laplace path (SymPy is slow beyond)
        m[0, 0] = m[0, 0] + sp.Symbol("a")
    t = sp.Symbol("t")
    entries = [[to_expr(v) for v in m.row(i)] for i in range(m.rows)]
    ob = {
        "kind": "matrix",
        "matrix": entries,
        "det": to_expr(sp.expand(m.det())),
        "charpoly": {"var": "t", "poly": to_expr(m.charpoly(t).as_expr())},
    }
    assert check(_cert(ob)).accepted
    assert not check(_cert(dict(ob, det=to_expr(sp.expand(m.det()) + 1)))).accepted
    bad = dict(ob, charpoly={"var": "t", "poly": to_expr(m.charpoly(t).as_expr() + t)})
    assert not check(_cert(bad)).accepted
