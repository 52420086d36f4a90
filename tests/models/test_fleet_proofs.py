"""The fleet claims' certificates (proofs/fleet.py) make the kernel compare the engine with the
paper.

Every obligation must be re-checked for real: no identity whose two sides are the same JSON,
no recurrence `step = prev, closed = initial`, no matrix equal to itself; a coefficient
changed on one side (hash recomputed) is rejected; a wrong engine result or a wrong paper
formula makes the kernel reject the certificate.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fito.models.fleet.linear import CONST
from fito.models.fleet.maps import gap_map
from fito.models.fleet.proofs import gap_map_sides
from fito.models.fleet.returnmap import derive, overlapping, staggered, symbolic_setting
from fito.proof import Claim, identity, proved
from fito.proof.kernel import certificate_hash, check
from fito.proof.mutation import mutant, sites
from fito.proof.runner import certify, collect, discharge

ROOT = Path(__file__).parents[2]
FLEET = ROOT / "proofs" / "fleet.py"
SIDES = {
    "lhs",
    "rhs",
    "matrix",
    "equals",
    "det",
    "eigenvalues",
    "target",
    "terms",
    "factor",
    "linear",
    "value",
    "expr",
    "factored",
    "predicate",
}
FAST = [
    "fleet.theorem8.N2",
    "fleet.theorem8.N3",
    "fleet.theorem8.N6",
    "fleet.theorem8.symbolic-N.step",
    "fleet.theorem8.symbolic-N.reciprocal",
    "fleet.theorem8.symbolic-N.det-one",
    "fleet.theorem8.symbolic-N.expanding",
    "fleet.theorem4.storage",
    "fleet.theorem4.cap",
    "fleet.prop16.N2.uncapped",
    "fleet.prop16.N3.cap-1",
    "fleet.prop16.N4.cap-N-1",
    "fleet.section8.unequal-volumes",
]


@pytest.fixture(scope="module")
def fleet_claims() -> dict[str, Claim]:
    return {c.id: c for c in collect([str(FLEET)])}


@pytest.fixture(scope="module")
def certificates(fleet_claims) -> dict[str, dict]:
    """Certificates of a few fast claims, discharged in this process and kernel-accepted."""
    out = {}
    for cid in FAST:
        result = discharge(fleet_claims[cid])
        assert result["verdict"] == "proved", (cid, result.get("reason"))
        out[cid] = result["certificate"]
    return out


def _kernel_accepts(obligations) -> bool:
    claim = Claim("test.fleet", "t", "s", "m", "sympy", lambda: None)
    return certify(claim, proved(*obligations))[1].accepted


# ---------------------------------------------------------------- shape
@pytest.mark.parametrize("cid", FAST)
def test_certificate_is_accepted(certificates, cid):
    assert check(certificates[cid]).accepted


def test_det_one_is_a_product_for_every_n(certificates):
    """The determinant claim is one kernel product over m = 1..N-1 of the engine's
    multiplier; evaluated here with a random positive f for N up to 30, it is 1."""
    import random
    from fractions import Fraction

    tie, ob = certificates["fleet.theorem8.symbolic-N.det-one"]["obligations"]
    assert tie["kind"] == "identity"  # the multiplier is the engine's gap map
    assert ob["kind"] == "product_one" and ob["integers"] == ["N"]
    f = {n: Fraction(random.Random(n).randint(1, 50), 7) for n in range(0, 40)}
    for n in range(2, 31):
        product = Fraction(1)
        for m in range(1, n):
            product *= (f[m] / m) / (f[n - m] / (n - m))
        assert product == 1


# ---------------------------------------------------------------- the kernel compares
def _overlapping(N: int):
    der = derive(symbolic_setting(N, "general"), overlapping(N))
    lam = [["/", ["*", ["-", N, j], f"f{j}"], ["*", j, f"f{N - j}"]] for j in range(1, N)]
    return der, lam, list(der.setting.symbols)


@pytest.mark.parametrize("N", [3, 5])
def test_theorem8_sides_agree_only_when_engine_and_paper_agree(N):
    der, lam, nz = _overlapping(N)
    good = [identity(lhs, rhs, nonzero=nz) for lhs, rhs in gap_map_sides(der, lam)]
    assert _kernel_accepts(good)
    # the paper's formula with an off-by-one (N - j + 1): rejected
    wrong = [["/", ["*", ["-", N + 1, j], f"f{j}"], ["*", j, f"f{N - j}"]] for j in range(1, N)]
    for lhs, rhs in gap_map_sides(der, wrong):
        assert not _kernel_accepts([identity(lhs, rhs, nonzero=nz)])


@pytest.mark.parametrize("N", [3, 4])
def test_a_wrong_engine_counter_is_caught(N):
    """Scale the constant of one job's counter target at the end (as a buggy engine would):
    the identities a'_j = lambda_j a_j that involve that job are rejected."""
    der, lam, nz = _overlapping(N)
    K = der.K
    parts = list(der.next_state_parts)
    key, progress = parts[-1]
    parts[-1] = ({**key, CONST: key.get(CONST, K.zero) + K.one}, progress)
    broken = dataclasses.replace(der, next_state_parts=tuple(parts))
    verdicts = [
        _kernel_accepts([identity(lhs, rhs, nonzero=nz)]) for lhs, rhs in gap_map_sides(broken, lam)
    ]
    assert verdicts[-1] is False
    assert not all(verdicts)


