"""Expressions compiled against a layout and an environment of bound values.

The IR is nested tuples, so it hashes and compares cheaply:
  ("k", v)                        a constant
  ("c", slot)                     a cell slot read
  ("cd", cell, (i1, ...), err)    an array read with computed indices (checked)
  ("neg", a) ("not", a)
  ("op", op, a, b, err)           + - * / % comparisons and or =>  (err: site of / and %)
  ("if", c, a, b) ("min", a, b) ("max", a, b)
  ("fault", err, detail)          an expression that always fails (constant index out of range)
Bound names, constants and enumeration members become constants; quantifiers are expanded
over their (finite) domain; constant subterms are folded.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fito import budget
from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang.resolve import Model
from fito.semantics.layout import Layout

IR = tuple


@dataclass(frozen=True, slots=True)
class ErrorSite:
    """Where a model error can happen, and which kind (M001, M002, M007, M008)."""

    code: str
    message: str
    span: Span


class TimeLimit(Exception):
    """The deadline of the assertion being checked has passed (raised between compilations,
    and while a quantifier is expanded)."""


class Fault(Exception):
    """A model error met while evaluating: the site and a detail for the message."""

    def __init__(self, site: int, detail: str = "") -> None:
        super().__init__(site, detail)
        self.site = site
        self.detail = detail


@dataclass(slots=True)
class Sites:
    """The registry of error sites of one compiled model."""

    sites: list[ErrorSite] = field(default_factory=list)
    _index: dict[tuple[str, str, Span], int] = field(default_factory=dict)

    def add(self, code: str, message: str, span: Span) -> int:
        key = (code, message, span)
        if key not in self._index:
            self._index[key] = len(self.sites)
            self.sites.append(ErrorSite(code, message, span))
        return self._index[key]

    def describe(self, fault: Fault) -> tuple[ErrorSite, str]:
        site = self.sites[fault.site]
        message = site.message + (f": {fault.detail}" if fault.detail else "")
        return site, message


class ExprCompiler:
    """AST expressions -> IR, for one model and layout."""

    def __init__(self, model: Model, layout: Layout, sites: Sites) -> None:
        self.model = model
        self.layout = layout
        self.sites = sites
        self.deadline: float | None = None  # the assertion's (time.monotonic())

    def compile(self, e: A.Expr, env: Mapping[str, int]) -> IR:
        if isinstance(e, A.IntLit):
            return ("k", e.value)
        if isinstance(e, A.BoolLit):
            return ("k", int(e.value))
        if isinstance(e, A.Name):
            return self._name(e, env)
        if isinstance(e, A.Index):
            return self._index(e, env)
        if isinstance(e, A.Unary):
            a = self.compile(e.operand, env)
            return fold(("neg", a) if e.op == "-" else ("not", a))
        if isinstance(e, A.Binary):
            return self._binary(e, env)
        if isinstance(e, A.IfExpr):
            c = self.compile(e.cond, env)
            if c[0] == "k":
                return self.compile(e.then if c[1] else e.orelse, env)
            return ("if", c, self.compile(e.then, env), self.compile(e.orelse, env))
        if isinstance(e, A.Call):
            a, b = (self.compile(x, env) for x in e.args)
            return fold((e.func, a, b))
        assert isinstance(e, A.Quant)
        return self._quant(e, env)

    def _name(self, e: A.Name, env: Mapping[str, int]) -> IR:
        if e.id in env:
            return ("k", env[e.id])
        if e.id in self.model.consts:
            return ("k", self.model.consts[e.id][1])
        if e.id in self.model.members:
            return ("k", self.model.members[e.id][1])
        slots = self.layout.cells[e.id]
        return ("c", slots.base)

    def _index(self, e: A.Index, env: Mapping[str, int]) -> IR:
        indices: list[A.Expr] = []
        root: A.Expr = e
        while isinstance(root, A.Index):
            indices.append(root.index)
            root = root.base
        indices.reverse()
        assert isinstance(root, A.Name)
        irs = tuple(self.compile(i, env) for i in indices)
        err = self.sites.add("M007", f"index out of range in '{root.id}'", e.span)
        if all(x[0] == "k" for x in irs):
            values = tuple(x[1] for x in irs)
            slot = self.layout.cells[root.id].slot(values)
            if slot is None:
                return ("fault", err, "index " + ", ".join(map(str, values)))
            return ("c", slot)
        return ("cd", root.id, irs, err)

    def _binary(self, e: A.Binary, env: Mapping[str, int]) -> IR:
        a = self.compile(e.left, env)
        if e.op in ("and", "or", "=>") and a[0] == "k":  # short-circuit constant left sides
            if e.op == "and":
                return self.compile(e.right, env) if a[1] else ("k", 0)
            if e.op == "or":
                return ("k", 1) if a[1] else self.compile(e.right, env)
            return self.compile(e.right, env) if a[1] else ("k", 1)
        b = self.compile(e.right, env)
        err = -1
        if e.op in ("/", "%"):
            err = self.sites.add("M002", "division by zero" if e.op == "/" else "modulo by zero", e.span)
        return fold(("op", e.op, a, b, err))

    def _quant(self, e: A.Quant, env: Mapping[str, int]) -> IR:
        values = _domain_values(self.model, e.domain)
        decisive = 0 if e.kind == "forall" else 1
        parts = []
        for n, v in enumerate(values):
            if n & 255 == 255:
                self._check_bounds()
            inner = dict(env)
            inner[e.var] = v
            part = self.compile(e.body, inner)
            parts.append(part)
            if part[0] == "fault" or (part[0] == "k" and bool(part[1]) == bool(decisive)):
                break  # the operands after it are never evaluated
        op = "and" if e.kind == "forall" else "or"
        return conjoin(parts) if op == "and" else disjoin(parts)


    def _check_bounds(self) -> None:
        """The assertion's deadline (TimeLimit) and the command's budget (fito.budget)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeLimit()
        budget.check()


