"""The obligation kinds added for issue 15: what each accepts, what it refuses, and the
obligations that check nothing (constant, empty, vacuous), which every kind refuses."""

from __future__ import annotations

import pytest

from fito.proof.kernel import check
from tests.proof.proof_helpers import certificate


def accepted(*obs, **kw) -> bool:
    return check(certificate(*obs, **kw)).accepted


def reason(*obs, **kw) -> str:
    r = check(certificate(*obs, **kw))
    assert not r.accepted
    return r.reason


# ---------------------------------------------------------------- nothing to check
VACUOUS = {
    "identity with the same two sides": (
        {"kind": "identity", "lhs": ["+", "x", 1], "rhs": ["+", "x", 1]},
        "same expression",
    ),
    "identity without a symbol": ({"kind": "identity", "lhs": ["+", 1, 1], "rhs": 2}, "no symbol"),
    "enumeration of a constant": (
        {
            "kind": "enumeration",
            "domain": [["a", 0, 1], ["b", 0, 1]],
            "aggregate": "all",
            "expr": True,
            "value": True,
        },
        "a constant",
    ),
    "enumeration comparing an expression with itself": (
        {
            "kind": "enumeration",
            "domain": [["a", 0, 2]],
            "aggregate": "all",
            "expr": ["=", ["min", "a", 1], ["min", "a", 1]],
            "value": True,
        },
        "same expression",
    ),
    "enumeration over an empty box": (
        {"kind": "enumeration", "domain": [["a", 1, 0]], "aggregate": "count", "value": 0},
        "the domain is empty",
    ),
    "a filter no point satisfies": (
        {
            "kind": "enumeration",
            "domain": [["a", 0, 3]],
            "aggregate": "all",
            "expr": [">", "a", 0],
            "where": [">", "a", 5],
            "value": True,
        },
        "no point satisfies the filter",
    ),
    "a constant filter": (
        {
            "kind": "enumeration",
            "domain": [["a", 0, 3]],
            "aggregate": "count",
            "where": ["<", 1, 2],
            "value": 4,
        },
        "a constant",
    ),
    "a witness of a constant": (
        {"kind": "witness", "formula": True, "assignment": {}},
        "no symbol",
    ),
    "a recurrence stepping by prev": (
        {
            "kind": "recurrence",
            "var": "k",
            "start": 0,
            "initial": 1,
            "step": "prev",
            "closed": ["+", "n", 1],
        },
        "trivial",
    ),
    "Farkas on a constant constraint": (
        {"kind": "farkas", "constraints": [["<", 1, 0], [">", "x", 0]], "multipliers": [1, 0]},
        "has no variable",
    ),
    "a hypothesis that holds nowhere": (
        {
            "kind": "linear_valid",
            "formula": ["implies", ["and", [">", "x", 1], ["<", "x", 0]], [">", "x", 5]],
            "cases": [[1, 1, 0]],
            "witnesses": [{"x": 2}],
        },
        "false at its witness point",
    ),
    "a hypothesis without a witness": (
        {
            "kind": "linear_valid",
            "formula": ["implies", [">", "x", 1], [">", "x", 0]],
            "cases": [[1, 1]],
        },
        "give a witness point",
    ),
    "sum of squares with zero weights": (
        {"kind": "sum_of_squares", "target": ["-", "x", "x"], "terms": [[0, "x"]]},
        "every weight is zero",
    ),
    "a matrix equal to itself": (
        {"kind": "matrix", "matrix": [["x"]], "equals": [["x"]]},
        "same expression",
    ),
}


@pytest.mark.parametrize("what", sorted(VACUOUS))
def test_obligations_that_check_nothing_are_refused(what):
    ob, why = VACUOUS[what]
    assert why in reason(ob), what


def test_an_empty_selection_sums_to_zero_but_has_no_minimum():
    box = {"kind": "enumeration", "domain": [["a", 0, 3]], "where": [">", "a", 5]}
    assert accepted(dict(box, aggregate="sum", expr=["*", 2, "a"], value=0))
    assert accepted(dict(box, aggregate="set", expr="a", value=[]))
    assert "no point satisfies the filter" in reason(dict(box, aggregate="min", expr="a", value=0))


def test_a_witness_may_assign_names_its_formula_does_not_use():
    """A rule assigns every view; the formula of a requirement may use some of them only.
    The statement quantifies the formula's symbols alone."""
    ob = {"kind": "witness", "formula": [">", "x", 0], "assignment": {"x": 1, "y": 2}}
    assert check(certificate(ob)).statement == (["exists", [["x", "real"]], [">", "x", 0]],)


def test_a_count_of_zero_is_a_claim():
    """count = 0 says that no point satisfies the filter: legitimate (e.g. no rule works)."""
    assert accepted(
        {
            "kind": "enumeration",
            "domain": [["a", 0, 3]],
            "aggregate": "count",
            "where": [">", "a", 5],
            "value": 0,
        }
    )


