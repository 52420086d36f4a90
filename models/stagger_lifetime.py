"""Stagger lifetime under compute jitter: about (m/sigma)^2 cycles (N = 2: m^2 / (2 sigma^2)).

    python models/stagger_lifetime.py [--runs 300] [--jobs 2 4]

A staggered fleet (writes never overlap) is invariant without noise (Proposition 16). With
per-cycle jitter, every compute phase draws W + sigma * xi (xi standard normal). The
stagger starts with margin m: each gap sits m away from both ends of its collision-free
window, so for N = 2 the gap is a driftless random walk with step variance 2 sigma^2 started
m from two absorbing ends, whose mean exit time is m^2 / (2 sigma^2). The lifetime is the
number of cycles of job 0 before two writes overlap (n_w = 2); the script fits the exponent
of lifetime against m/sigma on a log-log scale. For N = 2 it also prints the random walk's
mean exit time with Siegmund's overshoot correction, (m/s + 0.583)^2 with s = sqrt(2) sigma,
which the small ratios need.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

import mpmath

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _numerics import figure, save  # noqa: E402

from fito.models.fleet.numerics import lifetimes, stagger  # noqa: E402

# A Gaussian random walk (step s) overshoots a boundary by about -zeta(1/2)/sqrt(2 pi) s
# (Siegmund), so its mean exit time from (-m, m) is close to (m/s + 0.583)^2, s = sqrt(2) sigma.
OVERSHOOT = float(-mpmath.zeta(0.5)) / math.sqrt(2 * math.pi)


def compute(jobs: int, ratios, runs: int, seed: int = 0):
    """For each m/sigma: the mean lifetime over `runs` seeded runs."""
    _, margin = stagger(jobs)
    means = [
        statistics.mean(lifetimes(jobs, ratio, runs, seed + 1000 * k))
        for k, ratio in enumerate(ratios)
    ]
    return float(margin), means


def fit_exponent(ratios, means) -> float:
    """Least-squares slope of ln(mean lifetime) against ln(m/sigma)."""
    xs, ys = [math.log(r) for r in ratios], [math.log(m) for m in means]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--jobs", type=int, nargs="+", default=[2, 4])
    args = parser.parse_args()
    ratios = [4, 6, 8, 12, 16, 24]
    plt, path = figure("stagger_lifetime")
    fig, ax = plt.subplots(figsize=(6, 4))
    for jobs in args.jobs:
        margin, means = compute(jobs, ratios, args.runs)
        slope = fit_exponent(ratios, means)
        upper = [(r, m) for r, m in zip(ratios, means) if r >= 8]
        tail = fit_exponent([r for r, _ in upper], [m for _, m in upper])
        print(
            f"N = {jobs}: margin m = {margin:.3f}, {args.runs} runs per point; fitted "
            f"exponent {slope:.2f} (all points), {tail:.2f} (m/sigma >= 8, where the "
            f"random walk's overshoot of the boundary matters less)"
        )
        for r, m in zip(ratios, means):
            extra = (
                f"   m^2/(2 sigma^2) = {r * r / 2:8.1f}   with the overshoot "
                f"(m/s + {OVERSHOOT:.3f})^2 = {(r / math.sqrt(2) + OVERSHOOT) ** 2:8.1f}"
                if jobs == 2
                else ""
            )
            print(f"  m/sigma = {r:3d}: mean lifetime {m:9.1f} cycles{extra}")
        ax.loglog(ratios, means, "o-", label=f"N = {jobs} (slope {slope:.2f})")
    ax.loglog(ratios, [r * r / 2 for r in ratios], "k--", label="m^2 / (2 sigma^2)")
    ax.set(xlabel="m / sigma", ylabel="mean lifetime (cycles)", title="stagger lifetime")
    ax.legend()
    save(fig, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
