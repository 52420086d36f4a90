"""The numerics of paper B, computed with fito's simulator: one sample per seeded run.

Used by the scripts in models/ (figures) and by the claims in proofs/numerics.py, whose
certificates store the samples so that the kernel recomputes means and confidence
intervals from them. Every run is seeded; the seeds are part of each function's arguments.

- phases, order parameter and smallest gap per cycle (no locking, no clustering);
- separation of neighbouring runs (one initial phase moved by eps);
- the fraction of time with at least k concurrent writers, and each job's writing fraction;
- the lifetime of a stagger under per-cycle compute jitter;
- the gap of two unequal jobs cycle by cycle (exact).
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from fito.models.fleet.oscillators import Fleet, load_fleet
from fito.models.fleet.sim import simulate

MODELS = Path(__file__).resolve().parents[3] / "models"


def load(name: str, **overrides: object) -> Fleet:
    """models/<name>.toml with command-line style overrides (strings)."""
    return load_fleet(
        (MODELS / f"{name}.toml").read_text(),
        name,
        {k: v for k, v in overrides.items() if v is not None},
    )


# ---------------------------------------------------------------- phases
def phases_per_cycle(firings: Sequence[Sequence[float]], cycles: int) -> list[list[float]]:
    """phi_j in [0, 1) at each cycle k of job 0: (first firing of j at or after t0_k - t0_k)
    divided by the period t0_{k+1} - t0_k."""
    zero = firings[0]
    out: list[list[float]] = []
    for k in range(min(cycles, len(zero) - 1)):
        start, period = zero[k], zero[k + 1] - zero[k]
        row = []
        for times in firings:
            i = bisect.bisect_left(times, start)
            if i == len(times):
                return out
            row.append(((times[i] - start) / period) % 1.0)
        out.append(row)
    return out


def order_parameter(phases: Sequence[float]) -> float:
    """Kuramoto's R = |mean exp(2 pi i phi)|: 1 in synchrony, about 1/sqrt(N) at random."""
    re = sum(math.cos(2 * math.pi * p) for p in phases)
    im = sum(math.sin(2 * math.pi * p) for p in phases)
    return math.hypot(re, im) / len(phases)


def smallest_gap(phases: Sequence[float]) -> float:
    """The smallest cyclic distance between consecutive phases (in periods)."""
    s = sorted(phases)
    return min([b - a for a, b in zip(s, s[1:])] + [1.0 - s[-1] + s[0]])


def clustering_series(jobs: int, cycles: int, seed: int, capacity: str | None = None):
    """(R_k, smallest gap g_k) for k = 0..cycles-1 of one seeded random start."""
    fleet = load("clustering_fleet", jobs=str(jobs), phases=f"random:{seed}", capacity=capacity)
    rows = phases_per_cycle(simulate(fleet, cycles=cycles + 2).firings, cycles)
    return [order_parameter(r) for r in rows], [smallest_gap(r) for r in rows]


def clustering_sample(jobs: int, cycles: int, seed: int, window: int = 20) -> tuple[float, float]:
    """(mean R over the last `window` cycles, mean smallest gap over the last `window`
    cycles divided by that over the first `window`) of one run."""
    r, g = clustering_series(jobs, cycles, seed)
    first, last = sum(g[:window]) / window, sum(g[-window:]) / window
    return sum(r[-window:]) / window, last / first


# ---------------------------------------------------------------- separation
def relative_firings(firings, cycles: int) -> list[list]:
    """For cycle k: the firing times of jobs 1..N-1 after t0_k, minus t0_k (cyclic order)."""
    zero = firings[0]
    out = []
    for k in range(cycles):
        start = zero[k]
        out.append([next(t for t in times if t >= start) - start for times in firings[1:]])
    return out


def separation(fleet: Fleet, job: int, eps: Any, cycles: int, exact: bool = False) -> list:
    """|da_k| / |da_0| for k = 0..cycles-1 (max norm over the relative firing times)."""
    moved = list(fleet.phases)
    moved[job] = moved[job] + eps
    base = relative_firings(simulate(fleet, cycles + 2, exact).firings, cycles)
    other = relative_firings(
        simulate(replace(fleet, phases=tuple(moved)), cycles + 2, exact).firings, cycles
    )
    dist = [max(abs(x - y) for x, y in zip(a, b)) for a, b in zip(base, other)]
    return [d / dist[0] for d in dist]


def separation_sample(jobs: int, cycles: int, seed: int, eps: float = 1e-9) -> float:
    """|da_K| / |da_0| after `cycles` cycles from the seeded random start `seed`."""
    fleet = load("clustering_fleet", jobs=str(jobs), phases=f"random:{seed}")
    return separation(fleet, 1 + seed % (jobs - 1), Fraction(eps), cycles)[-1]


def _slope(ys: list[float], ks: range) -> float:
    """The least-squares slope of ys[k] against k over ks."""
    kb = sum(ks) / len(ks)
    yb = sum(ys[k] for k in ks) / len(ks)
    return sum((k - kb) * (ys[k] - yb) for k in ks) / sum((k - kb) ** 2 for k in ks)


