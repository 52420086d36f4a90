"""The kernel, kind by kind: what it accepts, what it rejects, and how it names the failure."""

from __future__ import annotations

import json

import pytest

from fito.proof.kernel import Unreadable, certificate_hash, check, load
from tests.proof.proof_helpers import certificate as cert

WITNESS = {"kind": "witness", "formula": [">", "x", 0], "assignment": {"x": 1}}


def accepted(*obs: dict, **kw) -> bool:
    r = check(cert(*obs, **kw))
    return r.accepted


def reason(*obs: dict, **kw) -> str:
    r = check(cert(*obs, **kw))
    assert not r.accepted
    return r.reason


# ---------------------------------------------------------------- identities
def test_polynomial_identity():
    sq = {
        "kind": "identity",
        "lhs": ["^", ["+", "x", "y"], 2],
        "rhs": ["+", ["^", "x", 2], ["*", 2, "x", "y"], ["^", "y", 2]],
    }
    assert accepted(sq)
    wrong = dict(sq, rhs=["+", ["^", "x", 2], ["*", 3, "x", "y"], ["^", "y", 2]])
    assert (
        reason(wrong) == "obligation 1 (identity): lhs != rhs: coefficient of x*y is 2 on the left,"
        " 3 on the right"
    )


def test_rational_identity_needs_declared_divisors():
    ob = {
        "kind": "identity",
        "lhs": ["/", 1, ["*", "k", ["+", "k", 1]]],
        "rhs": ["-", ["/", 1, "k"], ["/", 1, ["+", "k", 1]]],
        "nonzero": ["k", ["+", 1, "k"]],
    }
    assert accepted(ob)
    assert "divisor k is not declared nonzero" in reason(dict(ob, nonzero=[["+", "k", 1]]))
    assert "divisor (k + 1) is not declared nonzero" in reason(dict(ob, nonzero=["k"]))
    # a declared product covers its factors; a scaled declaration covers the divisor
    assert accepted(dict(ob, nonzero=[["*", "k", ["+", "k", 1]]]))
    assert accepted(dict(ob, nonzero=["k", ["+", ["*", 2, "k"], 2]]))
    assert "identically zero" in reason(dict(ob, nonzero=["k", ["+", 1, "k"], ["-", "k", "k"]]))
    assert "division by zero" in reason(
        {"kind": "identity", "lhs": ["/", "x", ["-", 1, 1]], "rhs": "x"}
    )


def test_symbolic_exponents_are_atoms():
    geo = {
        "kind": "identity",
        "lhs": ["^", "x", ["+", "k", 2]],
        "rhs": ["*", "x", "x", ["^", "x", "k"]],
    }
    assert accepted(geo)
    assert not accepted(dict(geo, lhs=["^", "x", ["+", "k", 3]]))
    neg = {"kind": "identity", "lhs": ["^", "x", ["-", "k", 1]], "rhs": ["/", ["^", "x", "k"], "x"]}
    assert "not declared nonzero" in reason(neg)
    assert accepted(dict(neg, nonzero=["x"]))
    assert "not of the form" in reason(
        {"kind": "identity", "lhs": ["^", "x", ["*", "k", "k"]], "rhs": 1}
    )
    assert "not an integer" in reason({"kind": "identity", "lhs": ["^", "x", "1/2"], "rhs": 1})


def test_recurrence_induction():
    rec = {
        "kind": "recurrence",
        "var": "k",
        "start": 0,
        "prev": "s",
        "initial": 0,
        "step": ["+", "s", ["^", "x", "k"]],
        "closed": ["/", ["-", 1, ["^", "x", "k"]], ["-", 1, "x"]],
        "nonzero": [["-", 1, "x"]],
    }
    assert accepted(rec)
    assert "step case" in reason(dict(rec, step=["+", "s", ["^", "x", ["+", "k", 1]]]))
    assert "base case k = 0" in reason(dict(rec, initial=1))
    # sum_{j<k} j = k (k - 1) / 2: no divisor; start 1 changes the base case only
    tri = {
        "kind": "recurrence",
        "var": "k",
        "start": 1,
        "initial": 0,
        "step": ["+", "prev", "k"],
        "closed": ["/", ["*", "k", ["-", "k", 1]], 2],
    }
    assert accepted(tri)
    assert "start must be a natural number" in reason(dict(tri, start=-1))


