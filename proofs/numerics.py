"""Paper B, numerics: statements about seeded simulations, with their samples in the certificate.

Each claim runs fito's simulator (`fito.models.fleet.numerics`) from fixed seeds, stores one
number per run (the sample), and states what the paper says as facts about means and
confidence intervals that the kernel recomputes from the stored samples: the mean and the
unbiased variance exactly, the two-sided Student-t interval at 99% with a conservative
critical value. That the samples are the simulator's output for those seeds is the
engine's word, as for every engine output; tests/models re-run the seeds and compare.

- `fleet.numerics.no-clustering`: from random phases, the order parameter stays far from
  synchrony and the smallest gap between phases does not shrink;
- `fleet.numerics.separation`: neighbouring trajectories separate, in every run;
- `fleet.numerics.separation-rate`: the separation is exponential: a fitted rate per
  cycle with a 99% confidence interval, constant over the run, agreeing with the endpoint
  estimate;
- `fleet.numerics.writer-tail`: the upper tail of the number of concurrent writers is
  heavier than with independent phases of the same writing fraction;
- `fleet.numerics.stagger-lifetime`: a stagger with margin m under compute jitter sigma
  lives about m^2 / (2 sigma^2) cycles (N = 2), and tripling m/sigma multiplies the
  lifetime by about 9 (the square law);
- `fleet.numerics.stagger-square-law`: the same over five ratios, and the exponent of
  the lifetime's power law fitted run by run, with a 99% interval within [3/2, 5/2];
- `fleet.numerics.synchrony-not-attractor`: synchrony is a fixed point of the exact
  simulation, and near it a perturbation grows by Theorem 8's N - 1 per cycle;
- `fleet.numerics.heterogeneity-drift`: two jobs of unequal volumes drift by the same
  amount each cycle, (V_B - V_A)/f(1) + (W_B - W_A) (exact simulation).
"""

from __future__ import annotations

import math
import statistics
from fractions import Fraction
from typing import Any

from fito.models.fleet import numerics as fn
from fito.proof import claim, enumeration, instance, proved, samples, to_expr, unknown

LEVEL = "99%"
Json = Any


def _exact(values) -> list[Fraction]:
    """Simulated floats as the exact rationals they are (rounded to 9 decimals)."""
    return [Fraction(round(v * 10**9), 10**9) for v in values]


def _upper(values: list[Fraction], t: float) -> Fraction:
    """A rational just above mean + t s / sqrt(n) (rounded up at the third decimal)."""
    floats = [float(v) for v in values]
    bound = statistics.mean(floats) + t * statistics.stdev(floats) / math.sqrt(len(floats))
    return Fraction(math.ceil(bound * 1000) + 1, 1000)


# ---------------------------------------------------------------- no clustering
CLUSTER_JOBS, CLUSTER_CYCLES, CLUSTER_SEEDS = 12, 150, 32
LOG_HALF = "-6931/10000"  # just above ln(1/2) = -0.693147...


@claim(
    id="fleet.numerics.no-clustering",
    title="from random starts fleets neither lock nor cluster",
    method="simulation+statistics",
    model=f"models/clustering_fleet.toml: {CLUSTER_JOBS} jobs, f = B = 2, W = 10, V = 3, "
    f"uncapped, random phases (seeds 0..{CLUSTER_SEEDS - 1}), {CLUSTER_CYCLES} cycles",
)
def no_clustering():
    """From random phases (32 seeded runs of 150 cycles of 12 jobs): the mean Kuramoto order
    parameter over the last 20 cycles has a 99% confidence interval within [0, 1/2] (synchrony
    is 1, random phases about 1/sqrt(12) = 0.29): no locking; and the smallest gap between
    consecutive phases, averaged over the last 20 cycles and divided by its average over the
    first 20, has a geometric mean whose 99% interval lies above 1/2 (the mean of the logs,
    above -0.6931 > ln(1/2)): no clustering."""
    runs = [
        fn.clustering_sample(CLUSTER_JOBS, CLUSTER_CYCLES, seed) for seed in range(CLUSTER_SEEDS)
    ]
    data = {
        "order_parameter": _exact(r for r, _ in runs),
        "log_gap_ratio": _exact(math.log(g) for _, g in runs),
    }
    return proved(
        samples(
            data,
            [
                ["mean_in", "order_parameter", 0, "1/2"],
                ["mean_above_value", "log_gap_ratio", LOG_HALF],
            ],
            level=LEVEL,
            note="one sample per seed: R over the last 20 cycles; ln of the "
            "smallest gap, last 20 over first 20 cycles",
        )
    )