def _domain_values(model: Model, t: A.TypeExpr) -> tuple[int, ...]:
    from fito.lang.resolve import Resolver  # noqa: F401 - typing only

    return domain_values(model, t)


def domain_values(model: Model, t: A.TypeExpr) -> tuple[int, ...]:
    """The values of a (finite) type written in the spec."""
    from fito.lang.values import BOOL, IntRange, SetT

    if isinstance(t, A.TypeName):
        return model.types[t.name].values()
    if isinstance(t, A.BoolType):
        return BOOL.values()
    if isinstance(t, A.RangeType):
        lo, hi = const_value(model, t.lo), const_value(model, t.hi)
        return IntRange(lo, hi).values()
    if isinstance(t, A.SetType):
        vals = sorted({const_value(model, x) for x in t.items})
        return SetT(BOOL, tuple(vals)).values()
    raise ValueError("Int is not a finite domain")


def const_value(model: Model, e: A.Expr) -> int:
    from fito.lang.consteval import evaluate

    def lookup(name: str, span: Span) -> int:
        if name in model.consts:
            return model.consts[name][1]
        return model.members[name][1]

    return evaluate(e, lookup)


# ---------------------------------------------------------------------- folding and helpers
def conjoin(parts: Sequence[IR]) -> IR:
    """`a and b and ...`, folded as left-to-right evaluation without the cells would fold it."""
    return _chain("and", parts)


def disjoin(parts: Sequence[IR]) -> IR:
    return _chain("or", parts)


def _chain(op: str, parts: Sequence[IR]) -> IR:
    unit, zero = (1, 0) if op == "and" else (0, 1)
    out: IR | None = None
    for p in parts:
        if out is None and p[0] == "k":
            if bool(p[1]) == bool(zero):
                return ("k", zero)  # decided before any cell is read
            continue
        out = p if out is None else ("op", op, out, p, -1)
    return out if out is not None else ("k", unit)


def negate(p: IR) -> IR:
    return fold(("not", p))


def reads_cells(ir: IR) -> bool:
    tag = ir[0]
    if tag == "k":
        return False
    if tag in ("c", "cd"):
        return True
    if tag == "fault":
        return False
    return any(isinstance(x, tuple) and reads_cells(x) for x in ir[1:])


def fold(ir: IR) -> IR:
    """Evaluate ir now if none of its operands reads a cell (errors stay for run time)."""
    tag = ir[0]
    if tag in ("k", "c", "cd", "fault"):
        return ir
    certain = _certain_fault(ir)
    if certain is not None:
        return certain
    operands = [x for x in ir[1:] if isinstance(x, tuple)]
    if all(x[0] == "k" for x in operands):
        try:
            return ("k", evaluate(ir, ()))
        except Fault:
            return ir
    return ir