def test_recurrence_conditions_on_k_are_checked():
    # prod_{j=1..k} j/(j+1) = 1/(k+1): the divisor k+1 is nonzero for every k >= 0
    rec = {
        "kind": "recurrence",
        "var": "k",
        "start": 0,
        "initial": 1,
        "step": ["*", "prev", ["/", ["+", "k", 1], ["+", "k", 2]]],
        "closed": ["/", 1, ["+", "k", 1]],
        "nonzero": [["+", "k", 1], ["+", "k", 2]],
    }
    assert accepted(rec)
    bad = dict(rec, nonzero=[["+", "k", 1], ["+", "k", 2], ["-", "k", 3]])
    assert "nonzero condition 3 ((k - 3)) is not shown nonzero for all k >= 0" in reason(bad)


def test_sum_of_squares():
    ob = {
        "kind": "sum_of_squares",
        "target": ["+", ["^", "x", 2], ["*", -2, "x", "y"], ["*", 2, ["^", "y", 2]]],
        "terms": [[1, ["-", "x", "y"]], [1, "y"]],
    }
    assert accepted(ob)
    assert "target != sum of squares" in reason(dict(ob, terms=[[1, ["-", "x", "y"]], [2, "y"]]))
    assert "weight 2: numerator has a negative coefficient" in reason(
        dict(
            ob,
            target=["-", ["^", ["-", "x", "y"], 2], ["^", "y", 2]],
            terms=[[1, ["-", "x", "y"]], [-1, "y"]],
        )
    )
    weighted = {
        "kind": "sum_of_squares",
        "target": ["*", "a", ["^", "x", 2]],
        "terms": [["a", "x"]],
    }
    assert "uses a, not declared positive" in reason(weighted)
    assert accepted(dict(weighted, positive=["a"]))


# ---------------------------------------------------------------- linear arithmetic
FARKAS = {
    "kind": "farkas",
    "constraints": [["<=", ["+", "x", "y"], 1], [">=", "x", 1], [">", "y", 0]],
    "multipliers": [1, 1, 1],
}


def test_farkas():
    assert accepted(FARKAS)
    assert accepted(dict(FARKAS, multipliers=["5/2", "5/2", "5/2"]))  # any positive scaling
    assert (
        reason(dict(FARKAS, multipliers=[1, 2, 1]))
        == "obligation 1 (farkas): the combination leaves coefficient 1 on x"
    )
    assert "multiplier 3 is negative" in reason(dict(FARKAS, multipliers=[1, 1, -1]))
    nonstrict = dict(FARKAS, constraints=FARKAS["constraints"][:2] + [[">=", "y", 0]])
    assert "reads 0 <= 0 (no strict inequality used): no contradiction" in reason(nonstrict)
    assert "not linear" in reason(
        dict(FARKAS, constraints=[["<=", ["*", "x", "y"], 1]] + FARKAS["constraints"][1:])
    )
    eq = {"kind": "farkas", "constraints": [["=", "x", 1], ["=", "x", 2]], "multipliers": [-1, 1]}
    assert accepted(eq)  # equalities take multipliers of any sign: (x - 2) - (x - 1) = -1 < 0
    assert "reads 0 <= 1" in reason(dict(eq, multipliers=[1, -1]))
    assert "as long as" in reason(dict(eq, multipliers=[1]))


