"""`fito types` on files: read, parse, resolve and type-check (no model checking).

The stages are the driver's (`fito.driver`); this module only keeps the model's pipeline
count for the summary and uses one shared, cached `EpochOracle` for every file.
"""

from __future__ import annotations

from dataclasses import dataclass

from fito.budget import BudgetExceeded
from fito.diagnostics import Diagnostic, error, sort_key
from fito.driver import EXIT_FAIL, EXIT_INPUT, EXIT_LIMIT, EXIT_OK, FileReport, limit_diagnostic
from fito.source import DEFAULT_MAX_BYTES, Source, read_source
from fito.types.checker import Revealed, check_pipelines, reveal_types
from fito.types.oracle import EpochOracle

UNDECIDED = ("FITO007", "M003")  # Z3 could not decide, or a bound was reached: a limit


@dataclass(frozen=True, slots=True)
class TypeReport:
    report: FileReport
    pipelines: int = 0
    revealed: tuple[Revealed, ...] = ()


def type_check_path(
    path: str, oracle: EpochOracle, max_bytes: int = DEFAULT_MAX_BYTES, reveal: bool = False
) -> TypeReport:
    """Parse, resolve and type-check one file (under the command's budget, fito.budget)."""
    src = read_source(path, max_bytes)
    if isinstance(src, Diagnostic):
        return TypeReport(FileReport(path, None, (src,), unreadable=True))
    try:
        return _type_check_source(src, oracle, reveal)
    except BudgetExceeded as exc:  # --timeout (the file) or --max-memory: exit status 3
        return TypeReport(FileReport(src.path, src.text, (limit_diagnostic(exc, "type checking"),)))


def _type_check_source(src: Source, oracle: EpochOracle, reveal: bool) -> TypeReport:
    from fito.lang.resolve.resolver import resolve
    from fito.lang.syntax.parser import parse

    parsed = parse(src.text)
    if parsed.spec is None:
        return TypeReport(FileReport(src.path, src.text, parsed.diagnostics, unreadable=True))
    if not parsed.spec.decls:
        diag = error("C006", "the file holds no declarations")
        return TypeReport(FileReport(src.path, src.text, (diag,), unreadable=True))
    model, resolve_diags = resolve(parsed.spec)
    diags = list(parsed.diagnostics) + list(resolve_diags) + check_pipelines(model, oracle=oracle)
    diags.sort(key=sort_key)
    revealed = tuple(reveal_types(model, oracle=oracle)) if reveal else ()
    return TypeReport(FileReport(src.path, src.text, tuple(diags)), len(model.pipelines), revealed)


def render_revealed(results: list[TypeReport]) -> str:
    """`file:line:col: note: pipeline.name: Type`, one line per local name."""
    return "\n".join(
        f"{r.report.path}:{x.span.line}:{x.span.column}: note: {x.pipeline}.{x.name}: {x.type}"
        for r in results
        for x in r.revealed
    )


def file_status(r: TypeReport) -> int:
    """2 unreadable, 1 errors, 3 only undecided epoch questions (a solver limit), else 0."""
    if r.report.unreadable:
        return EXIT_INPUT
    errors = [d for d in r.report.diagnostics if d.is_error]
    if any(d.code not in UNDECIDED for d in errors):
        return EXIT_FAIL
    return EXIT_LIMIT if errors else EXIT_OK


def exit_status(results: list[TypeReport]) -> int:
    """2 beats 1 beats 3 beats 0, as for `fito check`."""
    statuses = {file_status(r) for r in results}
    for s in (EXIT_INPUT, EXIT_FAIL, EXIT_LIMIT):
        if s in statuses:
            return s
    return EXIT_OK


def summary(results: list[TypeReport]) -> str:
    """mypy's closing line: `Found 2 errors and 1 warning in 1 file (checked 3 pipelines in 2 files)`."""
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
