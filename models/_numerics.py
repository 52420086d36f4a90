"""Shared helpers of the fleet numerics scripts (models/*.py): loading, cycles, figures.

Every script computes its figures with fito's simulator (the computations live in
`fito.models.fleet.numerics`, shared with the claims of proofs/numerics.py), prints them,
and saves a PNG in models/out/ (a build product, git-ignored). The tests import the
`compute*` functions.
"""

from __future__ import annotations

from pathlib import Path

from fito.models.fleet.numerics import load, order_parameter, phases_per_cycle, smallest_gap

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"


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


__all__ = [
    "HERE",
    "OUT",
    "figure",
    "load",
    "order_parameter",
    "phases_per_cycle",
    "save",
    "smallest_gap",
]
