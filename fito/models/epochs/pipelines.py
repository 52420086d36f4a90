"""A family of pipelines of fito's own pipeline calculus, and fito's type checker's verdicts.

The Snap-versus-Conv category mistake of paper A is a statement about fito's pipeline
descriptions: a snapshot (`Snap`, a reading of domains at a time) used where a converged
state (`Conv(P, e)`, certified by a protocol) is required is a type error. This module
generates every pipeline of a family of a stated size and asks fito's type checker
(`fito.check_text` with model checking off, the public API) which diagnostics each gets;
`proofs/paper_a.py` compares those sets with a reference typing written independently.

A pipeline of the family is five choices (its coordinates):

- x: how `x` is read: 0 `snapshot(model)` (no epoch), 1 `snapshot(model) @ e1`,
  2 `snapshot(model) @ e2`, 3 `snapshot(model, optim)` (a product), 4
  `commit(Trained, e1, model)` (a Conv);
- y: how `y` is read (only used by a converge): 0 `snapshot(optim)`, 1 `@ e1`, 2 `@ e2`;
- c: 0 `let v = x`, 1 `let v = converge(Trained, e1, x, y)`;
- s: the sink, 0 `resume(v)`, 1 `restore(v)` (both need a Conv), 2 `log(v)` (either);
- r: 0 no fact, 1 `require e2 == e1`.

5 x 3 x 2 x 3 x 2 = 180 pipelines, all in one file (one type-checker run).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

READ_X = (
    "snapshot(model)",
    "snapshot(model) @ e1",
    "snapshot(model) @ e2",
    "snapshot(model, optim)",
    "commit(Trained, e1, model)",
)
READ_Y = ("snapshot(optim)", "snapshot(optim) @ e1", "snapshot(optim) @ e2")
SINKS = ("resume", "restore", "log")
BOX = (("x", 0, len(READ_X) - 1), ("y", 0, 2), ("c", 0, 1), ("s", 0, 2), ("r", 0, 1))
Coordinates = tuple[int, int, int, int, int]


def code(p: Coordinates) -> int:
    """A pipeline's number: x + 5 (y + 3 (c + 2 (s + 3 r)))."""
    x, y, c, s, r = p
    return x + 5 * (y + 3 * (c + 2 * (s + 3 * r)))


def family() -> list[Coordinates]:
    """Every pipeline of the family, in the order of the box."""
    return [
        (x, y, c, s, r)
        for x, y, c, s, r in itertools.product(*(range(lo, hi + 1) for _, lo, hi in BOX))
    ]


def source(p: Coordinates, name: str) -> list[str]:
    """The lines of one pipeline."""
    x, y, c, s, r = p
    lines = [f"pipeline {name} {{", "  epoch e1, e2"]
    if r:
        lines.append("  require e2 == e1")
    lines.append(f"  let x = {READ_X[x]}")
    if c:
        lines += [f"  let y = {READ_Y[y]}", "  let v = converge(Trained, e1, x, y)"]
    else:
        lines.append("  let v = x")
    return lines + [f"  {SINKS[s]}(v)", "}"]


@dataclass(frozen=True, slots=True)
class Verdicts:
    """The type checker's diagnostic codes for every pipeline of the family, by code."""

    codes: dict[int, frozenset[str]]
    pipelines: int

    def with_code(self, diagnostic: str) -> list[int]:
        return sorted(n for n, cs in self.codes.items() if diagnostic in cs)

    def accepted(self) -> list[int]:
        return sorted(n for n, cs in self.codes.items() if not cs)


def type_check() -> Verdicts:
    """Run fito's type checker once on the whole family; each diagnostic is assigned to the
    pipeline whose lines contain it (ValueError if one falls outside every pipeline)."""
    import fito  # lazy-import: the checker's front end is heavy

    text = ["type Dom = {model, optim}", ""]
    spans: list[tuple[int, int, int]] = []
    for p in family():
        start = len(text) + 1
        text += source(p, f"p{code(p)}") + [""]
        spans.append((start, len(text), code(p)))
    report = fito.check_text("\n".join(text), fito.CheckOptions(model_check=False))
    codes: dict[int, set[str]] = {n: set() for _, _, n in spans}
    for d in report.diagnostics:
        line = d.span.line if d.span else 0
        owner = next((n for a, b, n in spans if a <= line <= b), None)
        if owner is None:
            raise ValueError(f"diagnostic {d.code} at line {line} is in no pipeline")
        codes[owner].add(d.code)
    return Verdicts({n: frozenset(cs) for n, cs in codes.items()}, len(spans))
