"""The command outputs and tables that docs/tutorial.md, docs/coordination.md and
docs/bilateral.md show are what the code prints now (timings aside).

When this fails after a deliberate change (a new report format, a new count), refresh the
pages with `python tests/docs/docs_pages.py` and review the diff."""

from __future__ import annotations

import pytest

from tests.docs.docs_pages import PAGES, ROOT, normalized, regenerate, stale


@pytest.mark.parametrize("page", PAGES)
def test_page_shows_what_the_code_prints(page: str) -> None:
    diff = stale(page)
    assert not diff, f"{page} is stale; run `python tests/docs/docs_pages.py {page}`:\n{diff}"


def test_a_changed_output_is_caught() -> None:
    page = (ROOT / "docs" / "coordination.md").read_text(encoding="utf-8")
    tampered = page.replace("| 0, 0 | 128, 128 |", "| 0, 0 | 128, 127 |", 1)
    assert tampered != page, "the table row this test edits is gone"
    assert normalized(tampered) != normalized(regenerate("docs/coordination.md"))


def test_timings_and_alignment_are_not_content() -> None:
    fast, slow = "holds (10 states, 0.01 s)  ok", "holds (10 states, 12.34 s) ok"
    assert normalized(fast) == normalized(slow)
    assert normalized("loss 4.6203") != normalized("loss 4.6204")
