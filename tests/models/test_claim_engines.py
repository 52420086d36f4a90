"""The engines behind issue 15's claims, against independent computations: the symbolic-N
engine against the return-map engine at concrete N, the kernel's walk of claim 1's model
against the model checker, the numerics' stored samples against a re-run of their seeds,
and the documented K_inf of Adam against the derived bound."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

from fito.models.epochs import boundaries as c1
from fito.models.epochs import optimizer as opt
from fito.models.fleet import numerics as fn
from fito.models.fleet.maps import gap_map
from fito.models.fleet.returnmap import derive, overlapping, symbolic_setting
from fito.models.fleet.symbolic import overlapping_symbolic
from fito.proof import instance
from fito.proof.kernel.enumeration import reachable

ROOT = Path(__file__).resolve().parents[2]


def _to_sympy(e, f_values):
    """A JSON expression with f(k) (k a number) replaced by f_values[k], in SymPy."""
    if isinstance(e, bool):
        return e
    if isinstance(e, int):
        return sp.Integer(e)
    if isinstance(e, str):
        return sp.Rational(e) if e.lstrip("-")[:1].isdigit() else sp.Symbol(e)
    op, args = e[0], e[1:]
    if op == "fn":
        return f_values[int(_to_sympy(args[1], f_values))]
    vals = [_to_sympy(a, f_values) for a in args]
    table = {
        "+": lambda: sp.Add(*vals),
        "*": lambda: sp.Mul(*vals),
        "/": lambda: vals[0] / vals[1],
        "-": lambda: -vals[0] if len(vals) == 1 else vals[0] - vals[1],
        "^": lambda: vals[0] ** vals[1],
    }
    return table[op]()


@pytest.mark.parametrize("N", [3, 5])
def test_symbolic_n_engine_agrees_with_the_return_map_engine(N):
    """The multipliers derived for symbolic N, at a concrete N, are the diagonal of the gap
    matrix the return-map engine derives by stepping every event of that fleet."""
    setting = symbolic_setting(N, "general")
    gm = gap_map(derive(setting, overlapping(N)))
    assert gm is not None and gm.is_diagonal()
    f = {j: sp.Symbol(f"f{j}", positive=True) for j in range(1, N + 1)}
    der = overlapping_symbolic("general")
    for m in range(1, N):
        engine = _to_sympy(instance(der.multiplier, {"m": m, "N": N}), f)
        assert sp.simplify(engine - gm.K.to_sympy(gm.M[m - 1][m - 1])) == 0
        gap = _to_sympy(instance(der.next_gap, {"m": m, "N": N}), f)
        assert sp.simplify(gap - engine * sp.Symbol("a_m")) == 0  # S, V, W, e cancel


def test_symbolic_n_engine_counts_writers_from_the_events():
    der = overlapping_symbolic("constant")
    assert der.writers_in_gap == "j"
    assert (
        sp.simplify(_to_sympy(der.writers_after_end, {}) - (sp.Symbol("N") - sp.Symbol("m"))) == 0
    )


@pytest.mark.parametrize("k,n,e", [(2, 2, 1), (2, 3, 2)])
def test_the_kernels_walk_of_claim1_agrees_with_the_model_checker(k, n, e):
    names, states = reachable(json.loads(json.dumps(c1.transition_system(k, n))))
    at_crash = {
        s[:k] for s in states if s[names.index("crashed")] == 1 and s[names.index("writing")] == e
    }
    checked = c1.model_check(k, n, e)
    assert checked.decided
    assert (
        at_crash
        == set(checked.reachable)
        == {v for v in __import__("itertools").product((e - 1, e), repeat=k)}
    )


def test_every_instant_schedules_follow_the_timed_model():
    """The durable state at t under a schedule is what `durable_at` says (s + X_d <= t)."""
    from fito.proof.kernel.expr import compile_expr, parse

    holds = [compile_expr(parse(h)) for h in c1.durable_at(3)]
    env = {"s": 1, "t": 3, "X1": 1, "X2": 2, "X3": 5}
    assert [h(env) for h in holds] == [True, True, False]


def _stored(name: str, certificates: Path | None):
    if certificates is None:
        return None
    path = certificates / f"{name}.json"
    return json.loads(path.read_text())["obligations"][0] if path.exists() else None


@pytest.fixture(scope="module")
def certificates():
    import os

    given = os.environ.get("FITO_PROOF_CERTIFICATES")
    return Path(given) if given else None


def test_stored_samples_are_the_seeded_runs(certificates):
    """The samples a numerics certificate stores are what the simulator gives for its seeds
    (when CI's certificates are at hand; else the claim is discharged here)."""
    from fito.proof.runner import collect, discharge

    claims = {c.id: c for c in collect([str(ROOT / "proofs" / "numerics.py")])}
    ob = _stored("fleet.numerics.separation", certificates)
    if ob is None:
        ob = discharge(claims["fleet.numerics.separation"])["certificate"]["obligations"][0]
    rerun = [fn.separation_sample(8, 25, seed) for seed in range(12)]
    stored = [Fraction(v) for v in ob["samples"]["growth"]]
    assert len(stored) == len(rerun)
    assert all(abs(float(a) - b) <= 1e-9 * max(1.0, b) for a, b in zip(stored, rerun))


def test_documented_adam_limit_is_the_derived_one():
    """docs/lattice.md gives K_t's limit for b1 = 0.9, b2 = 0.999: c / (1 - q) = 370/7."""
    bound = opt.adam_bound()
    s = opt.symbols()
    values = {s["beta1"]: sp.Rational(9, 10), s["beta2"]: sp.Rational(999, 1000)}
    limit = (bound.c / (1 - bound.q)).subs(values)
    assert limit == sp.Rational(370, 7)
    assert "370/7" in (ROOT / "docs" / "lattice.md").read_text()


def _certificate_of(cid: str, certificates):
    from fito.proof.runner import collect, discharge

    ob = _stored(cid, certificates)
    if ob is None:
        claims = {c.id: c for c in collect([str(ROOT / "proofs" / "numerics.py")], [cid])}
        ob = discharge(claims[cid])["certificate"]["obligations"][0]
    return ob


def test_separation_rates_are_least_squares_fits(certificates):
    """fleet.numerics.separation-rate: each stored rate is numpy's degree-1 fit of
    ln(|da_k| / |da_0|) against k for its seed (an independent fit), and the endpoint
    estimate is the last log over K - 1."""
    import numpy as np

    ob = _certificate_of("fleet.numerics.separation-rate", certificates)
    stored = {k: [float(Fraction(v)) for v in vs] for k, vs in ob["samples"].items()}
    assert len(stored["rate"]) == 32
    for seed in (0, 7, 31):
        fleet = fn.load("clustering_fleet", jobs="8", phases=f"random:{seed}")
        logs = np.log(np.array(fn.separation(fleet, 1 + seed % 7, Fraction(1e-9), 25), float))
        k = np.arange(25)
        assert abs(np.polyfit(k, logs, 1)[0] - stored["rate"][seed]) < 1e-8
        assert abs(np.polyfit(k[:13], logs[:13], 1)[0] - stored["early"][seed]) < 1e-8
        assert abs(np.polyfit(k[12:], logs[12:], 1)[0] - stored["late"][seed]) < 1e-8
        assert abs(logs[-1] / 24 - stored["endpoint"][seed]) < 1e-8


def test_lifetime_exponents_are_least_squares_fits(certificates):
    """fleet.numerics.stagger-square-law: each stored exponent is numpy's fit of
    ln(lifetime) against ln(m/sigma) over the five ratios, from the stored lifetimes."""
    import numpy as np

    ob = _certificate_of("fleet.numerics.stagger-square-law", certificates)
    samples = ob["samples"]
    ratios = (6, 8, 12, 16, 24)
    lives = np.array([[float(Fraction(x)) for x in samples[f"r{r}"]] for r in ratios])
    fitted = [np.polyfit(np.log(ratios), np.log(lives[:, i]), 1)[0] for i in range(300)]
    stored = [float(Fraction(v)) for v in samples["exponent"]]
    assert np.allclose(fitted, stored, atol=1e-8)
    # and the stored lifetimes are the seeded runs
    assert [int(Fraction(x)) for x in samples["r8"][:20]] == fn.lifetimes(2, 8, 20, 5000)


def test_synchrony_growth_is_the_return_map_engines_largest_multiplier():
    """fleet.numerics.synchrony-not-attractor: the exact simulator's one-cycle growth near
    synchrony is the largest eigenvalue of the return-map engine's gap map (f = B = 1),
    an independent engine, for N = 3..6."""
    from fito.models.fleet.maps import eigenvalues
    from fito.models.fleet.returnmap import setting_from_fleet

    for N in (3, 4, 5, 6):
        near = fn.load("overlap", jobs=str(N), phases=f"ramp:1/{8 * N}")
        growth = fn.separation(near, 1, Fraction(1, 10**9), 2, exact=True)[1]
        gm = gap_map(derive(setting_from_fleet(fn.load("overlap", jobs=str(N))), overlapping(N)))
        assert gm is not None
        assert max(sp.nsimplify(e) for e in eigenvalues(gm)) == growth == N - 1
