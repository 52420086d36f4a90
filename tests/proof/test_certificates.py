"""Every certificate `fito prove proofs/` writes (issue 15, points 2 and 5): accepted, no
obligation that checks nothing (judged here with no kernel code), and trust only where the
kernel cannot follow (SymPy's calculus), each tagged.

Uses FITO_PROOF_CERTIFICATES when CI filled it with `fito prove proofs/`, else proves
everything (slow)."""

from __future__ import annotations

import re

import pytest

from fito.proof.kernel import check
from tests.proof.proof_helpers import load_all

_NUM = re.compile(r"-?\d+(/\d+)?\Z")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def free(e, bound=frozenset()) -> set[str]:
    """Symbols of a JSON expression (function names and bound variables excluded)."""
    if isinstance(e, str):
        return {e} if _IDENT.match(e) and e not in bound and e not in ("true", "false") else set()
    if not isinstance(e, list) or not e:
        return set()
    if e[0] == "fn":
        return set().union(*(free(a, bound) for a in e[2:]))
    if e[0] in ("sum", "prod"):
        return free(e[2], bound) | free(e[3], bound) | free(e[4], bound | {e[1]})
    return set().union(*(free(a, bound) for a in e[1:]))


def hypotheses(f) -> list:
    if isinstance(f, list) and f and f[0] == "implies":
        return [f[1]]
    if isinstance(f, list) and f and f[0] == "and":
        return [h for part in f[1:] for h in hypotheses(part)]
    return []


def checks_nothing(ob: dict) -> str | None:
    """Why an obligation would re-check nothing, or None."""
    kind = ob["kind"]
    if kind == "identity":
        if ob["lhs"] == ob["rhs"]:
            return "identity with the same two sides"
        if not free(ob["lhs"]) | free(ob["rhs"]) and "fn" not in str(ob):
            return "identity without a symbol"
    if kind == "recurrence" and ob["step"] == ob.get("prev", "prev"):
        return "recurrence stepping by prev"
    if kind in ("enumeration", "reachability"):
        bound = (
            {d[0] for d in ob["domain"]}
            if kind == "enumeration"
            else {v[0] for v in ob["system"]["vars"]}
        )
        for part in ("expr", "where"):
            if part in ob and not free(ob[part]) & bound:
                return f"{part} mentions no enumerated variable"
        if kind == "enumeration" and any(
            isinstance(lo, int) and isinstance(hi, int) and hi < lo for _, lo, hi in ob["domain"]
        ):
            return "an empty box"
    if kind in ("witness", "counterexample"):
        if not free(ob["formula"]) or not free(ob["formula"]) <= set(ob["assignment"]):
            return "a point that is not the formula's"
    if kind == "farkas" and any(not free(c) for c in ob["constraints"]):
        return "a constraint without a variable"
    if kind == "linear_valid" and (
        not free(ob["formula"]) or len(ob.get("witnesses", [])) != len(hypotheses(ob["formula"]))
    ):
        return "a linear formula without symbols or with unwitnessed hypotheses"
    if kind == "sum_of_squares" and not free(ob["target"]):
        return "a constant target"
    if kind == "matrix" and ob.get("equals") == ob["matrix"]:
        return "a matrix equal to itself"
    return None


@pytest.fixture(scope="module")
def every_certificate(proofs_certificates) -> dict[str, dict]:
    certs = load_all(proofs_certificates)
    assert certs, "fito prove proofs/ produced no certificate"
    return certs


@pytest.mark.slow
def test_no_certificate_has_an_obligation_that_checks_nothing(every_certificate):
    found = {
        (name, i): why
        for name, cert in every_certificate.items()
        for i, ob in enumerate(cert["obligations"], 1)
        if (why := checks_nothing(ob))
    }
    assert found == {}
    for name, cert in every_certificate.items():  # `fito recheck` in CI checks each in full
        assert len(cert["statement"]) == len(cert["obligations"]), name


@pytest.mark.slow
def test_trust_is_only_sympys_calculus_and_always_tagged(every_certificate):
    trusted = {
        name: {ob["tool"] for ob in cert["obligations"] if ob["kind"] == "trusted"}
        for name, cert in every_certificate.items()
    }
    trusted = {name: tools for name, tools in trusted.items() if tools}
    assert set().union(*trusted.values()) <= {"sympy"}, trusted
    for name in trusted:
        result = check(every_certificate[name], strict=True)
        assert not result.accepted and "(--strict)" in result.reason
    # the fleet, the lattice, claim 1, the optimizer and the numerics rely on no solver
    assert not [
        n for n in trusted if n.split(".")[0] in ("fleet", "lattice", "claim1", "optimizer")
    ]
