"""LTL formulas as the engine reads them: negation normal form over numbered atoms.

A formula is a nested tuple (hashable, compared structurally): `TRUE`, `FALSE`,
`("ap", i)` and `("np", i)` (atom i holds / does not hold), `("and", a, b)`,
`("or", a, b)`, `("X", a)`, `("U", a, b)` and `("R", a, b)`. `[] a` is `false R a`,
`<> a` is `true U a`, `a W b` is `b R (a or b)`, `a => b` is `not a or b`. Atoms are the
distinct propositions and `fired(...)` sets of the source formula (`Atoms`), numbered in
the order they are first met. `nnf` pushes negations to the atoms and simplifies the
result with the rules of Somenzi and Bloem's "Efficient Büchi automata from LTL formulae"
(CAV 2000) that need no language inclusion test.
"""

from __future__ import annotations

from dataclasses import dataclass

from fito.lang import nodes as A
from fito.lang import temporal as T
from fito.lang.printer.canonical import print_event_set, print_expr

F = tuple  # a formula in negation normal form
TRUE: F = ("true",)
FALSE: F = ("false",)


@dataclass(frozen=True, slots=True)
class Atoms:
    """The atoms of a formula: a state proposition (an expression) or a set of events."""

    exprs: tuple[A.Expr | None, ...]  # per atom: the proposition, or None for an event set
    events: tuple[A.EventSet | None, ...]  # per atom: the `fired` set, or None
    texts: tuple[str, ...]


def translate(f: T.Formula, negate: bool) -> tuple[F, Atoms]:
    """The formula (or its negation) in negation normal form, and its atoms."""
    texts: dict[str, int] = {}
    exprs: list[A.Expr | None] = []
    events: list[A.EventSet | None] = []

    def atom(leaf: T.Prop | T.Fired) -> int:
        if isinstance(leaf, T.Prop):
            text = print_expr(leaf.expr)
        else:
            text = f"fired({print_event_set(leaf.events)})"
        if text not in texts:
            texts[text] = len(exprs)
            exprs.append(leaf.expr if isinstance(leaf, T.Prop) else None)
            events.append(leaf.events if isinstance(leaf, T.Fired) else None)
        return texts[text]

    out = _nnf(f, negate, atom)
    return out, Atoms(tuple(exprs), tuple(events), tuple(texts))


def _nnf(f: T.Formula, neg: bool, atom: object) -> F:
    """Negation normal form (recursive over the formula's depth: formulas are written by
    hand, and the parser bounds their nesting)."""
    get = atom
    if isinstance(f, (T.Prop, T.Fired)):
        if isinstance(f, T.Prop) and isinstance(f.expr, A.BoolLit):
            return FALSE if f.expr.value == neg else TRUE
        i = get(f)  # type: ignore[operator]
        return ("np", i) if neg else ("ap", i)
    if isinstance(f, T.TUnary):
        if f.op == "not":
            return _nnf(f.operand, not neg, atom)
        a = _nnf(f.operand, neg, atom)
        if f.op == "X":
            return next_(a)
        if (f.op == "[]") != neg:
            return release(FALSE, a)
        return until(TRUE, a)
    op = f.op
    if op == "=>":
        left = _nnf(f.left, not neg, atom)
        right = _nnf(f.right, neg, atom)
        return and_(left, right) if neg else or_(left, right)
    left = _nnf(f.left, neg, atom)
    right = _nnf(f.right, neg, atom)
    if op in ("and", "or"):
        return and_(left, right) if (op == "and") != neg else or_(left, right)
    if op == "W":  # a W b = b R (a or b); not (a W b) = (not b) U (not a and not b)
        return until(right, and_(left, right)) if neg else release(right, or_(left, right))
    if op == "U":  # not (a U b) = (not a) R (not b)
        return release(left, right) if neg else until(left, right)
    return until(left, right) if neg else release(left, right)  # R


def and_(a: F, b: F) -> F:
    if a == FALSE or b == FALSE:
        return FALSE
    if a == TRUE:
        return b
    if b == TRUE or a == b:
        return a
    return ("and", a, b) if a <= b else ("and", b, a)


def or_(a: F, b: F) -> F:
    if a == TRUE or b == TRUE:
        return TRUE
    if a == FALSE:
        return b
    if b == FALSE or a == b:
        return a
    return ("or", a, b) if a <= b else ("or", b, a)


def next_(a: F) -> F:
    if a in (TRUE, FALSE):
        return a
    return ("X", a)


def until(a: F, b: F) -> F:
    if b in (TRUE, FALSE) or a == FALSE or a == b:
        return b
    if a == TRUE and b[0] == "U" and b[1] == TRUE:  # <> <> b = <> b
        return b
    if a == TRUE and b[0] == "R" and b[1] == FALSE and _is_gf(b[2]):  # <> [] <> b = [] <> b
        return b
    if b[0] == "X" and a[0] == "X":  # X a U X b = X (a U b)
        return next_(until(a[1], b[1]))
    return ("U", a, b)


def release(a: F, b: F) -> F:
    if b in (TRUE, FALSE) or a == TRUE or a == b:
        return b
    if a == FALSE and b[0] == "R" and b[1] == FALSE:  # [] [] b = [] b
        return b
    if b[0] == "X" and a[0] == "X":  # X a R X b = X (a R b)
        return next_(release(a[1], b[1]))
    return ("R", a, b)


def _is_gf(b: F) -> bool:
    return b[0] == "U" and b[1] == TRUE


def show(f: F, atoms: Atoms) -> str:
    """A formula as text, for messages and tests."""
    kind = f[0]
    if kind in ("true", "false"):
        return kind
    if kind == "ap":
        return atoms.texts[f[1]]
    if kind == "np":
        return f"not {atoms.texts[f[1]]}"
    if kind == "X":
        return f"X ({show(f[1], atoms)})"
    return f"({show(f[1], atoms)} {kind} {show(f[2], atoms)})"