def test_linear_valid_cases():
    ob = {
        "kind": "linear_valid",
        "formula": ["implies", ["and", ["<=", "a", "b"], ["<", "b", "c"]], ["<", "a", "c"]],
        "cases": [[1, 1, 1]],
        "witnesses": [{"a": 0, "b": 1, "c": 2}],
    }
    assert accepted(ob)
    assert "case 1: the combination" in reason(dict(ob, cases=[[1, 2, 1]]))
    assert "1 case(s), the certificate gives 2" in reason(dict(ob, cases=[[1, 1, 1], [1, 1, 1]]))
    # = in the conclusion: its negation a != 0 splits into the cases a < 0 and a > 0
    ne = {
        "kind": "linear_valid",
        "formula": ["implies", [">", "a", 0], ["not", ["=", "a", 0]]],
        "cases": [[1, -1]],
        "witnesses": [{"a": 1}],
    }
    assert accepted(ne)
    eq = {
        "kind": "linear_valid",
        "formula": ["implies", ["and", ["<=", "a", 0], [">=", "a", 0]], ["=", "a", 0]],
        "cases": [[0, 1, 1], [1, 0, 1]],
        "witnesses": [{"a": 0}],
    }
    assert accepted(eq)
    assert "case 1 of the negation is true" in reason(
        {"kind": "linear_valid", "formula": ["and", False, [">", "x", 0]], "cases": [[], [1]]}
    )
    assert "no symbol" in reason({"kind": "linear_valid", "formula": False, "cases": [[]]})


# ---------------------------------------------------------------- evaluation
def test_witness_and_counterexample():
    w = {
        "kind": "witness",
        "formula": ["and", ["<=", ["+", "x", "y"], 1], [">", "y", 0]],
        "assignment": {"x": "1/3", "y": "1/2"},
    }
    assert accepted(w)
    assert "formula is false under the assignment x=1/3, y=1" in reason(
        dict(w, assignment={"x": "1/3", "y": 1})
    )
    assert "symbol y has no value" in reason(dict(w, assignment={"x": 0}))
    c = {
        "kind": "counterexample",
        "formula": ["=", ["^", ["+", "x", "y"], 2], ["+", ["^", "x", 2], ["^", "y", 2]]],
        "assignment": {"x": 1, "y": 1},
    }
    assert accepted(c, verdict="refuted")
    assert "not a counterexample" in reason(dict(c, assignment={"x": 0, "y": 1}), verdict="refuted")
    assert "(counterexample) in a proved certificate" in reason(c)
    assert "floating-point" in reason(dict(w, assignment={"x": 0.5, "y": 0.25}))


def test_evaluation_operators():
    f = [
        "and",
        ["=", ["min", 3, "x", 7], 3],
        ["=", ["max", 3, "x"], 5],
        ["=", ["abs", -5], 5],
        ["=", ["floor", "7/2"], 3],
        ["=", ["mod", -7, 3], 2],
        ["=", ["div", -7, 3], -3],
        ["implies", False, ["<", 1, 0]],
        ["not", ["or", False, ["!=", 1, 1]]],
        ["=", ["ite", [">", "x", 4], "x", 0], 5],
        ["=", ["^", "1/2", -2], 4],
    ]
    assert accepted({"kind": "witness", "formula": f, "assignment": {"x": 5}})
    assert "division by zero" in reason(
        {"kind": "witness", "formula": ["=", ["/", 1, "x"], 1], "assignment": {"x": 0}}
    )
    assert "expects truth values" in reason(
        {"kind": "witness", "formula": ["and", 1, [">", "x", 0]], "assignment": {"x": 1}}
    )


