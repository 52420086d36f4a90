"""`-- expect:` comments: what a spec says its own verdicts and diagnostics must be.

The rules of `../shared/tools/expect.py`, run in-process by `fito check --expect`, extended
for the test corpora (tests/lang/data):
  holds | fails | fails in N | unknown      the verdict of the assertion on that line
  FITO001, R001, ... (comma-separated)      exactly these codes on that line (errors and
                                            FITO codes; FITOW warnings count too)
  CODE at column C                          ... and that diagnostic starts at column C
  warning CODE                              a warning with that code (it does not count
                                            towards the exit status)
  error                                     at least one error diagnostic on that line
  syntax error at column C                  exit status 2 and an error at that column
Lines without an expectation must carry no error and no FITO diagnostic. The exit status
must be the one the expectations imply: 2 for syntax (P) and input (C) codes, 1 for other
errors and failing verdicts, else 0 (3 when an expected verdict is unknown).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fito.check.result import FAILS, UNKNOWN
from fito.diagnostics import Diagnostic
from fito.outcome import EXIT_FAIL, EXIT_INPUT, EXIT_LIMIT, EXIT_OK, FileReport

_EXPECT = re.compile(r"--\s*expect:\s*(.+?)\s*$")
_VERDICT = re.compile(r"(holds|fails|unknown)(?: in (\d+))?")
_SYNTAX = re.compile(r"syntax error at column (\d+)")
_CODE = re.compile(r"(warning\s+)?([A-Z]+W?\d+)(?:\s+at column (\d+))?")


@dataclass(frozen=True, slots=True)
class Mismatch:
    line: int
    message: str


@dataclass(frozen=True, slots=True)
class _Code:
    code: str
    column: int | None
    warning: bool


def expectations(text: str) -> dict[int, str]:
    """Line number -> expectation text, for comments that follow code on their line."""
    out: dict[int, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        m = _EXPECT.search(line)
        if m and not line.lstrip().startswith("--"):
            out[number] = m.group(1)
    return out


def expected_verdicts(text: str) -> dict[int, tuple[str, int | None]]:
    """Line number -> (verdict, trace length or None) of each `-- expect: holds | fails
    [in N] | unknown` comment (what the language server shows an assertion against)."""
    out: dict[int, tuple[str, int | None]] = {}
    for line, expectation in expectations(text).items():
        m = _VERDICT.fullmatch(expectation)
        if m:
            out[line] = (m.group(1), int(m.group(2)) if m.group(2) else None)
    return out


def compare(report: FileReport) -> list[Mismatch]:
    """Every way the report differs from the file's expectations."""
    if report.text is None:
        return [Mismatch(0, report.diagnostics[0].message if report.diagnostics else "unreadable")]
    expected = expectations(report.text)
    problems: list[Mismatch] = []
    want_status = EXIT_OK
    for line, text in expected.items():
        status = _compare_line(report, line, text, problems)
        want_status = _worse(want_status, status)
    for d in report.diagnostics:
        if d.span.line not in expected and (d.is_error or d.code.startswith("FITO")):
            problems.append(Mismatch(d.span.line, f"unexpected {d.severity} {d.code}: {d.message}"))
    if report.status != want_status:
        problems.append(Mismatch(0, f"exit status {report.status}, expected {want_status}"))
    return problems


def _worse(a: int, b: int) -> int:
    """The exit status of two outcomes together: 2 beats 1 beats 3 beats 0."""
    order = (EXIT_OK, EXIT_LIMIT, EXIT_FAIL, EXIT_INPUT)
    return max(a, b, key=order.index)


def _compare_line(report: FileReport, line: int, text: str, problems: list[Mismatch]) -> int:
    """Check one line's expectation; the exit status it implies."""
    at_line = [d for d in report.diagnostics if d.span.line == line]
    m = _VERDICT.fullmatch(text)
    if m:
        return _compare_verdict(report, line, m, problems)
    m = _SYNTAX.fullmatch(text)
    if m:
        if not any(d.is_error and d.span.column == int(m.group(1)) for d in at_line):
            got = [(d.span.line, d.span.column, d.code) for d in report.diagnostics]
            problems.append(Mismatch(line, f"no error at column {m.group(1)}; got {got}"))
        return EXIT_INPUT
    if text == "error":
        if not any(d.is_error for d in at_line):
            problems.append(Mismatch(line, "no error diagnostic on this line"))
        return EXIT_FAIL
    items = [_CODE.fullmatch(part.strip()) for part in text.split(",")]
    if not all(items):
        problems.append(Mismatch(line, f"cannot read the expectation {text!r}"))
        return EXIT_OK
    codes = [
        _Code(i.group(2), int(i.group(3)) if i.group(3) else None, bool(i.group(1)))
        for i in items
        if i is not None
    ]
    _compare_codes(line, codes, at_line, problems)
    status = EXIT_OK
    for c in codes:
        status = _worse(status, _status_of(c))
    return status


def _compare_verdict(
    report: FileReport, line: int, m: re.Match[str], problems: list[Mismatch]
) -> int:
    verdicts = {v.line: v for v in report.verdicts}
    v = verdicts.get(line)
    if v is None:
        problems.append(Mismatch(line, "no assertion reported on this line"))
        return EXIT_OK
    if v.verdict != m.group(1):
        problems.append(
            Mismatch(
                line,
                f"verdict {v.verdict}, expected {m.group(1)}"
                + (f" ({v.reason})" if v.reason else ""),
            )
        )
    elif m.group(2) and len(v.trace) != int(m.group(2)):
        problems.append(
            Mismatch(line, f"trace of {len(v.trace)} transitions, expected {m.group(2)}")
        )
    return {FAILS: EXIT_FAIL, UNKNOWN: EXIT_LIMIT}.get(m.group(1), EXIT_OK)


def _compare_codes(
    line: int, codes: list[_Code], at_line: list[Diagnostic], problems: list[Mismatch]
) -> None:
    warned = {c.code for c in codes if c.warning}
    reported = [d for d in at_line if d.is_error or d.code.startswith("FITO") or d.code in warned]
    got = sorted(d.code for d in reported)
    want = sorted(c.code for c in codes)
    if got != want:
        problems.append(Mismatch(line, f"codes {got}, expected {want}"))
        return
    for c in codes:
        if c.column is not None and not any(
            d.code == c.code and d.span.column == c.column for d in reported
        ):
            cols = [d.span.column for d in reported if d.code == c.code]
            problems.append(Mismatch(line, f"{c.code} at column {cols}, expected {c.column}"))
        if c.warning and not any(d.code == c.code and not d.is_error for d in reported):
            problems.append(Mismatch(line, f"{c.code} is not a warning here"))


def _status_of(c: _Code) -> int:
    if c.warning or c.code.startswith("FITOW"):
        return EXIT_OK
    if c.code[0] in "PC":
        return EXIT_INPUT
    return EXIT_FAIL