# ---------------------------------------------------------------- separation
SEP_JOBS, SEP_CYCLES, SEP_SEEDS = 8, 25, 12


@claim(
    id="fleet.numerics.separation",
    title="neighbouring trajectories separate",
    method="simulation+statistics",
    model=f"models/clustering_fleet.toml with {SEP_JOBS} jobs, seeds 0..{SEP_SEEDS - 1}, "
    f"one initial phase moved by 1e-9, {SEP_CYCLES} cycles",
)
def separation():
    """In each of 12 seeded runs, moving one job's initial phase by 1e-9 makes the firing
    times of the two runs (relative to job 0's) differ more after 25 cycles than at the
    start: every finite-time separation rate is positive."""
    data = {
        "growth": _exact(
            fn.separation_sample(SEP_JOBS, SEP_CYCLES, seed) for seed in range(SEP_SEEDS)
        )
    }
    return proved(
        samples(
            data,
            [["all_above", "growth", 1]],
            level=LEVEL,
            note="|da_K| / |da_0| per seed, K = 25 cycles",
        )
    )


# ---------------------------------------------------------------- exponential separation
RATE_SEEDS = 32


@claim(
    id="fleet.numerics.separation-rate",
    title="separation is exponential: a fitted rate with a confidence interval",
    method="simulation+statistics",
    model=f"models/clustering_fleet.toml with {SEP_JOBS} jobs, seeds 0..{RATE_SEEDS - 1}, "
    f"one initial phase moved by 1e-9, {SEP_CYCLES} cycles",
)
def separation_rate():
    """Neighbouring trajectories separate exponentially, not just somehow. In each of 32
    seeded runs (one job's initial phase moved by 1e-9), ln(|da_k| / |da_0|) is fitted by
    least squares against the cycle k = 0..24: the mean fitted rate has a 99% confidence
    interval within [3/20, 3/10] per cycle (|da_k| ~ e^(rate k)); fitted over the first
    and over the second half of the cycles alone, the mean rates are both above 1/10 with
    99% confidence (the log-separation keeps a constant slope: no slowing to polynomial
    growth, no saturation); and the fitted rate agrees with the independent endpoint
    estimate ln(|da_K| / |da_0|) / (K - 1): the ratio of their means is within [2/3, 3/2]
    with 99% confidence."""
    runs = [fn.separation_rates(SEP_JOBS, SEP_CYCLES, seed) for seed in range(RATE_SEEDS)]
    data = {
        name: _exact(r[i] for r in runs)
        for i, name in enumerate(("rate", "early", "late", "endpoint"))
    }
    return proved(
        samples(
            data,
            [
                ["mean_in", "rate", "3/20", "3/10"],
                ["mean_above_value", "early", "1/10"],
                ["mean_above_value", "late", "1/10"],
                ["ratio_in", "rate", "endpoint", "2/3", "3/2"],
            ],
            level=LEVEL,
            note="one sample per seed: least-squares slopes of ln(|da_k| / |da_0|) per "
            "cycle (all cycles, first half, second half) and the endpoint estimate",
        )
    )


# ---------------------------------------------------------------- writer tail
TAIL_JOBS, TAIL_CYCLES, TAIL_SEEDS, TAIL_VOLUME = 16, 300, 32, "1"
TAIL_KS = (6, 7)


