"""Unequal volumes break the pairwise identity: the gap drifts by (V_B - V_A)/f(1) + (W_B - W_A).

    python models/unequal_volumes.py [--cycles 10]

Two jobs A (job 0) and B (job 1) with V_A != V_B, uncapped (models/unequal_volumes.toml).
The exact simulator gives the gap delta_k = t_B - t_A of each cycle; while the writes
overlap (delta f(1) < V_A) it moves by the same amount every cycle, which the script
compares with the section 8.1 formula, and with the drift that the return-map engine
derives symbolically for the overlapping branch.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _numerics import figure, save  # noqa: E402

from fito.models.fleet.numerics import unequal_gaps  # noqa: E402


def gaps(cycles: int, **overrides) -> tuple[object, list[Fraction]]:
    """The fleet and its exact gaps delta_k (job 0 fires at t = 0, job 1 next)."""
    return unequal_gaps(cycles, **overrides)


def formula(fleet) -> Fraction:
    """(V_B - V_A)/f(1) + (W_B - W_A), computed from the model's values."""
    (w_a, w_b), (v_a, v_b) = fleet.work, fleet.volume
    return (v_b - v_a) / fleet.f(1) + (w_b - w_a)


def engine_drift(fleet) -> Fraction:
    """The translation d of the overlapping branch's gap map, derived by the engine."""
    from fito.models.fleet.maps import gap_map
    from fito.models.fleet.returnmap import derive, overlapping, setting_from_fleet

    gm = gap_map(derive(setting_from_fleet(fleet), overlapping(2)))
    K = gm.K
    return Fraction(int(K.numer(gm.d[0])), int(K.denom(gm.d[0])))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=10)
    args = parser.parse_args()
    fleet, deltas = gaps(args.cycles)
    drift, derived = formula(fleet), engine_drift(fleet)
    v_a = fleet.volume[0]
    print(
        f"W = {[str(w) for w in fleet.work]}, V = {[str(v) for v in fleet.volume]}, "
        f"f(1) = {fleet.f(1)}"
    )
    print(
        f"formula (V_B - V_A)/f(1) + (W_B - W_A) = {drift}; engine (overlapping branch) "
        f"d = {derived}"
    )
    print(" k   delta_k   delta_k - delta_(k-1)   writes overlap")
    for k, d in enumerate(deltas):
        step = "" if k == 0 else str(d - deltas[k - 1])
        print(f"{k:2d}   {str(d):>7}   {step:>21}   {d * fleet.f(1) < v_a}")
    plt, path = figure("unequal_volumes")
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([float(d) for d in deltas], "o-", label="simulated gap")
    ax.plot(
        [float(deltas[0] + k * drift) for k in range(len(deltas))],
        "k--",
        label="delta_0 + k (V_B - V_A)/f(1)",
    )
    ax.axhline(float(v_a / fleet.f(1)), color="grey", lw=0.8, label="end of overlap")
    ax.set(xlabel="cycle", ylabel="gap t_B - t_A", title="unequal volumes drift")
    ax.legend()
    save(fig, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
