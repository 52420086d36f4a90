"""specs/fleet_update.fito on other sizes than the shipped one: the verdicts do not depend on
the number of versions (two or more) or of faults allowed (the shipped expectations are checked by
tests/check/test_specs_expect.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fito.check.options import CheckOptions
from fito.expect import compare
from fito.pipeline import check_source
from fito.source import Source

SPEC = Path(__file__).parents[2] / "specs" / "fleet_update.fito"


def resized(versions: int, faults: int) -> str:
    text = SPEC.read_text(encoding="utf-8")
    text, n = re.subn(r"^const V = \d+", f"const V = {versions}", text, flags=re.M)
    text, m = re.subn(r"^const F = \d+", f"const F = {faults}", text, flags=re.M)
    assert n == m == 1
    return text


@pytest.mark.parametrize(("versions", "faults"), [(3, 1), (2, 2)])  # V >= 2: two releases
def test_verdicts_hold_for_other_sizes(versions: int, faults: int) -> None:
    report = check_source(
        Source(f"fleet_v{versions}_f{faults}.fito", resized(versions, faults)), CheckOptions()
    )
    assert not compare(report), compare(report)


def test_staged_rollout_never_spreads_over_two_versions() -> None:
    report = check_source(Source("fleet.fito", resized(3, 1)), CheckOptions())
    within = [v for v in report.verdicts if "fw[n] <= fw[o] + 1" in v.text]
    assert [(v.text.split(",")[0], v.verdict) for v in within] == [
        ("Fleet(staged", "holds"),
        ("Fleet(broadcast", "fails"),
    ]
