"""Shared helpers of the fleet numerics scripts (models/*.py): loading, cycles, figures.

Every script computes its figures with fito's simulator, prints them, and saves a PNG in
models/out/ (a build product, git-ignored). The tests import the `compute*` functions.
"""
from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from pathlib import Path

from fito.models.fleet import Fleet, load_fleet

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"


def load(name: str, **overrides: object) -> Fleet:
    """models/<name>.toml with command-line style overrides (strings)."""
    return load_fleet((HERE / f"{name}.toml").read_text(), name,
                      {k: v for k, v in overrides.items() if v is not None})


def phases_per_cycle(firings: Sequence[Sequence[float]], cycles: int) -> list[list[float]]:
    """phi_j in [0, 1) at each cycle k of job 0: (first firing of j at or after t0_k - t0_k)
    divided by the period t0_{k+1} - t0_k."""
    zero = firings[0]
    out = []
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


def figure(name: str):
    """A new matplotlib figure (Agg backend) and the path it will be saved to."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    OUT.mkdir(exist_ok=True)
    return plt, OUT / f"{name}.png"


def save(fig, path) -> None:  # type: ignore[no-untyped-def]
    """Lay the figure out, write it as PNG and say where."""
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"figure: {path}")