def test_enumeration():
    pairs = {
        "kind": "enumeration",
        "domain": [["a", 0, 6], ["b", 0, 6]],
        "aggregate": "count",
        "where": ["<", "a", "b"],
        "value": 21,
    }
    assert accepted(pairs)
    assert "recomputed count is 21, the certificate says 22" in reason(dict(pairs, value=22))
    tri = {
        "kind": "enumeration",
        "domain": [["a", 0, 4], ["b", "a", 4]],
        "aggregate": "sum",
        "expr": "b",
        "value": 0,
    }
    total = sum(b for a in range(5) for b in range(a, 5))
    assert accepted(dict(tri, value=total))
    assert accepted(
        {
            "kind": "enumeration",
            "domain": [["a", -2, 2]],
            "aggregate": "set",
            "expr": ["*", "a", "a"],
            "value": [4, 0, 1],
        }
    )
    assert accepted(
        {
            "kind": "enumeration",
            "domain": [["a", 1, 5]],
            "aggregate": "all",
            "expr": [">", "a", 0],
            "value": True,
        }
    )
    assert "the domain is empty" in reason(
        {
            "kind": "enumeration",
            "domain": [["a", 1, 0]],
            "aggregate": "max",
            "expr": "a",
            "value": 0,
        }
    )
    assert "not bound by the domain" in reason(dict(pairs, where=["<", "a", "c"]))
    assert "binds a twice" in reason(dict(pairs, domain=[["a", 0, 1], ["a", 0, 1]]))
    assert "more than" in reason(dict(pairs, domain=[["a", 0, 10**6], ["b", 0, 10**6]]))


# ---------------------------------------------------------------- matrices
def test_matrix_facts():
    m = [[2, 1, 0], [0, "1/2", 3], [0, 0, 1]]
    ob = {
        "kind": "matrix",
        "matrix": m,
        "det": 1,
        "eigenvalues": [2, "1/2", 1],
        "count": {"bind": "x", "where": [">", "x", 1], "value": 1},
        "charpoly": {"var": "t", "poly": ["*", ["-", "t", 2], ["-", "t", "1/2"], ["-", "t", 1]]},
    }
    assert accepted(ob)
    assert (
        "det differs from the recomputed value: coefficient of 1 is 2 in the certificate,"
        " 1 recomputed" in reason(dict(ob, det=2))
    )
    assert "characteristic polynomial vs prod" in reason(dict(ob, eigenvalues=[2, "1/2", 2]))
    assert "count of eigenvalues is 1, the certificate says 2" in reason(
        dict(ob, count={"bind": "x", "where": [">", "x", 1], "value": 2})
    )
    # a non-triangular matrix with rational eigenvalues: [[2, 1], [1, 2]] has 1 and 3
    assert accepted({"kind": "matrix", "matrix": [[2, 1], [1, 2]], "eigenvalues": [3, 1], "det": 3})
    # a symbolic diagonal matrix, as a product of two symbolic factors
    diag = {
        "kind": "matrix",
        "matrix": [["a", 0], [0, ["/", 1, "a"]]],
        "det": 1,
        "nonzero": ["a"],
        "equals": [["a", 0], [0, ["/", 2, ["*", 2, "a"]]]],
        "product": [[[1, 0], [0, ["/", 1, "a"]]], [["a", 0], [0, 1]]],
    }
    assert accepted(diag)
    assert "matrix != product at entry (2,2)" in reason(
        dict(diag, product=[[[1, 0], [0, "a"]], [["a", 0], [0, 1]]])
    )
    assert "needs a square matrix" in reason({"kind": "matrix", "matrix": [[1, 2]], "det": 1})
    assert "states no fact" in reason({"kind": "matrix", "matrix": [[1]]})


# ---------------------------------------------------------------- certificates
def test_trusted_and_strict():
    t = {"kind": "trusted", "tool": "sympy", "version": "1.14.0", "statement": "a limit"}
    r = check(cert(t))
    assert r.accepted and r.trusted == ("trusted: sympy 1.14.0",)
    r = check(cert(t), strict=True)
    assert (
        r.reason == "obligation 1 (trusted): trusted: sympy 1.14.0 is not re-checked by the kernel"
        " (--strict)"
    )


