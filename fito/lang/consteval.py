"""Evaluation of constant expressions (constants, range bounds, initializers, arguments).

Values are ints (Bool 0/1, enumeration members by index). Integer `/` and `%` round toward
negative infinity, as in Python (LANGUAGE.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from fito.diagnostics import Span
from fito.lang import ast as A


class NotConstant(Exception):
    """The expression reads a cell or an unbound name."""

    def __init__(self, span: Span) -> None:
        super().__init__("not constant")
        self.span = span


@dataclass(frozen=True, slots=True)
class ConstError(Exception):
    """A constant expression that cannot be evaluated (division by zero, ...)."""

    message: str
    span: Span


def arith(op: str, a: int, b: int, span: Span) -> int:
    """One integer operation with the language's rounding and errors."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise ConstError("division by zero" if op == "/" else "modulo by zero", span)
    return a // b if op == "/" else a % b


_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}
_ARITH = frozenset({"+", "-", "*", "/", "%"})


def compare(op: str, a: int, b: int) -> bool:
    return _COMPARE[op](a, b)


def evaluate(e: A.Expr, lookup: Callable[[str, Span], int],
             domain_values: Callable[[A.TypeExpr], tuple[int, ...]] | None = None,
             bound: Mapping[str, int] | None = None) -> int:
    """Evaluate e; `lookup` gives the value of a free name or raises NotConstant.

    Chains of binary operators are folded in a loop (left-nested chains such as
    `1 + 1 + ... + 1` down their left spine, `a => b => ...` down its right spine), so a
    long chain costs no recursion; `and`, `or` and `=>` short-circuit left to right.
    """
    env = dict(bound) if bound else {}

    def ev(x: A.Expr) -> int:
        kind = type(x)
        if kind is A.IntLit:
            return x.value  # type: ignore[union-attr]
        if kind is A.Name:
            return env[x.id] if x.id in env else lookup(x.id, x.span)  # type: ignore[union-attr]
        if kind is A.Binary:
            return fold(x)  # type: ignore[arg-type]
        if kind is A.BoolLit:
            return int(x.value)  # type: ignore[union-attr]
        if kind is A.Unary:
            v = ev(x.operand)  # type: ignore[union-attr]
            return -v if x.op == "-" else int(not v)  # type: ignore[union-attr]
        if kind is A.IfExpr:
            return ev(x.then) if ev(x.cond) else ev(x.orelse)  # type: ignore[union-attr]
        if kind is A.Call and x.func in ("min", "max") and len(x.args) == 2:  # type: ignore[union-attr]
            a, b = ev(x.args[0]), ev(x.args[1])  # type: ignore[union-attr]
            return min(a, b) if x.func == "min" else max(a, b)  # type: ignore[union-attr]
        if kind is A.Quant and domain_values is not None:
            return quant(x)  # type: ignore[arg-type]
        raise NotConstant(x.span)

    def fold(x: A.Binary) -> int:
        if x.op == "=>":
            node: A.Expr = x
            while type(node) is A.Binary and node.op == "=>":
                if not ev(node.left):
                    return 1
                node = node.right
            return int(bool(ev(node)))
        spine: list[A.Binary] = []
        node = x
        while type(node) is A.Binary and node.op != "=>":
            spine.append(node)
            node = node.left
        acc = ev(node)
        for b in reversed(spine):
            op = b.op
            if op == "and":
                acc = int(bool(acc) and bool(ev(b.right)))
            elif op == "or":
                acc = int(bool(acc) or bool(ev(b.right)))
            elif op in _ARITH:
                acc = arith(op, acc, ev(b.right), b.span)
            else:
                acc = int(_COMPARE[op](acc, ev(b.right)))
        return acc

    def quant(x: A.Quant) -> int:
        assert domain_values is not None
        had, saved = x.var in env, env.get(x.var)
        result = x.kind == "forall"
        for v in domain_values(x.domain):
            env[x.var] = v
            if bool(ev(x.body)) != result:
                result = not result
                break
        if had:
            env[x.var] = saved  # type: ignore[assignment]
        else:
            env.pop(x.var, None)
        return int(result)

    return ev(e)
