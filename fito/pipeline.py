"""One spec from text to verdicts: read, parse, resolve, type-check, model-check.

The one implementation of fito's pipeline: `fito check`, `fito types`, `fito lts`,
`fito replay`, the language server, the pytest plugin, `fito lint --model` and the public
API (`fito.check_file`) all run their stages through here. Each stage is a pure function
of the one before (`fito.lang`, `fito.types`, `fito.check`); this module sequences them
under the command's budget (`fito.budget`) and turns what stops them into diagnostics.

    read_source ──> front_end ──────────> FrontEnd(parsed, model, diagnostics)
                       │  type_check ───> FITO diagnostics (pipelines, Z3)
                       └─ model_check ──> verdicts (fito.check.verdicts)
    check_source = all of them, as a FileReport (fito.outcome)
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from fito import budget
from fito.check.options import CheckOptions
from fito.check.result import UNKNOWN, Verdict
from fito.diagnostics import Diagnostic, error, sort_key
from fito.errors import FitoError
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_assertion
from fito.lang.resolve.model import Model
from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import ParseResult, machinery, parse
from fito.outcome import EXIT_FAIL, EXIT_INPUT, EXIT_OK, FileReport
from fito.source import DEFAULT_MAX_BYTES, Source, read_source

if TYPE_CHECKING:
    from fito.types.checker import Revealed
    from fito.types.oracle import EpochOracle


@dataclass(frozen=True, slots=True)
class FrontEnd:
    """A spec parsed and resolved: the parse, the model (None when the text does not parse
    or declares nothing) and the resolver's diagnostics."""

    parsed: ParseResult
    model: Model | None
    resolved: tuple[Diagnostic, ...] = ()

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Every diagnostic of parsing and resolving, in the order they were found."""
        return tuple(self.parsed.diagnostics) + self.resolved

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.is_error)


@dataclass(frozen=True, slots=True)
class Checked:
    """A check of one source: its report, and the front end it ran on (None when the text
    could not be parsed within the budget)."""

    report: FileReport
    front: FrontEnd | None


def front_end(text: str) -> FrontEnd:
    """Parse and resolve.

    The collector is paused meanwhile and the tree is frozen afterwards: the AST lives as
    long as the check, and scanning its hundreds of thousands of nodes again and again (a
    full collection costs about 0.4 s per 20,000 lines) buys nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        parsed = parse(text)
        if parsed.spec is None or not parsed.spec.decls:
            return FrontEnd(parsed, None)
        budget.current().poll()  # between stages: the deadline and the memory, now
        model, diags = resolve(parsed.spec)
        budget.current().poll()
        return FrontEnd(parsed, model, tuple(diags))
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def check_file(path: str, options: CheckOptions | None = None) -> FileReport:
    """Read and check one file."""
    options = options or CheckOptions()
    machinery()  # built (or loaded) once per process: not part of any file's time
    with budget.active(budget.current().within(options.timeout)):
        src = read_source(path, options.max_bytes)
    if isinstance(src, Diagnostic):
        return FileReport(path, None, (src,), unreadable=True)
    return check_source(src, options)


def check_source(src: Source, options: CheckOptions) -> FileReport:
    """Parse, resolve, type-check and (optionally) model-check one source text."""
    return check(src, options).report


def check(src: Source, options: CheckOptions) -> Checked:
    """`check_source`, keeping the front end for callers that also look at the model.

    The front end and the type checker run under the budget of the command with the
    deadline of `--timeout` from now (fito.budget); reaching a bound there ends the file
    with an M003 diagnostic (exit status 3) saying which stage stopped."""
    stage = "parsing and resolving"
    front = None
    try:
        with budget.active(budget.current().within(options.timeout)):
            front = front_end(src.text)
            if front.parsed.spec is None:
                return Checked(_unreadable(src, front.parsed.diagnostics), front)
            model = front.model
            if model is None:
                return Checked(_unreadable(src, (_no_declarations(),)), front)
            diags = list(front.diagnostics)
            # the processes can be model-checked when parsing and resolving found no error;
            # the pipelines' type errors (reported next) do not concern them
            blocked = any(d.is_error for d in diags)
            stage = "type checking the pipelines"
            if options.type_check:
                diags.extend(type_check(model, options.timeout))
            if not blocked:
                diags.extend(symmetry_check(model))
    except budget.BudgetExceeded as exc:
        return Checked(FileReport(src.path, src.text, (limit_diagnostic(exc, stage),)), front)
    verdicts: tuple[Verdict, ...] = ()
    if options.model_check:
        warned = tuple(d for d in sorted(diags, key=sort_key) if not d.is_error)
        if options.before_search is not None and warned and model.assertions and not blocked:
            options.before_search(src.path, src.text, warned)
        checked, refusals = model_check(model, options, blocked)
        diags.extend(refusals)
        verdicts = tuple(
            _with_source_text(v, a, src.text) for v, a in zip(checked, model.assertions)
        )
    diags.sort(key=sort_key)
    return Checked(FileReport(src.path, src.text, tuple(diags), verdicts), front)


