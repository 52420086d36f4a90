"""docs/diagnostics.md documents every P, R, T and C code, and its examples are true: each
example, run now, gives the first diagnostic line the page shows."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fito.check.options import CheckOptions
from fito.diagnostics import render_text
from fito.errorcodes import CODES
from fito.pipeline import check_source
from fito.source import Source
from tests.lang.lang_helpers import ROOT

DOC = ROOT / "docs" / "diagnostics.md"
SECTION = re.compile(r"^### `(?P<code>[A-Z]+\d+)` (?P<name>[a-z0-9-]+)$", re.M)
FITO_BLOCK = re.compile(r"```fito\n(?P<src>.*?)\n```\n\n    (?P<line>[^\n]+)", re.S)
CONSOLE_BLOCK = re.compile(r"```console\n\$ (?P<cmd>.*?)\n(?P<line>.+?)\n```", re.S)
ABBREVIATED = re.compile(r"\(\(\(\(\.\.\.(\d+) parentheses\.\.\.1\)\)\)\)")


def sections() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    marks = list(SECTION.finditer(text))
    return {
        m["code"]: text[m.end() : (marks[i + 1].start() if i + 1 < len(marks) else len(text))]
        for i, m in enumerate(marks)
    }


def test_every_code_of_the_phases_is_documented_under_its_name() -> None:
    text = DOC.read_text(encoding="utf-8")
    documented = {m["code"]: m["name"] for m in SECTION.finditer(text)}
    wanted = {c: e.name for c, e in CODES.items() if c[0] in "PRTC" and c[1:].isdigit()}
    assert documented == wanted


@pytest.mark.parametrize("code", sorted(c for c in sections() if c[0] in "PRT"))
def test_front_end_example(code: str) -> None:
    body = sections()[code]
    m = FITO_BLOCK.search(body)
    if m is None:
        assert "No front-end example" in body
        return
    src = ABBREVIATED.sub(lambda a: "(" * int(a[1]) + "1" + ")" * int(a[1]), m["src"])
    report = check_source(Source("example.fito", src + "\n"), CheckOptions(model_check=False))
    got = [
        render_text(d, "example.fito", None).splitlines()[0]
        for d in report.diagnostics
        if d.code == code
    ]
    assert got and got[0] == m["line"]


@pytest.mark.skipif(
    shutil.which("fito") is None or shutil.which("bash") is None,
    reason="needs the installed `fito` script and bash",
)
@pytest.mark.parametrize("code", sorted(c for c in sections() if c[0] == "C"))
def test_command_line_example(code: str, tmp_path: Path) -> None:
    m = CONSOLE_BLOCK.search(sections()[code])
    assert m is not None
    proc = subprocess.run(
        ["bash", "-c", m["cmd"]], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert (proc.stdout + proc.stderr).splitlines()[0] == m["line"]
