"""`fito types`'s report: the revealed types and mypy's closing line.

The stages are the pipeline's (`fito.pipeline.type_check_path`); exit statuses are
`fito.outcome`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fito.outcome import worst

if TYPE_CHECKING:
    from fito.pipeline import TypeReport


def render_revealed(results: Sequence[TypeReport]) -> str:
    """`file:line:col: note: pipeline.name: Type`, one line per local name."""
    return "\n".join(
        f"{r.report.path}:{x.span.line}:{x.span.column}: note: {x.pipeline}.{x.name}: {x.type}"
        for r in results
        for x in r.revealed
    )


def exit_status(results: Sequence[TypeReport]) -> int:
    """2 beats 1 beats 3 beats 0, as for `fito check`."""
    return worst(r.report.status for r in results)


def summary(results: Sequence[TypeReport]) -> str:
    """mypy's closing line, e.g. `Found 2 errors and 1 warning in 1 file (checked 3 pipelines
    in 2 files)`."""
    errors = sum(1 for r in results for d in r.report.diagnostics if d.is_error)
    warnings = sum(1 for r in results for d in r.report.diagnostics if d.severity == "warning")
    bad_files = sum(1 for r in results if any(d.is_error for d in r.report.diagnostics))
    pipelines = sum(r.pipelines for r in results)
    checked = (
        f"checked {pipelines} pipeline{_s(pipelines)} in {len(results)} file{_s(len(results))}"
    )
    if not errors:
        extra = f" ({warnings} warning{_s(warnings)})" if warnings else ""
        return f"Success: no type errors{extra}; {checked}"
    found = f"Found {errors} error{_s(errors)}"
    if warnings:
        found += f" and {warnings} warning{_s(warnings)}"
    return f"{found} in {bad_files} file{_s(bad_files)} ({checked})"


def _s(n: int) -> str:
    return "" if n == 1 else "s"