def test_enumeration_values_are_the_papers_formula_evaluated_by_the_kernel():
    ob = {
        "kind": "enumeration",
        "domain": [["a", 0, 2], ["b", 0, 2]],
        "aggregate": "count",
        "value": ["^", ["+", 2, 1], 2],
    }
    assert accepted(ob)
    assert "certificate says 8" in reason(dict(ob, value=["-", ["^", 3, 2], 1]))
    assert "closed numeric expression" in reason(dict(ob, value=["+", "n", 1]))


# ---------------------------------------------------------------- functions, sums, exponentials
def test_function_applications_are_atoms_of_their_normalised_arguments():
    def lam(j):
        return [
            "/",
            ["*", ["-", "N", j], ["fn", "f", j]],
            ["*", j, ["fn", "f", ["-", "N", j]]],
        ]

    ob = {
        "kind": "identity",
        "lhs": ["*", lam("j"), lam(["-", "N", "j"])],
        "rhs": 1,
        "nonzero": ["j", ["-", "N", "j"], ["fn", "f", "j"], ["fn", "f", ["-", "N", "j"]]],
        "positive_functions": ["f"],
    }
    assert accepted(ob)
    wrong = dict(ob, lhs=["*", lam("j"), lam(["-", "N", ["+", "j", 1]])])
    assert not accepted(wrong)


def test_a_product_grows_by_its_last_factor_in_a_recurrence():
    rec = {
        "kind": "recurrence",
        "var": "k",
        "start": 0,
        "initial": 1,
        "step": ["*", "prev", ["-", 1, ["fn", "w", ["+", "k", 1]]]],
        "closed": ["prod", "d", 1, "k", ["-", 1, ["fn", "w", "d"]]],
    }
    assert accepted(rec)
    assert not accepted(dict(rec, step=["*", "prev", ["-", 1, ["fn", "w", "k"]]]))
    assert "range may be empty" in reason(dict(rec, closed=["prod", "d", 3, "k", ["fn", "w", "d"]]))


def test_exponentials_multiply_by_adding_their_arguments():
    ob = {
        "kind": "identity",
        "lhs": ["*", ["exp", ["*", -1, "a", "n"]], ["exp", ["*", -1, "a"]]],
        "rhs": ["^", ["exp", ["*", -1, "a"]], ["+", "n", 1]],
    }
    assert accepted(ob)
    assert not accepted(dict(ob, rhs=["^", ["exp", ["*", -1, "a"]], "n"]))


def test_negative_symbolic_exponents_need_a_nonzero_base():
    ob = {"kind": "identity", "lhs": ["*", ["^", "b", ["-", 1, "k"]], ["^", "b", "k"]], "rhs": "b"}
    assert "not declared nonzero" in reason(ob)
    assert accepted(dict(ob, nonzero=["b"]))


# ---------------------------------------------------------------- integrals
CDF = {
    "kind": "integral",
    "var": "x",
    "lo": 0,
    "hi": "tau",
    "integrand": ["*", "mu", ["exp", ["*", -1, "mu", "x"]]],
    "antiderivative": ["-", ["exp", ["*", -1, "mu", "x"]]],
    "value": ["-", 1, ["exp", ["*", -1, "mu", "tau"]]],
}


def test_integrals_by_the_fundamental_theorem():
    assert accepted(CDF)
    assert "F' != integrand" in reason(dict(CDF, antiderivative=["exp", ["*", -1, "mu", "x"]]))
    assert "F(hi) - F(lo) != value" in reason(
        dict(CDF, value=["-", 2, ["exp", ["*", -1, "mu", "tau"]]])
    )
    laplace = dict(CDF, hi="oo", value=1, positive=["mu"])
    assert accepted(laplace)
    assert "not shown to decay" in reason(dict(laplace, positive=[]))
    pole = {
        "kind": "integral",
        "var": "x",
        "lo": 1,
        "hi": 2,
        "integrand": ["/", -1, ["^", "x", 2]],
        "antiderivative": ["/", 1, "x"],
        "value": ["-", "1/2", 1],
        "nonzero": ["x"],
    }
    assert "could have a pole" in reason(pole)


# ---------------------------------------------------------------- Farkas with parameters
def test_parametric_farkas_needs_signs_for_every_parameter():
    ob = {
        "kind": "farkas",
        "constraints": [[">", ["-", "W", "x"], 0], [">", ["-", "x", ["+", "W", "V"]], 0]],
        "multipliers": [1, 1],
        "variables": ["x"],
        "parameters": {"V": "positive", "W": "positive"},
    }
    assert accepted(ob)
    assert accepted(dict(ob, parameters={"V": "nonneg", "W": "positive"}))  # -V <= 0 still
    loose = dict(ob, constraints=[[">", ["-", "W", "x"], 0], [">", ["-", "x", ["-", "W", "V"]], 0]])
    assert "no contradiction" in reason(loose)
    scaled = dict(
        ob,
        multipliers=["C", "C"],
        parameters={"V": "positive", "W": "positive", "C": ["interval", 1, 2, "[)"]},
    )
    assert accepted(scaled)
    signed = dict(scaled, multipliers=[["-", "C", 2], ["-", "C", 2]])
    assert "not shown >= 0" in reason(signed)
    assert "must be either a variable or a declared parameter" in reason(
        dict(ob, parameters={"W": "positive"})
    )


