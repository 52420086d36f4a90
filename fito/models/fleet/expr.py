"""A tiny, safe expression language for fleet parameters: f(n) = "B", "n*b", "min(n, 4)*3/2".

No `eval`: a recursive-descent parser builds frozen nodes; evaluation is exact (Fraction)
whenever the operations allow it, and floats otherwise (sqrt, log, exp, fractional powers).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from fito.errors import FitoError

Number = Fraction | float

FUNCTIONS = ("min", "max", "sqrt", "log", "exp", "abs", "floor", "ceil")
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<op>\*\*|[-+*/^(),]))"
)
MAX_LENGTH = 2000
MAX_DEPTH = 60


class ExprError(FitoError, ValueError):
    """A syntax or evaluation error in a parameter expression; `offset` is 0-based."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True, slots=True)
class Num:
    value: Fraction


@dataclass(frozen=True, slots=True)
class Name:
    name: str
    offset: int


@dataclass(frozen=True, slots=True)
class Unary:
    op: str
    arg: Node


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Call:
    func: str
    args: tuple[Node, ...]
    offset: int


Node = Num | Name | Unary | Binary | Call


@dataclass(frozen=True, slots=True)
class Expr:
    """A parsed expression with its source text."""

    text: str
    node: Node

    def names(self) -> tuple[str, ...]:
        """The free names, sorted."""
        return tuple(sorted(_names(self.node)))

    def evaluate(self, env: Mapping[str, Number]) -> Number:
        """The value under `env` (exact when every step is rational); ExprError for anything
        that has no finite value of a sensible size (1/0, log(0), exp(1000), 10^400)."""
        try:
            return bounded(_eval(self.node, env))
        except ExprError:
            raise
        except (ArithmeticError, ValueError) as exc:  # float overflow, math domain errors
            raise ExprError(f"{self.text!r} has no finite value ({exc})") from None

    def to_sympy(self, env: Mapping[str, object]):
        """The SymPy expression, names replaced by `env` values or symbols."""
        return _sympy(self.node, env)


def parse_expr(text: str) -> Expr:
    """Parse `text`; raise ExprError with an offset on bad syntax."""
    if len(text) > MAX_LENGTH:
        raise ExprError(f"expression longer than {MAX_LENGTH} characters", 0)
    parser = _Parser(text)
    node = parser.expr(0)
    parser.expect_end()
    return Expr(text, node)


#: A value of a fleet model (after evaluation) has a numerator and a denominator of at most
#: this many digits: exact simulation stays cheap, and every value converts to a float.
MAX_DIGITS = 30


def bounded(value: Number) -> Number:
    """value, if it is finite and of a sensible size; else ExprError."""
    if isinstance(value, Fraction):
        limit = 10**MAX_DIGITS
        if abs(value.numerator) >= limit or value.denominator >= limit:
            raise ExprError(
                f"{float(value):.3g} is too large or too precise (numerator and "
                f"denominator of at most {MAX_DIGITS} digits)"
                if abs(value.numerator).bit_length() < 1000
                and value.denominator.bit_length() < 1000
                else f"a value with more than {MAX_DIGITS} digits"
            )
        return value
    if not math.isfinite(value):
        raise ExprError(f"{value} is not a finite number")
    return value