def binomial_tail_expr(n: int, k: int, p: Json) -> Json:
    """P(X >= k), X ~ Binomial(n, p), as a kernel expression: sum_(j=k..n) C(n, j) p^j
    (1-p)^(n-j) with C(n, j) = prod_(i=1..j) (n - j + i)/i."""
    binom = ["prod", "i", 1, "j", ["/", ["+", ["-", n, "j"], "i"], "i"]]
    term = ["*", binom, ["^", p, "j"], ["^", ["-", 1, p], ["-", n, "j"]]]
    return ["sum", "j", k, n, term]


@claim(
    id="fleet.numerics.writer-tail",
    title="heavier upper tail of concurrent writers",
    method="simulation+statistics",
    model=f"models/clustering_fleet.toml with {TAIL_JOBS} jobs, V = {TAIL_VOLUME}, seeds "
    f"0..{TAIL_SEEDS - 1}, {TAIL_CYCLES} cycles after a 10-cycle burn-in",
)
def writer_tail():
    """Over 32 seeded runs of 16 jobs (300 cycles): each job's writing fraction p (E[n_w]/N)
    has a 99% interval below p_hi, and for k = 6, 7 the fraction of time with at least k
    concurrent writers has a 99% interval above twice P(X >= k) for X ~ Binomial(16, p_hi),
    the tail with independent phases (increasing in p, so p_hi is the conservative choice):
    the fleet does not cluster, yet its upper tail is heavier."""
    tails = [
        fn.writer_tail(TAIL_JOBS, TAIL_CYCLES, seed, TAIL_VOLUME) for seed in range(TAIL_SEEDS)
    ]
    data = {"p": _exact(sum(t[1:]) / TAIL_JOBS for t in tails)}
    data |= {f"tail{k}": _exact(t[k] for t in tails) for k in TAIL_KS}
    p_hi = _upper(data["p"], 2.75)
    facts: list[list[Any]] = [["mean_below_value", "p", p_hi]]
    p_json = to_expr(p_hi)
    facts += [
        ["mean_above_value", f"tail{k}", ["*", 2, binomial_tail_expr(TAIL_JOBS, k, p_json)]]
        for k in TAIL_KS
    ]
    return proved(
        samples(
            data,
            facts,
            level=LEVEL,
            note="per seed: the writing fraction and the time fraction with n_w >= k",
        )
    )


# ---------------------------------------------------------------- stagger lifetime
LIFE_RUNS, LIFE_RATIOS, LIFE_FACTOR = 300, (8, 24), 3
PAPER_LIFETIME = ["/", ["^", "r", 2], 2]  # N = 2: m^2 / (2 sigma^2), r = m / sigma


@claim(
    id="fleet.numerics.stagger-lifetime",
    title="a stagger lives ~ (m/sigma)^2 cycles",
    method="simulation+statistics",
    model="2 jobs (models/staggered.toml, W = 10, V = 2, f = B = 1), evenly staggered, "
    f"compute W + sigma xi each cycle; m/sigma = {LIFE_RATIOS}, {LIFE_RUNS} runs each",
)
def stagger_lifetime():
    """Two staggered jobs with margin m and compute jitter sigma (300 seeded runs per
    m/sigma = 8 and 24): the mean number of cycles before two writes overlap has a 99%
    interval within [4/5, 8/5] m^2/(2 sigma^2) at both ratios (the paper's N = 2 mean, the
    excess being the random walk's overshoot), and tripling m/sigma multiplies it by a
    factor whose interval (from the two intervals) lies within [4, 14]: the square law
    (9), neither linear (3) nor cubic (27)."""
    data = {
        f"r{r}": [Fraction(x) for x in fn.lifetimes(2, r, LIFE_RUNS, 1000 * i)]
        for i, r in enumerate(LIFE_RATIOS)
    }
    facts: list[list[Any]] = []
    for r in LIFE_RATIOS:
        paper = instance(PAPER_LIFETIME, {"r": r})
        facts.append(["mean_in", f"r{r}", ["*", "4/5", paper], ["*", "8/5", paper]])
    low, high = LIFE_RATIOS[0], LIFE_RATIOS[-1]
    if high != LIFE_FACTOR * low:
        return unknown(f"the ratios must differ by the factor {LIFE_FACTOR}")
    facts.append(["ratio_in", f"r{high}", f"r{low}", 4, 14])
    return proved(samples(data, facts, level=LEVEL, note="cycles of job 0 before n_w = 2"))