def check_text(text: str, options: CheckOptions | None = None, path: str = "<text>") -> FileReport:
    """Check a spec given as text (`path` names it in diagnostics)."""
    return check_source(Source(path, text), options or CheckOptions())


def type_check(model: Model, timeout: float | None = None) -> list[Diagnostic]:
    """The FITO type checker's diagnostics on the model's pipelines."""
    if not model.pipelines:
        return []  # nothing to type-check: the type checker (and Z3) is not even imported
    from fito.types.checker import check_pipelines  # lazy-import: start-up (Z3)

    if timeout is None:
        return list(check_pipelines(model))
    return list(check_pipelines(model, timeout_ms=max(1, int(timeout * 1000))))


def symmetry_check(model: Model) -> list[Diagnostic]:
    """The proof of every `symmetric type` (fito/types/symmetry.py): a refused declaration's
    offending uses (the search then runs without that symmetry), and the assertions checked
    without symmetry because they single out a member."""
    if not any(isinstance(d, A.TypeDecl) and d.symmetric for d in model.spec.decls):
        return []
    from fito.types.symmetry import prove  # lazy-import: only specs that declare symmetry

    return list(prove(model).diagnostics)


def model_check(
    model: Model, options: CheckOptions, blocked: bool = False
) -> tuple[tuple[Verdict, ...], tuple[Diagnostic, ...]]:
    """The verdicts, and the diagnostic of a model the checker refuses (an expansion too
    large to make, a shape of process variables it cannot represent:
    fito.semantics.rules.refusal). `blocked`: the spec has errors, nothing is checked."""
    if blocked:
        return _unknown(model, "not checked: the spec has errors"), ()
    from fito.check.verdicts import check_assertions  # lazy-import: start-up of `fito types`
    from fito.semantics.rules.refusal import NotSupported  # lazy-import: with check_assertions

    refusals: list[Diagnostic] = []
    try:
        return tuple(check_assertions(model, options, refusals)), tuple(refusals)
    except NotSupported as refusal:  # an expansion too large to compile the model at all
        return _unknown(model, f"not checked: {refusal}"), (refusal.diagnostic,)


def limit_diagnostic(exc: Exception, stage: str) -> Diagnostic:
    """The M003 diagnostic of a budget reached in a stage that has no verdict to carry it."""
    message = getattr(exc, "message", str(exc))
    return error(
        "M003",
        f"{message} while {stage}; nothing was decided",
        hint="raise --timeout or --max-memory",
    )


def _unknown(model: Model, reason: str) -> tuple[Verdict, ...]:
    return tuple(
        Verdict(print_assertion(a), a.span.line, UNKNOWN, reason=reason) for a in model.assertions
    )


def _unreadable(src: Source, diagnostics: tuple[Diagnostic, ...]) -> FileReport:
    return FileReport(src.path, src.text, diagnostics, unreadable=True)


def _no_declarations() -> Diagnostic:
    return error("C006", "the file holds no declarations")


def _with_source_text(v: Verdict, a: A.AssertDecl, text: str) -> Verdict:
    """Label a verdict with the assertion as written (up to the end of its last line)."""
    span = a.span
    end = text.find("\n", span.end)
    written = text[span.start : len(text) if end < 0 else end]
    written = "\n".join(line.split("--", 1)[0].rstrip() for line in written.splitlines())
    written = " ".join(written.split())
    if written.startswith("assert"):
        written = written[len("assert") :].strip()
    return replace(v, text=written or v.text)


