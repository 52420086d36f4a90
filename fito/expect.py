"""`-- expect:` comments: what a spec says its own verdicts and diagnostics must be.

The same rules as `../shared/tools/expect.py`, run in-process by `fito check --expect`:
  holds | fails | fails in N | unknown      the verdict of the assertion on that line
  FITO001, FITOW01, ... (comma-separated)   exactly these FITO codes on that line
  error                                     at least one error diagnostic on that line
  syntax error at column C                  exit status 2 and an error at that column
Lines without an expectation must carry no error and no FITO diagnostic.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from fito.check.result import FAILS
from fito.driver import EXIT_FAIL, EXIT_INPUT, EXIT_OK, FileReport

_EXPECT = re.compile(r"--\s*expect:\s*(.+?)\s*$")
_VERDICT = re.compile(r"(holds|fails|unknown)(?: in (\d+))?")
_SYNTAX = re.compile(r"syntax error at column (\d+)")


@dataclass(frozen=True, slots=True)
class Mismatch:
    line: int
    message: str


def expectations(text: str) -> dict[int, str]:
    """Line number -> expectation text, for comments that follow code on their line."""
    out: dict[int, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        m = _EXPECT.search(line)
        if m and not line.lstrip().startswith("--"):
            out[number] = m.group(1)
    return out


def compare(report: FileReport) -> list[Mismatch]:
    """Every way the report differs from the file's expectations."""
    if report.text is None:
        return [Mismatch(0, report.diagnostics[0].message if report.diagnostics else "unreadable")]
    expected = expectations(report.text)
    problems: list[Mismatch] = []
    verdicts = {v.line: v for v in report.verdicts}
    want_status = EXIT_OK
    for line, text in expected.items():
        at_line = [d for d in report.diagnostics if d.span.line == line]
        m = _VERDICT.fullmatch(text)
        if m:
            v = verdicts.get(line)
            if v is None:
                problems.append(Mismatch(line, "no assertion reported on this line"))
                continue
            if v.verdict != m.group(1):
                problems.append(Mismatch(line, f"verdict {v.verdict}, expected {m.group(1)}"
                                         + (f" ({v.reason})" if v.reason else "")))
            elif m.group(2) and len(v.trace) != int(m.group(2)):
                problems.append(Mismatch(line, f"trace of {len(v.trace)} transitions, expected {m.group(2)}"))
            if m.group(1) == FAILS:
                want_status = max(want_status, EXIT_FAIL)
            continue
        m = _SYNTAX.fullmatch(text)
        if m:
            want_status = EXIT_INPUT
            if not any(d.is_error and d.span.column == int(m.group(1)) for d in at_line):
                got = [(d.span.line, d.span.column, d.code) for d in report.diagnostics]
                problems.append(Mismatch(line, f"no error at column {m.group(1)}; got {got}"))
            continue
        if text == "error":
            want_status = max(want_status, EXIT_FAIL)
            if not any(d.is_error for d in at_line):
                problems.append(Mismatch(line, "no error diagnostic on this line"))
            continue
        codes = sorted(c.strip() for c in text.split(","))
        got_codes = sorted(d.code for d in at_line if d.code.startswith("FITO"))
        if got_codes != codes:
            problems.append(Mismatch(line, f"codes {got_codes}, expected {codes}"))
        if any(not c.startswith("FITOW") for c in codes):
            want_status = max(want_status, EXIT_FAIL)
    for d in report.diagnostics:
        if d.span.line not in expected and (d.is_error or d.code.startswith("FITO")):
            problems.append(Mismatch(d.span.line, f"unexpected {d.severity} {d.code}: {d.message}"))
    if report.status != want_status:
        problems.append(Mismatch(0, f"exit status {report.status}, expected {want_status}"))
    return problems