SQUARE_RUNS, SQUARE_RATIOS, SQUARE_SEED = 300, (6, 8, 12, 16, 24), 5000


@claim(
    id="fleet.numerics.stagger-square-law",
    title="the stagger lifetime's square law over five ratios",
    method="simulation+statistics",
    model="2 jobs (models/staggered.toml, W = 10, V = 2, f = B = 1), evenly staggered, "
    f"compute W + sigma xi each cycle; m/sigma = {SQUARE_RATIOS}, {SQUARE_RUNS} runs, "
    "run i with seed 5000 + i at every ratio",
)
def stagger_square_law():
    """The square law beyond two ratios: at each of m/sigma = 6, 8, 12, 16, 24 (300 seeded
    runs each, run i with the same seed at every ratio) the mean lifetime has a 99%
    interval within [4/5, 8/5] of the paper's m^2/(2 sigma^2); and the power law's
    exponent, fitted run by run as the least-squares slope of ln(lifetime) against
    ln(m/sigma), has a mean whose 99% interval lies within [3/2, 5/2]: 2, neither
    linear (1) nor cubic (3). (The fitted exponent sits below 2 because the walk's
    overshoot past the margin adds relatively more at small ratios.)"""
    lives = {r: fn.lifetimes(2, r, SQUARE_RUNS, SQUARE_SEED) for r in SQUARE_RATIOS}
    data: dict[str, list[Fraction]] = {f"r{r}": [Fraction(x) for x in lives[r]] for r in lives}
    data["exponent"] = _exact(fn.lifetime_exponents(lives))
    facts: list[list[Any]] = []
    for r in SQUARE_RATIOS:
        paper = instance(PAPER_LIFETIME, {"r": r})
        facts.append(["mean_in", f"r{r}", ["*", "4/5", paper], ["*", "8/5", paper]])
    facts.append(["mean_in", "exponent", "3/2", "5/2"])
    return proved(
        samples(
            data,
            facts,
            level=LEVEL,
            note="cycles of job 0 before n_w = 2 at each ratio; the fitted exponent per run",
        )
    )


# ---------------------------------------------------------------- heterogeneity
DRIFT_CYCLES = 8
DRIFT_MODELS = ({}, {"work": ["10", "11"], "volume": ["8", "7"]})
PAPER_DRIFT = ["+", ["/", ["-", "V_B", "V_A"], "f1"], ["-", "W_B", "W_A"]]


def _table(values: list[Fraction], k: str) -> Json:
    """values[k] for k = 0..len-1 as an if-then-else chain over k (the stored gaps)."""
    out: Json = 0
    for i in range(len(values) - 1, -1, -1):
        out = [
            "ite",
            ["=", k, i],
            str(values[i]) if values[i].denominator != 1 else values[i].numerator,
            out,
        ]
    return out


