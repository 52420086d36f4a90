"""Generated numpy for whole blocks of states: one function per cached group of transitions.

`apply(X)` takes the packed rows (fito/semantics/packing.py) of every frontier state whose
control matches the group's (mode, candidate, locations), and returns the packed successors
of each enabled transition with the rows they came from, the number of enabled transitions
per row, and the rows that *may* meet a model error (a guard or an effect that divides by
zero, indexes out of range, writes or sends a value outside its type, or two writes that
conflict). Those suspect rows are redone state by state by the scalar code, which decides
exactly which error, if any, happens (docs/semantics.md, model errors); so the vector code
only needs to over-approximate faults, never to order them.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fito.lang.values import SetT, ValueType
from fito.semantics.ir import IR, chain_of
from fito.semantics.layout import Layout
from fito.semantics.network import Network, Transition
from fito.semantics.packing import Codebook, Field, Overflow, Packing, value_range

SAFE = 1 << 62  # intermediate values must stay below this to use int64 arithmetic


class NotVector(Exception):
    """A group the vector code does not handle (run its rows state by state)."""


@dataclass(frozen=True, slots=True)
class VectorGroup:
    ranks: tuple[int, ...]                       # rank of each transition
    apply: Callable[[np.ndarray], tuple[list, np.ndarray, np.ndarray]]


def _bits(f: Field) -> tuple[int, int, int, int]:
    return f.word, f.shift, f.mask, f.lo


class VectorCode:
    """Compiles groups of transitions into numpy functions over packed blocks."""

    def __init__(self, layout: Layout, packing: Packing, codebook: Codebook,
                 channel_types: dict[str, tuple[ValueType, ...]], network: Network,
                 lock: Any = None) -> None:
        self.network = network
        self.lock = lock if lock is not None else contextlib.nullcontext()
        self._deferred: list[Transition] = []
        self.layout = layout
        self.packing = packing
        self.codebook = codebook
        self.channel_types = channel_types
        self.ranges = [value_range(t) for t in layout.types]
        self.namespace: dict[str, Any] = {"np": np, "_rd": _read_field, "_put": _put_field,
                                          "_int": _as_int, "U": np.uint64, "_tr": self._translate,
                                          "_dfr": self._deferred_control}

    # ------------------------------------------------------------------ a group
    def compile(self, mode: int, movers: tuple[int, ...], locations: tuple[int, ...],
                transitions: Sequence[Transition]) -> Callable[[np.ndarray], tuple]:
        constants: dict[str, Any] = {}
        em = _Emitter(self, "c", "r", "GF", constants)
        guards = []
        for t in transitions:
            if t.deferred is not None and t.deferred.arguments() is None:
                raise NotVector("a target that depends on the cells beyond a call's arguments")
            guards.append(em.conjunction(t.step.guard) if t.step.guard else None)
        body: list[str] = []
        for n, t in enumerate(transitions):
            body += self._transition(constants, n, t, guards[n], mode, movers, locations)
        lines = ["def apply(X):", "    r = X.shape[0]", "    GF = np.zeros(r, dtype=bool)",
                 "    EF = np.zeros(r, dtype=bool)", "    cnt = np.zeros(r, dtype=np.int64)",
                 "    outs = []"]
        lines += ["    " + line for line in em.reads("X") + em.prelude + body]
        lines.append("    return outs, cnt, GF | EF")
        return self._exec(lines, constants, "apply")

    def _exec(self, lines: list[str], constants: dict[str, Any], name: str) -> Any:
        ns = dict(self.namespace)
        ns.update(constants)
        try:
            code = compile("\n".join(lines), f"<fito-vector-{name}>", "exec")
        except (SyntaxError, RecursionError) as exc:  # nested too deep for Python's compiler
            raise NotVector(f"generated code Python cannot compile ({exc})") from None
        exec(code, ns)  # noqa: S102
        return ns[name]

    def _transition(self, constants: dict[str, Any], n: int, t: Transition, guard: str | None,
                    mode: int, movers: tuple[int, ...], locations: tuple[int, ...]) -> list[str]:
        step = t.step
        sub = _Emitter(self, "s", "rs", "EF", constants)
        checks = []
        for ir, i, _err in step.checks:
            ftype = self.channel_types[step.channel][i]  # type: ignore[index]
            if not self._within(ir, ftype):
                checks.append((sub.int(ir), ftype))
        values = [sub.int(w.value) for w in step.writes]
        offsets = [None if w.slot is not None else sub.offset(self.layout.cells[w.cell], w.index)
                   for w in step.writes]
        effect = sub.reads("Y0") + sub.prelude
        for x, ftype in checks:
            lo, hi = value_range(ftype)
            effect.append(f"EF[sel] |= ({x} < {lo}) | ({x} > {hi})")
            if isinstance(ftype, SetT):
                effect.append(f"EF[sel] |= ~np.isin({x}, {list(ftype.members)!r})")
        effect += self._writes(step, values, offsets)
        if t.deferred is None:
            effect += self._control(t, mode, movers, locations)
        else:
            post = _Emitter(self, "y", "rs", "EF", constants)
            args = [post.int(a) for a in t.deferred.arguments()]  # type: ignore[union-attr]
            self._deferred.append(t)
            effect += post.reads("Y") + post.prelude
            effect.append(f"EF[sel] |= _dfr({len(self._deferred) - 1}, {mode}, Y, Y0, "
                          f"({''.join(a + ', ' for a in args)}))")
        lines = []
        if guard is None:
            lines.append("sel = np.arange(r)")
        else:
            lines += [f"e = np.broadcast_to({guard}, (r,))", "sel = np.flatnonzero(e)"]
        lines += ["if sel.size:", "    Y0 = X[sel]", "    Y = Y0.copy()", "    rs = sel.size"]
        lines += ["    " + x for x in effect]
        lines += [f"    outs.append((Y, sel, {n}))", "    cnt[sel] += 1"]
        return lines

    def _writes(self, step: Any, values: list[str], offsets: list[str | None]) -> list[str]:
        out = self._crash() if step.crash else []
        slots: list[str] = []
        for j, (w, v, offset) in enumerate(zip(step.writes, values, offsets)):
            ctype = self.layout.cells[w.cell].cell.type
            lo, hi = value_range(ctype)
            out.append(f"v{j} = np.broadcast_to({v}, (rs,))")
            if not self._within(w.value, ctype):
                out.append(f"EF[sel] |= (v{j} < {lo}) | (v{j} > {hi})")
            if offset is None:
                slots.append(str(w.slot))
                f = self.packing.fields[w.slot]
                if f.width:
                    out.append(f"_put(Y, {f.word}, {f.shift}, {f.mask}, {f.lo}, v{j})")
                continue
            cell = self.layout.cells[w.cell]
            out.append(f"q{j} = np.broadcast_to({offset}, (rs,))")
            slots.append(f"q{j}")
            for k in range(cell.size):
                f = self.packing.fields[cell.base + k]
                if f.width:
                    out += [f"m = np.flatnonzero(q{j} == {cell.base + k})",
                            f"if m.size: _put(Y, {f.word}, {f.shift}, {f.mask}, {f.lo}, v{j}[m], m)"]
        if step.synced and len(step.writes) > 1:
            for a in range(len(slots)):
                for b in range(a + 1, len(slots)):
                    out.append(f"EF[sel] |= ({slots[a]} == {slots[b]}) & (v{a} != v{b})")
        return out

    def _within(self, ir: IR, t: ValueType) -> bool:
        """Whether every value ir can take lies in t (then it needs no check at run time)."""
        lo, hi = value_range(t)
        if isinstance(t, SetT) and hi - lo + 1 != len(t.members):  # a set with gaps: checked
            return False
        a, b = _bounds(ir, self.ranges, self.layout)
        return lo <= a and b <= hi

    def _crash(self) -> list[str]:
        """Volatile cells back to their initial values, one masked assignment per word."""
        out = []
        for word in sorted({self.packing.fields[s].word for s in self.layout.volatile}):
            clear, bits = 0, 0
            for s in self.layout.volatile:
                f = self.packing.fields[s]
                if f.word == word and f.width:
                    clear |= f.mask << f.shift
                    bits |= (self.layout.init[s] - f.lo) << f.shift
            if clear:
                out.append(f"Y[:, {word}] = (Y[:, {word}] & U({~clear & (2**64 - 1)})) | U({bits})")
        return out

    def _control(self, t: Transition, mode: int, movers: tuple[int, ...],
                 locations: tuple[int, ...]) -> list[str]:
        pk = self.packing
        out: list[str] = []
        if t.mode == mode:
            here = dict(zip(movers, locations))
            for q, e in enumerate(t.locations):
                if e >= 0 and here.get(q) != e:
                    out.append(self._set_position(q, e))
                elif e < 0 and -e - 1 != q:
                    out.append(self._copy_position(-e - 1, q))
            return out
        f = pk.mode_field
        if t.mode >> f.width:
            raise Overflow()
        out.append(f"_put(Y, {f.word}, {f.shift}, {f.mask}, 0, {t.mode})")
        if len(t.locations) > pk.positions:
            raise Overflow()
        for q in range(pk.positions):
            e = t.locations[q] if q < len(t.locations) else None
            if e is None:
                out.append(self._set_code(q, 0))
            elif e >= 0:
                out.append(self._set_position(q, e))
            elif -e - 1 != q:
                out.append(self._copy_position(-e - 1, q))
        return out

    def _set_position(self, q: int, tid: int) -> str:
        if q >= self.packing.positions:
            raise Overflow()
        self.codebook.ensure(self.packing.positions)
        return self._set_code(q, self.codebook.code(q, tid))

    def _set_code(self, q: int, code: int) -> str:
        f = self.packing.position_field(q)
        if code >> f.width:
            raise Overflow()
        return f"_put(Y, {f.word}, {f.shift}, {f.mask}, 0, {code})" if f.width else "pass"

    def _copy_position(self, p: int, q: int) -> str:
        a, b = self.packing.position_field(p), self.packing.position_field(q)
        if not b.width:
            return "pass"
        if not a.width:
            return f"_put(Y, {b.word}, {b.shift}, {b.mask}, 0, 0)"
        return (f"_put(Y, {b.word}, {b.shift}, {b.mask}, 0, "
                f"_tr({p}, {q}, _rd(Y0, {a.word}, {a.shift}, {a.mask}, 0)))")

    def _deferred_control(self, j: int, mode: int, Y: np.ndarray, Y0: np.ndarray, args: tuple) -> np.ndarray:
        """Write the control after a transition whose target is a call with arguments read
        after the step: one target per distinct argument tuple; rows whose target cannot be
        made this way (an error, or more of it reads cells) are flagged for the scalar code."""
        with self.lock:
            return self._deferred_locked(j, mode, Y, Y0, args)

    def _deferred_locked(self, j: int, mode: int, Y: np.ndarray, Y0: np.ndarray, args: tuple) -> np.ndarray:
        rows = Y.shape[0]
        bad = np.zeros(rows, dtype=bool)
        if not args:
            values, inverse = np.zeros((1, 0), np.int64), np.zeros(rows, np.int64)
        else:
            stacked = np.stack([np.broadcast_to(np.asarray(a, dtype=np.int64), (rows,)) for a in args], axis=1)
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
            self._write_control(Y, Y0, which, self.network.split(tid), mode)
        return bad

    def _write_control(self, Y: np.ndarray, Y0: np.ndarray, rows: np.ndarray, control: tuple,
                       source: int) -> None:
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
            _put_field(Y, f.word, f.shift, f.mask, 0, control[0], rows)
        for q in range(pk.positions):
            e = control[1 + q] if q + 1 < len(control) else None
            if same and e == -q - 1:
                continue  # this position keeps its location
            b = pk.position_field(q)
            if e is None:
                code: object = 0
            elif e >= 0:
                code = book.code(q, e)
                if code >> b.width:  # type: ignore[operator]
                    raise Overflow()
            else:
                a = pk.position_field(-e - 1)
                code = self._translate(-e - 1, q, _read_field(Y0[rows], a.word, a.shift, a.mask, 0))
            if b.width:
                _put_field(Y, b.word, b.shift, b.mask, 0, code, rows)

    def _translate(self, p: int, q: int, codes: np.ndarray) -> np.ndarray:
        """Location codes of position p as codes of position q (each has its own codebook)."""
        values, inverse = np.unique(codes, return_inverse=True)
        with self.lock:
            return self._translate_locked(p, q, values, inverse)

    def _translate_locked(self, p: int, q: int, values: np.ndarray, inverse: np.ndarray) -> np.ndarray:
        book = self.codebook
        book.ensure(self.packing.positions)
        mapped = [0 if c == 0 else book.code(q, book.terms[p][c]) for c in values.tolist()]
        if max(mapped) >> self.packing.position_field(q).width:
            raise Overflow()
        return np.array(mapped, dtype=np.int64)[inverse]

    # ------------------------------------------------------------------ predicates
    def predicate(self, ir: IR, negate: bool) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """A cell predicate over a block: (truth per row, rows where it may fault)."""
        constants: dict[str, Any] = {}
        em = _Emitter(self, "c", "r", "GF", constants)
        cond = em.bool(ir)
        if negate:
            cond = f"np.logical_not({cond})"
        lines = ["def pred(X):", "    r = X.shape[0]", "    GF = np.zeros(r, dtype=bool)"]
        lines += ["    " + x for x in em.reads("X") + em.prelude]
        lines.append(f"    return np.broadcast_to(np.asarray({cond}, dtype=bool), (r,)), GF")
        return self._exec(lines, constants, "pred")


class _Emitter:
    """Translates IR into numpy expressions over the field arrays of one block of rows
    (named prefix + slot; `rows` names the row count), collecting the fields read, helper
    statements and the fault flags they raise (into the array named `flag`, indexed by
    `sel` for effects)."""

    def __init__(self, code: VectorCode, prefix: str, rows: str, flag: str, constants: dict[str, Any]) -> None:
        self.code = code
        self.prefix = prefix
        self.rows = rows
        self.flag = flag
        self.used: set[int] = set()
        self.prelude: list[str] = []
        self.constants = constants

    def reads(self, source: str) -> list[str]:
        out = []
        for slot in sorted(self.used):
            f = self.code.packing.fields[slot]
            if f.width:
                out.append(f"{self.prefix}{slot} = _rd({source}, {f.word}, {f.shift}, {f.mask}, {f.lo})")
            else:
                out.append(f"{self.prefix}{slot} = np.full({self.rows}, {f.lo}, dtype=np.int64)")
        return out

    def fresh(self) -> str:
        name = f"_{self.prefix}{len(self.constants)}_{len(self.prelude)}"
        self.constants.setdefault("__names", []).append(name)
        return name

    def flag_rows(self, bad: str) -> str:
        return f"{self.flag} |= {bad}" if self.flag == "GF" else f"{self.flag}[sel] |= {bad}"

    def conjunction(self, guard: Sequence[IR]) -> str:
        return " & ".join(f"np.asarray({self.bool(g)}, dtype=bool)" for g in guard)

    def int(self, ir: IR) -> str:
        code, kind = self.expr(ir)
        return code if kind == "i" else f"_int({code})"

    def bool(self, ir: IR) -> str:
        code, kind = self.expr(ir)
        return code if kind == "b" else f"({code} != 0)"

    def expr(self, ir: IR) -> tuple[str, str]:
        lo, hi = _bounds(ir, self.code.ranges, self.code.layout)
        if max(abs(lo), abs(hi)) >= SAFE:
            raise NotVector("an intermediate value may exceed 64 bits")
        tag = ir[0]
        if tag == "k":
            return str(ir[1]), "i"
        if tag == "c":
            self.used.add(ir[1])
            return f"{self.prefix}{ir[1]}", "i"
        if tag == "cd":
            return self._dynamic_read(ir), "i"
        if tag == "neg":
            return f"(-{self.int(ir[1])})", "i"
        if tag == "not":
            return f"np.logical_not({self.bool(ir[1])})", "b"
        if tag == "if":
            c = self.bool(ir[1])
            (a, ka), (b, kb) = self.expr(ir[2]), self.expr(ir[3])
            if ka == kb:
                return f"np.where({c}, {a}, {b})", ka
            return f"np.where({c}, {self.int(ir[2])}, {self.int(ir[3])})", "i"
        if tag in ("min", "max"):
            fn = "np.minimum" if tag == "min" else "np.maximum"
            return f"{fn}({self.int(ir[1])}, {self.int(ir[2])})", "i"
        if tag == "fault":
            self.prelude.append(self.flag_rows("True"))
            return "0", "i"
        return self._op(ir)

    def _op(self, ir: IR) -> tuple[str, str]:
        _, op, a_ir, b_ir, _err = ir
        if op in ("and", "or") and a_ir[0] == "op" and a_ir[1] == op:  # a chain: flat lines
            fn, t = f"np.logical_{op}", self.fresh()
            operands = chain_of(ir)
            self.prelude.append(f"{t} = {self.bool(operands[0])}")
            for x in operands[1:]:
                b = self.bool(x)
                self.prelude.append(f"{t} = {fn}({t}, {b})")
            return t, "b"
        if op in ("and", "or", "=>"):
            a, b = self.bool(a_ir), self.bool(b_ir)
            if op == "and":
                return f"np.logical_and({a}, {b})", "b"
            if op == "or":
                return f"np.logical_or({a}, {b})", "b"
            return f"np.logical_or(np.logical_not({a}), {b})", "b"
        if op in ("==", "!="):
            (a, ka), (b, kb) = self.expr(a_ir), self.expr(b_ir)
            if ka != kb:
                a, b = self.int(a_ir), self.int(b_ir)
            return f"({a} {op} {b})", "b"
        a, b = self.int(a_ir), self.int(b_ir)
        if op in ("<", "<=", ">", ">="):
            return f"({a} {op} {b})", "b"
        if op in ("+", "-", "*"):
            return f"({a} {op} {b})", "i"
        t = self.fresh()
        self.prelude += [f"{t} = {b}", self.flag_rows(f"np.asarray({t} == 0, dtype=bool)")]
        fn = "np.floor_divide" if op == "/" else "np.remainder"
        return f"{fn}({a}, np.where({t} == 0, 1, {t}))", "i"

    def offset(self, cell: Any, index: Sequence[IR]) -> str:
        """The slot of an element of a cell array at computed indices (faults flagged)."""
        parts = []
        positions = cell.positions or (None,) * len(cell.dims)
        for x, (lo, size, stride), pos in zip(index, cell.dims, positions):
            v = self.fresh()
            self.prelude.append(f"{v} = {self.int(x)}")
            if pos is not None:
                keys = sorted(pos)
                table = self.fresh()
                self.constants[table] = np.array([pos.get(k, -1) for k in range(keys[0], keys[-1] + 1)])
                o = self.fresh()
                self.prelude.append(f"{o} = np.where(({v} >= {keys[0]}) & ({v} <= {keys[-1]}), "
                                    f"{table}[np.clip({v} - {keys[0]}, 0, {keys[-1] - keys[0]})], -1)")
            else:
                o = f"({v} - {lo})"
            self.prelude.append(self.flag_rows(f"(({o} < 0) | ({o} >= {size}))"))
            parts.append(f"np.clip({o}, 0, {size - 1}) * {stride}")
        return f"({cell.base} + " + " + ".join(parts) + ")"

    def _dynamic_read(self, ir: IR) -> str:
        _, name, index, _err = ir
        cell = self.code.layout.cells[name]
        offset = self.offset(cell, index)
        for k in range(cell.size):
            self.used.add(cell.base + k)
        stack = ", ".join(f"{self.prefix}{cell.base + k}" for k in range(cell.size))
        t = self.fresh()
        self.prelude.append(f"{t} = np.broadcast_to({offset} - {cell.base}, ({self.rows},))")
        return f"np.stack(({stack},))[{t}, np.arange({self.rows})]"


def _bounds(ir: IR, ranges: Sequence[tuple[int, int]], layout: Layout) -> tuple[int, int]:
    """Interval bounds of an IR node's values (over every state), for int64 safety."""
    tag = ir[0]
    if tag == "k":
        return ir[1], ir[1]
    if tag == "c":
        return ranges[ir[1]]
    if tag == "cd":
        cell = layout.cells[ir[1]]
        got = [ranges[cell.base + k] for k in range(cell.size)]
        return min(a for a, _ in got), max(b for _, b in got)
    if tag in ("not", "fault"):
        return 0, 1
    if tag == "neg":
        lo, hi = _bounds(ir[1], ranges, layout)
        return -hi, -lo
    if tag in ("if", "min", "max"):
        parts = [_bounds(x, ranges, layout) for x in ir[-2:]]
        return min(p[0] for p in parts), max(p[1] for p in parts)
    _, op, a, b, _ = ir
    (al, ah), (bl, bh) = _bounds(a, ranges, layout), _bounds(b, ranges, layout)
    if op == "+":
        return al + bl, ah + bh
    if op == "-":
        return al - bh, ah - bl
    if op == "*":
        products = [al * bl, al * bh, ah * bl, ah * bh]
        return min(products), max(products)
    if op in ("/", "%"):
        m = max(abs(al), abs(ah), abs(bl), abs(bh))
        return -m, m
    return 0, 1


def _read_field(X: np.ndarray, word: int, shift: int, mask: int, lo: int) -> np.ndarray:
    out = ((X[:, word] >> np.uint64(shift)) & np.uint64(mask)).astype(np.int64)
    if lo:
        out += lo
    return out


def _put_field(Y: np.ndarray, word: int, shift: int, mask: int, lo: int, value: Any,
               rows: np.ndarray | None = None) -> None:
    bits = (np.asarray(value, dtype=np.int64) - lo).astype(np.uint64) & np.uint64(mask)
    clear = np.uint64(~(mask << shift) & (2**64 - 1))
    if rows is None:
        Y[:, word] = (Y[:, word] & clear) | (bits << np.uint64(shift))
    else:
        Y[rows, word] = (Y[rows, word] & clear) | (bits << np.uint64(shift))


def _as_int(x: Any) -> Any:
    return x.astype(np.int64) if isinstance(x, np.ndarray) else int(x)
