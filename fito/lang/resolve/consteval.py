"""Evaluation of constant expressions (constants, range bounds, initializers, arguments).

Values are ints (Bool 0/1, enumeration members by index); `/` and `%` are the language's
(fito.lang.arithmetic: rounded toward negative infinity, a zero divisor an error).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from fito import budget
from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang.arithmetic import ZeroDivisor, divide

#: The largest magnitude of a constant, in bits: a constant that squares itself repeatedly
#: is refused (T009) before its digits take the machine, as any value that needs more bits
#: than any cell or range could hold is a mistake.
MAX_BITS = 4096


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
        return _bounded(a + b, span)
    if op == "-":
        return _bounded(a - b, span)
    if op == "*":
        if a.bit_length() + b.bit_length() > MAX_BITS + 1:
            raise ConstError(f"the product has more than {MAX_BITS} bits", span)
        return _bounded(a * b, span)
    try:
        return divide(op, a, b)
    except ZeroDivisor as exc:
        raise ConstError(str(exc), span) from None


def _bounded(v: int, span: Span) -> int:
    if v.bit_length() > MAX_BITS:
        raise ConstError(f"the value has more than {MAX_BITS} bits", span)
    return v


_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_ARITH = frozenset({"+", "-", "*", "/", "%"})


def compare(op: str, a: int, b: int) -> bool:
    return _COMPARE[op](a, b)


def evaluate(
    e: A.Expr,
    lookup: Callable[[str, Span], int],
    domain_values: Callable[[A.TypeExpr], tuple[int, ...]] | None = None,
    bound: Mapping[str, int] | None = None,
) -> int:
    """Evaluate e; `lookup` gives the value of a free name or raises NotConstant.

    Chains of binary operators are folded in a loop (left-nested chains such as
    `1 + 1 + ... + 1` down their left spine, `a => b => ...` down its right spine), so a
    long chain costs no recursion; `and`, `or` and `=>` short-circuit left to right.
    """
    return _Evaluator(lookup, domain_values, dict(bound) if bound else {}).ev(e)


class _Evaluator:
    def __init__(
        self,
        lookup: Callable[[str, Span], int],
        domain_values: Callable[[A.TypeExpr], tuple[int, ...]] | None,
        env: dict[str, int],
    ) -> None:
        self.lookup, self.domain_values, self.env = lookup, domain_values, env

    def ev(self, x: A.Expr) -> int:
        if isinstance(x, A.IntLit):
            return x.value
        if isinstance(x, A.Name):
            return self.env[x.id] if x.id in self.env else self.lookup(x.id, x.span)
        if isinstance(x, A.Binary):
            return self.fold(x)
        if isinstance(x, A.BoolLit):
            return int(x.value)
        if isinstance(x, A.Unary):
            v = self.ev(x.operand)
            return -v if x.op == "-" else int(not v)
        if isinstance(x, A.IfExpr):
            return self.ev(x.then) if self.ev(x.cond) else self.ev(x.orelse)
        if isinstance(x, A.Call) and x.func in ("min", "max") and len(x.args) == 2:
            a, b = self.ev(x.args[0]), self.ev(x.args[1])
            return min(a, b) if x.func == "min" else max(a, b)
        if isinstance(x, A.Quant) and self.domain_values is not None:
            return self.quant(x)
        if isinstance(x, A.Let):
            return self.let(x)
        raise NotConstant(x.span)

    def let(self, x: A.Let) -> int:
        value = self.ev(x.value)
        env = self.env
        had, saved = x.var in env, env.get(x.var)
        env[x.var] = value
        try:
            return self.ev(x.body)
        finally:
            if had:
                env[x.var] = saved  # type: ignore[assignment]
            else:
                env.pop(x.var, None)

    def fold(self, x: A.Binary) -> int:
        """A chain of binary operators, walked down its spine."""
        node: A.Expr = x
        if x.op == "=>":
            while isinstance(node, A.Binary) and node.op == "=>":
                if not self.ev(node.left):
                    return 1
                node = node.right
            return int(bool(self.ev(node)))
        spine: list[A.Binary] = []
        while isinstance(node, A.Binary) and node.op != "=>":
            spine.append(node)
            node = node.left
        acc = self.ev(node)
        for b in reversed(spine):
            op = b.op
            if op == "and":
                acc = int(bool(acc) and bool(self.ev(b.right)))
            elif op == "or":
                acc = int(bool(acc) or bool(self.ev(b.right)))
            elif op in _ARITH:
                acc = arith(op, acc, self.ev(b.right), b.span)
            else:
                acc = int(_COMPARE[op](acc, self.ev(b.right)))
        return acc

    def quant(self, x: A.Quant) -> int:
        assert self.domain_values is not None
        env = self.env
        had, saved = x.var in env, env.get(x.var)
        result = x.kind == "forall"
        check = budget.check
        for v in self.domain_values(x.domain):
            check()
            env[x.var] = v
            if bool(self.ev(x.body)) != result:
                result = not result
                break
        if had:
            env[x.var] = saved  # type: ignore[assignment]
        else:
            env.pop(x.var, None)
        return int(result)
