"""The symbolic return-map engine against the paper's formulas (computed here) and the simulator."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from fito.models.fleet.branches import enumerate_branches, firing_orders, gap_differences
from fito.models.fleet.crosscheck import agrees
from fito.models.fleet.linear import check_farkas, evaluate, f_row, to_fraction
from fito.models.fleet.maps import determinant, eigenvalues, expanding_directions, gap_map
from fito.models.fleet.oscillators import load_fleet
from fito.models.fleet.returnmap import (
    derive,
    overlapping,
    parse_branch,
    setting_from_fleet,
    staggered,
    symbolic_setting,
)
from fito.models.fleet.solve import RegionSolver

ROOT = Path(__file__).parents[2]


def model(name, **overrides):
    return load_fleet((ROOT / "models" / f"{name}.toml").read_text(), name, overrides)


def paper_lambda(N, j, f):
    """Theorem 8, written independently of the engine: (N - j) f(j) / (j f(N - j))."""
    return sympy.Rational(N - j) * f(j) / (j * f(N - j))


@pytest.mark.parametrize("N", range(2, 9))
def test_theorem8_general_f(N):
    setting = symbolic_setting(N, "general")
    gm = gap_map(derive(setting, overlapping(N)))
    f = {j: sympy.Symbol(f"f{j}", positive=True) for j in range(1, N + 1)}
    assert gm.is_diagonal() and gm.is_linear
    for j in range(1, N):
        got = gm.K.to_sympy(gm.M[j - 1][j - 1])
        assert sympy.simplify(got - paper_lambda(N, j, f.get)) == 0
    assert sympy.simplify(determinant(gm.M, gm.K) - 1) == 0


@pytest.mark.parametrize("N", [2, 3, 4, 5, 7, 10, 13, 16])
def test_theorem8_constant_f_expanding_directions(N):
    fleet = model("overlap", jobs=str(N))
    gm = gap_map(derive(setting_from_fleet(fleet), overlapping(N)))
    values = eigenvalues(gm)
    assert sorted(values) == sorted(sympy.Rational(N - j, j) for j in range(1, N))
    assert expanding_directions(values) == math.ceil(N / 2) - 1
    assert max(values) == N - 1


@pytest.mark.parametrize(
    "name, N",
    [("staggered", 4), ("staggered_capped", 4), ("staggered", 6), ("staggered_capped", 3)],
)
def test_staggered_map_is_identity(name, N):
    fleet = model(name, jobs=str(N))
    gm = gap_map(derive(setting_from_fleet(fleet), staggered(N)))
    K = gm.K
    assert gm.is_linear
    assert all(
        gm.M[i][j] == (K.one if i == j else K.zero) for i in range(N - 1) for j in range(N - 1)
    )


@pytest.mark.parametrize("cap", [None, 1, 0])
def test_staggered_identity_symbolic(cap):
    gm = gap_map(derive(symbolic_setting(3, "general", cap_floor=cap), staggered(3)))
    assert gm.is_linear and all(
        gm.M[i][j] == (gm.K.one if i == j else 0) for i in range(2) for j in range(2)
    )


def test_unequal_volumes_drift_derived():
    gm = gap_map(derive(symbolic_setting(2, "general", volumes="per-job"), overlapping(2)))
    W0, W1, V0, V1, f1 = sympy.symbols("W0 W1 V0 V1 f1", positive=True)
    assert gm.K.to_sympy(gm.M[0][0]) == 1
    assert sympy.simplify(gm.K.to_sympy(gm.d[0]) - ((V1 - V0) / f1 + (W1 - W0))) == 0


def _interior_points(der, fleet, count, seed):
    """Random exact points of the branch region (rejection sampling around a Z3 witness)."""
    solver = RegionSolver(der.setting, der.m)
    base = solver.check(der.constraints).point
    assert base is not None
    rng = random.Random(seed)
    points = [base]
    scale = max(max(fleet.work), max(fleet.volume))
    while len(points) < count:
        x = tuple(
            max(Fraction(1, 64), b + Fraction(rng.randint(-64, 64), 256) * scale / 8) for b in base
        )
        if all(evaluate(c.form, x, der.K) > 0 for c in der.constraints):
            points.append(x)
    return points


@pytest.mark.parametrize(
    "name, branch, N",
    [
        ("overlap", overlapping, 3),
        ("overlap", overlapping, 5),
        ("pair_both", overlapping, 2),
        ("pair_cap", overlapping, 2),
        ("staggered", staggered, 4),
        ("staggered_capped", staggered, 4),
        ("unequal_volumes", overlapping, 2),
    ],
)
def test_derived_map_agrees_with_simulator(name, branch, N):
    fleet = model(name, **({} if name.startswith(("pair", "unequal")) else {"jobs": str(N)}))
    der = derive(setting_from_fleet(fleet), branch(N))
    for x in _interior_points(der, fleet, 6, seed=N):
        ok, detail = agrees(der, fleet, x)
        assert ok, detail


def test_capped_overlapping_branch_agrees_with_simulator():
    fleet = model("overlap", jobs="3", capacity="5/2", work="6", volume="3")
    der = derive(setting_from_fleet(fleet), overlapping(3))
    for x in _interior_points(der, fleet, 6, seed=1):
        ok, detail = agrees(der, fleet, x)
        assert ok, detail


def test_template_region_equals_enumerated_region():
    """The sparse region of derive() (one inequality per event) is the full DFS region."""
    fleet = model("overlap", jobs="3")
    setting = setting_from_fleet(fleet)
    leaves = enumerate_branches(setting, cycles=1, certify=False).leaves
    rng = random.Random(0)
    for leaf in leaves[:12]:
        der = derive(setting, leaf.branch())
        for _ in range(60):
            x = tuple(Fraction(rng.randint(1, 96), 4) for _ in range(2))
            inside_full = all(evaluate(c.form, x, der.K) >= 0 for c in leaf.constraints)
            inside_sparse = all(evaluate(c.form, x, der.K) >= 0 for c in der.constraints)
            assert inside_full == inside_sparse


@pytest.mark.parametrize(
    "throughput, cap", [("general", None), ("linear", 1), ("general", 1), ("general", 0)]
)
def test_theorem4_every_two_cycle_branch_keeps_the_gap(throughput, cap):
    setting = symbolic_setting(2, throughput, cap_floor=cap)
    result = enumerate_branches(setting, cycles=2, certify=False)
    assert result.complete and len(result.leaves) >= 3
    K = setting.domain()
    for leaf in result.leaves:
        assert gap_differences(leaf, K) == [{}]


def test_pruned_prefixes_carry_valid_farkas_certificates():
    fleet = model("overlap", jobs="3")
    setting = setting_from_fleet(fleet)
    result = enumerate_branches(setting, cycles=1)
    assert result.complete and result.pruned
    for p in result.pruned:
        K = setting.domain()
        rows = []
        for c in p.constraints:
            coeffs, const = f_row(c.form, 2, K)
            rows.append(([to_fraction(v, K) for v in coeffs], to_fraction(const, K)))
        assert check_farkas(rows, p.verdict.farkas)


def test_firing_order_invariant_over_two_cycles():
    setting = setting_from_fleet(model("overlap", jobs="3", capacity="5/2"))
    result = enumerate_branches(setting, cycles=2, certify=False)
    assert result.complete and len(result.leaves) > 20
    for leaf in result.leaves:
        first, second = firing_orders(leaf)[:2]
        assert first == second


def test_parse_branch_and_errors():
    b = parse_branch("c: fire1 end0 end1 fire0", 2)
    assert [str(e) for e in b.events] == ["fire1", "end0", "end1", "fire0"]
    for bad in ["fire1 fire0", "c: fire1 end0", "x: fire0", "c: jump1 fire0", "c: fire7 fire0"]:
        with pytest.raises(ValueError):
            parse_branch(bad, 2)
    with pytest.raises(ValueError):
        derive(setting_from_fleet(model("pair_both")), parse_branch("c: end1 fire0", 2))


def _fito(*args):
    return subprocess.run(
        [sys.executable, "-m", "fito", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_cli_returnmap_overlapping_json():
    out = _fito(
        "returnmap",
        "models/overlap.toml",
        "--branch",
        "overlapping",
        "--jobs",
        "6",
        "--format",
        "json",
    )
    assert out.returncode == 0, out.stderr
    b = json.loads(out.stdout)["branches"][0]
    assert [Fraction(v) for v in b["eigenvalues"]] == [Fraction(6 - j, j) for j in range(1, 6)]
    assert b["determinant"] == "1" and b["expanding_directions"] == 2
    assert b["region"]["nonempty"] and b["simulator_check"]["agrees"]


def test_cli_returnmap_pairwise_text():
    out = _fito("returnmap", "models/pair_cap.toml", "--branch", "pairwise")
    assert out.returncode == 0, out.stderr
    assert "pairwise identity (Theorem 4) holds" in out.stdout


@pytest.mark.parametrize(
    "args, status, fragment",
    [
        (["models/overlap.toml", "--branch", "pairwise"], 2, "needs 2 jobs"),
        (["models/overlap.toml", "--branch", "c: fire0"], 2, "section modes"),
        (
            [
                "models/pair_storage.toml",
                "--branch",
                "overlapping",
                "--volume",
                "1/100",
                "--work",
                "1/100",
            ],
            0,
            "",
        ),
        (["models/staggered.toml", "--branch", "staggered", "--volume", "100"], 1, "S102"),
    ],
)
def test_cli_returnmap_errors(args, status, fragment):
    out = _fito("returnmap", *args)
    assert out.returncode == status, out.stdout + out.stderr
    assert fragment in out.stderr and "Traceback" not in out.stderr
