"""numpy expressions for the vector code (fito/semantics/codegen/vector.py): IR translated over the
field arrays of a block of packed rows, with the fault flags an expression may raise, and
the bounds that keep its intermediate values in int64."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fito.lang.arithmetic import NUMPY_FUNCTIONS
from fito.lang.resolve.model import SetT
from fito.semantics.ir import IR, chain_of
from fito.semantics.state.layout import Layout
from fito.semantics.state.ranges import value_range

if TYPE_CHECKING:
    from fito.semantics.codegen.vector import VectorCode

SAFE = 1 << 62  # intermediate values must stay below this to use int64 arithmetic


class NotVector(Exception):
    """A group the vector code does not handle (run its rows state by state)."""


class Emitter:
    """Translates IR into numpy expressions over the field arrays of one block of rows
    (named prefix + slot; `rows` names the row count), collecting the fields read, helper
    statements and the fault flags they raise (into the array named `flag`, indexed by
    `sel` for effects)."""

    def __init__(
        self, code: VectorCode, prefix: str, rows: str, flag: str, constants: dict[str, Any]
    ) -> None:
        self.code = code
        self.prefix = prefix
        self.rows = rows
        self.flag = flag
        self.used: set[int] = set()
        self.prelude: list[str] = []
        self.constants = constants
        self.flagged: set[tuple] = set()

    def reads(self, source: str) -> list[str]:
        out = []
        for slot in sorted(self.used):
            f = self.code.field(slot)
            if f.width:
                out.append(f"{self.prefix}{slot} = {read_source(source, f)}")
            else:
                out.append(f"{self.prefix}{slot} = np.full({self.rows}, {f.lo}, dtype=np.int64)")
        return out

    def fresh(self) -> str:
        names = self.constants.setdefault("__names", [])
        name = f"_{self.prefix}{len(names)}"
        names.append(name)
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
        lo, hi = bounds(ir, self.code.range, self.code.layout)
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
        if tag == "chk":  # rows where the value is outside the type may fail
            t = self.fresh()
            lo, hi = value_range(ir[2])
            self.prelude.append(f"{t} = np.broadcast_to({self.int(ir[1])}, ({self.rows},))")
            if isinstance(ir[2], SetT):
                bad = f"np.isin({t}, {list(ir[2].values())!r}, invert=True)"
            else:
                bad = f"({t} < {lo}) | ({t} > {hi})"
            self.prelude.append(self.flag_rows(bad))
            return t, "i"
        if tag == "seq":
            for x in ir[1]:
                self.prelude.append(f"_ = {self.int(x)}")
            return self.expr(ir[2])
        if tag == "safe":  # rows where it fails are flagged, and the scalar code decides
            return self.expr(ir[1])
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
        return f"{NUMPY_FUNCTIONS[op]}({a}, np.where({t} == 0, 1, {t}))", "i"

    def offset(self, cell: Any, index: Sequence[IR]) -> tuple[str, list[int]]:
        """The slot of an element of a cell array at computed indices (faults flagged), and
        the slots it can be: those the indices' bounds allow (an index that cannot leave its
        range needs no flag and no clip)."""
        parts, choices = [], []
        positions = cell.positions or (None,) * len(cell.dims)
        for x, (lo, size, stride), pos in zip(index, cell.dims, positions):
            v = self.fresh()
            self.prelude.append(f"{v} = {self.int(x)}")
            if pos is not None:
                o = self._position(v, pos)
                self._flag_once((x, tuple(sorted(pos.items()))), f"(({o} < 0) | ({o} >= {size}))")
                first, last = 0, size - 1
            else:
                a, b = bounds(x, self.code.range, self.code.layout)
                first, last = min(max(a - lo, 0), size - 1), max(min(b - lo, size - 1), 0)
                o = f"({v} - {lo})" if lo else v
                if a - lo < 0 or b - lo >= size:  # may leave its range
                    bad = ([f"({o} < 0)"] if a < lo else []) + (
                        [f"({o} >= {size})"] if b - lo >= size else []
                    )
                    self._flag_once((x, lo, size), " | ".join(bad))
                    o = f"np.clip({o}, 0, {size - 1})"
            parts.append(f"{o} * {stride}")
            choices.append([k * stride for k in range(first, last + 1)])
        slots = sorted({cell.base + sum(c) for c in itertools.product(*choices)})
        return f"({cell.base} + " + " + ".join(parts) + ")", slots

    def _position(self, v: str, pos: Any) -> str:
        """The offset of index value v in an index set with gaps (-1 outside it)."""
        keys = sorted(pos)
        table, o = self.fresh(), self.fresh()
        self.constants[table] = np.array([pos.get(k, -1) for k in range(keys[0], keys[-1] + 1)])
        span = keys[-1] - keys[0]
        self.prelude.append(
            f"{o} = np.where(({v} >= {keys[0]}) & ({v} <= {keys[-1]}), "
            f"{table}[np.clip({v} - {keys[0]}, 0, {span})], -1)"
        )
        return o

    def _flag_once(self, key: tuple, bad: str) -> None:
        """Flag the rows where an index is out of range (once per index and range)."""
        if key not in self.flagged:
            self.flagged.add(key)
            self.prelude.append(self.flag_rows(bad))

    def _dynamic_read(self, ir: IR) -> str:
        _, name, index, _err = ir
        cell = self.code.layout.cells[name]
        offset, slots = self.offset(cell, index)
        self.used.update(slots)
        if len(slots) == 1:
            return f"{self.prefix}{slots[0]}"
        stack = ", ".join(f"{self.prefix}{k}" for k in slots)
        t, table = self.fresh(), self.fresh()
        self.constants[table] = np.array(
            [slots.index(k) if k in slots else 0 for k in range(slots[0], slots[-1] + 1)]
        )
        self.prelude.append(
            f"{t} = np.broadcast_to({table}[{offset} - {slots[0]}], ({self.rows},))"
        )
        return f"np.stack(({stack},))[{t}, np.arange({self.rows})]"


def is_array(ir: IR) -> bool:
    """Whether the expression emitted for ir is surely an array of one value per row (else
    it may be a Python or numpy scalar)."""
    tag = ir[0]
    if tag in ("c", "cd", "chk"):
        return True
    if tag in ("neg", "not", "safe"):
        return is_array(ir[1])
    if tag == "seq":
        return is_array(ir[2])
    if tag in ("if", "min", "max"):
        return any(is_array(x) for x in ir[1:])
    if tag == "op":
        return is_array(ir[2]) or is_array(ir[3])
    return False


def read_source(source: str, f: Any) -> str:
    """An expression of the values of field f in the rows of the block named source."""
    x = f"{source}[:, {f.word}]"
    if f.shift:
        x = f"({x} >> {f.shift})"
    if f.shift + f.width < 64:
        x = f"({x} & {f.mask})"
    x = f"{x}.astype(np.int64)"
    return f"({x} + {f.lo})" if f.lo else x


def bounds(ir: IR, ranges: Callable[[int], tuple[int, int]], layout: Layout) -> tuple[int, int]:
    """Interval bounds of an IR node's values (over every state), for int64 safety."""
    tag = ir[0]
    if tag == "k":
        return ir[1], ir[1]
    if tag == "c":
        return ranges(ir[1])
    if tag == "cd":
        cell = layout.cells[ir[1]]
        got = [ranges(cell.base + k) for k in range(cell.size)]
        return min(a for a, _ in got), max(b for _, b in got)
    if tag in ("not", "fault"):
        return 0, 1
    if tag == "neg":
        lo, hi = bounds(ir[1], ranges, layout)
        return -hi, -lo
    if tag in ("if", "min", "max"):
        parts = [bounds(x, ranges, layout) for x in ir[-2:]]
        return min(p[0] for p in parts), max(p[1] for p in parts)
    if tag == "chk":
        return bounds(ir[1], ranges, layout)
    if tag == "seq":
        for x in ir[1]:
            bounds(x, ranges, layout)
        return bounds(ir[2], ranges, layout)
    if tag == "safe":
        return bounds(ir[1], ranges, layout)
    _, op, a, b, _ = ir
    (al, ah), (bl, bh) = bounds(a, ranges, layout), bounds(b, ranges, layout)
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


def read_field(X: np.ndarray, word: int, shift: int, mask: int, lo: int) -> np.ndarray:
    out = ((X[:, word] >> np.uint64(shift)) & np.uint64(mask)).astype(np.int64)
    if lo:
        out += lo
    return out


def put_field(
    Y: np.ndarray,
    word: int,
    shift: int,
    mask: int,
    lo: int,
    value: Any,
    rows: np.ndarray | None = None,
) -> None:
    bits = (np.asarray(value, dtype=np.int64) - lo).astype(np.uint64) & np.uint64(mask)
    clear = np.uint64(~(mask << shift) & (2**64 - 1))
    if rows is None:
        Y[:, word] = (Y[:, word] & clear) | (bits << np.uint64(shift))
    else:
        Y[rows, word] = (Y[rows, word] & clear) | (bits << np.uint64(shift))


def as_int(x: Any) -> Any:
    return x.astype(np.int64) if isinstance(x, np.ndarray) else int(x)
