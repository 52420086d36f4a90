"""The FITO type system: Snap(D, t) versus Conv(P, e) in pipelines, epochs decided by Z3.

Public surface: `check_pipelines(model) -> list[Diagnostic]` (used by `fito check` and
`fito types`), and `EpochOracle` (the cached Z3 side, with its query counts).
"""
from __future__ import annotations

from fito.types.checker import check_pipelines
from fito.types.oracle import EpochOracle

__all__ = ["check_pipelines", "EpochOracle"]
