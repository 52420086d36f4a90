"""A certificate is bound to its claim (issue 30, point 1): the registry of claim statements
shipped with the kernel (fito/proof/kernel/registry.py) makes the claim's identity and the
meaning of its verdict part of what the kernel checks.

Every edit below recomputes what a forger would recompute: the statement (what the edited
obligations establish, `statement_of`) and the hash. Each edit is first shown to pass every
check but the binding (the kernel without a registry accepts it), so the test bites.
"""

from __future__ import annotations

import copy
import json

import pytest

from fito.proof.kernel import KernelError, certificate_hash, check, statement_of
from fito.proof.kernel.registry import Registry, load, proposition_hash
from tests.proof.proof_helpers import load_all, run_cli

UNBOUND = Registry({}, frozenset())  # the kernel as it was: every check but the binding


def resealed(cert: dict, **changes) -> dict:
    """The certificate with fields changed, its statement recomputed from its obligations
    (as the kernel would seal it) and its hash recomputed."""
    out = copy.deepcopy(cert) | changes
    out["statement"] = statement_of(out["verdict"], out["obligations"])
    out["sha256"] = certificate_hash(out)
    return out


def flippable_kinds(cert: dict) -> bool:
    """Made only of witnesses and Farkas refutations, one witness at least: the kernel
    without a registry would accept it flipped to refuted, its statement recomputed."""
    kinds = {ob["kind"] for ob in cert["obligations"]}
    return kinds <= {"witness", "farkas"} and "witness" in kinds


def only_binding_rejects(cert: dict) -> str:
    """The kernel's reason for rejecting cert, which every other check accepts."""
    assert check(cert, claims=UNBOUND).accepted, check(cert, claims=UNBOUND).reason
    result = check(cert)
    assert not result.accepted
    return result.reason


@pytest.fixture(scope="module")
def kit(kit_certificates) -> dict[str, dict]:
    return {c["id"]: c for c in load_all(kit_certificates).values()}


def test_every_kit_certificate_is_bound_and_says_its_verdict(kit):
    for cid, cert in kit.items():
        r = check(cert)
        assert r.accepted and r.bound and r.verdict == "proved", (cid, r.reason)


def test_moved_to_another_claim(kit):
    a, b = kit["kit.square-of-sum"], kit["kit.geometric-sum"]
    # a's obligations under b's name and words
    moved = resealed(a, **{k: b[k] for k in ("id", "title", "description", "model", "method")})
    assert "is not proposition 1 of claim 'kit.geometric-sum'" in only_binding_rejects(moved)
    # only the id changed: the words give it away
    renamed = resealed(a, id="kit.geometric-sum")
    assert "not the registered title" in only_binding_rejects(renamed)


def test_cut_down(kit):
    for cid, cert in kit.items():
        if len(cert["obligations"]) < 2:
            continue
        for i in range(len(cert["obligations"])):
            obs = cert["obligations"][:i] + cert["obligations"][i + 1 :]
            cut = resealed(cert, obligations=obs)
            assert "(a cut-down or another claim)" in only_binding_rejects(cut), (cid, i)


def test_flipped_proved_to_refuted(kit):
    flippable = [c for c in kit.values() if flippable_kinds(c)]
    assert flippable  # the kit's witness certificate
    for cert in flippable:
        flipped = resealed(cert, verdict="refuted")
        assert "refutes something else" in only_binding_rejects(flipped), cert["id"]


def test_refuted_with_a_bogus_counterexample(kit):
    bogus = {"kind": "counterexample", "formula": ["=", "x", 1], "assignment": {"x": 0}}
    cert = resealed(kit["kit.square-of-sum"], verdict="refuted", obligations=[bogus])
    assert "refutes something else" in only_binding_rejects(cert)
    # and back: a refutation flipped to proved is not the registered statement either
    ok = {"kind": "witness", "formula": ["=", "x", 1], "assignment": {"x": 1}}
    cert = resealed(kit["kit.square-of-sum"], obligations=[ok])
    assert "is not proposition 1" in only_binding_rejects(cert)


def test_trusted_tool_is_from_a_closed_list(kit):
    cert = kit["kit.compound-interest-limit"]
    assert check(cert).accepted
    for tool in ("kernel", "SymPy", "sympy ", "z3; trust me"):
        obs = copy.deepcopy(cert["obligations"])
        obs[0]["tool"] = tool
        forged = copy.deepcopy(cert) | {"obligations": obs}
        with pytest.raises(KernelError, match="is not one of sympy, z3"):
            statement_of("proved", obs)
        forged["sha256"] = certificate_hash(forged)
        r = check(forged)
        assert not r.accepted and "is not one of sympy, z3" in r.reason