def _certain_fault(ir: IR) -> IR | None:
    """The fault every evaluation of ir meets first, if any: its first operand's, or the
    second's of a strict operator whose first operand cannot fault (a constant, a cell)."""
    ops = list(ir[2:4]) if ir[0] == "op" else list(ir[1:])
    first = ops[0] if ops and isinstance(ops[0], tuple) else None
    if first is None:
        return None
    if first[0] == "fault":
        return first
    strict = ir[0] in ("min", "max") or (ir[0] == "op" and ir[1] not in ("and", "or", "=>"))
    if strict and first[0] in ("k", "c") and ops[1][0] == "fault":
        return ops[1]  # type: ignore[no-any-return]
    return None


def evaluate(ir: IR, s: Sequence[int], layout: Layout | None = None) -> int:
    """Evaluate ir directly on a cell vector (the slow, obviously-correct path)."""
    tag = ir[0]
    if tag == "k":
        return ir[1]
    if tag == "c":
        return s[ir[1]]
    if tag == "cd":
        assert layout is not None
        values = tuple(evaluate(x, s, layout) for x in ir[2])
        slot = layout.cells[ir[1]].slot(values)
        if slot is None:
            raise Fault(ir[3], "index " + ", ".join(map(str, values)))
        return s[slot]
    if tag == "neg":
        return -evaluate(ir[1], s, layout)
    if tag == "not":
        return int(not evaluate(ir[1], s, layout))
    if tag == "if":
        return evaluate(ir[2] if evaluate(ir[1], s, layout) else ir[3], s, layout)
    if tag in ("min", "max"):
        a, b = evaluate(ir[1], s, layout), evaluate(ir[2], s, layout)
        return min(a, b) if tag == "min" else max(a, b)
    if tag == "fault":
        raise Fault(ir[1], ir[2])
    _, op, a_ir, b_ir, err = ir
    a = evaluate(a_ir, s, layout)
    if op == "and":
        return int(bool(a) and bool(evaluate(b_ir, s, layout)))
    if op == "or":
        return int(bool(a) or bool(evaluate(b_ir, s, layout)))
    if op == "=>":
        return int((not a) or bool(evaluate(b_ir, s, layout)))
    b = evaluate(b_ir, s, layout)
    return apply_op(op, a, b, err)


def apply_op(op: str, a: int, b: int, err: int) -> int:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "%"):
        if b == 0:
            raise Fault(err)
        return a // b if op == "/" else a % b
    if op == "==":
        return int(a == b)
    if op == "!=":
        return int(a != b)
    if op == "<":
        return int(a < b)
    if op == "<=":
        return int(a <= b)
    if op == ">":
        return int(a > b)
    assert op == ">="
    return int(a >= b)


# ---------------------------------------------------------------------- Python source
_PY = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "+": "+", "-": "-",
       "*": "*"}


_FLAT = {"and": "and", "or": "or", "+": "+", "*": "*"}  # left-associative in Python too


def chain_of(ir: IR) -> list[IR]:
    """The operands of a left-nested chain of one operator: ((a op b) op c) -> [a, b, c]."""
    op, out = ir[1], []
    while ir[0] == "op" and ir[1] == op:
        out.append(ir[3])
        ir = ir[2]
    out.append(ir)
    out.reverse()
    return out


def to_python(ir: IR, var: str = "s") -> str:
    """A Python expression computing ir from the tuple named `var` (helpers: _rd, _div, _mod, _fault)."""
    tag = ir[0]
    if tag == "k":
        return str(ir[1])
    if tag == "c":
        return f"{var}[{ir[1]}]"
    if tag == "cd":
        idx = ", ".join(to_python(x, var) for x in ir[2])
        return f"_rd({var}, {ir[1]!r}, ({idx},), {ir[3]})"
    if tag == "neg":
        return f"(-{to_python(ir[1], var)})"
    if tag == "not":
        return f"(not {to_python(ir[1], var)})"
    if tag == "if":
        return f"({to_python(ir[2], var)} if {to_python(ir[1], var)} else {to_python(ir[3], var)})"
    if tag in ("min", "max"):
        return f"{tag}({to_python(ir[1], var)}, {to_python(ir[2], var)})"
    if tag == "fault":
        return f"_fault({ir[1]}, {ir[2]!r})"
    _, op, a, b, err = ir
    if op in _FLAT:  # a chain `x op y op z` without nested parentheses (Python allows 200)
        return "(" + f" {_FLAT[op]} ".join(to_python(x, var) for x in chain_of(ir)) + ")"
    sa, sb = to_python(a, var), to_python(b, var)
    if op == "=>":
        return f"((not {sa}) or {sb})"
    if op == "/":
        return f"_div({sa}, {sb}, {err})"
    if op == "%":
        return f"_mod({sa}, {sb}, {err})"
    return f"({sa} {_PY[op]} {sb})"
