"""Score `fito lint` on the corpus: each `# expect: FITOL0xx` comment is a warning that must be
reported on its line, and every other warning is a false positive.

The corpus is linted as `fito lint tests/lint/corpus` does, as one project (a package's
modules call each other), with every code selected, the ones off by default included.
`python tests/lint/corpus_score.py` prints precision and recall per code and overall.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>FITOL\d{3}(?:[\s,]+FITOL\d{3})*)")

Key = tuple[str, int, str]  # file, line, code


@dataclass(frozen=True)
class Score:
    expected: frozenset[Key]
    reported: frozenset[Key]

    @property
    def true_positives(self) -> frozenset[Key]:
        return self.expected & self.reported

    @property
    def false_positives(self) -> frozenset[Key]:
        return self.reported - self.expected

    @property
    def false_negatives(self) -> frozenset[Key]:
        return self.expected - self.reported

    @property
    def precision(self) -> float:
        return len(self.true_positives) / len(self.reported) if self.reported else 1.0

    @property
    def recall(self) -> float:
        return len(self.true_positives) / len(self.expected) if self.expected else 1.0


def corpus_files() -> list[Path]:
    return sorted(CORPUS.rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix() if path.is_relative_to(CORPUS) else path.name


def expected_of(path: Path) -> set[Key]:
    out: set[Key] = set()
    for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = _EXPECT.search(text)
        if m:
            out.update((_name(path), n, c) for c in re.split(r"[\s,]+", m.group("codes")))
    return out


def every_code() -> tuple[str, ...]:
    from fito.errorcodes import CODES

    return tuple(c for c in CODES if c.startswith("FITOL"))


def reported_of(paths: list[Path], select: tuple[str, ...] | None = None) -> set[Key]:
    """What `fito lint` reports on `paths` read as one project (every code selected)."""
    from fito.lint.run import LintOptions, lint_paths

    options = LintOptions(select=every_code() if select is None else select)
    reports = lint_paths([str(p) for p in paths], options)
    return {
        (_name(Path(r.report.path)), d.span.line, d.code)
        for r in reports
        for d in r.report.diagnostics
    }


def score(paths: list[Path] | None = None) -> Score:
    files = paths or corpus_files()
    expected: set[Key] = set()
    for p in files:
        expected |= expected_of(p)
    reported = reported_of([CORPUS] if paths is None else files)
    return Score(frozenset(expected), frozenset(reported))


def table(s: Score) -> str:
    codes = sorted({k[2] for k in s.expected | s.reported})
    exp, rep, tp = (Counter(k[2] for k in ks) for ks in (s.expected, s.reported, s.true_positives))
    lines = [f"{'code':9} {'expected':>8} {'reported':>8} {'TP':>4} {'precision':>9} {'recall':>7}"]
    for c in codes:
        p = tp[c] / rep[c] if rep[c] else 1.0
        r = tp[c] / exp[c] if exp[c] else 1.0
        lines.append(f"{c:9} {exp[c]:8} {rep[c]:8} {tp[c]:4} {p:9.3f} {r:7.3f}")
    lines.append(
        f"{'all':9} {len(s.expected):8} {len(s.reported):8} {len(s.true_positives):4} "
        f"{s.precision:9.3f} {s.recall:7.3f}"
    )
    for k in sorted(s.false_positives):
        lines.append(f"false positive: {k[0]}:{k[1]} {k[2]}")
    for k in sorted(s.false_negatives):
        lines.append(f"missed: {k[0]}:{k[1]} {k[2]}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(CORPUS.parents[2]))
    print(f"{len(corpus_files())} files")
    print(table(score()))
