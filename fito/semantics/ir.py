"""Expressions compiled against a layout and an environment of bound values.

The IR is nested tuples, so it hashes and compares cheaply:
  ("k", v)                        a constant
  ("c", slot)                     a cell slot read
  ("cd", cell, (i1, ...), err)    an array read with computed indices (checked)
  ("neg", a) ("not", a)
  ("op", op, a, b, err)           + - * / % comparisons and or =>  (err: site of / and %)
  ("if", c, a, b) ("min", a, b) ("max", a, b)
  ("fault", err, detail)          an expression that always fails (constant index out of range)
  ("chk", a, type, err)           a, checked against a value type (a function's argument or
                                  result: M001 outside it)
  ("seq", (a1, ...), b)           evaluate a1, ... (for their errors), then b
  ("safe", a)                     a, or None where evaluating a fails (in guards that must
                                  not fail: docs/semantics.md, model errors)
  ("r", j) ("rd", key, (i1, ...), err)   a process variable: slot j of the component's region
                                  (docs/semantics.md); made ("c", ...) / ("cd", ...) by
                                  `relocate` once the component's position is known
Bound names, constants and enumeration members become constants; quantifiers are expanded
over their (finite) domain; user functions and `let` are inlined; constant subterms are
folded.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fito import budget
from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang.arithmetic import DIVISION, ZeroDivisor, divide, zero_divisor
from fito.lang.resolve.consteval import evaluate as evaluate_constant
from fito.lang.resolve.model import BOOL, IntRange, IntT, Model, SetT, ValueType, within
from fito.semantics.rules.refusal import check_expansion, values_of
from fito.semantics.state.layout import Layout

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


ACT = "@a"  # the environment key of the current activation: (definition, initial values, ...)


class ExprCompiler:
    """AST expressions -> IR, for one model and layout.

    An environment maps bound names to ints, or (inside inlined functions and `let`) to the
    IR of their value; under `ACT` it holds the activation whose variables are in scope."""

    def __init__(self, model: Model, layout: Layout, sites: Sites) -> None:
        self.model = model
        self.layout = layout
        self.sites = sites
        self.deadline: float | None = None  # the assertion's (time.monotonic())

    def compile(self, e: A.Expr, env: Mapping[str, object]) -> IR:
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
            return self._call(e, env)
        if isinstance(e, A.Let):
            value = self.compile(e.value, env)
            body = self.compile(e.body, {**env, e.var: value})
            return sequence((value,), body)
        assert isinstance(e, A.Quant)
        return self._quant(e, env)

    def frame(self, env: Mapping[str, object]) -> object:
        """The frame of the activation in scope, if any."""
        act = env.get(ACT)
        return None if act is None else self.layout.frames[act[0]]  # type: ignore[index]

    def _name(self, e: A.Name, env: Mapping[str, object]) -> IR:
        if e.id in env:
            v = env[e.id]
            return ("k", v) if isinstance(v, int) else v  # type: ignore[return-value]
        frame = self.frame(env)
        if frame is not None and e.id in frame.vars:  # type: ignore[attr-defined]
            var = frame.vars[e.id]  # type: ignore[attr-defined]
            return ("r", frame.base + var.offset)  # type: ignore[attr-defined]
        if e.id in self.model.consts:
            return ("k", self.model.consts[e.id][1])
        if e.id in self.model.members:
            return ("k", self.model.members[e.id][1])
        slots = self.layout.cells[e.id]
        return ("c", slots.base)

    def place(self, root: str, env: Mapping[str, object]) -> tuple[str, object, bool]:
        """(key, slots, is a variable) of the array or cell a name denotes."""
        frame = self.frame(env)
        if frame is not None and root in frame.vars:  # type: ignore[attr-defined]
            var = frame.vars[root]  # type: ignore[attr-defined]
            return f"{frame.proc}.{root}", var.slots.moved(frame.base + var.offset), True  # type: ignore[attr-defined]
        return root, self.layout.cells[root], False

    def element(
        self, root: str, indices: Sequence[A.Expr], env: Mapping[str, object], err: int
    ) -> IR:
        """The location (a read IR) of root[indices]: ("c"/"r", slot), or ("cd"/"rd", ...)."""
        irs = tuple(self.compile(i, env) for i in indices)
        key, slots, local = self.place(root, env)
        if all(x[0] == "k" for x in irs):
            values = tuple(x[1] for x in irs)
            slot = slots.slot(values)  # type: ignore[attr-defined]
            if slot is None:
                return ("fault", err, "index " + ", ".join(map(str, values)))
            return ("r" if local else "c", slot)
        return ("rd" if local else "cd", key, irs, err)

    def _index(self, e: A.Index, env: Mapping[str, object]) -> IR:
        root, indices = split_index(e)
        err = self.sites.add("M007", f"index out of range in '{root}'", e.span)
        return self.element(root, indices, env, err)

    def _binary(self, e: A.Binary, env: Mapping[str, object]) -> IR:
        a = self.compile(e.left, env)
        if e.op in ("and", "or", "=>") and a[0] == "k":  # short-circuit constant left sides
            if e.op == "and":
                return self.compile(e.right, env) if a[1] else ("k", 0)
            if e.op == "or":
                return ("k", 1) if a[1] else self.compile(e.right, env)
            return self.compile(e.right, env) if a[1] else ("k", 1)
        b = self.compile(e.right, env)
        err = -1
        if e.op in DIVISION:
            err = self.sites.add("M002", zero_divisor(e.op), e.span)
        return fold(("op", e.op, a, b, err))

    def _call(self, e: A.Call, env: Mapping[str, object]) -> IR:
        fn = self.model.functions.get(e.func)
        if fn is not None:
            return self._inline(e, fn, env)
        if e.func in ("len", "empty", "full"):
            root, indices = split_index(e.args[0])
            chan = self.model.channels[root]
            err = self.sites.add("M007", f"index out of range in '{root}'", e.args[0].span)
            n = self.element(f"{root}#len", indices, env, err)
            if e.func == "len":
                return n
            return fold(("op", "==", n, ("k", 0 if e.func == "empty" else chan.capacity), -1))
        a, b = (self.compile(x, env) for x in e.args)
        return fold((e.func, a, b))

    def _inline(self, e: A.Call, fn: object, env: Mapping[str, object]) -> IR:
        """A user function by meaning: arguments checked against their types, the body over
        them (it sees constants, cells and buffers, never a process's variables), the
        result checked against the result type."""
        args = []
        for a, t in zip(e.args, fn.params):  # type: ignore[attr-defined]
            err = self.sites.add("M001", f"argument of '{e.func}' outside its type", a.span)
            args.append(check(self.compile(a, env), t, err))
        decl = fn.decl  # type: ignore[attr-defined]
        inner = {p.name: ir for p, ir in zip(decl.params, args)}
        err = self.sites.add("M001", f"'{e.func}' returns a value outside its result type", e.span)
        return sequence(tuple(args), check(self.compile(decl.body, inner), fn.result, err))  # type: ignore[attr-defined]

    def _quant(self, e: A.Quant, env: Mapping[str, object]) -> IR:
        values = domain_values(self.model, e.domain)
        decisive = 0 if e.kind == "forall" else 1
        parts = []
        for n, v in enumerate(values):
            if n & 255 == 255:
                self.check_bounds()
            inner = dict(env)
            inner[e.var] = v
            part = self.compile(e.body, inner)
            parts.append(part)
            if part[0] == "fault" or (part[0] == "k" and bool(part[1]) == bool(decisive)):
                break  # the operands after it are never evaluated
        op = "and" if e.kind == "forall" else "or"
        return conjoin(parts) if op == "and" else disjoin(parts)

    def check_bounds(self) -> None:
        """The assertion's deadline (TimeLimit) and the command's budget (fito.budget)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeLimit()
        budget.check()


def split_index(e: A.Expr) -> tuple[str, list[A.Expr]]:
    """`a[i][j]` as ("a", [i, j])."""
    indices: list[A.Expr] = []
    while isinstance(e, A.Index):
        indices.append(e.index)
        e = e.base
    assert isinstance(e, A.Name)
    indices.reverse()
    return e.id, indices


def domain_values(model: Model, t: A.TypeExpr) -> tuple[int, ...]:
    """The values of a (finite) type written in the spec (refused past MAX_EXPANSION)."""
    if isinstance(t, A.TypeName):
        return values_of(model.types[t.name], f"the type '{t.name}'", t.span)
    if isinstance(t, A.BoolType):
        return BOOL.values()
    if isinstance(t, A.RangeType):
        lo, hi = const_value(model, t.lo), const_value(model, t.hi)
        check_expansion(hi - lo + 1, f"the range {lo}..{hi}", t.span)
        return IntRange(lo, hi).values()
    if isinstance(t, A.SetType):
        vals = sorted({const_value(model, x) for x in t.items})
        return SetT(BOOL, tuple(vals)).values()
    raise ValueError("Int is not a finite domain")


def const_value(model: Model, e: A.Expr) -> int:
    def lookup(name: str, span: Span) -> int:
        if name in model.consts:
            return model.consts[name][1]
        return model.members[name][1]

    return evaluate_constant(e, lookup)


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


def chain_of(ir: IR) -> list[IR]:
    """The operands of a left-nested chain of one operator: ((a op b) op c) -> [a, b, c]."""
    op, out = ir[1], []
    while ir[0] == "op" and ir[1] == op:
        out.append(ir[3])
        ir = ir[2]
    out.append(ir)
    out.reverse()
    return out


def negate(p: IR) -> IR:
    return fold(("not", p))


def check(a: IR, t: ValueType, err: int) -> IR:
    """a, which must be a value of t (M001 otherwise)."""
    if isinstance(t, IntT) and t.lo is None:
        return a
    if a[0] == "chk" and a[2].kind() == t.kind() and within(a[2], t):
        return a  # checked already against a type within t: this check cannot fail (a chain
        # of calls `f1(x) = f2(x)`, ... would otherwise nest its checks, quadratic in length)
    return fold(("chk", a, t, err))


def sequence(first: tuple[IR, ...], then: IR) -> IR:
    """Evaluate `first` for their errors, then `then` (only the ones that may fail are kept)."""
    kept = tuple(x for x in first if may_fault(x))
    return ("seq", kept, then) if kept else then


def may_fault(ir: IR) -> bool:
    """Whether evaluating ir can raise a model error."""
    tag = ir[0]
    if tag in ("cd", "rd", "chk", "fault"):
        return True
    if tag == "op" and ir[1] in DIVISION:
        return True
    return any(
        isinstance(x, tuple)
        and x
        and (may_fault(x) if isinstance(x[0], str) else any(may_fault(y) for y in x))
        for x in ir[1:]
    )


def reads_cells(ir: IR) -> bool:
    """Whether ir reads the state (a cell, a buffer or a process variable)."""
    tag = ir[0]
    if tag == "k":
        return False
    if tag in ("c", "cd", "r", "rd", "vp"):
        return True
    if tag == "fault":
        return False
    return any(
        isinstance(x, tuple)
        and x
        and (reads_cells(x) if isinstance(x[0], str) else any(reads_cells(y) for y in x))
        for x in ir[1:]
    )


def fold(ir: IR) -> IR:
    """Evaluate ir now if none of its operands reads the state (errors stay for run time)."""
    tag = ir[0]
    if tag in ("k", "c", "cd", "r", "rd", "fault", "vp"):
        return ir
    if tag == "seq":
        kept = tuple(x for x in ir[1] if x[0] != "k")
        if not kept:
            return ir[2]
        ir = ("seq", kept, ir[2])
        operands = list(kept) + [ir[2]]
    else:
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


def relocate(ir: IR, base: int, layout: Layout) -> IR:
    """A component's IR with its variables in place: region slot j is state slot base + j."""
    tag = ir[0]
    if tag == "k" or tag == "c":
        return ir
    if tag == "r":
        return ("c", base + ir[1])
    if tag == "rd":
        _, key, idx, err = ir
        proc, name = key.split(".")
        frame = layout.frames[proc]
        var = frame.vars[name]
        at = base + frame.base + var.offset
        moved = f"{key}@{at}"
        if moved not in layout.cells:
            layout.cells[moved] = var.slots.moved(at)
        return ("cd", moved, tuple(relocate(x, base, layout) for x in idx), err)
    if tag == "seq":
        return (
            "seq",
            tuple(relocate(x, base, layout) for x in ir[1]),
            relocate(ir[2], base, layout),
        )
    if tag == "cd":
        return ("cd", ir[1], tuple(relocate(x, base, layout) for x in ir[2]), ir[3])
    if not reads_cells(ir):
        return ir
    return tuple(relocate(x, base, layout) if isinstance(x, tuple) else x for x in ir)


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
        return ops[1]
    return None


def evaluate(ir: IR, s: Sequence[int], layout: Layout | None = None) -> int:
    """Evaluate ir directly on a state vector (the slow, obviously-correct path)."""
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
    if tag == "chk":
        v = evaluate(ir[1], s, layout)
        if not ir[2].contains(v):
            raise Fault(ir[3], str(v))
        return v
    if tag == "seq":
        for x in ir[1]:
            evaluate(x, s, layout)
        return evaluate(ir[2], s, layout)
    if tag == "safe":
        try:
            return evaluate(ir[1], s, layout)
        except Fault:
            return None  # type: ignore[return-value]
    assert tag == "op", f"{tag} is not evaluated here (a variable not yet relocated?)"
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
    if op in DIVISION:
        try:
            return divide(op, a, b)
        except ZeroDivisor:
            raise Fault(err) from None
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
