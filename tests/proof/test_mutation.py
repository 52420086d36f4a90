"""Mutation tests (issue 5, point 3): every single-leaf change of a certificate is caught.

Without re-hashing, every mutant must be rejected for its hash. With the hash recomputed, a
mutant may be accepted only if an independent judge (tests/proof/oracle.py: SymPy, Z3,
Python source; no kernel code) says that what it asserts is still true, and every rejection
of a mutated obligation must name that obligation.
"""

from __future__ import annotations

import copy
import os
import random

import pytest

from fito.proof.kernel import KernelError, certificate_hash, check, statement_of
from fito.proof.kernel.registry import Registry
from fito.proof.mutation import mutant, sites
from tests.proof.oracle import holds
from tests.proof.proof_helpers import load_all

UNBOUND = Registry({}, frozenset())
SAMPLE = int(os.environ.get("FITO_MUTATION_SAMPLE", "20"))  # 0: every mutant


def _sample(items: list, k: int | None, seed: str) -> list:
    return items if k is None or len(items) <= k else random.Random(seed).sample(items, k)


# One small valid obligation per kind: stand-ins for the unmutated obligations, so that a
# mutant of one obligation is judged alone (fast) with the verdict rule still seeing every kind.
STAND_IN = {
    "identity": {"lhs": ["+", "x", "x"], "rhs": ["*", 2, "x"]},
    "recurrence": {"var": "k", "start": 0, "initial": 0, "step": ["+", "prev", 1], "closed": "k"},
    "sum_of_squares": {"target": ["^", "x", 2], "terms": [[1, "x"]]},
    "farkas": {"constraints": [[">", "x", 0], ["<", "x", 0]], "multipliers": [1, 1]},
    "linear_valid": {"formula": ["<=", "x", ["+", "x", 1]], "cases": [[1]]},
    "witness": {"formula": [">", "x", 0], "assignment": {"x": 1}},
    "counterexample": {"formula": [">", "x", 0], "assignment": {"x": 0}},
    "enumeration": {"domain": [["i", 0, 1]], "aggregate": "count", "value": 2},
    "reachability": {
        "system": {"vars": [["s", 0, 1]], "init": [0], "rules": [[["=", "s", 0], {"s": 1}]]},
        "aggregate": "set",
        "expr": "s",
        "value": [0, 1],
    },
    "matrix": {"matrix": [["x"]], "det": ["+", "x", 0]},
    "range_sign": {
        "var": "j",
        "lo": 1,
        "hi": 2,
        "expr": ["*", "j", "j"],
        "factored": ["^", "j", 2],
        "sign": ">",
    },
    "product_one": {
        "var": "j",
        "lo": 1,
        "hi": ["-", "N", 1],
        "integers": ["N"],
        "factor": ["/", ["-", "N", "j"], "j"],
    },
    "interval_count": {
        "var": "m",
        "lo": 1,
        "hi": ["-", "N", 1],
        "param": "N",
        "from": 2,
        "predicate": [">", ["-", "N", "m"], "m"],
        "linear": ["-", "N", ["*", 2, "m"]],
        "factor": 1,
        "value": ["div", ["-", "N", 1], 2],
    },
    "samples": {"level": "99%", "samples": {"a": [1, 2]}, "facts": [["all_above", "a", 0]]},
    "integral": {
        "var": "x",
        "lo": 0,
        "hi": 1,
        "integrand": ["*", 2, "x"],
        "antiderivative": ["^", "x", 2],
        "value": 1,
    },
    "trusted": {"tool": "t", "version": "0", "statement": "s"},
}


def focus(cert: dict, index: int | None, entry: int | None = None) -> dict:
    """The certificate with every obligation but `index` (1-based) replaced by stand-ins of the
    same kinds; the statement keeps entry `index` (or the mutated entry) and takes the
    stand-ins' own conclusions for the rest."""
    keep = index or entry
    kinds = sorted({ob["kind"] for i, ob in enumerate(cert["obligations"], 1) if i != keep})
    obligations = [cert["obligations"][keep - 1]] if keep is not None else []
    stand_ins = [{"kind": k, **STAND_IN[k]} for k in kinds]
    statement = (
        [cert["statement"][keep - 1]] if keep is not None and keep <= len(cert["statement"]) else []
    )
    try:  # a flipped verdict has no statement the stand-ins establish: the kernel refuses it
        statement += statement_of(cert["verdict"], stand_ins) if stand_ins else []
    except KernelError:
        pass
    out = dict(cert, obligations=obligations + stand_ins, statement=statement)
    out["sha256"] = certificate_hash(out)
    return out


def judge(
    name: str, cert: dict, sample: int | None = None, focused: bool = False
) -> dict[str, int]:
    """Apply both mutation regimes to one certificate (all sites, or a seeded sample); assert.

    focused: judge a re-hashed mutant on its mutated obligation alone (the others, unchanged
    and already accepted, become trivial stand-ins of the same kinds), for big certificates.
    """
    assert check(cert).accepted, name
    assert holds(cert, None if sample is None else 2 * sample), name
    every = sites(cert)  # listed once: the re-hashed regime mutates all but the hash
    plain = _sample(every, None if sample is None else 2 * sample, name)
    for site in plain:
        m = mutant(cert, site, rehash=False)
        r = check(m.certificate)
        assert not r.accepted, (name, m.description)
        expected = "format is" if m.path == ("format",) else "sha256 mismatch"
        assert r.reason.startswith(expected), (name, m.description, r.reason)
    rehashed = _sample([site for site in every if site[0] != ("sha256",)], sample, name)
    rejected = 0
    for site in rehashed:
        m = mutant(cert, site, rehash=True)
        judged, index = m.certificate, m.obligation
        if focused and m.path[0] != "verdict":  # a flipped verdict is judged on the whole
            judged = focus(m.certificate, m.obligation, m.statement)
            index = None if m.obligation is None else 1
        # a focused mutant is cut down by construction: judged without the claim registry
        # (the binding of certificates to claims is tests/proof/test_binding.py's)
        r = check(judged, claims=UNBOUND if judged is not m.certificate else None)
        if r.accepted:
            # the statement and the verdict are bound: no edit of theirs is ever accepted
            assert m.path[0] not in ("statement", "verdict"), f"{name}: accepted {m.description}"
            assert holds(judged), f"{name}: kernel accepted a false mutant {m.description}"
            continue
        rejected += 1
        if index is not None and m.path[-1] != "kind":
            # a mutated obligation fails its check, or establishes another statement
            assert r.reason.startswith(
                (
                    f"obligation {index} (",
                    f"statement {index} is not what obligation {index} establishes",
                )
            ), (name, m.description, r.reason)
    return {"plain": len(plain), "rehashed": len(rehashed), "rejected": rejected}


