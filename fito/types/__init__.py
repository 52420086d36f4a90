"""The FITO type system: Snap(D, t) versus Conv(P, e) in pipelines, epochs decided by Z3.

Public surface: `check_pipelines(model) -> list[Diagnostic]` (used by `fito check` and
`fito types`), `reveal_types(model)` (the type of every pipeline name, for `fito types
--reveal` and tests) and `EpochOracle` (the cached Z3 side, with its query counts).
"""

from __future__ import annotations

from fito.types.checker import Revealed, check_pipelines, reveal_types
from fito.types.oracle import EpochOracle

__all__ = ["EpochOracle", "Revealed", "check_pipelines", "reveal_types"]
