"""Generated numpy for whole blocks of states: one function per cached group of transitions.

`apply(X)` takes the packed rows (fito/semantics/state/packing.py) of every frontier state whose
control matches the group's (mode, candidate, locations), and returns the packed successors
of each enabled transition with the rows they came from, the number of enabled transitions
per row, and the rows that *may* meet a model error (a guard or an effect that divides by
zero, indexes out of range, writes or sends a value outside its type, or two writes that
conflict; None when no row can). Those suspect rows are redone state by state by the scalar
code, which decides exactly which error, if any, happens (docs/semantics.md, model errors);
so the vector code only needs to over-approximate faults, never to order them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fito.lang.resolve.model import SetT, ValueType
from fito.semantics.codegen.loader import load
from fito.semantics.codegen.notes import write_note
from fito.semantics.codegen.numpy_exprs import (
    Emitter,
    NotVector,
    as_int,
    bounds,
    is_array,
    put_field,
    read_field,
    read_source,
)
from fito.semantics.codegen.numpy_writes import Put, copyable, fuse
from fito.semantics.ir import IR, may_fault
from fito.semantics.network import Network, Transition
from fito.semantics.rules.step import ASSERT, EVAL
from fito.semantics.state.layout import Layout
from fito.semantics.state.packing import Codebook, Field, Overflow, Packing, extract
from fito.semantics.state.ranges import value_range


@dataclass(frozen=True, slots=True)
class VectorGroup:
    ranks: tuple[int, ...]  # rank of each transition
    apply: Callable[[np.ndarray], tuple[list, np.ndarray, np.ndarray | None]]


def _ints(values: Sequence[int]) -> str:
    return ",".join(map(str, values))


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def _bits(f: Field) -> tuple[int, int, int, int]:
    return f.word, f.shift, f.mask, f.lo


class VectorCode:
    """Compiles groups of transitions into numpy functions over packed blocks."""

    def __init__(
        self,
        layout: Layout,
        packing: Packing,
        codebook: Codebook,
        network: Network,
        resets: Callable[[int], tuple[tuple[int, int], ...]] | None = None,
        lock: Any = None,
    ) -> None:
        self.network = network
        self.lock = lock if lock is not None else contextlib.nullcontext()
        self._deferred: list[Transition] = []
        self.layout = layout
        self.packing = packing
        self.codebook = codebook
        self.resets = resets
        self.K = layout.size
        self.R = len(layout.region)
        self.cell_ranges = [value_range(t) for t in layout.types]
        self.region_ranges = [value_range(t) for t in layout.region]
        self.size = 0  # positions of the mode of the group being compiled
        self.namespace: dict[str, Any] = {
            "np": np,
            "_rd": read_field,
            "_put": put_field,
            "_int": as_int,
            "U": np.uint64,
            "_tr": self._translate,
            "_dfr": self._deferred_control,
            "_crv": self._crash_vars,
        }

    # ------------------------------------------------------------------ slots of a state
    def field(self, slot: int) -> Field:
        """The packed field of a state slot (the store's, or a region's in the current mode)."""
        if slot < self.K:
            return self.packing.fields[slot]
        r = slot - self.K - 1 - self.size
        return self.packing.region_field(r // self.R, r % self.R)

    def range(self, slot: int) -> tuple[int, int]:
        if slot < self.K:
            return self.cell_ranges[slot]
        return self.region_ranges[(slot - self.K - 1 - self.size) % self.R]

    # ------------------------------------------------------------------ a group
    def compile(
        self,
        mode: int,
        movers: tuple[int, ...],
        locations: tuple[int, ...],
        transitions: Sequence[Transition],
    ) -> Callable[[np.ndarray], tuple]:
        self.size = self.network.modes[mode].size
        constants: dict[str, Any] = {}
        em = Emitter(self, "c", "r", "GF", constants)
        guards = []
        for t in transitions:
            if t.deferred is not None and (t.deferred.arguments() is None or self.R):
                raise NotVector("a target that depends on the state beyond a call's arguments")
            guard = em.conjunction(t.step.guard) if t.step.guard else None
            if guard is not None and not any(is_array(g) for g in t.step.guard):
                guard = f"np.broadcast_to({guard}, (r,))"
            guards.append(guard)
        body: list[str] = []
        for n, t in enumerate(transitions):
            body += self._transition(constants, n, t, guards[n], mode, movers, locations)
        code = em.reads("X") + em.prelude + body
        flags = [
            f for f in ("GF", "EF") if any(f in line for line in code if not _is_comment(line))
        ]
        lines = [
            "def apply(X):",
            "    r = X.shape[0]",
            "    cnt = np.zeros(r, dtype=np.int64)",
            "    outs = []",
        ] + [f"    {f} = np.zeros(r, dtype=bool)" for f in flags]
        lines += ["    " + line for line in code]
        lines.append(f"    return outs, cnt, {' | '.join(flags) or None}")  # None: no row suspect
        title = f"fito-vector mode={mode} movers={_ints(movers)} at={_ints(locations)}"
        return self._exec(lines, constants, "apply", title)

    def _exec(self, lines: list[str], constants: dict[str, Any], name: str, title: str) -> Any:
        ns = dict(self.namespace)
        ns.update(constants)
        try:
            load("\n".join(lines), title, ns)
        except (SyntaxError, RecursionError) as exc:  # nested too deep for Python's compiler
            raise NotVector(f"generated code Python cannot compile ({exc})") from None
        return ns[name]

    def _transition(
        self,
        constants: dict[str, Any],
        n: int,
        t: Transition,
        guard: str | None,
        mode: int,
        movers: tuple[int, ...],
        locations: tuple[int, ...],
    ) -> list[str]:
        step = t.step
        sub = Emitter(self, "s", "rs", "EF", constants)
        checks = self._checks(sub, step.checks)
        lines, puts = self._writes(sub, step)
        effect = sub.reads("Y0") + sub.prelude + checks + lines
        if step.fault is not None or any(w.loc[0] == "fault" for w in step.writes):
            effect.append("EF[sel] = True")  # taking the step is a model error
        if t.deferred is None:
            puts += self._control(t, mode, movers, locations)
        else:
            post = Emitter(self, "y", "rs", "EF", constants)
            args = [post.int(a) for a in t.deferred.arguments()]
            self._deferred.append(t)
            puts += post.reads("Y") + post.prelude
            puts.append(
                f"EF[sel] |= _dfr({len(self._deferred) - 1}, {mode}, Y, Y0, "
                f"({''.join(a + ', ' for a in args)}))"
            )
        effect += fuse(puts)
        lines = []
        if guard is None:
            lines += ["sel = np.arange(r)", "Y0 = X"]
        else:
            lines += [f"sel = np.flatnonzero({guard})", "Y0 = X[sel]"]
        lines += ["if sel.size:", "    Y = Y0.copy()", "    rs = sel.size"]
        lines += ["    " + x for x in effect]
        lines += [
            f"    outs.append((Y, sel, {n}))",
            "    cnt += 1" if guard is None else "    cnt[sel] += 1",
        ]
        return lines

    def _checks(self, em: Emitter, checks: Sequence[tuple]) -> list[str]:
        """Rows where a check may fail are flagged (the scalar code decides which error)."""
        out = []
        for ir, kind, _err in checks:
            if kind == ASSERT:
                out.append(em.flag_rows(f"np.logical_not(np.broadcast_to({em.bool(ir)}, (rs,)))"))
            elif kind == EVAL:
                out.append(f"_ = {em.int(ir)}")
            elif self._within(ir, kind):
                if may_fault(ir):
                    out.append(f"_ = {em.int(ir)}")
            else:
                x = em.int(ir)
                lo, hi = value_range(kind)
                test = (
                    f"np.isin(_x, {list(kind.values())!r})"
                    if isinstance(kind, SetT)
                    else f"(_x >= {lo}) & (_x <= {hi})"
                )
                out += [f"_x = np.broadcast_to({x}, (rs,))", em.flag_rows(f"~({test})")]
        return out

    def _writes(self, sub: Emitter, step: Any) -> tuple[list[str], list[str | Put]]:
        """Lines computing the values of a step's writes (and flagging the rows where one
        may fail), and the puts doing them, in order (a later write of a slot wins)."""
        lines: list[str] = []
        puts: list[str | Put] = self._crash() if step.crash else []
        conflicts = (step.synced or step.conflict) and len(step.writes) > 1
        slots: list[str] = []
        for j, w in enumerate(step.writes):
            lines.append(write_note(w, self.layout))
            value, kind = self._value(sub, w, conflicts)
            if kind == "v":
                lines.append(f"v{j} = {value}")
                value = f"v{j}"
                if w.range_err >= 0 and not self._within(w.value, w.type):
                    lines.append(f"EF[sel] |= {self._outside(w, value)}")
            elif kind == "k" and w.range_err >= 0 and not w.type.contains(value):
                lines.append("EF[sel] = True")
            if w.loc[0] == "fault":
                slots.append("-1")
                continue
            if w.loc[0] == "c":
                slots.append(str(w.loc[1]))
                puts.append(self._put(w.loc[1], value, kind))
                continue
            cell = self.layout.cells[w.loc[1]]
            offset, choices = sub.offset(cell, w.loc[2])
            if len(choices) == 1:
                slots.append(str(choices[0]))
                puts.append(self._put(choices[0], value, kind))
                continue
            lines.append(f"q{j} = np.broadcast_to({offset}, (rs,))")
            slots.append(f"q{j}")
            puts += self._dynamic_put(sub, f"q{j}", choices, value)
        if conflicts:
            for a in range(len(slots)):
                for b in range(a + 1, len(slots)):
                    lines.append(f"EF[sel] |= ({slots[a]} == {slots[b]}) & (v{a} != v{b})")
        return lines, puts

    def _value(self, sub: Emitter, w: Any, conflicts: bool) -> tuple[Any, str]:
        """A write's value: ("k") a constant, ("copy") a slot of the state before copied bit
        for bit, or ("v") an expression of one value per row."""
        ir = w.value
        if not conflicts and ir[0] == "k":
            return ir[1], "k"
        if (
            not conflicts
            and ir[0] == "c"
            and w.loc[0] == "c"
            and (w.range_err < 0 or self._within(ir, w.type))
            and copyable(self.field(ir[1]), self.field(w.loc[1]))
        ):
            return ir[1], "copy"
        x = sub.int(ir)
        return (x if is_array(ir) else f"np.full(rs, {x}, dtype=np.int64)"), "v"

    def _outside(self, w: Any, v: str) -> str:
        """Rows where the value v of write w lies outside its type."""
        if isinstance(w.type, SetT):  # (a set with gaps: _within is never true of it)
            return f"np.isin({v}, {list(w.type.values())!r}, invert=True)"
        lo, hi = value_range(w.type)
        a, b = bounds(w.value, self.range, self.layout)
        tests = ([f"({v} < {lo})"] if a < lo else []) + ([f"({v} > {hi})"] if b > hi else [])
        return " | ".join(tests) or "False"

    def _put(self, slot: int, value: Any, kind: str) -> Put:
        f = self.field(slot)
        if kind == "copy":
            return Put(f, source=("Y0", self.field(value)))
        return Put(f, value)

    def _dynamic_put(self, sub: Emitter, q: str, slots: list[int], v: int | str) -> list[str | Put]:
        """Lines writing v into the slot numbered q of each row (one of `slots`): per word,
        the rows whose slot lies there, at a shift read from a table."""
        fields = [self.field(k) for k in slots]
        f0, span = fields[0], range(slots[0], slots[-1] + 1)
        if any((f.width, f.lo) != (f0.width, f0.lo) for f in fields):
            out: list[str | Put] = [f"_v = np.broadcast_to({v}, (rs,))"]
            for k, f in zip(slots, fields):
                if f.width:
                    out += [
                        f"m = np.flatnonzero({q} == {k})",
                        f"if m.size: _put(Y, {f.word}, {f.shift}, {f.mask}, {f.lo}, _v[m], m)",
                    ]
            return out
        if not f0.width:
            return []
        at = {k: f for k, f in zip(slots, fields)}
        t = sub.fresh()
        sub.constants[t] = np.array([at[k].shift if k in at else 0 for k in span], dtype=np.uint64)
        if isinstance(v, int):
            bits = f"U({(v - f0.lo) & f0.mask})"
        else:
            v = f"({v} - {f0.lo})" if f0.lo else v
            bits = f"np.broadcast_to({v}, (rs,)).astype(U) & U({f0.mask})"
        out = [f"_b = {bits}", f"_s = {t}[{q} - {slots[0]}]"]
        words = sorted({f.word for f in fields})
        if len(words) == 1:
            w = words[0]
            return out + [f"Y[:, {w}] = (Y[:, {w}] & ~(U({f0.mask}) << _s)) | (_b << _s)"]
        wt = sub.fresh()
        sub.constants[wt] = np.array([at[k].word if k in at else -1 for k in span])
        out.append(f"_w = {wt}[{q} - {slots[0]}]")
        for w in words:
            out += [
                f"m = np.flatnonzero(_w == {w})",
                f"if m.size: Y[m, {w}] = (Y[m, {w}] & ~(U({f0.mask}) << _s[m])) | "
                f"({'_b' if isinstance(v, int) else '_b[m]'} << _s[m])",
            ]
        return out

    def _within(self, ir: IR, t: ValueType) -> bool:
        """Whether every value ir can take lies in t (then it needs no check at run time)."""
        lo, hi = value_range(t)
        if isinstance(t, SetT) and hi - lo + 1 != len(t.members):  # a set with gaps: checked
            return False
        a, b = bounds(ir, self.range, self.layout)
        return lo <= a and b <= hi

    def _crash(self) -> list[str | Put]:
        """Volatile cells and buffers back to their initial values; the volatile variables of
        every live activation back to theirs."""
        out: list[str | Put] = [
            Put(self.packing.fields[s], self.layout.init[s]) for s in self.layout.volatile
        ]
        if self.R and self.resets is not None:
            out.append(f"_crv(Y, Y0, {self.size})")
        return out

    def _crash_vars(self, Y: np.ndarray, Y0: np.ndarray, size: int) -> None:
        with self.lock:
            self._crash_vars_locked(Y, Y0, size)

    def _crash_vars_locked(self, Y: np.ndarray, Y0: np.ndarray, size: int) -> None:
        for q in range(size):
            codes = extract(Y0, self.packing.position_field(q))
            for code in np.unique(codes).tolist():
                resets = self.resets(self.codebook.terms[q][code]) if code else ()  # type: ignore[misc]
                if not resets:
                    continue
                rows = np.flatnonzero(codes == code)
                for j, v in resets:
                    f = self.packing.region_field(q, j)
                    if f.width:
                        put_field(Y, f.word, f.shift, f.mask, f.lo, v, rows)

    def _control(
        self, t: Transition, mode: int, movers: tuple[int, ...], locations: tuple[int, ...]
    ) -> list[str | Put]:
        pk = self.packing
        out: list[str | Put] = []
        same = t.mode == mode
        if not same:
            f = pk.mode_field
            if t.mode >> f.width:
                raise Overflow()
            out.append(Put(f, t.mode))
        size = len(t.locations)
        if size > pk.positions:
            raise Overflow()
        here = dict(zip(movers, locations)) if same else {}
        moved = self._moves_regions(t)
        if moved:
            out.append("Yw = Y.copy()")  # regions move from the state after the writes
        for q in range(pk.positions):
            e = t.locations[q] if q < size else None
            if e is None:
                if not same:
                    out += [self._set_code(q, 0)] + self._region_zero(q)
            elif e >= 0:
                if here.get(q) != e:
                    out.append(self._set_position(q, e))
                if self.R:
                    out += self._region_recipe(q, t.regions[q])  # type: ignore[arg-type]
            elif -e - 1 != q:
                out.append(self._copy_position(-e - 1, q))
                out += self._region_copy(-e - 1, q, 0, self.R, moved)
        return out

    def _moves_regions(self, t: Transition) -> bool:
        """Whether some region is copied from another position (read from a snapshot)."""
        if not self.R:
            return False
        for q, e in enumerate(t.locations):
            if e < 0 and -e - 1 != q:
                return True
            if e >= 0 and any(h is not None and h[0] == "copy" and h[1] != q for h in t.regions[q]):
                return True
        return False

    def _region_zero(self, q: int) -> list[str | Put]:
        return [Put(self.packing.region_field(q, j), 0) for j in range(self.R)]

    def _region_recipe(self, q: int, recipe: tuple) -> list[str | Put]:
        out: list[str | Put] = []
        for frame, how in zip(self.layout.frames.values(), recipe):
            if how is not None and how[0] == "copy":
                if how[1] != q:
                    out += self._region_copy(how[1], q, frame.base, frame.base + frame.size, True)
                continue
            values = how[1] if how is not None else (0,) * frame.size
            out += [
                Put(self.packing.region_field(q, frame.base + i), v) for i, v in enumerate(values)
            ]
        return out

    def _region_copy(self, p: int, q: int, lo: int, hi: int, snapshot: bool) -> list[str | Put]:
        """Region slots lo .. hi - 1 of position p into position q's: from the snapshot Yw
        after the writes, or (read as it is being written) from Y."""
        out: list[str | Put] = []
        for j in range(lo, hi):
            a, b = self.packing.region_field(p, j), self.packing.region_field(q, j)
            if not b.width:
                continue
            if not snapshot:
                out.append(
                    f"_put(Y, {b.word}, {b.shift}, {b.mask}, {b.lo}, "
                    f"_rd(Y, {a.word}, {a.shift}, {a.mask}, {a.lo}))"
                )
            elif copyable(a, b):
                out.append(Put(b, source=("Yw", a)))
            else:
                out.append(Put(b, read_source("Yw", a)))
        return out

    def _set_position(self, q: int, tid: int) -> Put:
        if q >= self.packing.positions:
            raise Overflow()
        self.codebook.ensure(self.packing.positions)
        return self._set_code(q, self.codebook.code(q, tid))

    def _set_code(self, q: int, code: int) -> Put:
        f = self.packing.position_field(q)
        if code >> f.width:
            raise Overflow()
        return Put(f, code)

    def _copy_position(self, p: int, q: int) -> Put:
        a, b = self.packing.position_field(p), self.packing.position_field(q)
        if not a.width:
            return Put(b, 0)
        return Put(b, f"_tr({p}, {q}, {read_source('Y0', a)})")

    def _deferred_control(
        self, j: int, mode: int, Y: np.ndarray, Y0: np.ndarray, args: tuple
    ) -> np.ndarray:
        """Write the control after a transition whose target is a call with arguments read
        after the step: one target per distinct argument tuple; rows whose target cannot be
        made this way (an error, or more of it reads cells) are flagged for the scalar code."""
        with self.lock:
            return self._deferred_locked(j, mode, Y, Y0, args)

    def _deferred_locked(
        self, j: int, mode: int, Y: np.ndarray, Y0: np.ndarray, args: tuple
    ) -> np.ndarray:
        rows = Y.shape[0]
        bad = np.zeros(rows, dtype=bool)
        if not args:
            values, inverse = np.zeros((1, 0), np.int64), np.zeros(rows, np.int64)
        else:
            stacked = np.stack(
                [np.broadcast_to(np.asarray(a, dtype=np.int64), (rows,)) for a in args], axis=1
            )
            values, inverse = np.unique(stacked, axis=0, return_inverse=True)
            inverse = inverse.reshape(rows)
        deferred = self._deferred[j].deferred
        for u, vals in enumerate(values.tolist()):
            which = np.flatnonzero(inverse == u)
            try:
                tid = deferred.with_arguments(vals)  # type: ignore[union-attr]
            except Exception:  # noqa: BLE001 - any failure: the scalar code decides exactly
                bad[which] = True
                continue
            self._write_control(Y, Y0, which, self.network.split(tid).control, mode)
        return bad

    def _write_control(
        self, Y: np.ndarray, Y0: np.ndarray, rows: np.ndarray, control: tuple, source: int
    ) -> None:
        """Write a control (mode, entries: term ids or keeps) into some rows of Y."""
        pk, book = self.packing, self.codebook
        if len(control) - 1 > pk.positions:
            raise Overflow()
        book.ensure(pk.positions)
        f = pk.mode_field
        if control[0] >> f.width:
            raise Overflow()
        same = control[0] == source
        if not same:
            put_field(Y, f.word, f.shift, f.mask, 0, control[0], rows)
        for q in range(pk.positions):
            e = control[1 + q] if q + 1 < len(control) else None
            if same and e == -q - 1:
                continue  # this position keeps its location
            b = pk.position_field(q)
            if e is None:
                code: object = 0
            elif e >= 0:
                code = book.code(q, e)
                if code >> b.width:
                    raise Overflow()
            else:
                a = pk.position_field(-e - 1)
                code = self._translate(-e - 1, q, read_field(Y0[rows], a.word, a.shift, a.mask, 0))
            if b.width:
                put_field(Y, b.word, b.shift, b.mask, 0, code, rows)

    def _translate(self, p: int, q: int, codes: np.ndarray) -> np.ndarray:
        """Location codes of position p as codes of position q (each has its own codebook)."""
        values, inverse = np.unique(codes, return_inverse=True)
        with self.lock:
            return self._translate_locked(p, q, values, inverse)

    def _translate_locked(
        self, p: int, q: int, values: np.ndarray, inverse: np.ndarray
    ) -> np.ndarray:
        book = self.codebook
        book.ensure(self.packing.positions)
        mapped = [0 if c == 0 else book.code(q, book.terms[p][c]) for c in values.tolist()]
        if max(mapped) >> self.packing.position_field(q).width:
            raise Overflow()
        return np.array(mapped, dtype=np.int64)[inverse]

    # ------------------------------------------------------------------ predicates
    def predicate(
        self, ir: IR, negate: bool
    ) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """A cell predicate over a block: (truth per row, rows where it may fault)."""
        constants: dict[str, Any] = {}
        em = Emitter(self, "c", "r", "GF", constants)
        cond = em.bool(ir)
        if negate:
            cond = f"np.logical_not({cond})"
        lines = ["def pred(X):", "    r = X.shape[0]", "    GF = np.zeros(r, dtype=bool)"]
        lines += ["    " + x for x in em.reads("X") + em.prelude]
        lines.append(f"    return np.broadcast_to(np.asarray({cond}, dtype=bool), (r,)), GF")
        return self._exec(lines, constants, "pred", "fito-vector-predicate")
