"""A formula's truth on one lasso, by the textbook fixpoints: independent of the automaton.

A lasso is a word of positions 0 .. n-1 (a model state and the step taken from it) whose
last position is followed by position `loop` again. `U` is the least fixpoint of
`b or (a and next)`, `R` the greatest of `b and (a or next)`, computed over the positions
until nothing changes. `fito replay` uses it to confirm that a saved lasso violates its
formula, and the tests use it to confirm every counterexample the engine reports.
"""

from __future__ import annotations

from collections.abc import Sequence

from fito.check.ltl.fairness import build_assumptions, is_fair
from fito.check.ltl.product import STUTTER, EventKey, event_matcher, step_event
from fito.lang import nodes as A
from fito.lang import temporal as T
from fito.semantics.compiled import Compiled

Position = tuple[tuple[int, ...], int]  # a model state and the rank of the step from it


def holds_on_lasso(c: Compiled, f: T.Formula, word: Sequence[Position], loop: int) -> bool:
    """Whether f holds at position 0 of the lasso (word[loop:] repeats forever)."""
    n = len(word)
    nxt = [i + 1 if i + 1 < n else loop for i in range(n)]
    events = [step_event(c, s, k)[1] for s, k in word]
    return _values(c, f, word, events, nxt)[0]


def _values(
    c: Compiled,
    f: T.Formula,
    word: Sequence[Position],
    events: list[EventKey | None],
    nxt: list[int],
) -> list[bool]:
    n = len(word)
    if isinstance(f, T.Prop):
        pred = c.predicate(f.expr)
        return [bool(pred(s)) for s, _ in word]
    if isinstance(f, T.Fired):
        match = event_matcher(c, f.events)
        return [match(e) for e in events]
    if isinstance(f, T.TUnary):
        a = _values(c, f.operand, word, events, nxt)
        if f.op == "not":
            return [not v for v in a]
        if f.op == "X":
            return [a[nxt[i]] for i in range(n)]
        if f.op == "[]":
            return _fix(n, nxt, [False] * n, a, greatest=True)
        return _fix(n, nxt, a, [True] * n, greatest=False)  # <>: true U a
    a = _values(c, f.left, word, events, nxt)
    b = _values(c, f.right, word, events, nxt)
    if f.op == "and":
        return [x and y for x, y in zip(a, b)]
    if f.op == "or":
        return [x or y for x, y in zip(a, b)]
    if f.op == "=>":
        return [not x or y for x, y in zip(a, b)]
    if f.op == "U":
        return _fix(n, nxt, b, a, greatest=False)
    if f.op == "R":
        return _fix(n, nxt, a, b, greatest=True)
    # W: a W b = b R (a or b)
    return _fix(n, nxt, b, [x or y for x, y in zip(a, b)], greatest=True)


def _fix(
    n: int, nxt: list[int], first: list[bool], second: list[bool], greatest: bool
) -> list[bool]:
    """U (least): v = first or (second and v[next]); R (greatest): v = second and (first or
    v[next]), with (first, second) = (b, a) for `a U b` and (a, b) for `a R b`."""
    v = [greatest] * n
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            if greatest:
                new = second[i] and (first[i] or v[nxt[i]])
            else:
                new = first[i] or (second[i] and v[nxt[i]])
            if new != v[i]:
                v[i] = new
                changed = True
    return v


def violates(
    c: Compiled,
    a: A.AssertDecl,
    path: Sequence[Position],
    last: tuple[int, ...],
    loop_start: int | None,
) -> bool:
    """Whether a run read back from a saved trace is a counterexample of the ltl assertion
    a: a fair lasso (steps loop_start.. repeat, back to where they started) or a finite run
    that stutters at its end (loop_start None), on which the formula is false."""
    proc = a.proc if a.proc is not None else c.model.system
    assert proc is not None and a.formula is not None
    if loop_start is None:
        if c.successors(last):
            return False
        word, loop = list(path) + [(last, STUTTER)], len(path)
    else:
        loop = loop_start - 1
        if not 0 <= loop < len(path) or path[loop][0] != last:
            return False
        word = list(path)
        if not is_fair(c, build_assumptions(c, proc, a.fairness), word[loop:]):
            return False
    return not holds_on_lasso(c, a.formula, word, loop)