def test_trusted_version_is_not_bound_but_the_tool_and_text_are():
    a = ["trusted", "sympy", "1.14.0", "limit"]
    assert proposition_hash(a) == proposition_hash(["trusted", "sympy", "1.13", "limit"])
    assert proposition_hash(a) != proposition_hash(["trusted", "z3", "1.14.0", "limit"])
    assert proposition_hash(a) != proposition_hash(["trusted", "sympy", "1.14.0", "limits"])


def test_reserved_namespace_and_unregistered_claims(kit, capsys, tmp_path):
    cert = kit["kit.square-of-sum"]
    squatter = resealed(cert, id="kit.square-of-sum-2")
    assert "reserved by the claim registry" in only_binding_rejects(squatter)
    own = resealed(cert, id="mine.square-of-sum")  # a user's own claim: what it says
    r = check(own)
    assert r.accepted and not r.bound and r.verdict == "proved"
    strict = check(own, strict=True)
    assert not strict.accepted and "is not registered (--strict)" in strict.reason
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(own))
    code, out, _ = run_cli(capsys, "recheck", str(path))
    assert code == 0 and "accepted (mine.square-of-sum: proved, 1 obligations; unregistered" in out


def test_recheck_prints_each_verdict(kit_certificates, capsys):
    code, out, _ = run_cli(capsys, "recheck", str(kit_certificates))
    n = len(list(kit_certificates.glob("*.json")))
    assert code == 0 and out.count(": proved, ") == n
    assert f"{n} accepted ({n} proved, 0 refuted)" in out


def test_a_proved_outcome_not_as_registered_is_unknown(tmp_path):
    """`fito prove`: a claim whose statement is not the registered one is not proved."""
    from fito.proof import runner

    src = tmp_path / "square.py"
    src.write_text(
        "import sympy as sp\n"
        "from fito.proof import claim, prove_identity\n"
        "x, y = sp.symbols('x y')\n"
        "@claim(id='kit.square-of-sum', title='square of a sum', model='polynomials over Q',"
        " method='sympy')\n"
        "def square_of_sum():\n"
        "    '''(x + y)^2 = x^2 + 2 x y + y^2 for all rational x, y.'''\n"
        "    return prove_identity((x - y) ** 2, sp.expand((x - y) ** 2))\n"
    )
    (r,) = runner.run_claims(runner.collect([str(src)]), jobs=1)
    assert r.verdict == "unknown" and "not the registered claim" in r.reason, r.reason


def test_the_registry_names_exactly_the_claims_of_proofs():
    from fito.proof import runner
    from tests.proof.proof_helpers import ROOT

    ids = {c.id for c in runner.collect([str(ROOT / "proofs")])}
    assert ids == set(load().claims)


@pytest.mark.slow
def test_every_proofs_certificate_is_bound(proofs_certificates):
    """On every certificate of proofs/: bound; flipping one made only of witnesses or Farkas
    refutations, or dropping any obligation, or moving it to the next claim is rejected."""
    certs = {c["id"]: c for c in load_all(proofs_certificates).values()}
    registry = load()
    assert set(certs) == set(registry.claims)
    ids = sorted(certs)
    flipped = 0
    for n, cid in enumerate(ids):
        cert = certs[cid]
        entry = registry.claims[cid]
        assert [proposition_hash(p) for p in cert["statement"]] == list(entry.propositions)
        if flippable_kinds(cert):
            flip = resealed(cert, verdict="refuted")
            assert check(flip, claims=UNBOUND).accepted, cid
            r = check(flip)
            assert not r.accepted and "refutes something else" in r.reason, cid
            flipped += 1
        # cut: the last obligation dropped, the statement cut with it (what it establishes)
        if len(cert["obligations"]) > 1:
            cut = copy.deepcopy(cert)
            cut["obligations"], cut["statement"] = cut["obligations"][:-1], cut["statement"][:-1]
            cut["sha256"] = certificate_hash(cut)
            assert "(a cut-down or another claim)" in check(cut).reason, cid
        # moved: this certificate's content under the next claim's name and words
        other = certs[ids[(n + 1) % len(ids)]]
        moved = copy.deepcopy(cert) | {
            k: other[k] for k in ("id", "title", "description", "model", "method")
        }
        moved["sha256"] = certificate_hash(moved)
        assert not check(moved).accepted, cid
    assert flipped >= 11  # the issue counted 11 certificates open to this edit
