"""One spec file from text to verdicts: read, parse, resolve, type-check, model-check.

Each stage is a pure function of the one before; this module only sequences them and
decides the exit status (LANGUAGE.md): 0 all hold, 1 a failure or an error, 2 unreadable or
unparsable, 3 a limit was hit before a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fito.check.result import FAILS, UNKNOWN, Verdict
from fito.diagnostics import Diagnostic, error, sort_key
from fito.source import DEFAULT_MAX_BYTES, Source, read_source

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_LIMIT = 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class CheckOptions:
    max_states: int | None = None
    timeout: float | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    model_check: bool = True
    type_check: bool = True
    progress: bool = False
    engine: str = "auto"
    jobs: int = 1


@dataclass(frozen=True, slots=True)
class FileReport:
    path: str
    text: str | None
    diagnostics: tuple[Diagnostic, ...]
    verdicts: tuple[Verdict, ...] = ()
    unreadable: bool = False  # could not be read or parsed

    @property
    def status(self) -> int:
        if self.unreadable:
            return EXIT_INPUT
        undecided = {"FITO007", "M003"}  # Z3 undecided, or a budget reached: a limit
        if any(d.is_error and d.code not in undecided for d in self.diagnostics) or any(
            v.verdict == FAILS for v in self.verdicts
        ):
            return EXIT_FAIL
        if any(v.verdict == UNKNOWN for v in self.verdicts) or any(
            d.code in undecided for d in self.diagnostics
        ):
            return EXIT_LIMIT
        return EXIT_OK

    def _repr_html_(self) -> str:
        """Notebooks: diagnostics, a table of verdicts, each run as a chart."""
        from fito.render.page import report_html

        return report_html(self)


def check_path(path: str, options: CheckOptions) -> FileReport:
    """Read and check one file."""
    from fito import budget
    from fito.lang.syntax.parser import machinery

    machinery()  # built (or loaded) once per process: not part of any file's time
    with budget.active(budget.current().within(options.timeout)):
        src = read_source(path, options.max_bytes)
    if isinstance(src, Diagnostic):
        return FileReport(path, None, (src,), unreadable=True)
    return check_source(src, options)


def front_end(text: str) -> tuple[Any, Any, tuple[Diagnostic, ...]]:
    """Parse and resolve: (ParseResult, Model or None, resolve diagnostics).

    The collector is paused meanwhile and the tree is frozen afterwards: the AST lives as
    long as the check, and scanning its hundreds of thousands of nodes again and again (a
    full collection costs about 0.4 s per 20,000 lines) buys nothing."""
    import gc

    from fito import budget
    from fito.lang.resolve.resolver import resolve
    from fito.lang.syntax.parser import parse

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        parsed = parse(text)
        if parsed.spec is None or not parsed.spec.decls:
            return parsed, None, ()
        budget.current().poll()  # between stages: the deadline and the memory, now
        model, diags = resolve(parsed.spec)
        budget.current().poll()
        return parsed, model, tuple(diags)
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def check_source(src: Source, options: CheckOptions) -> FileReport:
    """Parse, resolve, type-check and (optionally) model-check one source text.

    The front end and the type checker run under the budget of the command with the
    deadline of `--timeout` from now (fito.budget); reaching a bound there ends the file
    with an M003 diagnostic (exit status 3) saying which stage stopped."""
    from fito import budget

    stage = "parsing and resolving"
    try:
        with budget.active(budget.current().within(options.timeout)):
            parsed, model, resolve_diags = front_end(src.text)
            if parsed.spec is None:
                return FileReport(src.path, src.text, parsed.diagnostics, unreadable=True)
            if model is None:
                diag = error("C006", "the file holds no declarations")
                return FileReport(src.path, src.text, (diag,), unreadable=True)
            diags = list(parsed.diagnostics) + list(resolve_diags)
            # the processes can be model-checked when parsing and resolving found no error;
            # the pipelines' type errors (reported next) do not concern them
            blocked = any(d.is_error for d in diags)
            stage = "type checking the pipelines"
            if options.type_check:
                diags.extend(_type_check(model, options.timeout))
    except budget.BudgetExceeded as exc:
        return FileReport(src.path, src.text, (limit_diagnostic(exc, stage),))
    verdicts: tuple[Verdict, ...] = ()
    if options.model_check:
        checked, refusals = _model_check(model, options, blocked)
        diags.extend(refusals)
        verdicts = tuple(
            _with_source_text(v, a, src.text) for v, a in zip(checked, model.assertions)
        )
    diags.sort(key=sort_key)
    return FileReport(src.path, src.text, tuple(diags), verdicts)


def limit_diagnostic(exc: Exception, stage: str) -> Diagnostic:
    """The M003 diagnostic of a budget reached in a stage that has no verdict to carry it."""
    message = getattr(exc, "message", str(exc))
    return error(
        "M003",
        f"{message} while {stage}; nothing was decided",
        hint="raise --timeout or --max-memory",
    )


def _with_source_text(v: Verdict, a: object, text: str) -> Verdict:
    """Label a verdict with the assertion as written (up to the end of its last line)."""
    from dataclasses import replace

    span = a.span  # type: ignore[attr-defined]
    end = text.find("\n", span.end)
    written = text[span.start : len(text) if end < 0 else end]
    written = "\n".join(line.split("--", 1)[0].rstrip() for line in written.splitlines())
    written = " ".join(written.split())
    if written.startswith("assert"):
        written = written[len("assert") :].strip()
    return replace(v, text=written or v.text)


def _type_check(model: object, timeout: float | None) -> list[Diagnostic]:
    if not model.pipelines:  # type: ignore[attr-defined]
        return []  # nothing to type-check: the type checker is not even imported
    from fito.types import check_pipelines  # the FITO type checker (issue #4)

    if timeout is None:
        return list(check_pipelines(model))
    return list(check_pipelines(model, timeout_ms=max(1, int(timeout * 1000))))


def _model_check(
    model: object, options: CheckOptions, blocked: bool
) -> tuple[tuple[Verdict, ...], tuple[Diagnostic, ...]]:
    """The verdicts, and the diagnostic of a model the checker refuses (an expansion too
    large to make, a shape of process variables it cannot represent: fito.semantics.rules.refusal)."""
    from fito.lang.printer.canonical import print_assertion

    assertions = model.assertions  # type: ignore[attr-defined]

    def unknown(reason: str) -> tuple[Verdict, ...]:
        return tuple(
            Verdict(print_assertion(a), a.span.line, UNKNOWN, reason=reason) for a in assertions
        )

    if blocked:
        return unknown("not checked: the spec has errors"), ()
    try:
        from fito.check.verdicts import check_assertions
        from fito.semantics.rules.refusal import NotSupported
    except ImportError:
        return unknown("the model checker is not available"), ()
    refusals: list[Diagnostic] = []
    try:
        return tuple(check_assertions(model, options, refusals)), tuple(refusals)
    except NotSupported as refusal:  # an expansion too large to compile the model at all
        return unknown(f"not checked: {refusal}"), (refusal.diagnostic,)


def exit_status(reports: list[FileReport]) -> int:
    """2 beats 1 beats 3 beats 0."""
    statuses = {r.status for r in reports}
    for s in (EXIT_INPUT, EXIT_FAIL, EXIT_LIMIT):
        if s in statuses:
            return s
    return EXIT_OK
