"""Published protocols written with the new forms (issue 13): each names its source, and
its `-- expect:` verdicts, confirmed with SPIN on the Promela model beside it (or taken
from Roscoe's book for FDR), are met by the reference interpreter (by the model checker
once it runs these forms). A failing `assert(b)` is reported with the line of that assert."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from lang_helpers import PROTOCOLS, checked_report

from fito.expect import compare, expectations


def test_there_are_protocols_with_their_sources() -> None:
    assert len(PROTOCOLS) >= 3
    for path in PROTOCOLS:
        head = path.read_text(encoding="utf-8").split("\ntype", 1)[0]
        assert "Source:" in head, path.name


@pytest.mark.parametrize("path", PROTOCOLS, ids=lambda p: p.name)
def test_protocol_meets_its_expectations(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert any(re.match(r"(holds|fails)", e) for e in expectations(text).values())
    report = checked_report(path, model_check=True)
    assert compare(report) == []
    lines = text.splitlines()
    for v in report.verdicts:
        if v.reason and "assertion violated" in v.reason:
            line = int(re.search(r"at line (\d+)", v.reason)[1])  # type: ignore[index]
            assert "assert(" in lines[line - 1]
