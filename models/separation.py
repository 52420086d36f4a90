"""Finite-time separation rates: neighbouring trajectories separate.

    python models/separation.py [--jobs 8] [--cycles 25] [--seeds 12]

Two runs differ by moving one job's initial phase by eps. At each cycle k of job 0 the
firing times of jobs 1..N-1 relative to job 0's (sums of the gaps a_k) of both runs are
compared in the max norm; the finite-time rate over K cycles is (1/K) ln(|da_K| / |da_0|).
From a fully overlapping
start (models/overlap.toml) a perturbation of a_1 grows by the largest multiplier of
Theorem 8, lambda_1 = (N-1) f(1) / f(N-1), per cycle while the fleet stays in that branch.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _numerics import figure, load, save  # noqa: E402

from fito.models.fleet.numerics import separation, separation_sample  # noqa: E402


def overlap_factor(jobs: int) -> Fraction:
    """One cycle from the fully overlapping start, exact: the growth of a perturbed a_1."""
    fleet = load("overlap", jobs=str(jobs), phases=f"ramp:1/{4 * jobs}")
    ratios = separation(fleet, 1, Fraction(1, 10**6), 2, exact=True)
    return ratios[1]


def random_rates(jobs: int, cycles: int, seeds: int, eps: float = 1e-9) -> list[float]:
    """Finite-time rates (1/K) ln(|da_K| / |da_0|) from random starts."""
    return [
        math.log(separation_sample(jobs, cycles, seed, eps)) / (cycles - 1) for seed in range(seeds)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--cycles", type=int, default=25)
    parser.add_argument("--seeds", type=int, default=12)
    args = parser.parse_args()
    print("fully overlapping start, f = B: one-cycle growth of a perturbed a_1")
    for n in (3, 4, 6, 8):
        print(f"  N = {n}: measured {overlap_factor(n)}, Theorem 8 lambda_1 = N - 1 = {n - 1}")
    rates = random_rates(args.jobs, args.cycles, args.seeds)
    print(
        f"random starts, N = {args.jobs}, {args.cycles} cycles, {args.seeds} seeds: "
        f"finite-time rates per cycle: mean {statistics.mean(rates):.3f}, "
        f"min {min(rates):.3f}, max {max(rates):.3f}; positive in "
        f"{sum(r > 0 for r in rates)}/{len(rates)}"
    )
    plt, path = figure("separation")
    fig, ax = plt.subplots(figsize=(6, 4))
    for seed in range(min(args.seeds, 6)):
        fleet = load("clustering_fleet", jobs=str(args.jobs), phases=f"random:{seed}")
        ax.semilogy(
            separation(fleet, 1 + seed % (args.jobs - 1), Fraction(1e-9), args.cycles), lw=0.9
        )
    ax.set(xlabel="cycle", ylabel="|da_k| / |da_0|", title="separation of neighbouring runs")
    save(fig, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
