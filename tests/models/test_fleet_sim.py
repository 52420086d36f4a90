"""The event-driven simulator against a naive O(N)-per-event reference and the paper's formulas."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fito.models.fleet.oscillators import load_fleet
from fito.models.fleet.sim import simulate, writer_histogram

ROOT = Path(__file__).parents[2]


def naive(work, volume, f, cap, phases, cycles):
    """Reference: every event, recompute every job's rate and time to completion (Fractions)."""
    n = len(work)
    writing = [p >= w for p, w in zip(phases, work)]
    left = [w + v - p if wr else w - p for p, w, v, wr in zip(phases, work, volume, writing)]
    fires = [[] for _ in range(n)]
    t = Fraction(0)
    while min(len(x) for x in fires) < cycles:
        nw = sum(writing)
        nc = n - nw
        rate = [
            f(nw) / nw if wr else (min(Fraction(nc), cap) / nc if cap else Fraction(1))
            for wr in writing
        ]
        dt = min(q / r for q, r in zip(left, rate))
        t += dt
        left = [q - r * dt for q, r in zip(left, rate)]
        for i in sorted(range(n), key=lambda i: (not writing[i], i)):
            if left[i] == 0:
                if writing[i]:
                    writing[i], left[i] = False, work[i]
                else:
                    writing[i], left[i] = True, volume[i]
                    fires[i].append(t)
    return [tuple(x[:cycles]) for x in fires]


fractions = st.fractions(min_value=Fraction(1, 4), max_value=8, max_denominator=8)


@st.composite
def fleets(draw):
    n = draw(st.integers(2, 5))
    work = [draw(fractions) for _ in range(n)]
    volume = [draw(fractions) for _ in range(n)]
    phases = [draw(st.fractions(0, 1, max_denominator=16)) * (w + v) for w, v in zip(work, volume)]
    phases = [p if p < w + v else Fraction(0) for p, w, v in zip(phases, work, volume)]
    kind = draw(st.sampled_from(["B", "n*b", "2 + n", "3*n/(n + 1)"]))
    cap = draw(st.sampled_from([None, Fraction(1, 2), Fraction(3, 2), Fraction(5, 2)]))
    return n, work, volume, phases, kind, cap


def _model(n, work, volume, phases, kind, cap):
    text = f'throughput = "{kind}"\ncapacity = "{cap if cap else "inf"}"\n[params]\nB = 2\nb = 1\n'
    return load_fleet(
        text,
        overrides={
            "jobs": str(n),
            "work": [str(w) for w in work],
            "volume": [str(v) for v in volume],
            "phases": [str(p) for p in phases],
        },
    )


@given(fleets())
@settings(max_examples=60, deadline=None)
def test_exact_simulator_matches_naive_reference(case):
    n, work, volume, phases, kind, cap = case
    fleet = _model(*case)
    run = simulate(fleet, cycles=4, exact=True)
    assert run.complete
    expected = naive(work, volume, fleet.f, cap if cap is not None and cap < n else None, phases, 4)
    assert [list(x) for x in run.firings] == [list(x) for x in expected]
    floats = simulate(fleet, cycles=4, exact=False)
    for a, b in zip(run.firings, floats.firings):
        assert all(math.isclose(float(x), y, rel_tol=1e-9, abs_tol=1e-9) for x, y in zip(a, b))


def test_pairwise_gap_is_preserved_in_every_shipped_pair():
    """Theorem 4 numerically: f = B, a binding cap, both; many starting gaps."""
    for name in ("pair_storage", "pair_cap", "pair_both"):
        base = load_fleet((ROOT / "models" / f"{name}.toml").read_text())
        for k in range(1, 28):
            start = Fraction(k, 2)
            fleet = replace(base, phases=(base.work[0], (base.work[0] - start) % 14))
            a, b = simulate(fleet, cycles=8, exact=True).firings
            gaps = {min(t for t in b if t >= ta) - ta for ta in a[:6]}
            assert len(gaps) == 1, (name, start, gaps)


def test_unequal_volumes_drift_matches_formula():
    """Section 8.1: per cycle the gap moves by (V_B - V_A)/f(1) + (W_B - W_A) while in overlap."""
    fleet = load_fleet((ROOT / "models" / "unequal_volumes.toml").read_text())
    a, b = simulate(fleet, cycles=10, exact=True).firings
    gaps = [tb - ta for ta, tb in zip([Fraction(0)] + list(a), b)]  # job 0 fires at t = 0
    w_a, w_b = fleet.work
    v_a, v_b = fleet.volume
    drift = (v_b - v_a) / fleet.f(1) + (w_b - w_a)
    overlap = [g for g in gaps if g * fleet.f(1) < v_a]
    assert len(overlap) >= 5
    assert all(y - x == drift for x, y in zip(overlap, overlap[1:]))


