"""`end` and `symmetric`, keywords added after LANGUAGE.md's list, stay names wherever they
do not open their declaration: a spec written against the contract never breaks."""

from __future__ import annotations

from pathlib import Path

import fito

AS_NAMES = """\
type Mt = {end, start}
channel ev: Mt
channel symmetric, end_
domain done: 0..1 = 0 volatile
process Idle = ev.start -> Idle
process P = ev.end -> symmetric -> {done := 1} -> Idle
system P
assert P :[deadlock free]
"""

AS_KEYWORDS = """\
symmetric type D = {a, b}
domain saved[d: D]: 0..1 = 0 volatile
process W = [] d: D @ saved[d] == 0 & flush.d {saved[d] := 1} -> W
channel flush: D
end W
system W
assert W :[deadlock free]
"""


def test_soft_keywords_are_names_elsewhere(tmp_path: Path) -> None:
    spec = tmp_path / "names.fito"
    spec.write_text(AS_NAMES)
    report = fito.check_file(spec)
    assert not [d for d in report.diagnostics if d.severity == "error"], report.diagnostics
    assert [v.verdict for v in report.verdicts] == ["holds"]


def test_soft_keywords_open_their_declarations(tmp_path: Path) -> None:
    spec = tmp_path / "keywords.fito"
    spec.write_text(AS_KEYWORDS)
    report = fito.check_file(spec)
    assert not [d for d in report.diagnostics if d.severity == "error"], report.diagnostics
    # every flush done, W idles at its start: a valid end location, not a deadlock
    assert [v.verdict for v in report.verdicts] == ["holds"]
