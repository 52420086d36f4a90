"""The compiled network as a Z3 transition system over one step: state variables, the
initial state, the transition relation and the states a safety question calls bad.

A state is the store (one integer variable per slot, `layout.names` naming them) and `pc`,
the number of its control in the skeleton (fito/check/symbolic/skeleton.py). The meaning is
the scalar engine's (fito/semantics/codegen/scalar.py): every guard of a state is evaluated
before any effect, and a guard's model error, or one of an enabled transition's effect, makes
the state an error with no successors. A transition performs its checks, resets the volatile
store on a crash, then writes its places in order (each value range-checked, conflicting
writes of a synchronised event an error) and moves to its target control.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import z3

from fito.check.symbolic.encode import (
    Encoder,
    Fault,
    Unsupported,
    Val,
    any_of,
    as_bool,
    as_int,
    cell_map,
    elements,
    guarded,
    member,
)
from fito.check.symbolic.skeleton import Edge, Skeleton
from fito.semantics.compiled import Compiled

ASSERT, EVAL = "assert", "eval"  # the check kinds of fito/semantics/rules/step.py


@dataclass(frozen=True, slots=True)
class Move:
    """One transition over the current variables: enabled, its error, the state after."""

    edge: Edge
    enabled: z3.BoolRef
    guard_fault: Fault
    effect_fault: Fault
    store: tuple[z3.ArithRef, ...]


class System:
    """Z3 formulas of one compiled model over `now` (store and pc) and `nxt` (primed)."""

    def __init__(self, c: Compiled, skeleton: Skeleton, unbounded: bool = True) -> None:
        layout = c.layout
        self.compiled = c
        self.skeleton = skeleton
        self.K = c.cells
        self.names = layout.names
        self.types = layout.types
        self.cells = cell_map(layout)
        self.x = tuple(z3.Int(f"x{i}") for i in range(self.K))
        self.pc = z3.Int("pc")
        self.x1 = tuple(z3.Int(f"x{i}'") for i in range(self.K))
        self.pc1 = z3.Int("pc'")
        self.encoder = Encoder(self.cells, self.x)
        self.init_store = layout.init
        self.volatile = frozenset(layout.volatile)
        self.moves = tuple(tuple(self._move(e) for e in edges) for edges in skeleton.edges)
        self._build()

    # ------------------------------------------------------------------ one transition
    def _move(self, edge: Edge) -> Move:
        step = edge.info.step
        enc = self.encoder
        guard = _conjoin([enc.value(g) for g in step.guard])
        faults: list[Fault] = []
        for ir, kind, _ in step.checks:
            v = enc.value(ir)
            if kind == ASSERT:
                faults += [v.fault, z3.Not(as_bool(v.term))]
            elif kind == EVAL:
                faults.append(v.fault)
            else:
                faults += [v.fault, z3.Not(member(kind, v.term))]  # type: ignore[arg-type]
        values = [enc.value(w.value) for w in step.writes]
        places = [self._place(w.loc) for w in step.writes]
        for w, v, (_, pf) in zip(step.writes, values, places):
            faults += [v.fault, pf]
            if w.range_err >= 0:
                faults.append(z3.Not(member(w.type, v.term)))
        if (step.synced or step.conflict) and len(step.writes) > 1:
            faults.append(_conflicts(places, values))
        if step.fault is not None:
            faults.append(z3.BoolVal(True))
        store: list[z3.ArithRef] = list(self.x)
        if step.crash:
            for slot in self.volatile:
                store[slot] = z3.IntVal(self.init_store[slot])
        for (where, _), v in zip(places, values):
            value = as_int(v.term)
            for slot, hit in where:
                store[slot] = value if hit is None else z3.If(hit, value, store[slot])
        return Move(edge, as_bool(guard.term), guard.fault, any_of(*faults), tuple(store))

    def _place(self, loc: tuple) -> tuple[list[tuple[int, z3.BoolRef | None]], Fault]:
        """The slots a write's place may name (with the condition it names each) and the
        error of computing it."""
        if loc[0] == "c":
            if loc[1] >= self.K:
                raise Unsupported("a write of a process variable")
            return [(loc[1], None)], None
        if loc[0] == "fault":
            return [], z3.BoolVal(True)
        if loc[0] != "cd" or loc[1] not in self.cells:
            raise Unsupported("a write of a process variable")
        idx = [self.encoder.value(x) for x in loc[2]]
        ints = [as_int(i.term) for i in idx]
        where = []
        for combo, slot in elements(self.cells[loc[1]]):
            where.append((slot, z3.And(*(a == v for a, v in zip(ints, combo)))))
        outside = z3.Not(z3.Or(*(h for _, h in where))) if where else z3.BoolVal(True)
        return where, any_of(*(i.fault for i in idx), outside)

    # ------------------------------------------------------------------ the whole system
    def _build(self) -> None:
        pc, n = self.pc, len(self.skeleton.controls)
        at = [pc == k for k in range(n)]
        guard_err, state_err, steps, deadlock = [], [], [], []
        for k, moves in enumerate(self.moves):
            gf = any_of(*(m.guard_fault for m in moves))
            ef = any_of(*(guarded(m.enabled, m.effect_fault) for m in moves))
            err_k = any_of(gf, ef)
            if gf is not None:
                guard_err.append(z3.And(at[k], gf))
            if err_k is not None:
                state_err.append(z3.And(at[k], err_k))
            ok = z3.Not(err_k) if err_k is not None else z3.BoolVal(True)
            for m in moves:
                same = [a == b for a, b in zip(self.x1, m.store)]
                steps.append(z3.And(at[k], ok, m.enabled, self.pc1 == m.edge.target, *same))
            if not self.skeleton.terminated[k]:
                none = z3.Not(z3.Or(*(m.enabled for m in moves))) if moves else z3.BoolVal(True)
                deadlock.append(z3.And(at[k], z3.Not(gf) if gf is not None else True, none))
        types = [member(t, x) for t, x in zip(self.types, self.x)]
        self.domain = z3.And(*types, pc >= 0, pc < n)
        self.init = z3.And(*(x == v for x, v in zip(self.x, self.init_store)), pc == 0)
        self.guard_error = _disjoin(guard_err)
        self.error = _disjoin(state_err)  # the state raises a model error (no successors)
        self.trans = _disjoin(steps)
        self.deadlock = _disjoin(deadlock)

    def nonlinear(self, *more: z3.ExprRef) -> z3.ExprRef | None:
        """A product of two variables or a division by one, if the relation (or `more`)
        has any."""
        todo = [self.trans, self.error, self.deadlock, *more]
        seen: set[int] = set()
        while todo:
            e = todo.pop()
            if e.get_id() in seen:
                continue
            seen.add(e.get_id())
            kids = e.children()
            if z3.is_mul(e) and sum(not z3.is_int_value(k) for k in kids) > 1:
                return e
            if (z3.is_idiv(e) or z3.is_mod(e)) and not z3.is_int_value(kids[1]):
                return e
            todo.extend(kids)
        return None

    def effect_error(self) -> z3.BoolRef:
        """An error of an enabled transition's effect (the state's guards fine)."""
        return z3.And(self.error, z3.Not(self.guard_error))

    def goal(self, ir: tuple, negate: bool) -> Val:
        """A store predicate (negated for `always`: a violation) and its error."""
        v = self.encoder.value(ir)
        b = as_bool(v.term)
        return Val(z3.Not(b) if negate else b, v.fault)

    def primed(self, f: z3.ExprRef) -> z3.ExprRef:
        """f over the next-state variables."""
        pairs = list(zip(self.x, self.x1)) + [(self.pc, self.pc1)]
        return z3.substitute(f, *pairs)


def _conjoin(parts: Sequence[Val]) -> Val:
    """`g1 and g2 and ...` with short-circuit errors (the guards of one step)."""
    if not parts:
        return Val(z3.BoolVal(True), None)
    term = as_bool(parts[0].term)
    fault = parts[0].fault
    for p in parts[1:]:
        fault = any_of(fault, guarded(term, p.fault))
        term = z3.And(term, as_bool(p.term))
    return Val(term, fault)


def _conflicts(places: Sequence[tuple[list, Fault]], values: Sequence[Val]) -> z3.BoolRef:
    """Two writes of one event that hit one slot with different values (M008)."""
    out = []
    for j in range(len(places)):
        for k in range(j + 1, len(places)):
            for sj, hj in places[j][0]:
                for sk, hk in places[k][0]:
                    if sj == sk:
                        same = z3.And(
                            hj if hj is not None else True, hk if hk is not None else True
                        )
                        differ = as_int(values[j].term) != as_int(values[k].term)
                        out.append(z3.And(same, differ))
    return _disjoin(out)


def _disjoin(parts: Sequence[z3.BoolRef]) -> z3.BoolRef:
    if not parts:
        return z3.BoolVal(False)
    return parts[0] if len(parts) == 1 else z3.Or(*parts)