def test_a_wrong_gap_matrix_is_caught():
    from fito.models.fleet.proofs import diagonal, matrix_json
    from fito.proof import matrix_facts

    der, lam, nz = _overlapping(4)
    gm = gap_map(der)
    M = matrix_json(gm.M, gm.K)
    assert _kernel_accepts([matrix_facts(M, equals=diagonal(lam), det=1, nonzero=nz)])
    M[0][0] = ["*", 2, M[0][0]]
    assert not _kernel_accepts([matrix_facts(M, equals=diagonal(lam), nonzero=nz)])
    assert not _kernel_accepts([matrix_facts(M, det=1, nonzero=nz)])


def test_staggered_state_returns_only_if_the_counters_cancel():
    from fito.models.fleet.proofs import names, next_state_json

    der = derive(symbolic_setting(3, "general", cap_floor=1), staggered(3))
    nz = list(der.setting.symbols)
    xs = names("x", der.m)
    sides = list(zip(next_state_json(der), xs))
    assert all(lhs != rhs for lhs, rhs in sides)
    assert _kernel_accepts([identity(lhs, rhs, nonzero=nz) for lhs, rhs in sides])
    swapped = list(zip(next_state_json(der), reversed(xs)))
    assert not any(_kernel_accepts([identity(lhs, rhs, nonzero=nz)]) for lhs, rhs in swapped)


# ---------------------------------------------------------------- mutation
def _number_sites(cert: dict) -> list:
    """Sites of numbers on a compared side: identity lhs/rhs, matrix entries and facts,
    sum-of-squares target and terms (a coefficient of one side)."""
    out = []
    for site in sites(cert, rehash=True):
        path, old, _ = site
        keys = {p for p in path if isinstance(p, str)}
        numeric = isinstance(old, int) or (isinstance(old, str) and old.lstrip("-")[:1].isdigit())
        if path[0] == "obligations" and keys & SIDES and numeric and not isinstance(old, bool):
            out.append(site)
    return out


@pytest.mark.parametrize(
    "cid",
    [
        "fleet.theorem8.N3",
        "fleet.theorem4.storage",
        "fleet.prop16.N3.cap-1",
        "fleet.theorem8.symbolic-N.expanding",
        "fleet.section8.unequal-volumes",
    ],
)
def test_a_changed_coefficient_on_one_side_is_rejected(certificates, cid):
    cert = certificates[cid]
    chosen = _number_sites(cert)
    assert chosen
    for site in chosen:
        m = mutant(cert, site, rehash=True)
        result = check(m.certificate)
        assert not result.accepted, m.description
        assert f"obligation {m.obligation} " in result.reason or result.reason.startswith(
            f"statement {m.obligation} "
        ), (m.description, result.reason)


# ---------------------------------------------------------------- every fleet certificate
@pytest.fixture(scope="module")
def all_fleet_certificates(tmp_path_factory) -> dict[str, dict]:
    """Every fleet certificate: from FITO_PROOF_CERTIFICATES (a directory CI filled with
    `fito prove proofs/`) when set, else `fito prove proofs/fleet.py --certificates DIR`."""
    given = os.environ.get("FITO_PROOF_CERTIFICATES")
    directory = Path(given) if given else tmp_path_factory.mktemp("fleet-certificates")
    if not given:
        command = [
            sys.executable,
            "-m",
            "fito",
            "prove",
            str(FLEET),
            "--certificates",
            str(directory),
            "--format",
            "json",
        ]
        run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        rows = json.loads(run.stdout)["claims"]
        assert all(r["verdict"] == "proved" for r in rows)
    return {p.stem: json.loads(p.read_text()) for p in sorted(directory.glob("fleet.*.json"))}


@pytest.mark.slow
def test_every_fleet_certificate_is_accepted(all_fleet_certificates, fleet_claims):
    assert set(fleet_claims) <= set(all_fleet_certificates)  # and proofs/numerics.py's
    total = sum(len(c["obligations"]) for c in all_fleet_certificates.values())
    checked = sum(
        1
        for c in all_fleet_certificates.values()
        for ob in c["obligations"]
        if ob["kind"] != "trusted"
    )
    assert checked > total // 2
    for cid, cert in all_fleet_certificates.items():  # `fito recheck` (CI) re-checks each
        assert cert["sha256"] == certificate_hash(cert), cid
        assert len(cert["statement"]) == len(cert["obligations"]), cid
