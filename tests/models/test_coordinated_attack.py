"""Claim 4 (coordinated attack): the engine's census of every rule, checked three ways.

Against the closed forms of docs/coordination.md, against a plain enumeration that plays
every input and every loss set for every rule (no deduplicated runs, no bit tricks), and
through the kernel, which recounts the rule space from proofs/paper_a.py's own formulas.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from fito.models.epochs import coordinated_attack as ca
from fito.proof.kernel import certificate_hash, check
from fito.proof.runner import collect, discharge

ROOT = Path(__file__).parents[2]
CLAIMS = ROOT / "proofs" / "paper_a.py"


@pytest.mark.parametrize("pattern", ca.PATTERNS)
@pytest.mark.parametrize("r", range(1, 9))
def test_census_meets_the_closed_forms(r: int, pattern: str) -> None:
    c = ca.census(r, pattern)
    assert c.counts == ca.predicted(r, pattern)
    assert c.count(*ca.REQUIREMENTS) == 0
    assert c.count() == c.rules == 1 << len(c.views)


@pytest.mark.parametrize("pattern", ca.PATTERNS)
@pytest.mark.parametrize("r", [1, 5, 8])
def test_runs_are_the_prefixes_of_the_chain(r: int, pattern: str) -> None:
    found = ca.runs(r, pattern)
    assert all(ca.is_prefix_run(run) for run in found)
    ordered = {len(run.delivered) for run in found if run.ordered == 1}
    quiet = {len(run.delivered) for run in found if run.ordered == 0}
    assert ordered == set(range(r + 1))
    assert quiet == ({0} if pattern == "silent" else set(range(r + 1)))


def _plain_requirements(r: int, pattern: str, rule: dict) -> frozenset[str]:
    """Which requirements a rule meets, judged on every input and every set of lost messages."""
    met = set(ca.REQUIREMENTS)
    for ordered in (0, 1):
        for lost in itertools.product((False, True), repeat=r):
            dropped = frozenset(i + 1 for i, x in enumerate(lost) if x)
            run = ca.simulate(r, pattern, ordered, dropped)
            a, b = rule[run.view_a], rule[run.view_b]
            if a != b:
                met.discard("agreement")
            if ordered == 1 and not any(lost) and (a, b) != (1, 1):
                met.discard("validity")
            if ordered == 0 and (a, b) != (0, 0):
                met.discard("integrity")
    return frozenset(met)


@pytest.mark.parametrize("pattern", ca.PATTERNS)
@pytest.mark.parametrize("r", [1, 2, 3])
def test_census_agrees_with_a_plain_enumeration(r: int, pattern: str) -> None:
    c = ca.census(r, pattern)
    tally = {s: 0 for s in c.counts}
    for bits in itertools.product((0, 1), repeat=len(c.views)):
        met = _plain_requirements(r, pattern, dict(zip(c.views, bits)))
        for s in tally:
            tally[s] += s <= met
    assert tally == c.counts


def test_witnesses_meet_what_they_stand_for() -> None:
    c = ca.census(4, "chatty")
    assert c.witness(*ca.REQUIREMENTS) is None
    for kept in itertools.combinations(ca.REQUIREMENTS, 2):
        rule = c.witness(*kept)
        assert rule is not None and set(kept) <= _plain_requirements(4, "chatty", rule)


def test_every_examined_rule_stands_for_the_rules_over_all_receipt_sets() -> None:
    # r = 8, chatty: A may hear any of 4 messages under 2 orders, B any of 4 with 2 orders
    assert ca.conceivable_views(8, "chatty") == 2 * 16 + (1 + 2 * 15)
    assert ca.rules_covered(8, "chatty") == 2**63
    assert ca.census(8, "chatty").rules == 2**19


@pytest.mark.parametrize("bad", [0, 11, True, 2.0])
def test_bad_chain_lengths_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="chain length"):
        ca.census(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pattern"):
        ca.predicted(3, "loud")


@pytest.fixture(scope="module")
def attack_claims() -> dict:
    return {c.id: c for c in collect([str(CLAIMS)]) if c.id.startswith("paperA.coordinated")}


def test_claims_cover_chains_one_to_eight(attack_claims) -> None:  # type: ignore[no-untyped-def]
    assert sorted(attack_claims) == [f"paperA.coordinated-attack.r{r}" for r in range(1, 9)]


@pytest.mark.parametrize("r", [1, 2, 4])
def test_certificate_is_accepted_and_a_found_rule_would_be_rejected(attack_claims, r) -> None:  # type: ignore[no-untyped-def]
    result = discharge(attack_claims[f"paperA.coordinated-attack.r{r}"])
    assert result["verdict"] == "proved", result.get("reason")
    cert = result["certificate"]
    assert check(cert).accepted and not result["trusted"]
    impossible = cert["obligations"][0]
    assert impossible["kind"] == "enumeration" and impossible["value"] == 0
    impossible["value"] = 1  # an engine that claimed a rule meets all three
    cert["sha256"] = certificate_hash(cert)
    verdict = check(cert)
    assert not verdict.accepted and "recomputed count is 0" in verdict.reason


def test_an_engine_that_claims_a_rule_is_caught_by_the_kernel(attack_claims, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A census that wrongly reports 'always switch' as meeting every requirement makes the
    claim refuted with that rule as a counterexample, which the kernel then rejects."""
    import dataclasses

    real = ca.census

    def doctored(r: int, pattern: str = "silent") -> ca.Census:
        c = real(r, pattern)
        always = (1 << len(c.views)) - 1
        return dataclasses.replace(c, witnesses={**c.witnesses, frozenset(ca.REQUIREMENTS): always})

    monkeypatch.setattr(ca, "census", doctored)
    result = discharge(attack_claims["paperA.coordinated-attack.r2"])
    assert result["verdict"] == "unknown"
    assert "kernel rejected" in result["reason"] and "counterexample" in result["reason"]