# ---------------------------------------------------------------------- fito types
@dataclass(frozen=True, slots=True)
class TypeReport:
    """`fito types` on one file: the report, the number of pipelines, the revealed types."""

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
    except budget.BudgetExceeded as exc:  # --timeout (the file) or --max-memory: exit status 3
        return TypeReport(FileReport(src.path, src.text, (limit_diagnostic(exc, "type checking"),)))


def _type_check_source(src: Source, oracle: EpochOracle, reveal: bool) -> TypeReport:
    from fito.types.checker import check_pipelines, reveal_types  # lazy-import: start-up (Z3)

    front = front_end(src.text)
    if front.parsed.spec is None:
        return TypeReport(_unreadable(src, front.parsed.diagnostics))
    model = front.model
    if model is None:
        return TypeReport(_unreadable(src, (_no_declarations(),)))
    diags = list(front.diagnostics) + check_pipelines(model, oracle=oracle)
    diags.sort(key=sort_key)
    revealed = tuple(reveal_types(model, oracle=oracle)) if reveal else ()
    return TypeReport(FileReport(src.path, src.text, tuple(diags)), len(model.pipelines), revealed)


# ---------------------------------------------------------------------- the model alone
@dataclass(frozen=True, slots=True)
class Loaded:
    """A spec file read, parsed and resolved for a command that works on its model (`fito
    lts`, `fito replay`): the model when it can be used, else the diagnostics to print and
    the exit status (2 unreadable or unparsable, 1 errors)."""

    source: Source | None
    model: Model | None
    diagnostics: tuple[Diagnostic, ...]
    status: int


def load_path(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Loaded:
    """Read, parse and resolve a file; errors other than the FITO type checker's (which are
    about pipelines, not processes) leave no model."""
    src = read_source(path, max_bytes)
    if isinstance(src, Diagnostic):
        return Loaded(None, None, (src,), EXIT_INPUT)
    front = front_end(src.text)
    if front.parsed.spec is None:
        return Loaded(src, None, tuple(front.parsed.diagnostics), EXIT_INPUT)
    if front.model is None:
        return Loaded(src, None, (_no_declarations(),), EXIT_INPUT)
    errors = tuple(d for d in front.errors if not d.code.startswith("FITO"))
    if errors:
        return Loaded(src, None, errors, EXIT_FAIL)
    return Loaded(src, front.model, (), EXIT_OK)


# ---------------------------------------------------------------------- state graphs
@dataclass(frozen=True, slots=True)
class StateGraph:
    """Every state reachable from a process (state 0 is the start) and every transition, as
    plain data: states as the values of the named cells, transitions by their labels."""

    cells: tuple[str, ...]  # cell names, e.g. "got[0]"
    values: tuple[tuple[int, ...], ...]  # the cells of each state, in `cells` order
    edges: tuple[tuple[int, str, int], ...]  # (source, event label, target)

    def cell(self, state: int, name: str) -> int:
        """The value of the named cell in a state."""
        return self.values[state][self.cells.index(name)]


class GraphError(FitoError):
    """The spec does not resolve, or its graph has more states than the limit."""


Arg = bool | int | str


def state_graph(text: str, process: str, args: tuple[Arg, ...], limit: int) -> StateGraph:
    """The graph of the call `process(args)` (a bool, an int, or a constant's name each) in
    the spec `text`, for engines outside the checker that count over it
    (`fito.models.epochs.bilateral_count`); GraphError past `limit` states."""
    from fito.check.lts import TooLarge, build_lts  # lazy-import: start-up of `fito check`
    from fito.semantics.compiled import compile_model  # lazy-import: start-up of `fito check`

    front = front_end(text)
    errors = [d for d in front.resolved if d.is_error]
    if front.model is None or errors:
        raise GraphError(f"the spec does not resolve: {errors[:1]}")
    compiled = compile_model(front.model)
    try:
        root = compiled.initial(A.ProcRef(process, tuple(_literal(a) for a in args)))
        lts = build_lts(compiled, root, limit)
    except TooLarge:
        raise GraphError(f"more than {limit:,} states") from None
    names = tuple(compiled.layout.names)
    values = tuple(tuple(int(v) for v in s[: len(names)]) for s in lts.states)
    return StateGraph(names, values, lts.edges)


def _literal(a: Arg) -> A.Expr:
    if isinstance(a, bool):
        return A.BoolLit(a)
    return A.IntLit(a) if isinstance(a, int) else A.Name(a)
