"""The symbolic engine against the explicit one on one spec: verdicts, trace lengths and
model errors of every safety assertion both answer."""

from __future__ import annotations

from fito.check.options import CheckOptions
from fito.pipeline import check_source
from fito.source import Source

SAFETY_WORDS = ("|= always", "reaches", "deadlock free")


def outcomes(text: str, engine: str, seconds: float) -> list[tuple | None]:
    """(verdict, trace length, whether a model error ended it) per assertion; None where the
    engine gave up (a limit) or refused (the symbolic engine's `unknown`). Which model error,
    of several at the shortest length, is the breadth-first order's choice, so only that one
    happened is compared."""
    report = check_source(Source("t.fito", text), CheckOptions(timeout=seconds, engine=engine))
    out: list[tuple | None] = []
    for v in report.verdicts:
        if v.verdict == "unknown":
            out.append(None)
            continue
        out.append((v.text, v.verdict, len(v.trace), v.error is not None))
    return out


def compare(text: str, label: str, seconds: float = 10.0) -> int:
    """Both engines on text; every assertion both answer has the same outcome. Returns how
    many were compared."""
    explicit = outcomes(text, "scalar", seconds)
    symbolic = outcomes(text, "symbolic", seconds)
    assert len(explicit) == len(symbolic), label
    pairs = [(a, b) for a, b in zip(explicit, symbolic) if a is not None and b is not None]
    for a, b in pairs:
        assert a == b, f"{label}: explicit {a}, symbolic {b}\n{text}"
    return len(pairs)