def test_certificate_shape():
    w = WITNESS
    c = cert(w)
    c["title"] = "other"
    assert check(c).reason.startswith("sha256 mismatch: recorded ")
    c = cert(w)
    c["extra"] = 1
    c["sha256"] = certificate_hash(c)
    assert check(c).reason == "unknown field 'extra'"
    assert "unknown kind" in reason({"kind": "magic"})
    assert "unknown field 'lhs2'" in reason(dict(WITNESS, lhs2=1))
    assert "at least one obligation" in reason()
    identity = {"kind": "identity", "lhs": ["+", "x", "x"], "rhs": ["*", 2, "x"]}
    assert "(identity) cannot refute a claim" in reason(identity, verdict="refuted")
    assert "verdict 'unknown'" in reason(w, verdict="unknown")


def test_load_refuses_unreadable(tmp_path):
    cases = {
        "a.json": b"{",
        "b.json": b"[1]",
        "c.json": b'{"format": "other/1"}',
        "d.json": b"\xff\xfe",
        "e.json": b'{"format": "fito-certificate/1", "format": "x"}',
        "f.json": b'{"x": NaN}',
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(Unreadable):
            load(str(tmp_path / name))
    good = cert(WITNESS)
    (tmp_path / "g.json").write_text(json.dumps(good))
    assert check(load(str(tmp_path / "g.json"))).accepted


def test_malformed_content_is_rejected_not_raised():
    for ob in (
        {"kind": "identity", "lhs": {"a": 1}, "rhs": 1},
        {"kind": "witness", "formula": [">", "x", 0], "assignment": [1]},
        {"kind": "enumeration", "domain": "x", "aggregate": "count", "value": 1},
        {"kind": "matrix", "matrix": [[1, 2], [3]], "det": 1},
        {"kind": "farkas", "constraints": 3, "multipliers": []},
        ["not", "an", "object"],
        {"kind": "identity", "lhs": ["+"], "rhs": 0},
    ):
        r = check(cert(ob))
        assert not r.accepted and r.reason.startswith("obligation 1")
    deep = "x"
    for _ in range(3000):
        deep = ["+", deep, 1]
    c = cert({"kind": "identity", "lhs": "x", "rhs": ["+", "x", 0]})
    c["obligations"][0]["lhs"] = deep  # too deep even to hash: rejected, not raised
    assert not check(c).accepted


def test_vacuous_assumptions_are_refused():
    # (x y)^k - x^k y^k is zero for every natural k, though its normal form (in atoms) is not
    sneaky = ["-", ["^", ["*", "x", "y"], "k"], ["*", ["^", "x", "k"], ["^", "y", "k"]]]
    ob = {
        "kind": "identity",
        "lhs": ["/", 1, sneaky],
        "rhs": ["/", 2, ["*", 2, sneaky]],
        "nonzero": [sneaky],
    }
    assert "may be unsatisfiable" in reason(ob)
    # a condition on k alone disguised with a zero multiple of a parameter is still checked
    rec = {
        "kind": "recurrence",
        "var": "k",
        "start": 0,
        "initial": 0,
        "step": ["+", "prev", 1],
        "closed": "k",
        "nonzero": [["+", ["-", "k", 3], ["*", 0, "mu"]]],
    }
    assert "is not shown nonzero for all k >= 0" in reason(rec)


def test_symbolic_powers_of_different_bases_stay_apart_in_farkas():
    # two bases that agree on their first terms: (1 + x + x^2 + x^3 + x^4)^k and (... + 2 x^4)^k
    b1 = ["+", 1, "x", ["^", "x", 2], ["^", "x", 3], ["^", "x", 4]]
    b2 = ["+", 1, "x", ["^", "x", 2], ["^", "x", 3], ["*", 2, ["^", "x", 4]]]
    ob = {
        "kind": "farkas",
        "constraints": [[">=", ["^", b1, "k"], 1], ["<=", ["^", b2, "k"], 0]],
        "multipliers": [1, 1],
    }
    assert "the combination leaves coefficient" in reason(ob)
    same = dict(ob, constraints=[[">=", ["^", b1, "k"], 1], ["<=", ["^", b1, "k"], 0]])
    assert accepted(same)