def separation_rates(
    jobs: int, cycles: int, seed: int, eps: float = 1e-9
) -> tuple[float, float, float, float]:
    """Exponential separation rates of one seeded run: the least-squares slope per cycle of
    ln(|da_k| / |da_0|) over k = 0..cycles-1, over the first and the second half, and the
    endpoint estimate ln(|da_K| / |da_0|) / (K - 1) (the run of `separation_sample`)."""
    fleet = load("clustering_fleet", jobs=str(jobs), phases=f"random:{seed}")
    ratios = separation(fleet, 1 + seed % (jobs - 1), Fraction(eps), cycles)
    logs = [math.log(r) for r in ratios]
    half = cycles // 2
    return (
        _slope(logs, range(cycles)),
        _slope(logs, range(half + 1)),
        _slope(logs, range(half, cycles)),
        logs[-1] / (cycles - 1),
    )


# ---------------------------------------------------------------- writer tail
def writer_tail(
    jobs: int, cycles: int, seed: int, volume: str = "1/2", burn: int = 10
) -> list[float]:
    """P(n_w >= k), k = 0..N, as the fraction of time of one seeded run (after `burn`
    cycles of job 0)."""
    fleet = load("clustering_fleet", jobs=str(jobs), volume=volume, phases=f"random:{seed}")
    run = simulate(fleet, cycles=cycles, record_writers=True)
    start = run.firings[0][burn]
    steps = [(max(t, start), n) for t, n in run.writers]
    time_at = [0.0] * (jobs + 1)
    for (t0, n), (t1, _) in zip(steps, steps[1:]):
        time_at[n] += t1 - t0
    total = sum(time_at)
    return [sum(time_at[k:]) / total for k in range(jobs + 1)]


def binomial_tail(jobs: int, p: float) -> list[float]:
    """P(X >= k) for X ~ Binomial(N, p), k = 0..N: independent phases."""
    pmf = [math.comb(jobs, k) * p**k * (1 - p) ** (jobs - k) for k in range(jobs + 1)]
    return [sum(pmf[k:]) for k in range(jobs + 1)]


# ---------------------------------------------------------------- stagger lifetime
STAGGER_WORK, STAGGER_VOLUME, STAGGER_B = 10, 2, 1


def stagger(jobs: int) -> tuple[Fleet, Fraction]:
    """An evenly staggered fleet and its margin m: the solo period P = W + V/B split into
    N equal gaps P/N; a gap stays collision-free while it exceeds the write time V/B, so
    m = P/N - V/B (for N = 2 the two gaps add up to P: a window of half-width m)."""
    period = Fraction(STAGGER_WORK) + Fraction(STAGGER_VOLUME, STAGGER_B)
    gap = period / jobs
    fleet = load(
        "staggered",
        jobs=str(jobs),
        work=str(STAGGER_WORK),
        volume=str(STAGGER_VOLUME),
        phases=f"ramp:{gap}",
        capacity="inf",
    )
    return fleet, gap - Fraction(STAGGER_VOLUME, STAGGER_B)


def lifetime(fleet: Fleet, sigma: float, seed: int, limit: int = 100_000) -> int:
    """Cycles of job 0 before two writes overlap, every compute phase W + sigma xi."""
    rng = random.Random(seed)

    def draw(_job: int) -> float:
        return max(1e-9, STAGGER_WORK + sigma * rng.gauss(0.0, 1.0))

    run = simulate(fleet, cycles=limit, work_sampler=draw, stop_writers=2)
    return len(run.firings[0])


def lifetimes(jobs: int, ratio: float, runs: int, seed: int) -> list[int]:
    """The lifetimes of `runs` runs at m/sigma = ratio, seeds seed, seed + 1, ..."""
    fleet, margin = stagger(jobs)
    sigma = float(margin) / ratio
    return [lifetime(fleet, sigma, seed + r) for r in range(runs)]


def lifetime_exponents(lives: dict[int, list[int]]) -> list[float]:
    """Run by run (the same seed at every ratio), the least-squares slope of ln(lifetime)
    against ln(m/sigma): the exponent of the lifetime's power law, one sample per run."""
    ratios = sorted(lives)
    xs = [math.log(r) for r in ratios]
    xb = sum(xs) / len(xs)
    sxx = sum((x - xb) ** 2 for x in xs)
    out = []
    for i in range(len(lives[ratios[0]])):
        ys = [math.log(lives[r][i]) for r in ratios]
        yb = sum(ys) / len(ys)
        out.append(sum((x - xb) * (y - yb) for x, y in zip(xs, ys)) / sxx)
    return out


# ---------------------------------------------------------------- unequal jobs
def unequal_gaps(cycles: int, **overrides: object) -> tuple[Fleet, list[Fraction]]:
    """The exact gaps delta_k = t_B - t_A of models/unequal_volumes.toml (job 0 fires at 0)."""
    fleet = load("unequal_volumes", **overrides)
    a, b = simulate(fleet, cycles=cycles, exact=True).firings
    return fleet, [tb - ta for ta, tb in zip([Fraction(0)] + list(a), b)]
