"""The corpora: every valid file is clean (and its verdicts hold); every invalid file reports
exactly the diagnostics its `-- expect:` comments name, at the line and column they name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fito.check.options import CheckOptions
from fito.deep import run_deep
from fito.errorcodes import CODES
from fito.expect import compare, expectations
from fito.outcome import EXIT_OK
from fito.pipeline import check_file
from tests.lang.lang_helpers import INVALID, VALID, checked_report

_VERDICT = re.compile(r"(holds|fails|unknown)( in \d+)?")


def _report(path: Path, model_check: bool):  # type: ignore[no-untyped-def]
    return run_deep(check_file, str(path), CheckOptions(model_check=model_check))


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_file_is_clean_and_meets_its_expectations(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    verdicts = any(_VERDICT.fullmatch(e) for e in expectations(text).values())
    report = checked_report(path, model_check=verdicts)
    assert compare(report) == []
    assert [d for d in report.diagnostics if d.is_error] == []
    if not verdicts:
        assert report.status == EXIT_OK


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_file_reports_what_it_expects(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert expectations(text), "an invalid case says what it expects on the offending line"
    report = _report(path, model_check=False)
    assert compare(report) == []
    assert report.diagnostics


def test_every_front_end_code_has_an_invalid_case() -> None:
    """Each P, R and T code of the front end is exercised by at least one invalid file."""
    front_end = {c for c in CODES if re.fullmatch(r"[PRT]0\d\d", c)} - {"T012", "T013"}
    seen: set[str] = set()
    for path in INVALID:
        for text in expectations(path.read_text(encoding="utf-8")).values():
            seen.update(re.findall(r"\b([PRT]\d{3})\b", text))
    assert sorted(front_end - seen) == []


def test_expectation_mismatches_are_reported(tmp_path: Path) -> None:
    """The comparison itself can fail: a wrong column, a missing code, a stray error."""
    spec = tmp_path / "wrong.fito"
    spec.write_text(
        "const N: 0..3 = 9          -- expect: T008 at column 12\n"
        "const M = nope             -- expect: R002\n"
        "const K = 1 / 0\n",
        encoding="utf-8",
    )
    problems = [p.message for p in compare(_report(spec, model_check=False))]
    assert any("expected 12" in p for p in problems)
    assert any("expected ['R002']" in p for p in problems)
    assert any("unexpected error T009" in p for p in problems)
