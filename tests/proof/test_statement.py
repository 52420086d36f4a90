"""The statement is bound (issue 15, point 1): what a certificate says it proves is exactly what
its obligations establish, computed by the kernel; every edit of the statement, the verdict,
the symbols or their domains is rejected even with the hash recomputed."""

from __future__ import annotations

import copy

import pytest

from fito.proof.kernel import certificate_hash, check
from fito.proof.kernel.props import render
from tests.proof.proof_helpers import certificate, run_cli

SQUARE = {
    "kind": "identity",
    "lhs": ["^", ["+", "x", "y"], 2],
    "rhs": ["+", ["^", "x", 2], ["*", 2, "x", "y"], ["^", "y", 2]],
}
GEOMETRIC = {
    "kind": "recurrence",
    "var": "k",
    "start": 0,
    "initial": 0,
    "step": ["+", "prev", ["^", "x", "k"]],
    "closed": ["/", ["-", 1, ["^", "x", "k"]], ["-", 1, "x"]],
    "nonzero": [["-", 1, "x"]],
}
COUNTEREXAMPLE = {
    "kind": "counterexample",
    "formula": ["=", ["^", ["+", "x", "y"], 2], ["+", ["^", "x", 2], ["^", "y", 2]]],
    "assignment": {"x": 1, "y": 1},
}


def edited(cert: dict, edit) -> dict:
    c = copy.deepcopy(cert)
    edit(c)
    c["sha256"] = certificate_hash(c)
    return c


def test_the_statement_is_what_the_obligations_establish():
    c = certificate(SQUARE, GEOMETRIC)
    r = check(c)
    assert r.accepted and list(r.statement) == c["statement"]
    square, geometric = c["statement"]
    assert square == ["forall", [["x", "real"], ["y", "real"]], ["=", SQUARE["lhs"], SQUARE["rhs"]]]
    assert geometric[0] == "forall" and ["k", "nat"] in geometric[1]
    assert "[s(k) where s(0) = 0 and s(k + 1) = (s(k) + (x ^ k))]" in render(geometric)


EDITS = {
    "a domain": lambda c: c["statement"][0][1][0].__setitem__(1, "nat"),
    "an extra symbol": lambda c: c["statement"][0][1].append(["z", "real"]),
    "a symbol dropped": lambda c: c["statement"][0][1].pop(),
    "a symbol renamed": lambda c: c["statement"][0][1][0].__setitem__(0, "u"),
    "the formula": lambda c: c["statement"][0][2].__setitem__(2, ["^", "x", 2]),
    "the quantifier": lambda c: c["statement"][0].__setitem__(0, "exists"),
    "a hypothesis added": lambda c: c["statement"][0].__setitem__(
        2, ["implies", ["!=", "x", 0], c["statement"][0][2]]
    ),
    "a second statement dropped": lambda c: c["statement"].pop(),
    "statements swapped": lambda c: c["statement"].reverse(),
    "a statement added": lambda c: c["statement"].append(True),
    "the recurrence's start": lambda c: c["statement"][1][2][2][1].__setitem__(2, 1),
    "the verdict": lambda c: c.__setitem__("verdict", "refuted"),
}


@pytest.mark.parametrize("what", sorted(EDITS))
def test_every_edit_of_the_statement_or_verdict_is_rejected(what):
    c = edited(certificate(SQUARE, GEOMETRIC), EDITS[what])
    r = check(c)
    assert not r.accepted, what
    assert r.reason.startswith(
        ("statement", "a refuted certificate", "obligation 1 (identity) cannot")
    ), r.reason


def test_a_refuted_certificate_states_the_claim_it_refutes():
    c = certificate(COUNTEREXAMPLE, verdict="refuted")
    assert check(c).accepted
    (claim,) = c["statement"]
    assert claim == ["forall", [["x", "real"], ["y", "real"]], COUNTEREXAMPLE["formula"]]
    flipped = edited(c, lambda d: d.__setitem__("verdict", "proved"))
    assert "(counterexample) in a proved certificate" in check(flipped).reason
    negated = edited(c, lambda d: d.__setitem__("statement", [["not", claim]]))
    assert check(negated).reason.startswith("statement 1 is not what obligation 1 establishes")


def test_refutations_are_evaluated_by_the_kernel():
    farkas = {
        "kind": "farkas",
        "constraints": [[">", "x", 0], ["<", "x", 0]],
        "multipliers": [1, 1],
    }
    assert (
        "needs a counterexample or witness" in check(certificate(farkas, verdict="refuted")).reason
    )
    trusted = {"kind": "trusted", "tool": "z3", "version": "4", "statement": "sat"}
    assert "(trusted) cannot refute" in check(certificate(trusted, verdict="refuted")).reason
    both = certificate(
        farkas,
        {"kind": "witness", "formula": [">", "x", 0], "assignment": {"x": 1}},
        verdict="refuted",
    )
    assert check(both).accepted  # each part refutes its own claim


def test_the_description_is_not_the_statement():
    """The description (the claim's words) is documentation: editing it changes nothing the
    kernel checks, and `fito recheck --show` prints the statement the kernel read instead."""
    c = edited(certificate(SQUARE), lambda d: d.__setitem__("description", "a false sentence"))
    assert check(c).accepted


def test_an_obligation_edit_that_changes_its_conclusion_is_rejected():
    c = edited(
        certificate(SQUARE), lambda d: d["obligations"][0].__setitem__("nonzero", ["x"])
    )  # a hypothesis the statement does not have
    assert check(c).reason.startswith("statement 1 is not what obligation 1 establishes")


def test_recheck_show_prints_the_statements(tmp_path, capsys):
    import json

    path = tmp_path / "c.json"
    path.write_text(json.dumps(certificate(SQUARE, GEOMETRIC)))
    code, out, _ = run_cli(capsys, "recheck", "--show", str(path))
    assert code == 0
    assert "proves 1: for all x real, y real: (((x + y) ^ 2) = " in out
    assert "proves 2: for all k nat, x real: if ((k >= 0) and ((1 - x) != 0)) then" in out
