"""No clustering from random starts: order parameter and smallest gap over 300 cycles.

    python models/clustering.py [--jobs 12] [--cycles 300] [--seeds 8]

Paper B (numerics): from random phases, fleets neither lock nor cluster. For each seed the
fleet (storage contention f = B, overlapping writes) runs `cycles` cycles of job 0; at each
cycle the phases phi_j = (t_j - t_0)/period give Kuramoto's order parameter R (1 = synchrony,
about 1/sqrt(N) at random) and the smallest gap between consecutive phases.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _numerics import figure, save  # noqa: E402

from fito.models.fleet.numerics import clustering_series  # noqa: E402


def compute(jobs: int = 12, cycles: int = 300, seeds: int = 8, capacity: str | None = None):
    """Per seed: the series R_k and smallest gap g_k, k = 0..cycles-1."""
    return [clustering_series(jobs, cycles, seed, capacity) for seed in range(seeds)]


def summary(series, window: int = 20) -> dict[str, float]:
    """Means over the first and last `window` cycles, across seeds."""
    first_r = statistics.mean(statistics.mean(r[:window]) for r, _ in series)
    last_r = statistics.mean(statistics.mean(r[-window:]) for r, _ in series)
    first_g = statistics.mean(statistics.mean(g[:window]) for _, g in series)
    last_g = statistics.mean(statistics.mean(g[-window:]) for _, g in series)
    worst = min(min(g) / g[0] for _, g in series)
    return {
        "R_first": first_r,
        "R_last": last_r,
        "gap_first": first_g,
        "gap_last": last_g,
        "worst_gap_ratio": worst,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=12)
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--seeds", type=int, default=8)
    args = parser.parse_args()
    plt, path = figure("clustering")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for label, cap in (("uncapped", None), ("capped", str(args.jobs * 3 // 4))):
        series = compute(args.jobs, args.cycles, args.seeds, cap)
        s = summary(series)
        print(f"{label}: N = {args.jobs}, {args.cycles} cycles, {args.seeds} seeds")
        print(
            f"  order parameter R: first 20 cycles {s['R_first']:.3f}, last 20 "
            f"{s['R_last']:.3f} (random phases: about {args.jobs**-0.5:.3f}; synchrony: 1)"
        )
        print(
            f"  smallest gap (periods): first 20 cycles {s['gap_first']:.4f}, last 20 "
            f"{s['gap_last']:.4f}; worst min/initial over all seeds {s['worst_gap_ratio']:.3f}"
        )
        for r, g in series[:3]:
            ax1.plot(r, lw=0.8, ls="-" if cap is None else "--")
            ax2.plot(g, lw=0.8, ls="-" if cap is None else "--")
    ax1.set(
        xlabel="cycle",
        ylabel="order parameter R",
        ylim=(0, 1),
        title="no locking (solid: uncapped, dashed: capped)",
    )
    ax2.set(
        xlabel="cycle",
        ylabel="smallest gap (periods)",
        title="no clustering (solid: uncapped, dashed: capped)",
    )
    save(fig, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
