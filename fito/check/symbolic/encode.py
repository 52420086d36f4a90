"""IR (fito/semantics/ir.py) as Z3 terms: each expression a value and the condition under
which evaluating it is a model error (None: never), with the scalar engine's meaning.

Booleans are the store's 0/1 integers; `and`, `or` and `=>` short-circuit (the right
operand's error counts only where it is evaluated); `/` and `%` round toward negative
infinity, as in Python; a read at computed indices is an error outside the array.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import z3

from fito.lang.resolve.model import BoolT, EnumT, IntRange, IntT, SetT, ValueType
from fito.semantics.compiled import CellSlots, StateLayout

Term: TypeAlias = z3.ExprRef
Fault: TypeAlias = "z3.BoolRef | None"


class Unsupported(Exception):
    """An IR form or a model feature the symbolic engine does not translate (why, as text)."""


@dataclass(frozen=True, slots=True)
class Val:
    """An encoded expression: its value (Int or Bool sort) and its error condition."""

    term: Term
    fault: Fault


def as_int(t: Term) -> z3.ArithRef:
    """A term as an integer (a Bool as 0/1)."""
    if z3.is_bool(t):
        return z3.If(t, z3.IntVal(1), z3.IntVal(0))
    return t


def as_bool(t: Term) -> z3.BoolRef:
    """A term as a truth value (an integer: nonzero)."""
    if z3.is_bool(t):
        return t
    return t != 0


def any_of(*faults: Fault) -> Fault:
    """The disjunction of error conditions (None when none can happen)."""
    parts = [f for f in faults if f is not None and not z3.is_false(f)]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else z3.Or(*parts)


def guarded(cond: z3.BoolRef, fault: Fault) -> Fault:
    """An error that counts only where cond holds."""
    return None if fault is None else z3.And(cond, fault)


def member(t: ValueType, v: Term) -> z3.BoolRef:
    """That the value v lies in the type t."""
    x = as_int(v)
    if isinstance(t, IntT):
        return z3.BoolVal(True) if t.lo is None else x >= t.lo
    if isinstance(t, IntRange):
        return z3.And(x >= t.lo, x <= t.hi)
    if isinstance(t, BoolT):
        return z3.And(x >= 0, x <= 1)
    if isinstance(t, EnumT):
        return z3.And(x >= 0, x < len(t.members))
    assert isinstance(t, SetT)
    return z3.Or(*(x == m for m in t.members)) if t.members else z3.BoolVal(False)


def cell_map(layout: StateLayout) -> dict[str, CellSlots]:
    """Every array the IR names by key: cells, and the buffers' lengths and fields."""
    out = {s.cell.name: s for s in layout.cells}
    for b in layout.buffers:
        out[b.length.cell.name] = b.length
        out.update((f.cell.name, f) for f in b.fields)
    return out


def elements(slots: CellSlots) -> list[tuple[tuple[int, ...], int]]:
    """(index values, slot) of every element of an array."""
    out = []
    for combo in itertools.product(*(t.values() for t in slots.cell.indices)):
        slot = slots.slot(combo)
        if slot is not None:
            out.append((combo, slot))
    return out


