"""Operator precedence and associativity of the term language, and the chain resolver.

LANGUAGE.md lists the process operators loosest first and the expression operators
tightest first; this table is the one place where that order lives. Each binary operator
has a left and a right binding power (Pratt style): an operator on the stack is reduced
before an incoming one when its right binding power is at least the incoming left binding
power. `->` and `&` share a right binding power so that `a -> b & P` reads `a -> (b & P)`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

# loosest first: (operator, associativity)
_LEVELS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("\\",), "left"),
    (("[||]", "[a||b]"), "left"),
    (("|||",), "left"),
    (("/\\",), "left"),
    (("[]",), "left"),
    (("|~|",), "left"),
    (("[>",), "left"),
    ((";",), "left"),
    (("&",), "right"),
    (("->",), "right"),
    (("=>",), "right"),
    (("or",), "left"),
    (("and",), "left"),
    (("U", "R", "W"), "right"),  # LTL (docs/ltl.md): only inside an `ltl` formula
    (("==", "!=", "<", "<=", ">", ">="), "none"),
    (("+", "-"), "left"),
    (("*", "/", "%"), "left"),
)

BINDING: dict[str, tuple[int, int]] = {}
LEVEL: dict[str, int] = {}
for _level, (_ops, _assoc) in enumerate(_LEVELS, start=1):
    for _op in _ops:
        LEVEL[_op] = _level
        right = _assoc == "right"
        BINDING[_op] = (2 * _level + 1, 2 * _level) if right else (2 * _level, 2 * _level + 1)
BINDING["->"] = (BINDING["->"][0], BINDING["&"][1])
# The prefix operators of an LTL formula, resolved as binary operators with an empty left
# operand: nothing before them is reduced when they arrive, and they take every operator
# tighter than `U` (`[] x == 1 and p` is `([] (x == 1)) and p`); `not` before a temporal
# operand binds tightest, as `not` does everywhere.
TEMPORAL_PREFIX = {"[]": "[]·", "<>": "<>·", "X": "X·", "not": "not·"}
for _op in ("[]·", "<>·", "X·"):
    BINDING[_op] = (1000, BINDING["U"][0])
BINDING["not·"] = (1000, 999)

PROCESS_OPS = frozenset({"\\", "[||]", "[a||b]", "|||", "/\\", "[]", "|~|", "[>", ";"})
COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
ARITHMETIC = frozenset({"+", "-", "*", "/", "%"})
LOGICAL = frozenset({"and", "or", "=>"})

NONASSOC = frozenset(op for ops, assoc in _LEVELS if assoc == "none" for op in ops)

T = TypeVar("T")


def resolve_chain(
    operands: Sequence[T],
    operators: Sequence[str],
    combine: Callable[[str, T, T], T],
    chained: Callable[[str, str, T, T], None] | None = None,
) -> T:
    """Fold `u0 op1 u1 ... opn un` by precedence, iteratively (no recursion).

    `chained(first, second, left, right)` is told of `a < b < c`: two operators of one
    non-associative level meeting in a chain (the fold still goes on, left to right).
    """
    if not operators:
        return operands[0]
    binding, level = BINDING, LEVEL
    values: list[T] = [operands[0]]
    stack: list[str] = []
    for op, operand in zip(operators, operands[1:]):
        lbp = binding[op][0]
        while stack and binding[stack[-1]][1] >= lbp:
            top = stack.pop()
            right = values.pop()
            left = values.pop()
            if chained is not None and top in NONASSOC and level[top] == level[op]:
                chained(top, op, left, right)
            values.append(combine(top, left, right))
        stack.append(op)
        values.append(operand)
    while stack:
        right = values.pop()
        values.append(combine(stack.pop(), values.pop(), right))
    return values[0]
