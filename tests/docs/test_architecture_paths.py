"""docs/architecture.md names the tree as it is: every `fito/...` path it mentions exists, and
every module it names by file name alone (`expand.py`) is a file of fito/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"


def test_every_path_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    paths = set(re.findall(r"\bfito/[\w/.-]*\w", text))
    assert paths, "the page names no path"
    assert sorted(p for p in paths if not (ROOT / p).exists()) == []


def test_every_module_named_by_its_file_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    files = {p.name for p in (ROOT / "fito").rglob("*") if p.is_file()}
    named = set(re.findall(r"`([\w]+\.(?:py|lark|json))`", text))
    assert sorted(named - files) == []