class Encoder:
    """IR over a store of Z3 terms (`store[slot]`)."""

    def __init__(self, cells: Mapping[str, CellSlots], store: Sequence[Term]) -> None:
        self.cells = cells
        self.store = store

    def value(self, ir: tuple) -> Val:  # noqa: C901 - one case per IR form
        tag = ir[0]
        if tag == "k":
            return Val(z3.IntVal(int(ir[1])), None)
        if tag == "c":
            if ir[1] >= len(self.store):
                raise Unsupported("a read of the control or of a process variable")
            return Val(self.store[ir[1]], None)
        if tag == "cd":
            return self._array(ir)
        if tag == "neg":
            a = self.value(ir[1])
            return Val(-as_int(a.term), a.fault)
        if tag == "not":
            a = self.value(ir[1])
            return Val(z3.Not(as_bool(a.term)), a.fault)
        if tag == "if":
            c, a, b = self.value(ir[1]), self.value(ir[2]), self.value(ir[3])
            cond = as_bool(c.term)
            term = z3.If(cond, as_int(a.term), as_int(b.term))
            return Val(
                term, any_of(c.fault, guarded(cond, a.fault), guarded(z3.Not(cond), b.fault))
            )
        if tag in ("min", "max"):
            a, b = self.value(ir[1]), self.value(ir[2])
            x, y = as_int(a.term), as_int(b.term)
            term = z3.If(x <= y, x, y) if tag == "min" else z3.If(x >= y, x, y)
            return Val(term, any_of(a.fault, b.fault))
        if tag == "fault":
            return Val(z3.IntVal(0), z3.BoolVal(True))
        if tag == "chk":
            a = self.value(ir[1])
            return Val(a.term, any_of(a.fault, z3.Not(member(ir[2], a.term))))
        if tag == "seq":
            firsts = [self.value(x).fault for x in ir[1]]
            last = self.value(ir[2])
            return Val(last.term, any_of(*firsts, last.fault))
        if tag == "safe":
            a = self.value(ir[1])  # a guard that must not fail: false where it would
            return Val(
                z3.And(z3.Not(a.fault), as_bool(a.term)) if a.fault is not None else a.term, None
            )
        if tag == "op":
            return self._op(ir)
        raise Unsupported(f"the expression form '{tag}' (a process variable)")

    def _array(self, ir: tuple) -> Val:
        _, key, idx_irs, _ = ir
        slots = self.cells.get(key)
        if slots is None:
            raise Unsupported(f"the array '{key}' (a process variable)")
        idx = [self.value(x) for x in idx_irs]
        faults = [i.fault for i in idx]
        ints = [as_int(i.term) for i in idx]
        term: z3.ArithRef = z3.IntVal(0)
        hits = []
        for combo, slot in elements(slots):
            hit = z3.And(*(a == v for a, v in zip(ints, combo)))
            hits.append(hit)
            term = z3.If(hit, as_int(self.store[slot]), term)
        outside = z3.Not(z3.Or(*hits)) if hits else z3.BoolVal(True)
        return Val(term, any_of(*faults, outside))

    def _op(self, ir: tuple) -> Val:
        _, op, a_ir, b_ir, _ = ir
        if op in ("==", "!=") and (a_ir[0] == "safe" or b_ir[0] == "safe"):
            return self._safe_compare(op, a_ir, b_ir)
        a, b = self.value(a_ir), self.value(b_ir)
        if op in ("and", "or", "=>"):
            x, y = as_bool(a.term), as_bool(b.term)
            if op == "and":
                return Val(z3.And(x, y), any_of(a.fault, guarded(x, b.fault)))
            if op == "or":
                return Val(z3.Or(x, y), any_of(a.fault, guarded(z3.Not(x), b.fault)))
            return Val(z3.Implies(x, y), any_of(a.fault, guarded(x, b.fault)))
        x, y = as_int(a.term), as_int(b.term)
        fault = any_of(a.fault, b.fault)
        if op == "+":
            return Val(x + y, fault)
        if op == "-":
            return Val(x - y, fault)
        if op == "*":
            return Val(x * y, fault)
        if op in ("/", "%"):
            q = floor_div(x, y)
            term = q if op == "/" else x - y * q
            return Val(term, any_of(fault, y == 0))
        compare = {
            "==": lambda: x == y,
            "!=": lambda: x != y,
            "<": lambda: x < y,
            "<=": lambda: x <= y,
            ">": lambda: x > y,
            ">=": lambda: x >= y,
        }
        return Val(compare[op](), fault)

    def _safe_compare(self, op: str, a_ir: tuple, b_ir: tuple) -> Val:
        """`safe(a) == b`: None (an error) equals nothing."""
        a = self.value(a_ir[1] if a_ir[0] == "safe" else a_ir)
        b = self.value(b_ir[1] if b_ir[0] == "safe" else b_ir)
        none = any_of(
            a.fault if a_ir[0] == "safe" else None, b.fault if b_ir[0] == "safe" else None
        )
        strict = any_of(
            a.fault if a_ir[0] != "safe" else None, b.fault if b_ir[0] != "safe" else None
        )
        eq = as_int(a.term) == as_int(b.term)
        if none is not None:
            eq = z3.And(z3.Not(none), eq)
        return Val(eq if op == "==" else z3.Not(eq), strict)


def floor_div(x: z3.ArithRef, y: z3.ArithRef) -> z3.ArithRef:
    """x / y rounded toward negative infinity (Z3's `/` on integers is Euclidean)."""
    return z3.If(y > 0, x / y, z3.If(y < 0, (-x) / (-y), z3.IntVal(0)))
