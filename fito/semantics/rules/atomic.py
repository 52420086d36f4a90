"""`atomic { s1, …, sn }` as one step: the statements run in order, each seeing the writes of
those before it (docs/semantics.md). They are executed symbolically: every value becomes
an IR over the state *before* the step (a read of a place written earlier is replaced by
the IR written there; a write at a computed index becomes a conditional write of every
element), so the step is an ordinary one: net writes, and the checks the statements make,
in their order, each guarded by the `if` conditions around it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from fito.diagnostics import NO_SPAN, Span
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_expr
from fito.lang.resolve.model import ValueType
from fito.semantics.ir import IR, conjoin, fold, may_fault
from fito.semantics.rules.refusal import refuse
from fito.semantics.rules.step import ASSERT, EVAL, Write
from fito.semantics.state.ranges import value_range

if TYPE_CHECKING:
    from fito.semantics.rules.prefixes import Prefixes

MAX_ELEMENTS = 1024  # elements of an array an atomic block writes at a computed index
MAX_EXPANDED = 200_000  # IR nodes of an atomic step's values, as trees


class Atomic:
    """The symbolic run of one atomic block."""

    def __init__(self, prefixes: Prefixes, env: Mapping[str, object]) -> None:
        self.p = prefixes
        self.vps = {n: ("k", v) for n, v in env.items() if isinstance(v, int)}
        # var parameters and bound names are read through placeholders, replaced by `sub`
        self.env = {n: (("vp", n) if isinstance(v, int) else v) for n, v in env.items()}
        self.cur: dict[IR, IR] = {}  # place ("c"/"r", slot) -> value written there
        self.info: dict[IR, Write] = {}  # place -> a Write naming it (type, labels)
        self.combos: dict[IR, tuple[int, ...]] = {}  # place of an array element -> its indices
        self.checks: list[tuple[IR, object, int]] = []
        self.rebound: dict[str, tuple[ValueType, int]] = {}
        self.faulty: dict[int, tuple[IR, bool]] = {}  # id -> (node, may it fault)

    # ------------------------------------------------------------------ substitution
    def sub(self, ir: IR) -> IR:
        """ir (over the state when the statement runs) as an IR over the state before."""
        tag = ir[0]
        if tag == "k" or tag == "fault":
            return ir
        if tag in ("c", "r"):
            return self.cur.get(ir, ir)
        if tag == "vp":
            return self.vps[ir[1]]
        if tag in ("cd", "rd"):
            read = (tag, ir[1], tuple(self.sub(x) for x in ir[2]), ir[3])
            if not any((tag[0], slot) in self.cur for slot, _ in self.elements(read)):
                return read
            chain = None
            for slot, cond in reversed(self.elements(read)):
                value = self.cur.get((tag[0], slot), (tag[0], slot))
                chain = value if chain is None else ("if", cond, value, chain)
            return ("seq", (read,), chain)  # the read first: an index out of range fails
        if tag == "seq":
            return fold(("seq", tuple(self.sub(x) for x in ir[1]), self.sub(ir[2])))
        return fold(tuple(self.sub(x) if isinstance(x, tuple) else x for x in ir))

    def elements(self, read: IR) -> list[tuple[int, IR]]:
        """(slot, condition that the read's indices name it) for every element."""
        tag, key, idx, _ = read
        if tag == "cd":
            slots = self.p.compiler.layout.cells[key]
        else:
            proc, name = key.split(".")
            slots = self.p.compiler.layout.frames[proc].vars[name].slots
        if slots.size > MAX_ELEMENTS:
            raise refuse(
                f"an atomic block writes the array '{slots.cell.name}' of {slots.size:,} "
                f"elements at a computed index (at most {MAX_ELEMENTS:,})"
            )
        out = []
        for combo in itertools.product(*(t.values() for t in slots.cell.indices)):
            cond = conjoin([fold(("op", "==", i, ("k", v), -1)) for i, v in zip(idx, combo)])
            out.append((slots.slot(combo), cond))
            self.combos[(tag[0], slots.slot(combo))] = combo
        return out

    # ------------------------------------------------------------------ statements
    def block(self, stmts: Sequence[A.Statement]) -> None:
        for s in stmts:
            if isinstance(s, A.BlockIf):
                self._if(s)
            elif isinstance(s, A.BlockAssert):
                err = self.p.sites.add(
                    "M009",
                    f"assertion violated: assert({print_expr(s.cond)}) at line {s.span.line}",
                    s.span,
                )
                cond = self.sub(self.p.compiler.compile(s.cond, self.env))
                self.checks.append((cond, ASSERT, err))
            else:
                self._assign(s)

    def _assign(self, s: A.Statement) -> None:
        done = []  # every value of the statement is read before any of its writes
        for w in self.p.assignment(s, self.env):
            if isinstance(w, tuple):
                name, ir, vtype, err = w
                value = self.sub(ir)
                self.checks.append((value, vtype, err))
                self.rebound[name] = (vtype, err)
                done.append((("vp", name), value, None))
                continue
            value = self.sub(w.value)
            loc = (
                w.loc
                if w.loc[0] in ("c", "r", "fault")
                else (w.loc[0], w.loc[1], tuple(self.sub(x) for x in w.loc[2]), w.loc[3])
            )
            if loc[0] == "fault" or loc[0] in ("cd", "rd"):
                self.checks.append((loc, EVAL, loc[1] if loc[0] == "fault" else loc[3]))
            self.checks.append((value, w.type, w.range_err))
            done.append((loc, value, w))
        for loc, value, w in done:
            if loc[0] == "vp":
                self.vps[loc[1]] = value
            elif loc[0] in ("c", "r"):
                self._put(loc, value, w)
            elif loc[0] in ("cd", "rd"):
                for slot, cond in self.elements(loc):
                    place = (loc[0][0], slot)
                    self._put(place, fold(("if", cond, value, self.cur.get(place, place))), w)

    def _put(self, place: IR, value: IR, w: Write) -> None:
        if place not in self.info:
            self.info[place] = w
        self.cur[place] = value

    def _if(self, s: A.BlockIf) -> None:
        cond = self.sub(self.p.compiler.compile(s.cond, self.env))
        if self._may_fault(cond):
            self.checks.append((cond, EVAL, -1))
        if cond[0] == "k":
            self.block(s.then if cond[1] else s.orelse)
            return
        before = (dict(self.cur), dict(self.vps), len(self.checks))
        self.block(s.then)
        then = (self.cur, self.vps, self.checks[before[2] :])
        self.cur, self.vps, self.checks = dict(before[0]), dict(before[1]), self.checks[: before[2]]
        self.block(s.orelse)
        other = (self.cur, self.vps, self.checks[before[2] :])
        self.checks = self.checks[: before[2]]
        self.checks += [(("if", cond, ir, _neutral(kind)), kind, err) for ir, kind, err in then[2]]
        self.checks += [(("if", cond, _neutral(kind), ir), kind, err) for ir, kind, err in other[2]]
        self.cur = self._merge(cond, before[0], then[0], other[0])
        self.vps = self._merge(cond, before[1], then[1], other[1])

    def _may_fault(self, ir: IR) -> bool:
        """`may_fault`, remembered per node across the block: a condition reads the values
        of the statements before it, so walking each afresh was quadratic in the block."""
        seen = self.faulty
        stack: list[tuple[IR, bool]] = [(ir, False)]
        while stack:
            node, done = stack.pop()
            if id(node) in seen:
                continue
            kids = [x for x in node[1:] if _is_ir(x)]
            kids += [y for x in node[1:] if isinstance(x, tuple) and not _is_ir(x) for y in x]
            kids = [k for k in kids if _is_ir(k)]
            if done:
                own = may_fault((node[0], *(x for x in node[1:] if not isinstance(x, tuple))))
                result = own or any(seen[id(k)][1] for k in kids)
                seen[id(node)] = (node, result)  # the node kept: its id is not reused
            else:
                stack.append((node, True))
                stack.extend((k, False) for k in kids if id(k) not in seen)
        return seen[id(ir)][1]

    @staticmethod
    def _merge(cond: IR, before: dict, then: dict, other: dict) -> dict:
        out = dict(before)
        for key in list(then) + [k for k in other if k not in then]:
            a = then.get(key, before.get(key, key))
            b = other.get(key, before.get(key, key))
            out[key] = a if a == b else fold(("if", cond, a, b))
        return out

    # ------------------------------------------------------------------ the step
    def result(self, span: Span = NO_SPAN) -> tuple[tuple[Write, ...], tuple, tuple]:
        """The net writes, the checks in order, and the `var` parameters set; refused (S003)
        when they would not be of a size linear in the block (see `expanded_size`)."""
        roots = [v for v in self.cur.values()] + [c[0] for c in self.checks]
        roots += list(self.vps.values())
        if expanded_size(roots, MAX_EXPANDED) > MAX_EXPANDED:
            raise refuse(
                f"an atomic block whose statements read each other's results grows to more "
                f"than {MAX_EXPANDED:,} terms once every read is replaced by the value written "
                "before it",
                span,
                hint="split the block into several steps, or into `{ }` assignments",
            )
        writes = []
        for place, value in self.cur.items():
            w = self.info[place]
            index = (
                w.index if w.loc == place else tuple(("k", v) for v in self.combos.get(place, ()))
            )
            writes.append(Write(place, value, w.type, w.range_err, w.name, index))
        rebinds = tuple(
            (name, self.vps[name], vtype, err) for name, (vtype, err) in self.rebound.items()
        )
        return tuple(writes), tuple(self.checks), rebinds


def expanded_size(roots: Sequence[IR], limit: int) -> int:
    """The number of IR nodes of roots as trees (a shared node counted at each use), or a
    number above limit as soon as it passes it: what generated code and every walk over the
    IR pay. Each distinct node is visited once (its size memoized), so this is linear in the
    DAG, although the trees may be exponential (`x := x + x`, a hundred times)."""
    sizes: dict[int, int] = {}
    total = 0
    for root in roots:
        stack: list[tuple[IR, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            if id(node) in sizes:
                continue
            kids = [x for x in node if _is_ir(x)]
            kids += [y for x in node if isinstance(x, tuple) and not _is_ir(x) for y in x]
            kids = [k for k in kids if _is_ir(k)]
            if done:
                sizes[id(node)] = min(limit + 1, 1 + sum(sizes[id(k)] for k in kids))
            else:
                stack.append((node, True))
                stack.extend((k, False) for k in kids if id(k) not in sizes)
        total += sizes[id(root)]
        if total > limit:
            return total
    return total


def _is_ir(x: object) -> bool:
    return isinstance(x, tuple) and bool(x) and isinstance(x[0], str)


def _neutral(kind: object) -> IR:
    """A value that passes a check of this kind (for a check in a branch not taken)."""
    if kind == ASSERT:
        return ("k", 1)
    if kind == EVAL:
        return ("k", 0)
    return ("k", value_range(kind)[0])  # type: ignore[arg-type]
