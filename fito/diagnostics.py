"""Diagnostics: one value type, rendered as text (with source line and caret), JSON or SARIF.

Checkers never raise on bad input: they append `Diagnostic`s to a list and carry on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fito import __version__
from fito.errorcodes import CODES, lookup
from fito.errors import FitoError

ERROR, WARNING, NOTE = "error", "warning", "note"


class UsageError(FitoError):
    """Bad command-line usage: reported on one line, exit status 2 [C001 bad-usage]."""


@dataclass(frozen=True, slots=True)
class Span:
    """A source region: 1-based lines and columns, end exclusive; offsets into the text."""

    line: int
    column: int
    end_line: int
    end_column: int
    start: int = 0
    end: int = 0

    @staticmethod
    def point(line: int, column: int, offset: int = 0) -> Span:
        return Span(line, column, line, column + 1, offset, offset + 1)

    def to(self, other: Span) -> Span:
        """The span from the start of self to the end of other."""
        return Span(self.line, self.column, other.end_line, other.end_column, self.start, other.end)


NO_SPAN = Span(1, 1, 1, 1, 0, 0)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: str
    message: str
    span: Span = NO_SPAN
    notes: tuple[str, ...] = ()
    hint: str | None = None

    @property
    def name(self) -> str:
        return lookup(self.code).name

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR


def error(
    code: str,
    message: str,
    span: Span = NO_SPAN,
    *,
    notes: Sequence[str] = (),
    hint: str | None = None,
) -> Diagnostic:
    return Diagnostic(code, ERROR, message, span, tuple(notes), hint)


def warning(
    code: str,
    message: str,
    span: Span = NO_SPAN,
    *,
    notes: Sequence[str] = (),
    hint: str | None = None,
) -> Diagnostic:
    return Diagnostic(code, WARNING, message, span, tuple(notes), hint)


def sort_key(d: Diagnostic) -> tuple[int, int, str]:
    return (d.span.line, d.span.column, d.code)


# ---------------------------------------------------------------------------- text
def render_text(d: Diagnostic, path: str, source: str | None) -> str:
    """`file:line:col: severity: message [CODE name]`, the source line, a caret, notes, hint."""
    out = [f"{path}:{d.span.line}:{d.span.column}: {d.severity}: {d.message} [{d.code} {d.name}]"]
    line_text = None if d.span == NO_SPAN else _source_line(source, d.span.line)
    if line_text is not None:
        shown = line_text.expandtabs(1)
        width = 1
        if d.span.end_line == d.span.line and d.span.end_column > d.span.column:
            width = d.span.end_column - d.span.column
        width = max(1, min(width, len(shown) - d.span.column + 1))
        out.append(f"  {shown}")
        out.append("  " + " " * (d.span.column - 1) + "^" + "~" * (width - 1))
    out.extend(f"  note: {n}" for n in d.notes)
    if d.hint:
        out.append(f"  hint: {d.hint}")
    return "\n".join(out)


def _source_line(source: str | None, line: int) -> str | None:
    if source is None or line < 1:
        return None
    lines = source.split("\n")
    if line > len(lines):
        return None
    text = lines[line - 1].rstrip("\r")
    if len(text) > 400:  # keep the rendering of pathological inputs short
        return None
    return text


# ---------------------------------------------------------------------------- JSON
def to_json(d: Diagnostic) -> dict[str, object]:
    """The JSON shape of LANGUAGE.md, plus `name`, `notes` and `hint`."""
    out: dict[str, object] = {
        "code": d.code,
        "name": d.name,
        "severity": d.severity,
        "message": d.message,
        "line": d.span.line,
        "column": d.span.column,
        "end_line": d.span.end_line,
        "end_column": d.span.end_column,
    }
    if d.notes:
        out["notes"] = list(d.notes)
    if d.hint:
        out["hint"] = d.hint
    return out


# ---------------------------------------------------------------------------- SARIF
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {ERROR: "error", WARNING: "warning", NOTE: "note"}


def to_sarif(
    per_file: Iterable[tuple[str, Sequence[Diagnostic]]],
    extra_results: Sequence[dict[str, object]] = (),
) -> dict[str, object]:
    """A SARIF 2.1.0 log with one run: every diagnostic of every file as a result."""
    results: list[dict[str, object]] = []
    used: dict[str, None] = {}
    for path, diags in per_file:
        for d in diags:
            used.setdefault(d.code, None)
            region = {
                "startLine": d.span.line,
                "startColumn": d.span.column,
                "endLine": d.span.end_line,
                "endColumn": d.span.end_column,
            }
            message = d.message + "".join(f"\nnote: {n}" for n in d.notes)
            if d.hint:
                message += f"\nhint: {d.hint}"
            results.append(
                {
                    "ruleId": d.code,
                    "level": _LEVEL.get(d.severity, "note"),
                    "message": {"text": message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": path},
                                "region": region,
                            }
                        }
                    ],
                }
            )
    results.extend(extra_results)
    for r in extra_results:
        used.setdefault(str(r.get("ruleId")), None)
    rules: list[dict[str, object]] = [
        {"id": c, "name": CODES[c].name, "shortDescription": {"text": CODES[c].summary}}
        for c in used
        if c in CODES
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": _driver(rules)},
                "results": results,
            }
        ],
    }


def _driver(rules: list[dict[str, object]]) -> dict[str, object]:
    """The tool: fito, its version and its rules. No `informationUri`: SARIF wants the
    tool's web address there, fito has none, and a `file://` path of the checkout that wrote
    the log means nothing where the log is read (code scanning, another machine)."""
    return {"name": "fito", "version": __version__, "rules": rules}


__all__ = [
    "ERROR",
    "NOTE",
    "NO_SPAN",
    "WARNING",
    "Diagnostic",
    "Span",
    "error",
    "render_text",
    "sort_key",
    "to_json",
    "to_sarif",
    "warning",
]
