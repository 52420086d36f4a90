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


def compare(op: str, a: int, b: int) -> bool:
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def evaluate(e: A.Expr, lookup: Callable[[str, Span], int],
             domain_values: Callable[[A.TypeExpr], tuple[int, ...]] | None = None,
             bound: Mapping[str, int] | None = None) -> int:
    """Evaluate e; `lookup` gives the value of a free name or raises NotConstant."""
    env = dict(bound or {})

    def ev(x: A.Expr) -> int:
        if isinstance(x, A.IntLit):
            return x.value
        if isinstance(x, A.BoolLit):
            return int(x.value)
        if isinstance(x, A.Name):
            return env[x.id] if x.id in env else lookup(x.id, x.span)
        if isinstance(x, A.Unary):
            v = ev(x.operand)
            return -v if x.op == "-" else int(not v)
        if isinstance(x, A.Binary):
            return binary(x)
        if isinstance(x, A.IfExpr):
            return ev(x.then) if ev(x.cond) else ev(x.orelse)
        if isinstance(x, A.Call) and x.func in ("min", "max") and len(x.args) == 2:
            a, b = ev(x.args[0]), ev(x.args[1])
            return min(a, b) if x.func == "min" else max(a, b)
        if isinstance(x, A.Quant) and domain_values is not None:
            return quant(x)
        raise NotConstant(x.span)

    def binary(x: A.Binary) -> int:
        if x.op == "and":
            return int(bool(ev(x.left)) and bool(ev(x.right)))
        if x.op == "or":
            return int(bool(ev(x.left)) or bool(ev(x.right)))
        if x.op == "=>":
            return int((not ev(x.left)) or bool(ev(x.right)))
        a, b = ev(x.left), ev(x.right)
        if x.op in ("+", "-", "*", "/", "%"):
            return arith(x.op, a, b, x.span)
        return int(compare(x.op, a, b))

    def quant(x: A.Quant) -> int:
        assert domain_values is not None
        saved = env.get(x.var)
        results = []
        for v in domain_values(x.domain):
            env[x.var] = v
            results.append(bool(ev(x.body)))
        if saved is None:
            env.pop(x.var, None)
        else:
            env[x.var] = saved
        return int(all(results) if x.kind == "forall" else any(results))

    return ev(e)
