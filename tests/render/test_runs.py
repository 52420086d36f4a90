"""Runs as rows (fito.render.runs): runs of internal steps fold into one row unless
verbose."""

from __future__ import annotations

from fito.check.options import CheckOptions
from fito.pipeline import check_source
from fito.render.runs import Collapsed, rows
from fito.source import Source

HIDDEN = """
channel a, b
process P = (||| i: {0, 1, 2} @ SKIP) ; a -> b -> STOP
system P \\ {| a |}
assert :[deadlock free]
"""


def test_runs_of_internal_steps_are_collapsed_unless_verbose() -> None:
    v = check_source(Source("t.fito", HIDDEN), CheckOptions()).verdicts[0]
    assert v.run is not None
    internal = [s.index for s in v.run.steps if s.is_internal]
    shown = rows(v.run)
    collapsed = [r for r in shown if isinstance(r, Collapsed)]
    assert sum(r.count for r in collapsed) + sum(
        1 for r in shown if not isinstance(r, Collapsed) and r.is_internal
    ) == len(internal)
    assert collapsed and len(rows(v.run, verbose=True)) == len(v.run.steps)
    assert any(s.kind == "hidden" and s.label == "tau (a)" for s in v.run.steps)