# ---------------------------------------------------------------- ranges, products, counts
LAM = ["/", ["/", "B", "m"], ["/", "B", ["-", "N", "m"]]]


def test_range_sign():
    ob = {
        "kind": "range_sign",
        "var": "m",
        "lo": 1,
        "hi": ["-", "N", 1],
        "integers": ["N"],
        "positive": ["B"],
        "expr": ["-", ["-", "N", 1], LAM],
        "sign": ">=",
        "factored": ["/", ["*", "N", ["-", "m", 1]], "m"],
    }
    assert accepted(ob)
    assert "only shown >= 0" in reason(dict(ob, sign=">"))
    assert "not shown >= 0 from the range" in reason(
        dict(ob, factored=["/", ["*", "N", ["-", "m", 2]], "m"])
    )


def test_product_one_by_reciprocal_pairs():
    ob = {
        "kind": "product_one",
        "var": "m",
        "lo": 1,
        "hi": ["-", "N", 1],
        "integers": ["N"],
        "positive_functions": ["f"],
        "factor": [
            "/",
            ["*", ["-", "N", "m"], ["fn", "f", "m"]],
            ["*", "m", ["fn", "f", ["-", "N", "m"]]],
        ],
    }
    assert accepted(ob)
    assert "!= 1" in reason(dict(ob, factor=["/", ["-", "N", "m"], ["+", "m", 1]]))
    assert "not declared positive" in reason(dict(ob, positive_functions=[]))
    assert "not shown positive" in reason(dict(ob, factor=["/", ["-", "N", "m"], ["-", "m", 1]]))


def test_interval_count_for_every_n():
    ob = {
        "kind": "interval_count",
        "var": "m",
        "lo": 1,
        "hi": ["-", "N", 1],
        "param": "N",
        "from": 2,
        "predicate": [">", LAM, 1],
        "linear": ["-", "N", ["*", 2, "m"]],
        "factor": ["/", 1, "m"],
        "positive": ["B"],
        "value": ["-", ["-", ["floor", ["-", ["/", "N", 2]]]], 1],
    }
    assert accepted(ob)
    assert "differ for N = 2 q + 0" in reason(dict(ob, value=["div", "N", 2]))
    assert "predicate difference != linear * factor" in reason(dict(ob, linear=["-", "N", "m"]))


# ---------------------------------------------------------------- reachable states, samples
SYSTEM = {
    "vars": [["a", 0, 2], ["b", 0, 1]],
    "init": [0, 0],
    "rules": [[["<", "a", 2], {"a": ["+", "a", 1]}], [["=", "a", 2], {"b": 1}]],
}


def test_reachability_is_walked_by_the_kernel():
    ob = {
        "kind": "reachability",
        "system": SYSTEM,
        "aggregate": "set",
        "expr": ["+", "a", ["*", 3, "b"]],
        "value": [0, 1, 2, 5],
    }
    assert accepted(ob)
    assert "recomputed set over the reachable states" in reason(dict(ob, value=[0, 1, 2, 3, 5]))
    wild = dict(SYSTEM, rules=[[["<", "a", 3], {"a": ["+", "a", 1]}]])
    assert "outside its range" in reason(dict(ob, system=wild))


def test_samples_recompute_the_intervals():
    ob = {
        "kind": "samples",
        "level": "99%",
        "samples": {"a": [10, 11, 12, 13, 14], "b": [20, 21, 22, 23, 24]},
        "facts": [
            ["mean_in", "a", 8, 16],
            ["mean_above", "b", "a"],
            ["all_above", "b", 19],
            ["ratio_in", "b", "a", 1, 3],
        ],
    }
    assert accepted(ob)
    # mean 12, s = 1.58, n = 5: t(4 df, 99%) = 4.605 gives 12 +- 3.26: not within [9, 15]
    assert "fact 1" in reason(dict(ob, facts=[["mean_in", "a", 9, 16]]))
    assert "fact 1" in reason(dict(ob, facts=[["mean_in", "a", 8, 15]]))
    # the ratio's interval [1.23, 2.89] is not within [3/2, 3]
    assert "fact 1" in reason(dict(ob, facts=[["ratio_in", "b", "a", "3/2", 3]]))
    assert "level must be" in reason(dict(ob, level="50%"))
