"""The tail of the number of concurrent writers, P(n_w >= k), against independent phases.

    python models/writer_tail.py [--jobs 20] [--cycles 300] [--seeds 4]

Paper B (numerics): the fleet does not cluster, yet the upper tail of n_w is heavier than
with independent phases. The fleet's tail is the fraction of time with n_w >= k (exact
step function of the simulator). The baseline keeps each job's fraction of time spent
writing, p = E[n_w]/N (measured), and makes the jobs independent: n_w ~ Binomial(N, p).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _numerics import figure, save  # noqa: E402

from fito.models.fleet.numerics import binomial_tail, writer_tail  # noqa: E402


def fleet_tail(jobs: int, cycles: int, seeds: int, volume: str = "1/2") -> list[float]:
    """P(n_w >= k) for k = 0..N, averaged over the seeded runs (each after a 10-cycle burn-in)."""
    tails = [writer_tail(jobs, cycles, seed, volume) for seed in range(seeds)]
    return [sum(t[k] for t in tails) / seeds for k in range(jobs + 1)]


def compute(jobs: int = 20, cycles: int = 300, seeds: int = 4, volume: str = "1/2"):
    """(fleet tail, independent tail, p); V = 1/2 puts the storage at half load."""
    tail = fleet_tail(jobs, cycles, seeds, volume)
    mean = sum(tail[1:])  # E[n_w] = sum_{k >= 1} P(n_w >= k)
    p = mean / jobs
    return tail, binomial_tail(jobs, p), p


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--volume", default="1/2", help="V (W = 10, f = B = 2)")
    args = parser.parse_args()
    tail, indep, p = compute(args.jobs, args.cycles, args.seeds, args.volume)
    print(
        f"N = {args.jobs}, {args.cycles} cycles x {args.seeds} seeds; writing fraction p = {p:.4f}"
    )
    print(" k   P_fleet(n_w >= k)   P_independent(n_w >= k)   ratio")
    for k in range(1, args.jobs + 1):
        if tail[k] == 0 and indep[k] < 1e-12:
            break
        ratio = tail[k] / indep[k] if indep[k] > 0 else float("inf")
        print(f"{k:2d}   {tail[k]:17.3e}   {indep[k]:23.3e}   {ratio:7.2f}")
    plt, path = figure("writer_tail")
    fig, ax = plt.subplots(figsize=(6, 4))
    ks = range(1, args.jobs + 1)
    ax.semilogy(ks, [max(tail[k], 1e-12) for k in ks], "o-", label="fleet (simulated)")
    ax.semilogy(ks, [max(indep[k], 1e-12) for k in ks], "s--", label="independent phases")
    ax.set(xlabel="k", ylabel="P(n_w >= k)", ylim=(1e-8, 1.5), title="concurrent writers")
    ax.legend()
    save(fig, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
