"""docs/lint.md: every FITOL code has a section with an example that gives exactly that code
and a corrected form that gives nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fito.errorcodes import CODES
from fito.lint.run import LintOptions, lint_source
from fito.source import Source

DOC = Path(__file__).resolve().parents[2] / "docs" / "lint.md"
_SECTION = re.compile(r"^### `(FITOL\d{3})` ([a-z0-9-]+)$", re.M)
_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def sections() -> dict[str, tuple[str, list[str]]]:
    text = DOC.read_text(encoding="utf-8")
    heads = list(_SECTION.finditer(text))
    out = {}
    for h, nxt in zip(heads, heads[1:] + [None]):
        body = text[h.end() : nxt.start() if nxt else len(text)]
        out[h.group(1)] = (h.group(2), _BLOCK.findall(body))
    return out


def codes_of(source: str) -> list[str]:
    every = tuple(c for c in CODES if c.startswith("FITOL"))  # those off by default included
    report = lint_source(Source("example.py", source), LintOptions(select=every)).report
    return sorted(d.code for d in report.diagnostics)


def test_every_code_is_documented_under_its_registered_name() -> None:
    documented = sections()
    registered = {c: e.name for c, e in CODES.items() if c.startswith("FITOL")}
    assert {c: name for c, (name, _) in documented.items()} == registered


@pytest.mark.parametrize("code", sorted(sections()))
def test_example_gives_exactly_its_code_and_the_correction_nothing(code: str) -> None:
    _, blocks = sections()[code]
    assert len(blocks) == 2, f"{code}: an example and its corrected form"
    trigger, corrected = blocks
    assert codes_of(trigger) == [code]
    assert codes_of(corrected) == []
