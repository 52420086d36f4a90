"""In a notebook, a report, a verdict and a run show as HTML: a message-sequence chart and a
table of the steps (their `_repr_html_`, through fito.display and fito.render.page)."""

from __future__ import annotations

from pathlib import Path

from fito.check.options import CheckOptions
from fito.pipeline import check_file

NAIVE = Path(__file__).resolve().parents[2] / "specs" / "checkpoint_naive.fito"


def test_notebooks_render_reports_verdicts_and_runs_as_html() -> None:
    report = check_file(str(NAIVE), CheckOptions())
    verdict = report.verdicts[0]
    assert verdict.run is not None
    for shown in (report._repr_html_(), verdict._repr_html_(), verdict.run._repr_html_()):
        assert shown.count("<svg") >= 1 and "flush.gpu.1" in shown and "<table" in shown
    assert report._repr_html_().count("<svg") == 2  # the counterexample and the witness
