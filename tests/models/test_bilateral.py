"""Claim 5 (bilateral reflect-then-commit): the generated specs, checked for k = 2..5, and
the engine's interleaving and mixed-recovery counts against the phase-vector closed forms
and the kernel's recount (proofs/paper_a.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fito.check.options import CheckOptions
from fito.expect import compare
from fito.models.epochs import bilateral, bilateral_count
from fito.pipeline import check_source
from fito.proof.kernel import certificate_hash, check
from fito.proof.runner import collect, discharge
from fito.source import Source

ROOT = Path(__file__).parents[2]
SHIPPED = ROOT / "specs" / "bilateral_commit.fito"


def test_the_shipped_spec_is_the_generated_k3_instance() -> None:
    assert SHIPPED.read_text(encoding="utf-8") == bilateral.spec(3), (
        "regenerate: python -c 'from fito.models.epochs.bilateral import spec; "
        'open("specs/bilateral_commit.fito", "w").write(spec(3))\''
    )


def _report(k: int, **kw: int):  # type: ignore[no-untyped-def]
    return check_source(Source(f"bilateral_k{k}.fito", bilateral.spec(k, **kw)), CheckOptions())


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_generated_spec_meets_its_expectations(k: int) -> None:
    """Never mixed, deadlock free, progress under fairness with bounded crashes; the naive
    recovery and the early commit fail with their shortest counterexamples."""
    report = _report(k)
    assert not compare(report), compare(report)
    naive = next(v for v in report.verdicts if v.text.startswith("Node(latest, false) |= always"))
    # one domain writes, the crash strikes, and the first two restores disagree
    assert naive.trace[:2] == ("write.0.1", "crash")
    assert [step.split(".")[2] for step in naive.trace[2:]] == ["1", "0"]


def test_three_epochs_and_two_crashes_also_hold() -> None:
    report = _report(2, epochs=3, crashes=2)
    assert not compare(report), compare(report)


@pytest.mark.parametrize("k", [2, 3, 4])  # k = 5: proofs/paper_a.py
@pytest.mark.parametrize("mode", bilateral_count.MODES)
def test_engine_counts_meet_the_closed_forms(k: int, mode: str) -> None:
    got = bilateral_count.count(k, mode)
    want = bilateral_count.predicted(k, mode)
    assert got.states and got.states > got.crash_points
    assert (
        got.interleavings,
        got.crash_points,
        got.crash_runs,
        got.mixed_points,
        got.mixed_runs,
    ) == (
        want.interleavings,
        want.crash_points,
        want.crash_runs,
        want.mixed_points,
        want.mixed_runs,
    )


def test_closed_forms_on_their_own_terms() -> None:
    for k in range(2, 8):
        b, n = bilateral_count.predicted(k, "bilateral"), bilateral_count.predicted(k, "latest")
        assert b.mixed_points == b.mixed_runs == 0
        assert n.mixed_points == 3**k - 2**k - 1  # some, not all, domains wrote
        assert b.crash_runs == n.crash_runs == (2 * k + 2) * b.interleavings
        assert 0 < n.mixed_runs < n.crash_runs


@pytest.mark.parametrize("bad", [1, 9, "3"])
def test_bad_sizes_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="domains"):
        bilateral.spec(bad)  # type: ignore[arg-type]


def test_certificate_is_accepted_and_a_wrong_engine_count_rejected() -> None:
    (claim,) = [
        c for c in collect([str(ROOT / "proofs" / "paper_a.py")]) if c.id == "paperA.bilateral.k3"
    ]
    result = discharge(claim)
    assert result["verdict"] == "proved", result.get("reason")
    cert = result["certificate"]
    assert check(cert).accepted and not result["trusted"]
    values = [ob["value"] for ob in cert["obligations"]]
    assert values == [
        getattr(bilateral_count.predicted(3, mode), field)
        for mode in bilateral_count.MODES
        for field in ("interleavings", "crash_points", "crash_runs", "mixed_points", "mixed_runs")
    ]
    cert["obligations"][3]["value"] = 1  # an engine that saw a mixed bilateral recovery
    cert["sha256"] = certificate_hash(cert)
    verdict = check(cert)
    assert not verdict.accepted and "obligation 4" in verdict.reason


def test_every_k_closed_form_is_the_engines_count():
    """paperA.bilateral.every-k's 3^k - 2^k - 1 (the naive rule's mixed crash points, by
    induction) is the state graph's count for k = 2..4 and the phase model's for k <= 9."""
    from fito.models.epochs import bilateral_count as bc

    for k in range(1, 10):
        assert bc.predicted(k, "latest").mixed_points == 3**k - 2**k - 1
        assert bc.predicted(k, "bilateral").mixed_points == 0
    for k in range(2, 5):
        assert bc.count(k, "latest").mixed_points == 3**k - 2**k - 1