def test_synchronized_jobs_fire_together_and_stay_merged():
    fleet = load_fleet(
        'jobs = 3\nwork = 5\nvolume = 2\nthroughput = "1"\n[phases]\nkind = "together"\nstart = 1\n'
    )
    run = simulate(fleet, cycles=5, exact=True, record_writers=True)
    assert run.firings[0] == run.firings[1] == run.firings[2]
    assert {n for _, n in run.writers} == {0, 3}  # only the state after each instant is recorded


def test_writer_record_is_a_step_function():
    fleet = load_fleet((ROOT / "models" / "overlap.toml").read_text())
    run = simulate(fleet, cycles=4, exact=True, record_writers=True)
    times = [t for t, _ in run.writers]
    assert times == sorted(set(times))
    assert all(0 <= n <= fleet.jobs for _, n in run.writers)
    assert sum(writer_histogram(run).values()) == times[-1]


def test_firing_order_is_invariant_from_random_starts():
    """Proposition 14 numerically: the cyclic order of firings never changes."""
    base = load_fleet((ROOT / "models" / "pair_both.toml").read_text())
    for seed in range(5):
        fleet = load_fleet(
            (ROOT / "models" / "pair_both.toml").read_text(),
            overrides={"jobs": "6", "phases": f"random:{seed}"},
        )
        run = simulate(fleet, cycles=12, exact=True)
        events = sorted((t, i) for i, times in enumerate(run.firings) for t in times)
        order = [i for _, i in events]
        first = order[:6]
        assert all(order[k] == first[k % 6] for k in range(len(order))), base.name


def _fito(*args):
    return subprocess.run(
        [sys.executable, "-m", "fito", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_cli_simulate_json_exact():
    out = _fito(
        "simulate", "models/pair_storage.toml", "--cycles", "3", "--exact", "--format", "json"
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["exact"] and doc["complete"] and len(doc["firings"]) == 2
    fleet = load_fleet((ROOT / "models" / "pair_storage.toml").read_text())
    assert doc["firings"] == [[str(t) for t in x] for x in simulate(fleet, 3, True).firings]


def test_cli_simulate_overrides_and_text():
    out = _fito(
        "simulate",
        "models/overlap.toml",
        "--jobs",
        "3",
        "--phases",
        "ramp:1/3",
        "--cycles",
        "2",
        "--exact",
        "--writers",
    )
    assert out.returncode == 0, out.stderr
    assert "job 1: 1/3 " in out.stdout and out.stdout.count("job ") == 3
    assert "writers: 0:1 " in out.stdout


@pytest.mark.parametrize(
    "args, status, fragment",
    [
        (["models/nope.toml"], 2, "C002"),
        (["models"], 2, "C002"),
        (["models/pair_storage.toml", "--throughput", "B+"], 2, "P101"),
        (["models/pair_storage.toml", "--jobs", "3"], 1, "S101"),
        (["models/pair_storage.toml", "--capacity", "-1"], 1, "S101"),
        (["models/pair_storage.toml", "--max-events", "3"], 3, "M101"),
        (["models/pair_storage.toml", "--throughput", "sqrt(n+1)", "--exact"], 2, "C001"),
        (["models/pair_storage.toml", "--param", "oops"], 2, "C001"),
    ],
)
def test_cli_simulate_bad_input(args, status, fragment):
    out = _fito("simulate", *args)
    assert out.returncode == status, out.stderr
    assert fragment in out.stderr and "Traceback" not in out.stderr


def test_cli_simulate_sections_staggered_returns():
    """Proposition 16 through the command line: a staggered fleet's phases come back."""
    out = _fito(
        "simulate",
        "models/staggered.toml",
        "--cycles",
        "4",
        "--exact",
        "--sections",
        "--format",
        "json",
    )
    assert out.returncode == 0, out.stderr
    sections = json.loads(out.stdout)["sections"]
    fleet = load_fleet((ROOT / "models" / "staggered.toml").read_text())
    assert len(sections) >= 3
    assert all(s["phases"] == [str(p) for p in fleet.phases] for s in sections)
