"""Every corpus file gives exactly the diagnostics written on its lines (`-- expect:`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fito.check.options import CheckOptions
from fito.expect import compare, expectations
from fito.pipeline import check_source
from fito.source import Source
from tests.types.types_helpers import DATA, SHARED

CORPUS = sorted(DATA.glob("*/*.fito"))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_file_matches_its_expectations(path):
    text = path.read_text(encoding="utf-8")
    report = check_source(Source(str(path), text), CheckOptions(model_check=False))
    assert compare(report) == []


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_valid_files_have_no_errors_invalid_files_do(path):
    text = path.read_text(encoding="utf-8")
    report = check_source(Source(str(path), text), CheckOptions(model_check=False))
    has_errors = any(d.is_error for d in report.diagnostics)
    assert has_errors == (path.parent.name == "invalid")
    assert expectations(text) or path.parent.name == "valid"


def test_the_shared_example_gives_exactly_its_expected_codes():
    path = SHARED / "examples" / "pipelines.fito"
    text = path.read_text(encoding="utf-8")
    report = check_source(Source(str(path), text), CheckOptions(model_check=False))
    assert compare(report) == []
    fito_lines = sorted((d.span.line, d.code) for d in report.diagnostics)
    wanted = sorted(
        (line, code.strip())
        for line, want in expectations(text).items()
        for code in want.split(",")
    )
    assert fito_lines == wanted


def _run_tool(files):
    tool = SHARED / "tools" / "expect.py"
    return subprocess.run(
        [sys.executable, str(tool), "--fito", f"{sys.executable} -m fito", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def test_shared_expect_tool_accepts_the_example():
    proc = _run_tool([SHARED / "examples" / "pipelines.fito"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed, 0 failed" in proc.stdout


@pytest.mark.slow
def test_shared_expect_tool_accepts_the_corpus():
    proc = _run_tool(CORPUS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(CORPUS)} passed, 0 failed" in proc.stdout