@claim(
    id="fleet.numerics.heterogeneity-drift",
    title="unequal jobs drift every cycle",
    method="simulation+enumeration",
    model="models/unequal_volumes.toml (W = 10, V = 8, 9, f = B = 2, uncapped) and a "
    f"variant (W = 10, 11, V = 8, 7); exact simulation, {DRIFT_CYCLES} cycles",
)
def heterogeneity_drift():
    """Two jobs A (job 0) and B of unequal volumes (and work), uncapped, writes overlapping:
    in the exact simulation the gap delta_k = t_B - t_A moves by (V_B - V_A)/f(1) + (W_B - W_A)
    every cycle while the writes overlap (the kernel checks each step of the stored gaps
    against the paper's drift with the model's numbers)."""
    obligations = []
    for overrides in DRIFT_MODELS:
        fleet, gaps = fn.unequal_gaps(DRIFT_CYCLES, **overrides)
        overlapping = [k for k in range(len(gaps) - 1) if gaps[k] * fleet.f(1) < fleet.volume[0]]
        if not overlapping or overlapping != list(range(len(overlapping))):
            return unknown("the writes do not overlap from the start")
        (w_a, w_b), (v_a, v_b) = fleet.work, fleet.volume
        drift = instance(
            PAPER_DRIFT, {"V_A": v_a, "V_B": v_b, "W_A": w_a, "W_B": w_b, "f1": fleet.f(1)}
        )
        step = ["-", _table(gaps, ["+", "k", 1]), _table(gaps, "k")]
        obligations.append(
            enumeration(
                [("k", 0, len(overlapping) - 1)],
                "all",
                True,
                expr=["=", step, drift],
                note=f"{fleet.name} W = {[str(w) for w in fleet.work]}, "
                f"V = {[str(v) for v in fleet.volume]}: the stored "
                f"gaps {[str(g) for g in gaps]}",
            )
        )
    return proved(*obligations)


# ---------------------------------------------------------------- synchrony
SYNC_JOBS, SYNC_CYCLES = (3, 4, 5, 6), 4
PAPER_LARGEST = ["-", "N", 1]  # Theorem 8, constant f: the largest multiplier is N - 1


def _stored(values: list[Fraction]) -> list[Any]:
    return [str(v) if v.denominator != 1 else v.numerator for v in values]


@claim(
    id="fleet.numerics.synchrony-not-attractor",
    title="synchrony is a fixed point but not an attractor",
    method="simulation+enumeration",
    model="models/overlap.toml (W = 20, V = 4, f = B = 1, uncapped), N = 3..6; exact "
    f"simulation, {SYNC_CYCLES} cycles",
)
def synchrony_not_attractor():
    """For N = 3, 4, 5, 6 identical jobs (exact rational simulation): from synchronous
    phases every job fires with job 0 in every cycle (the firing times relative to job 0's
    are all 0: a fixed point); from the near-synchronous starts at phase steps 1/(8N) and
    1/(800N), moving job 1's phase by 1e-9 makes the two runs' relative firing times differ
    by exactly (N - 1)^k times the initial difference after k = 0..3 cycles: N - 1 is
    Theorem 8's largest multiplier (the paper's formula, evaluated by the kernel), and
    shrinking the distance to synchrony a hundredfold leaves the growth unchanged, so no
    neighbourhood of synchrony is attracted to it."""
    obligations = []
    for N in SYNC_JOBS:
        fleet = fn.load("overlap", jobs=str(N), phases="ramp:0")
        rel = fn.relative_firings(
            fn.simulate(fleet, SYNC_CYCLES + 2, exact=True).firings, SYNC_CYCLES
        )
        flat = [Fraction(t) for row in rel for t in row]
        cells = [("k", 0, len(flat) - 1)]
        obligations.append(
            enumeration(
                cells,
                "all",
                True,
                expr=["=", _table(flat, "k"), 0],
                note=f"N = {N}, synchronous start: the stored relative firing times "
                f"({len(rel)} cycles x {N - 1} jobs) are all 0",
            )
        )
        for step in (Fraction(1, 8 * N), Fraction(1, 800 * N)):
            near = fn.load("overlap", jobs=str(N), phases=f"ramp:{step}")
            ratios = [
                Fraction(r)
                for r in fn.separation(near, 1, Fraction(1, 10**9), SYNC_CYCLES, exact=True)
            ]
            growth = ["^", instance(PAPER_LARGEST, {"N": N}), "k"]
            obligations.append(
                enumeration(
                    [("k", 0, len(ratios) - 1)],
                    "all",
                    True,
                    expr=["=", _table(ratios, "k"), growth],
                    note=f"N = {N}, start {step} from synchrony: the stored growth "
                    f"{_stored(ratios)} is (N - 1)^k",
                )
            )
    return proved(*obligations)
