"""paperA.snap-vs-conv.pipelines: the family of pipelines, the type checker's verdicts, and
a checker that missed the mistake (never proved)."""

from __future__ import annotations

from dataclasses import replace

import fito
from fito.models.epochs import pipelines as pl
from fito.proof import runner
from tests.proof.proof_helpers import ROOT


def test_family_is_every_choice_once():
    family = pl.family()
    assert len(family) == 5 * 3 * 2 * 3 * 2 == 180
    assert sorted(pl.code(p) for p in family) == list(range(180))


def test_the_tutorials_pipelines_are_in_the_family_with_its_verdicts():
    verdicts = pl.type_check()
    # resume(snapshot(model) @ e1): FITO001; resume(commit(...)): accepted
    assert verdicts.codes[pl.code((1, 0, 0, 0, 0))] == {"FITO001"}
    assert verdicts.codes[pl.code((4, 0, 0, 0, 0))] == frozenset()
    assert verdicts.codes[pl.code((3, 0, 0, 1, 0))] == {"FITO004"}
    assert verdicts.codes[pl.code((1, 2, 1, 0, 0))] == {"FITO002"}
    assert verdicts.codes[pl.code((1, 2, 1, 0, 1))] == frozenset()


def test_a_checker_that_misses_the_mistake_is_not_proved(monkeypatch):
    real = fito.check_text

    def lenient(text, options=None, path="<text>"):
        report = real(text, options, path)
        kept = tuple(d for d in report.diagnostics if d.code != "FITO001")
        return replace(report, diagnostics=kept)

    monkeypatch.setattr(fito, "check_text", lenient)
    claims = runner.collect([str(ROOT / "proofs" / "paper_a.py")], ["paperA.snap-vs-conv*"])
    (r,) = runner.run_claims(claims, jobs=0)
    assert r.verdict == "unknown" and "FITO001: the checker and the reference" in r.reason
