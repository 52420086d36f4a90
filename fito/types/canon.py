"""Questions up to renaming of epochs: one cache entry for every alpha-equivalent question.

`e2 == e1 + 1 |- e1 == e2` and `b7 == a7 + 1 |- a7 == b7` are one question for Z3. The
canonical form renames variables to `v0, v1, ...` in order of first occurrence: the question
first, then the facts sorted by their shape (the fact with every variable written `_`).
Facts of equal shape keep their order, so two equivalent questions may still get different
keys: that costs a cache miss, never a wrong answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from fito.types.epochs import (
    Atom,
    Cmp,
    Div,
    Formula,
    IteBool,
    IteInt,
    Junction,
    Lin,
    Mod,
    Not,
    Truth,
    normal_cmp,
)


@dataclass(frozen=True, slots=True)
class Canonical:
    facts: tuple[Formula, ...]
    question: Formula
    names: tuple[str, ...]  # canonical variable vI -> original name names[I]
    perm: tuple[int, ...]  # canonical fact i -> index of the original fact


def canonical(facts: Sequence[Formula], question: Formula) -> Canonical:
    """The renamed question and facts, and the way back to the original names."""
    perm = sorted(range(len(facts)), key=lambda i: shape(facts[i]))
    order: dict[str, str] = {}

    def visit(name: str) -> str:
        if name not in order:
            order[name] = f"v{len(order)}"
        return order[name]

    question_c = rename(question, visit)
    facts_c = tuple(rename(facts[i], visit) for i in perm)
    return Canonical(facts_c, question_c, tuple(order), tuple(perm))


@lru_cache(maxsize=1 << 16)
def shape(f: Formula) -> str:
    """The fact with every variable written `_` (how facts are ordered before renaming)."""
    return repr(rename(f, lambda _: "_"))


def rename(f: Formula, to: Callable[[str], str]) -> Formula:
    """f with every variable v written to(v) (variables visited left to right)."""
    if isinstance(f, Truth):
        return f
    if isinstance(f, Cmp):
        return normal_cmp(f.op, rename_lin(f.lin, to))
    if isinstance(f, Not):
        return Not(rename(f.arg, to))
    if isinstance(f, Junction):
        return Junction(f.op, tuple(rename(a, to) for a in f.args))
    return IteBool(rename(f.cond, to), rename(f.then, to), rename(f.orelse, to))


def rename_lin(t: Lin, to: Callable[[str], str]) -> Lin:
    out = Lin((), t.const)
    for a, c in t.terms:
        out = out.plus(Lin(((_rename_atom(a, to), c),), 0))
    return out


def _rename_atom(a: Atom, to: Callable[[str], str]) -> Atom:
    if isinstance(a, str):
        return to(a)
    if isinstance(a, Div):
        return Div(rename_lin(a.num, to), a.k)
    if isinstance(a, Mod):
        return Mod(rename_lin(a.num, to), a.k)
    assert isinstance(a, IteInt)
    return IteInt(rename(a.cond, to), rename_lin(a.then, to), rename_lin(a.orelse, to))


def restore_names(
    witness: tuple[tuple[str, int], ...], names: Sequence[str], wanted: Mapping[str, int]
) -> tuple[tuple[str, int], ...]:
    """A canonical witness in original names, restricted to `wanted`, in its order."""
    values = {names[int(n[1:])]: v for n, v in witness}
    return tuple(
        sorted(((n, values[n]) for n in wanted if n in values), key=lambda nv: wanted[nv[0]])
    )
