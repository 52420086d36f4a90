"""`fito lint` on files: read, parse with `ast`, walk, apply the rules, report.

Reading reuses `fito.source` (size limit, binary and encoding checks); the reports are the
`FileReport`s every fito command renders (`fito.render.report`). A file that imports no training
library (torch, lightning, transformers, accelerate, deepspeed, ...) is read and parsed but
not analysed: the rules are about PyTorch checkpoints.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from fito.diagnostics import Diagnostic, Span, error, sort_key, warning
from fito.lint import rules
from fito.lint.config import LintConfig, excluded, ignored_for
from fito.lint.index import ModuleIndex, build_index
from fito.lint.project import Project, parse
from fito.lint.rules.common import Finding, Protocol
from fito.lint.walker import Walker
from fito.outcome import EXIT_FAIL, EXIT_INPUT, EXIT_OK, FileReport
from fito.source import DEFAULT_MAX_BYTES, Source, read_source

SYNTAX_ERROR = "FITOL000"
_EXCLUDED_DIRS = frozenset(
    ("__pycache__", "node_modules", "site-packages", "venv", "build", "dist", "__pypackages__")
)
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z0-9]+(?:[\s,]+[A-Z0-9]+)*))?", re.I)


@dataclass(frozen=True, slots=True)
class LintOptions:
    select: tuple[str, ...] = ()  # code prefixes to report (all when empty)
    ignore: tuple[str, ...] = ()  # code prefixes never reported
    max_bytes: int = DEFAULT_MAX_BYTES
    model_dir: str | None = None  # --model-dir: also write the checked specs here
    model: bool = False  # --model: check each protocol's spec (in memory unless model_dir)
    config: LintConfig | None = None  # [tool.fito.lint]: exclude and per-file-ignores


@dataclass(frozen=True, slots=True)
class LintReport:
    report: FileReport
    specs: tuple[FileReport, ...] = ()  # --model: each generated spec with its verdicts


def discover(paths: list[str]) -> list[str]:
    """Files as given; directories searched for `*.py` (hidden and build folders skipped)."""
    out: list[str] = []
    for p in paths:
        if not os.path.isdir(p):
            out.append(p)
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _EXCLUDED_DIRS)
            out.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".py"))
    return out


def lint_path(path: str, options: LintOptions, project: Project | None = None) -> LintReport:
    """One file; calls into other modules are followed through `project` (by default one
    for this file alone: the modules next to it and in its package)."""
    src = read_source(path, options.max_bytes)
    if isinstance(src, Diagnostic):
        return LintReport(FileReport(path, None, (src,), unreadable=True))
    return lint_source(src, options, project or Project(max_bytes=options.max_bytes))


def lint_paths(paths: list[str], options: LintOptions) -> list[LintReport]:
    """`fito lint PATHS`: every file `discover` finds, read as one project (a call into a
    module of the tree runs that module's function; each module is parsed once)."""
    project = Project.of(paths, options.max_bytes)
    files = discover(paths)
    if options.config is not None and options.config.exclude:  # a file named is linted
        named = {os.path.abspath(p) for p in paths if not os.path.isdir(p)}
        files = [f for f in files if os.path.abspath(f) in named or not excluded(f, options.config)]
    project.prime(files)
    return [lint_path(p, options, project) for p in files]


def lint_source(src: Source, options: LintOptions, project: Project | None = None) -> LintReport:
    """Every finding of one Python source, as fito diagnostics."""
    if project is not None and not os.path.isfile(src.path):
        project = None  # a text without a file: no modules around it
    known = project.cached(src.path) if project is not None else None
    if known is not None and project is not None and project.source(src.path) == src:
        return _lint_index(src, known, options, project)  # parsed already, as a callee
    try:
        tree = parse(src.text, src.path)
    except SyntaxError as exc:
        line, col = exc.lineno or 1, exc.offset or 1
        diag = error(SYNTAX_ERROR, f"Python syntax error: {exc.msg}", Span.point(line, col))
        return LintReport(FileReport(src.path, src.text, (diag,), unreadable=True))
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
        diag = error(SYNTAX_ERROR, f"the file cannot be parsed as Python: {exc}")
        return LintReport(FileReport(src.path, src.text, (diag,), unreadable=True))
    index = project.index(src.path, tree) if project is not None else None
    if index is None:
        index = build_index(tree, os.path.realpath(src.path))
    return _lint_index(src, index, options, project)


def _lint_index(
    src: Source, index: ModuleIndex, options: LintOptions, project: Project | None
) -> LintReport:
    if not index.is_training_code:
        return LintReport(FileReport(src.path, src.text, ()))
    try:
        traces = Walker(index, project).traces()
        findings = rules.findings(traces, index)
    except RecursionError:  # beyond even run_deep's stack: say so, never a traceback
        diag = error(SYNTAX_ERROR, "the file nests expressions too deeply to be analysed")
        return LintReport(FileReport(src.path, src.text, (diag,), unreadable=True))
    specs: tuple[FileReport, ...] = ()
    if options.model or options.model_dir is not None:
        findings, specs = _model_check(
            src.path, findings, rules.protocols(traces), options.model_dir
        )
    lines = src.text.split("\n")
    if options.config is not None and options.config.per_file_ignores:
        options = replace(options, ignore=options.ignore + ignored_for(src.path, options.config))
    diags = [
        _diagnostic(f, lines)
        for f in findings
        if _selected(f.code, options) and not _suppressed(f, lines)
    ]
    diags.sort(key=sort_key)
    return LintReport(FileReport(src.path, src.text, tuple(diags)), specs)


#: codes reported only when `--select` names them (their own code, or `FITOL05`)
DEFAULT_OFF = frozenset(("FITOL050",))


def _selected(code: str, options: LintOptions) -> bool:
    if code in DEFAULT_OFF and not any(
        code.startswith(s) and len(s) > len("FITOL0") for s in options.select
    ):
        return False
    if options.select and not any(code.startswith(s) for s in options.select):
        return False
    return not any(code.startswith(s) for s in options.ignore)


def _suppressed(f: Finding, lines: list[str]) -> bool:
    """`# noqa` or `# noqa: FITOL003` on the reported line, as in ruff and flake8."""
    n = f.site[0]
    if not 1 <= n <= len(lines):
        return False
    m = _NOQA.search(lines[n - 1])
    if m is None:
        return False
    codes = m.group("codes")
    return codes is None or any(
        f.code.startswith(c.upper()) for c in re.split(r"[\s,]+", codes) if c
    )


def _diagnostic(f: Finding, lines: list[str]) -> Diagnostic:
    line, col, end_line, end_col = f.site
    span = Span(line, _column(lines, line, col), end_line, _column(lines, end_line, end_col))
    return warning(f.code, f.message, span, notes=f.notes, hint=f.hint)


def _column(lines: list[str], line: int, byte_offset: int) -> int:
    """`ast` columns count UTF-8 bytes; diagnostics count characters (1-based)."""
    if not 1 <= line <= len(lines):
        return byte_offset + 1
    text = lines[line - 1]
    if text.isascii():
        return byte_offset + 1
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1


def _model_check(
    path: str,
    findings: list[Finding],
    protocols: list[tuple[Finding | None, Protocol, int]],
    model_dir: str | None,
) -> tuple[list[Finding], tuple[FileReport, ...]]:
    """Check each protocol's spec (written into model_dir when there is one, else kept in
    memory: a lint run leaves nothing behind), attach the counterexample to its finding."""
    from fito.lint.model import (  # lazy-import: only model-checking rules need it
        check_spec,
        counterexample_note,
        spec_text,
    )

    if model_dir is not None:
        Path(model_dir).mkdir(parents=True, exist_ok=True)
    notes: dict[tuple[str, tuple[int, ...]], str] = {}
    specs: list[FileReport] = []
    for finding, protocol, line in protocols:
        name = f"{Path(path).stem}_L{line}.fito"
        spec_path = name if model_dir is None else str(Path(model_dir) / name)
        text = spec_text(protocol, f"{path}:{line}")
        if model_dir is not None:
            Path(spec_path).write_text(text, encoding="utf-8")
        report = check_spec(spec_path, text)
        specs.append(report)
        failed = next((v for v in report.verdicts if v.verdict == "fails"), None)
        if finding is not None and failed is not None:
            notes[(finding.code, finding.site)] = counterexample_note(spec_path, failed)
    out = [
        replace(f, notes=f.notes + (notes[(f.code, f.site)],)) if (f.code, f.site) in notes else f
        for f in findings
    ]
    return out, tuple(specs)


def exit_status(reports: list[LintReport], exit_zero: bool = False) -> int:
    """2 a file could not be read or parsed; 1 a warning (unless --exit-zero); else 0."""
    if any(r.report.unreadable for r in reports):
        return EXIT_INPUT
    if not exit_zero and any(r.report.diagnostics for r in reports):
        return EXIT_FAIL
    return EXIT_OK


def summary(reports: list[LintReport]) -> str:
    """`Found 3 warnings in 2 files (checked 5 files)`, as mypy and ruff close."""
    n = len(reports)
    warnings = sum(1 for r in reports for d in r.report.diagnostics if not d.is_error)
    errors = sum(1 for r in reports for d in r.report.diagnostics if d.is_error)
    bad = sum(1 for r in reports if r.report.diagnostics)
    checked = f"checked {n} file{'' if n == 1 else 's'}"
    if not warnings and not errors:
        return f"Success: no issues found ({checked})"
    parts = [
        f"{c} {w}{'' if c == 1 else 's'}"
        for c, w in ((errors, "error"), (warnings, "warning"))
        if c
    ]
    return f"Found {' and '.join(parts)} in {bad} file{'' if bad == 1 else 's'} ({checked})"