def test_kit_certificates_every_mutant(kit_certificates):
    certs = load_all(kit_certificates)
    totals = {"plain": 0, "rehashed": 0, "rejected": 0}
    for name, cert in certs.items():
        counts = judge(name, cert)
        assert counts["rejected"] > 0, name  # each certificate has checkable content
        for k in totals:
            totals[k] += counts[k]
    print(
        f"\nkit: {len(certs)} certificates, {totals['plain']} mutants rejected by hash, "
        f"{totals['rejected']} of {totals['rehashed']} rehashed mutants rejected by the checks"
    )
    assert totals["plain"] >= 300 and totals["rejected"] >= 200


def _mutated(cert: dict, path: tuple, value) -> dict:
    c = copy.deepcopy(cert)
    node = c
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    c["sha256"] = certificate_hash(c)
    return c


def test_targeted_false_mutations_are_rejected(kit_certificates):
    """The changes the issue names, each making the claim false, each rejected with its culprit."""
    certs = load_all(kit_certificates)
    sq = certs["kit.square-of-sum.json"]
    rhs = sq["obligations"][0]["rhs"]
    i = next(j for j, t in enumerate(rhs) if isinstance(t, list) and t[0] == "*" and 2 in t)
    bumped = [3 if v == 2 else v for v in rhs[i]]
    r = check(_mutated(sq, ("obligations", 0, "rhs", i), bumped))
    assert (
        r.reason == "obligation 1 (identity): lhs != rhs: coefficient of x*y is 2 on the left,"
        " 3 on the right"
    )

    wit = certs["kit.triangle-region-nonempty.json"]
    r = check(_mutated(wit, ("obligations", 0, "assignment", "y"), 0))  # y > 0 now false
    assert r.reason.startswith("obligation 1 (witness): formula is false under the assignment")

    far = certs["kit.triangle-region-empty.json"]
    mults = far["obligations"][0]["multipliers"]
    for j in range(len(mults)):
        broken = list(mults)
        broken[j] = 0
        r = check(_mutated(far, ("obligations", 0, "multipliers"), broken))
        assert r.reason.startswith("obligation 1 (farkas): the combination"), r.reason

    geo = certs["kit.geometric-sum.json"]
    r = check(_mutated(geo, ("obligations", 0, "step"), ["+", "prev", ["^", "x", ["+", "k", 1]]]))
    assert r.reason.startswith("obligation 1 (recurrence): step case: coefficient of")

    enum = certs["kit.pairs-below-diagonal.json"]
    value = enum["obligations"][0]["value"]
    r = check(_mutated(enum, ("obligations", 0, "value"), value + 1))
    assert (
        r.reason == f"obligation 1 (enumeration): recomputed count is {value},"
        f" the certificate says {value + 1}"
    )

    spec = certs["kit.triangular-spectrum.json"]
    eig = spec["obligations"][0]["eigenvalues"]
    r = check(_mutated(spec, ("obligations", 0, "eigenvalues", 0), eig[1]))
    assert r.reason.startswith("obligation 1 (matrix): characteristic polynomial vs prod")

    r = check(dict(sq, sha256="0" * 64))
    assert r.reason.startswith("sha256 mismatch: recorded 0000000000000000..., computed ")


def test_positive_rescaling_of_farkas_multipliers_is_legitimate(kit_certificates):
    far = load_all(kit_certificates)["kit.triangle-region-empty.json"]
    mults = far["obligations"][0]["multipliers"]
    scaled = [f"{7 * int(m)}/3" if isinstance(m, int) else m for m in mults]
    assert check(_mutated(far, ("obligations", 0, "multipliers"), scaled)).accepted


@pytest.mark.slow
def test_every_proofs_certificate_resists_mutation(proofs_certificates):
    certs = load_all(proofs_certificates)
    assert certs, "fito prove proofs/ produced no certificate"
    totals = {"plain": 0, "rehashed": 0, "rejected": 0}
    for name, cert in certs.items():
        for k, v in judge(name, cert, sample=SAMPLE or None, focused=True).items():
            totals[k] += v
    print(
        f"\nproofs/: {len(certs)} certificates,"
        f" {totals['plain']} sampled mutants rejected by hash, "
        f"{totals['rejected']} of {totals['rehashed']} sampled rehashed mutants rejected"
    )


def test_mutation_counts_cli(kit_certificates, capsys):
    from fito.proof.mutation import main

    assert main([str(kit_certificates)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    counts = dict(part.rsplit(" ", 1) for part in last.split(": ", 1)[1].split(", "))
    assert counts["mutants"] == counts["hash_rejected"]
    assert int(counts["rehashed_rejected"]) + int(counts["rehashed_accepted"]) == int(
        counts["rehashed"]
    )
