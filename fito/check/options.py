"""What a user can ask of a check (`CheckOptions`), and the bounds one search runs under
(`Limits`), derived from them. Both live here, below every layer that reads them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fito.source import DEFAULT_MAX_BYTES

if TYPE_CHECKING:
    from fito.diagnostics import Diagnostic

ENGINES = ("auto", "frontier", "scalar", "symbolic")


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """The options of `fito check` (and of `fito.check_file`): bounds, stages, engine."""

    max_states: int | None = None  # None: no bound but the memory budget (docs/limits.md)
    timeout: float | None = None  # seconds per search (assertions about one process share one)
    max_bytes: int = DEFAULT_MAX_BYTES  # the largest spec file read
    model_check: bool = True
    type_check: bool = True
    progress: bool = False  # a line per level on standard error
    engine: str = "auto"  # one of ENGINES
    jobs: int = 1  # processes of the frontier engine (`--jobs`)
    reduce: bool = True  # symmetry (and later partial-order) reduction; `--no-reduce` off
    distributed: bool = False  # the MPI engine (`--distributed`, fito/check/distributed/)
    checkpoint_dir: str | None = None  # where a distributed search writes its checkpoints
    checkpoint_every: int | None = None  # levels between checkpoints (`--checkpoint-every`)
    checkpoint_minutes: float | None = None  # minutes between checkpoints
    resume: str | None = None  # a checkpoint directory to continue from (`--resume`)
    # called with (path, source text, warnings) once the front end is done and before any
    # search starts: `fito check` prints them at once (a T601 growing choice must be said
    # before a search that may not close, not after it)
    before_search: Callable[[str, str, tuple[Diagnostic, ...]], None] | None = None

    def limits(self) -> Limits:
        """The bounds of one search under these options."""
        return Limits(
            self.max_states,
            self.timeout,
            self.progress,
            self.engine,
            self.jobs,
            self.reduce,
            self.distributed,
            self.checkpoint_dir,
            self.checkpoint_every,
            self.checkpoint_minutes,
            self.resume,
        )


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds and the engine of one search."""

    max_states: int | None = None
    timeout: float | None = None
    progress: bool = False
    engine: str = "auto"  # auto (frontier where states pack), frontier, scalar, symbolic
    jobs: int = 1  # processes of the frontier engine
    reduce: bool = True  # reductions allowed (fito/check/reduce/)
    distributed: bool = False  # hash-partitioned over the ranks of an MPI run
    checkpoint_dir: str | None = None
    checkpoint_every: int | None = None  # levels
    checkpoint_minutes: float | None = None
    resume: str | None = None
