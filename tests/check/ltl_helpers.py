"""Helpers of the ltl tests: check a spec and confirm every counterexample on its own."""

from __future__ import annotations

from fito.check.result import Verdict
from fito.check.traces.replay import replay
from fito.pipeline import front_end
from tests.helpers.check import run_spec


def checked(text: str, **options: object) -> list[Verdict]:
    """The verdicts of a spec; every failing ltl verdict's run is replayed on the spec, and
    the replay confirms (with the formula evaluated on the lasso, independently of the
    automaton, and the fairness of its cycle) that it is a counterexample."""
    report = run_spec(text, **options)
    assert not [d for d in report.diagnostics if d.is_error], report.diagnostics
    model = front_end(text).model
    assert model is not None
    by_line = {a.span.line: a for a in model.assertions}
    for v in report.verdicts:
        if v.engine == "ltl" and v.verdict == "fails" and v.error is None:
            assert v.run is not None
            got = replay(model, by_line[v.line], v.run)
            assert got.reproduced, (v.text, got.message, v.trace)
    return list(report.verdicts)


def answers(text: str, **options: object) -> list[str]:
    return [v.verdict for v in checked(text, **options)]
