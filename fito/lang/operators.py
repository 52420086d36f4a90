"""Operator precedence and associativity of the term language, and the chain resolver.

LANGUAGE.md lists the process operators loosest first and the expression operators
tightest first; this table is the one place where that order lives. Each binary operator
has a left and a right binding power (Pratt style): an operator on the stack is reduced
before an incoming one when its right binding power is at least the incoming left binding
power. `->` and `&` share a right binding power so that `a -> b & P` reads `a -> (b & P)`.
"""
from __future__ import annotations

from typing import Callable, Sequence, TypeVar

# loosest first: (operator, associativity)
_LEVELS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("\\",), "left"),
    (("[||]",), "left"),
    (("|||",), "left"),
    (("/\\",), "left"),
    (("[]",), "left"),
    (("|~|",), "left"),
    ((";",), "left"),
    (("&",), "right"),
    (("->",), "right"),
    (("=>",), "right"),
    (("or",), "left"),
    (("and",), "left"),
    (("==", "!=", "<", "<=", ">", ">="), "none"),
    (("+", "-"), "left"),
    (("*", "/", "%"), "left"),
)

BINDING: dict[str, tuple[int, int]] = {}
LEVEL: dict[str, int] = {}
for _level, (_ops, _assoc) in enumerate(_LEVELS, start=1):
    for _op in _ops:
        LEVEL[_op] = _level
        BINDING[_op] = (2 * _level + 1, 2 * _level) if _assoc == "right" else (2 * _level, 2 * _level + 1)
BINDING["->"] = (BINDING["->"][0], BINDING["&"][1])

PROCESS_OPS = frozenset({"\\", "[||]", "|||", "/\\", "[]", "|~|", ";"})
COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
ARITHMETIC = frozenset({"+", "-", "*", "/", "%"})
LOGICAL = frozenset({"and", "or", "=>"})

T = TypeVar("T")
O = TypeVar("O")


def resolve_chain(operands: Sequence[T], operators: Sequence[O], op_name: Callable[[O], str],
                  combine: Callable[[O, T, T], T]) -> T:
    """Fold `u0 op1 u1 ... opn un` by precedence, iteratively (no recursion)."""
    values: list[T] = [operands[0]]
    stack: list[O] = []
    for op, operand in zip(operators, operands[1:]):
        lbp = BINDING[op_name(op)][0]
        while stack and BINDING[op_name(stack[-1])][1] >= lbp:
            right = values.pop()
            values.append(combine(stack.pop(), values.pop(), right))
        stack.append(op)
        values.append(operand)
    while stack:
        right = values.pop()
        values.append(combine(stack.pop(), values.pop(), right))
    return values[0]
