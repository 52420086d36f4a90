"""Every engine claim is falsifiable (issue 30, point 2): a mutated model makes `fito prove`
end `refuted` with the engine's counterexample (a point the kernel evaluates), never
`proved` and never a crash.

Each test changes one model in this process (monkeypatch), runs the claims in-process as
`fito prove` does (`run_claims(jobs=0)`: the kernel seals and binds every outcome), and
restores the model. The refuting certificates are kernel-checked refutations of the claim
as derived from the mutated model (the runner says so: they are not the registered claim).
"""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from fito.models.epochs import optimizer as opt
from fito.models.fleet import returnmap
from fito.models.fleet import symbolic as sym
from fito.proof import kernel, runner
from fito.proof.kernel.registry import Registry
from tests.proof.proof_helpers import ROOT

UNBOUND = Registry({}, frozenset())


def run(path: str, *globs: str):
    return runner.run_claims(runner.collect([str(ROOT / "proofs" / path)], globs), jobs=0)


def assert_refuted(results, ids):
    got = {r.claim.id: r for r in results}
    assert set(got) == set(ids)
    for cid in ids:
        r = got[cid]
        assert r.verdict == "refuted", (cid, r.verdict, r.reason)
        assert "refutes the claim as derived from this model" in r.reason, r.reason
        cert = r.certificate
        assert cert is not None and cert["verdict"] == "refuted"
        kinds = {ob["kind"] for ob in cert["obligations"]}
        assert "counterexample" in kinds, (cid, kinds)
        # a kernel-checked refutation, not of the registered claim
        assert kernel.check(cert, claims=UNBOUND).accepted
        assert not kernel.check(cert).accepted


def test_the_unmutated_theorem8_claims_are_proved():
    for r in run("fleet.py", "fleet.theorem8.symbolic*"):
        assert r.verdict == "proved", (r.claim.id, r.reason)


@pytest.mark.parametrize(
    "mutation",
    ["drain time", "doubled multiplier"],
)
def test_theorem8_symbolic_claims_are_derived_from_the_event_map(mutation):
    """The multiplier is tied to the derived gap map: changing either refutes every claim
    that uses it (the issue found `.step` alone failing for a changed drain time, and the
    three others alone for a doubled multiplier)."""
    orig = sym.overlapping_symbolic

    def mutated(throughput: str = "general"):
        der = orig(throughput)
        if mutation == "drain time":  # writer m+1 ends half a gap later: a'_m changes
            return replace(der, next_gap=["+", der.next_gap, ["*", "1/2", "a_m"]])
        return replace(der, multiplier=["*", 2, der.multiplier])

    results = _run_patched("fleet.py", "fleet.theorem8.symbolic*", "overlapping_symbolic", mutated)
    ids = [
        "fleet.theorem8.symbolic-N.reciprocal",
        "fleet.theorem8.symbolic-N.det-one",
        "fleet.theorem8.symbolic-N.expanding",
    ]
    if mutation == "drain time":
        ids.append("fleet.theorem8.symbolic-N.step")
    assert_refuted([r for r in results if r.claim.id in ids], ids)
    for r in results:
        assert r.verdict != "proved" or r.claim.id not in ids


def _claims_module_globals(path: str) -> dict:
    tail = path.replace(".", "_")
    name = next(n for n in sys.modules if n.startswith("_fito_claims_") and n.endswith(tail))
    return vars(sys.modules[name])


def _run_patched(path: str, glob: str, name: str, value):
    """Collect the claims file, then replace a model function it imported by name."""
    claims = runner.collect([str(ROOT / "proofs" / path)], [glob])
    namespace = _claims_module_globals(path)
    saved = namespace[name]
    namespace[name] = value
    try:
        return runner.run_claims(claims, jobs=0)
    finally:
        namespace[name] = saved


@pytest.mark.slow
def test_theorem4_with_unequal_volumes_is_refuted():
    """Two jobs that are not identical (job 1 writes 2V): the gap drifts, so pairwise
    neutrality is refuted in every regime, at the witness point of a branch."""

    def unequal(*args, **kwargs):
        setting = returnmap.symbolic_setting(*args, **kwargs)
        return replace(setting, volume=(setting.volume[0], 2 * setting.volume[1]))

    results = _run_patched("fleet.py", "fleet.theorem4.*", "symbolic_setting", unequal)
    assert_refuted(results, [r.claim.id for r in results])
    assert len(results) == 5


@pytest.mark.slow
def test_adams_constant_comes_from_its_update_rule(monkeypatch):
    """Another first-moment update (m' = b1 m + g, no 1 - b1): K_t is not the paper's."""
    orig = opt.adam

    def other(step_counter=None):
        m = orig(step_counter)
        s = opt.symbols()
        update = list(m.update)
        update[1] = s["beta1"] * s["m"] + s["g"]
        return opt.StepMap(m.name, m.state, m.gradient, tuple(update))

    monkeypatch.setattr(opt, "adam", other)
    opt.adam_bound.cache_clear()
    try:
        results = run("optimizer.py", "optimizer.adam.K", "optimizer.adam.bound")
    finally:
        opt.adam_bound.cache_clear()
    got = {r.claim.id: r for r in results}
    assert_refuted([got["optimizer.adam.K"]], ["optimizer.adam.K"])
    assert got["optimizer.adam.bound"].verdict != "proved"


def test_an_update_of_another_shape_is_a_diagnosis(monkeypatch):
    orig = opt.adam

    def other(step_counter=None):
        m = orig(step_counter)
        s = opt.symbols()
        update = list(m.update)
        update[2] = s["beta2"] * s["v"] + (1 - s["beta2"]) * s["g"] ** 4
        return opt.StepMap(m.name, m.state, m.gradient, tuple(update))

    monkeypatch.setattr(opt, "adam", other)
    opt.adam_bound.cache_clear()
    try:
        with pytest.raises(opt.NotMomentShaped, match="is not decay"):
            opt.adam_bound()
    finally:
        opt.adam_bound.cache_clear()


def test_a_link_that_loses_nothing_refutes_the_coordinated_attack(monkeypatch):
    """Without losses (the link the protocol's remedy would need) the engine finds a rule
    meeting agreement, validity and integrity: refuted, the rule a counterexample the kernel
    evaluates on the engine's runs."""
    from fito.models.epochs import coordinated_attack as ca

    real = ca.simulate
    monkeypatch.setattr(ca, "simulate", lambda r, p, o, lost: real(r, p, o, frozenset()))
    results = run("paper_a.py", "paperA.coordinated-attack.r[1-3]")
    assert_refuted(results, [r.claim.id for r in results])
    assert len(results) == 3
