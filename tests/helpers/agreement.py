"""Differential checks: the two engines on one spec, and an engine against the reference
interpreter (fito/reference/), each bounded in states and seconds."""

from __future__ import annotations

from fito.check.options import CheckOptions
from fito.check.verdicts import check_assertions
from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import parse
from fito.pipeline import check_source
from fito.reference.interpreter import RefLimit, check
from fito.source import Source


def answers(text: str, engine: str, limit: int = 20_000, seconds: float = 20) -> list[tuple | None]:
    """Each verdict's figures and trace; None where a limit was hit."""
    options = CheckOptions(max_states=limit, timeout=seconds, engine=engine)
    report = check_source(Source("t.fito", text), options)
    return [
        None
        if v.limit_hit
        else (v.text, v.verdict, v.states, v.transitions, v.trace, v.reason, v.error)
        for v in report.verdicts
    ]


def assert_same(text: str, label: str, limit: int = 20_000, seconds: float = 20) -> int:
    """Both engines on text; the verdicts neither gave up on are the same. Returns how many
    were compared."""
    scalar = answers(text, "scalar", limit, seconds)
    frontier = answers(text, "frontier", limit, seconds)
    assert len(scalar) == len(frontier), label
    pairs = [(a, b) for a, b in zip(scalar, frontier) if a is not None and b is not None]
    for a, b in pairs:
        assert a == b, f"{label}\n{text}"
    return len(pairs)


def agree(text: str, limit: int, label: str, seconds: float = 5.0, engine: str = "auto") -> int:
    """Check every assertion of text both ways; returns how many were compared.

    Both engines are bounded in states and in seconds: a random spec whose process terms
    grow without bound (a tau under an external choice that recurses into it) makes every
    state a new term, which is correct but slow, and is skipped once either limit is hit."""
    parsed = parse(text)
    assert parsed.spec is not None, parsed.diagnostics
    model, diags = resolve(parsed.spec)
    if any(d.is_error for d in diags):
        return 0  # the generator may write a constant out of range: a static error, fine
    compared = 0
    options = CheckOptions(max_states=limit, timeout=seconds, engine=engine)
    for a, v in zip(model.assertions, check_assertions(model, options)):
        if v.limit_hit:
            continue
        try:
            ref = check(model, a, limit, seconds)  # the naive reference can be very slow
        except RefLimit:
            continue
        assert (v.verdict, v.states, len(v.trace)) == (ref.verdict, ref.states, ref.trace_length), (
            f"{label}, {a.kind} on line {a.span.line}: {v.reason}\n{text}"
        )
        compared += 1
    return compared
