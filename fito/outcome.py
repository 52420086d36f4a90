"""What checking one file came to: its diagnostics and verdicts (`FileReport`), and the exit
status they imply (LANGUAGE.md): 0 all hold, 1 a failure or an error, 2 unreadable or
unparsable, 3 a limit was hit before a verdict."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fito import display
from fito.check.result import FAILS, UNKNOWN, Verdict
from fito.diagnostics import Diagnostic

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_LIMIT = 0, 1, 2, 3
# Z3 could not decide an epoch fact, or a budget was reached: a limit, not a failure
UNDECIDED = frozenset({"FITO007", "M003"})


@dataclass(frozen=True, slots=True)
class FileReport:
    """One file's diagnostics and verdicts, as every command renders them."""

    path: str
    text: str | None
    diagnostics: tuple[Diagnostic, ...]
    verdicts: tuple[Verdict, ...] = ()
    unreadable: bool = False  # could not be read or parsed

    @property
    def status(self) -> int:
        """The exit status this file alone implies."""
        if self.unreadable:
            return EXIT_INPUT
        if any(d.is_error and d.code not in UNDECIDED for d in self.diagnostics) or any(
            v.verdict == FAILS for v in self.verdicts
        ):
            return EXIT_FAIL
        if any(v.verdict == UNKNOWN for v in self.verdicts) or any(
            d.code in UNDECIDED for d in self.diagnostics
        ):
            return EXIT_LIMIT
        return EXIT_OK

    def _repr_html_(self) -> str:
        """Notebooks: diagnostics, a table of verdicts, each run as a chart."""
        return display.html(self)


def exit_status(reports: Iterable[FileReport]) -> int:
    """The status of a run over several files: 2 beats 1 beats 3 beats 0."""
    return worst({r.status for r in reports})


def worst(statuses: Iterable[int]) -> int:
    """2 beats 1 beats 3 beats 0."""
    seen = set(statuses)
    for s in (EXIT_INPUT, EXIT_FAIL, EXIT_LIMIT):
        if s in seen:
            return s
    return EXIT_OK