def number(value: object) -> Fraction:
    """A TOML or command-line number as an exact Fraction ("27/2", 0.1, 3)."""
    if isinstance(value, bool):
        raise ExprError("expected a number, got a boolean")
    if isinstance(value, int):
        return bounded(Fraction(value))  # type: ignore[return-value]
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ExprError("expected a finite number")
        return bounded(Fraction(repr(value)))  # type: ignore[return-value]
    if isinstance(value, str):
        result = parse_expr(value).evaluate({})
        if isinstance(result, float):
            raise ExprError(f"{value!r} is not a rational number")
        return result
    raise ExprError(f"expected a number, got {type(value).__name__}")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = self._lex(text)
        self.pos = 0

    @staticmethod
    def _lex(text: str) -> list[tuple[str, str, int]]:
        tokens, i = [], 0
        while i < len(text):
            if text[i].isspace():
                i += 1
                continue
            m = _TOKEN.match(text, i)
            if m is None or m.end() == i:
                raise ExprError(f"unexpected character {text[i]!r}", i)
            kind = m.lastgroup or "op"
            start = m.start(kind)
            tokens.append((kind, m.group(kind), start))
            i = m.end()
        tokens.append(("end", "", len(text)))
        return tokens

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.pos]

    def take(self) -> tuple[str, str, int]:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect(self, op: str) -> None:
        kind, value, offset = self.take()
        if value != op or kind != "op":
            raise ExprError(f"expected {op!r}, found {value or 'end of expression'!r}", offset)

    def expect_end(self) -> None:
        kind, value, offset = self.peek()
        if kind != "end":
            raise ExprError(f"unexpected {value!r}", offset)

    def expr(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise ExprError("expression nests too deeply", self.peek()[2])
        node = self.term(depth)
        while self.peek()[1] in ("+", "-") and self.peek()[0] == "op":
            op = self.take()[1]
            node = Binary(op, node, self.term(depth))
        return node

    def term(self, depth: int) -> Node:
        node = self.unary(depth)
        while self.peek()[1] in ("*", "/") and self.peek()[0] == "op":
            op = self.take()[1]
            node = Binary(op, node, self.unary(depth))
        return node

    def unary(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise ExprError("expression nests too deeply", self.peek()[2])
        if self.peek()[1] in ("-", "+") and self.peek()[0] == "op":
            op = self.take()[1]
            arg = self.unary(depth + 1)
            return arg if op == "+" else Unary("-", arg)
        return self.power(depth)

    def power(self, depth: int) -> Node:
        base = self.atom(depth)
        if self.peek()[1] in ("^", "**") and self.peek()[0] == "op":
            self.take()
            return Binary("^", base, self.unary(depth + 1))
        return base

    def atom(self, depth: int) -> Node:
        kind, value, offset = self.take()
        if kind == "num":
            return Num(Fraction(value))
        if kind == "name":
            if self.peek()[1] == "(":
                return self._call(value, offset, depth)
            return Name(value, offset)
        if value == "(":
            node = self.expr(depth + 1)
            self.expect(")")
            return node
        raise ExprError(
            f"expected a number, a name or '(', found {value or 'end of expression'!r}", offset
        )

    def _call(self, func: str, offset: int, depth: int) -> Node:
        if func not in FUNCTIONS:
            raise ExprError(f"unknown function {func!r} (known: {', '.join(FUNCTIONS)})", offset)
        self.expect("(")
        args = [self.expr(depth + 1)]
        while self.peek()[1] == ",":
            self.take()
            args.append(self.expr(depth + 1))
        self.expect(")")
        arity_ok = len(args) >= 2 if func in ("min", "max") else len(args) == 1
        if not arity_ok:
            raise ExprError(f"wrong number of arguments to {func}()", offset)
        return Call(func, tuple(args), offset)


def _names(node: Node) -> set[str]:
    if isinstance(node, Name):
        return {node.name}
    if isinstance(node, Unary):
        return _names(node.arg)
    if isinstance(node, Binary):
        return _names(node.left) | _names(node.right)
    if isinstance(node, Call):
        return set().union(*(_names(a) for a in node.args))
    return set()


def _eval(node: Node, env: Mapping[str, Number]) -> Number:
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Name):
        if node.name not in env:
            raise ExprError(f"unknown name {node.name!r}", node.offset)
        return env[node.name]
    if isinstance(node, Unary):
        return -_eval(node.arg, env)
    if isinstance(node, Binary):
        return _binary(node.op, _eval(node.left, env), _eval(node.right, env))
    return _call(node, [_eval(a, env) for a in node.args])


def _binary(op: str, a: Number, b: Number) -> Number:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise ExprError("division by zero")
        return a / b
    if isinstance(b, Fraction) and b.denominator == 1 and isinstance(a, Fraction):
        if a == 0 and b < 0:
            raise ExprError("division by zero")
        if (
            abs(b.numerator) > 4096
            or abs(b.numerator) * max(a.numerator.bit_length(), a.denominator.bit_length()) > 65536
        ):
            raise ExprError("power too large")
        return a**b.numerator
    if a < 0:
        raise ExprError("fractional power of a negative number")
    return float(a) ** float(b)


def _call(node: Call, args: list[Number]) -> Number:
    func = node.func
    if func == "min":
        return min(args)
    if func == "max":
        return max(args)
    if func == "abs":
        return abs(args[0])  # type: ignore[return-value]
    if func in ("floor", "ceil"):
        value = math.floor(args[0]) if func == "floor" else math.ceil(args[0])
        return Fraction(value)
    x = args[0]
    if func == "sqrt":
        if x < 0:
            raise ExprError("sqrt of a negative number", node.offset)
        if isinstance(x, Fraction):
            root = _exact_sqrt(x)
            if root is not None:
                return root
        return math.sqrt(x)
    if func == "log":
        if x <= 0:
            raise ExprError("log of a non-positive number", node.offset)
        return math.log(x)
    return math.exp(x)


def _exact_sqrt(x: Fraction) -> Fraction | None:
    p, q = math.isqrt(x.numerator), math.isqrt(x.denominator)
    if p * p == x.numerator and q * q == x.denominator:
        return Fraction(p, q)
    return None


def _sympy(node: Node, env: Mapping[str, object]):
    import sympy  # lazy-import: sympy is slow to load

    if isinstance(node, Num):
        return sympy.Rational(node.value.numerator, node.value.denominator)
    if isinstance(node, Name):
        return env[node.name] if node.name in env else sympy.Symbol(node.name, positive=True)
    if isinstance(node, Unary):
        return -_sympy(node.arg, env)
    if isinstance(node, Binary):
        a, b = _sympy(node.left, env), _sympy(node.right, env)
        ops = {"+": sympy.Add, "*": sympy.Mul}
        if node.op in ops:
            return ops[node.op](a, b)
        return a - b if node.op == "-" else (a / b if node.op == "/" else a**b)
    args = [_sympy(a, env) for a in node.args]
    table = {
        "min": sympy.Min,
        "max": sympy.Max,
        "sqrt": sympy.sqrt,
        "log": sympy.log,
        "exp": sympy.exp,
        "abs": sympy.Abs,
        "floor": sympy.floor,
        "ceil": sympy.ceiling,
    }
    return table[node.func](*args)
