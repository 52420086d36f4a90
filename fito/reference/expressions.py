"""Expressions and sets of events in the reference interpreter, evaluated by walking the AST.

A name is looked up as docs/semantics.md says: bound names (parameters, binders, inputs,
`let`), then the variables of the current activation, then constants, enumeration members
and cells. Evaluating without a store (`store=None`) raises `NeedState` at the first read of
a cell, a variable or a buffer: that is how a guard that reads no state is recognised.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from fito.lang import nodes as A
from fito.lang.arithmetic import DIVISION, ZeroDivisor, divide
from fito.lang.resolve.model import Model, ValueType
from fito.reference.store import ACT, DEF, Frame, Loc, RefFault, Store, frames_of

Event = tuple[Any, ...]  # (channel, v1, ..., vn)


class NeedState(Exception):
    """The expression reads the state (a cell, a variable or a buffer)."""


class Evaluator:
    """Values of expressions, types and sets of events for one model."""

    def __init__(self, model: Model) -> None:
        self.m = model
        self.slots: dict[tuple, int] = {}
        self.types: list[ValueType] = []
        init: list[int] = []
        self.volatile: list[int] = []
        for name, cell in model.cells.items():
            combos = itertools.product(*(t.values() for t in cell.indices))
            for n, combo in enumerate(combos):
                self.slots[(name,) + combo] = len(self.types)
                self.types.append(cell.type)
                init.append(cell.init[n])
                if not cell.durable:
                    self.volatile.append(len(self.types) - 1)
        #: one FIFO per buffered channel, or per index of an array of buffers
        self.buffers: tuple[tuple[str, tuple[int, ...]], ...] = tuple(
            (n, idx)
            for n, c in model.channels.items()
            if c.buffered
            for idx in itertools.product(*(t.values() for t in c.fields[: c.arrays]))
        )
        self.init = Store(tuple(init), tuple(() for _ in self.buffers))
        self.frames: dict[str, Frame] = frames_of(model)
        self.proc_names = tuple(sorted(self.frames))

    # ------------------------------------------------------------------ names and places
    def frame_of(self, env: Mapping[str, int]) -> Frame | None:
        """The frame of the current activation, if the environment has one."""
        d = env.get(DEF)
        return None if d is None else self.frames[self.proc_names[d]]

    def place(self, name: str, idx: tuple[int, ...], env: Mapping[str, int]) -> Loc:
        """The location of a variable or cell element (its name is not a bound name)."""
        frame = self.frame_of(env)
        if frame is not None and name in frame.slots:
            slot = frame.slot(name, idx)
            if slot is None:
                raise RefFault(f"index out of range: {name}{list(idx)}")
            return ("l", env[ACT], slot)
        slot = self.slots.get((name,) + idx)
        if slot is None:
            raise RefFault(f"index out of range: {name}{list(idx)}")
        return ("c", slot)

    def read(self, loc: Loc, store: Store | None) -> int:
        if store is None:
            raise NeedState()
        if loc[0] == "c":
            return store.cells[loc[1]]
        return store.acts[loc[1]].vals[loc[2]]

    def type_at(self, loc: Loc, store: Store) -> ValueType:
        if loc[0] == "c":
            return self.types[loc[1]]
        if loc[0] == "v":
            return loc[2]
        return self.frames[store.acts[loc[1]].proc].types[loc[2]]

    # ------------------------------------------------------------------ expressions
    def ev(self, e: A.Expr, env: Mapping[str, int], store: Store | None) -> int:
        if isinstance(e, A.IntLit):
            return e.value
        if isinstance(e, A.BoolLit):
            return int(e.value)
        if isinstance(e, A.Name):
            if e.id in env:
                return env[e.id]
            frame = self.frame_of(env)
            if frame is None or e.id not in frame.slots:
                if e.id in self.m.consts:
                    return self.m.consts[e.id][1]
                if e.id in self.m.members:
                    return self.m.members[e.id][1]
            return self.read(self.place(e.id, (), env), store)
        if isinstance(e, A.Index):
            idx: list[int] = []
            root: A.Expr = e
            while isinstance(root, A.Index):
                idx.append(self.ev(root.index, env, store))
                root = root.base
            assert isinstance(root, A.Name)
            return self.read(self.place(root.id, tuple(reversed(idx)), env), store)
        if isinstance(e, A.Unary):
            v = self.ev(e.operand, env, store)
            return -v if e.op == "-" else int(not v)
        if isinstance(e, A.Binary):
            return self._binary(e, env, store)
        if isinstance(e, A.IfExpr):
            return self.ev(e.then if self.ev(e.cond, env, store) else e.orelse, env, store)
        if isinstance(e, A.Call):
            return self._call(e, env, store)
        if isinstance(e, A.Let):
            return self.ev(e.body, {**env, e.var: self.ev(e.value, env, store)}, store)
        assert isinstance(e, A.Quant)
        for v in self.values(e.domain):
            got = bool(self.ev(e.body, {**env, e.var: v}, store))
            if e.kind == "forall" and not got:
                return 0
            if e.kind == "exists" and got:
                return 1
        return int(e.kind == "forall")

    def _binary(self, e: A.Binary, env: Mapping[str, int], store: Store | None) -> int:
        a = self.ev(e.left, env, store)
        if e.op == "and":
            return int(bool(a) and bool(self.ev(e.right, env, store)))
        if e.op == "or":
            return int(bool(a) or bool(self.ev(e.right, env, store)))
        if e.op == "=>":
            return int((not a) or bool(self.ev(e.right, env, store)))
        b = self.ev(e.right, env, store)
        if e.op in DIVISION:
            try:
                return divide(e.op, a, b)
            except ZeroDivisor:
                raise RefFault("division by zero") from None
        return {
            "+": a + b,
            "-": a - b,
            "*": a * b,
            "==": int(a == b),
            "!=": int(a != b),
            "<": int(a < b),
            "<=": int(a <= b),
            ">": int(a > b),
            ">=": int(a >= b),
        }[e.op]

    def _call(self, e: A.Call, env: Mapping[str, int], store: Store | None) -> int:
        fn = self.m.functions.get(e.func)
        if fn is not None:  # inlined by meaning: arguments and result checked
            args = [self.ev(a, env, store) for a in e.args]
            for v, t in zip(args, fn.params):
                if not t.contains(v):
                    raise RefFault(f"argument {v} of '{e.func}' is out of range")
            inner = {p.name: v for p, v in zip(fn.decl.params, args)}
            result = self.ev(fn.decl.body, inner, store)
            if not fn.result.contains(result):
                raise RefFault(f"'{e.func}' returns {result}, outside its result type")
            return result
        if e.func in ("len", "empty", "full"):
            idx: list[int] = []
            root = e.args[0]
            while isinstance(root, A.Index):
                idx.append(self.ev(root.index, env, store))
                root = root.base
            assert isinstance(root, A.Name)
            n = len(self.queue(store, root.id, tuple(reversed(idx))))
            cap = self.m.channels[root.id].capacity
            return {"len": n, "empty": int(n == 0), "full": int(n == cap)}[e.func]
        a, b = (self.ev(x, env, store) for x in e.args)
        return min(a, b) if e.func == "min" else max(a, b)

    def buffer_of(self, name: str, idx: tuple[int, ...]) -> int:
        """The position of a FIFO in the store (an index outside the array is M007)."""
        try:
            return self.buffers.index((name, idx))
        except ValueError:
            raise RefFault(f"index out of range: {name}{list(idx)}") from None

    def queue(self, store: Store | None, name: str, idx: tuple[int, ...]) -> tuple:
        b = self.buffer_of(name, idx)
        if store is None:
            raise NeedState()
        return store.bufs[b]

    def constant(self, e: A.Expr, env: Mapping[str, int]) -> int | None:
        """The value of e when it reads no state (and raises no error), else None."""
        try:
            return self.ev(e, env, None)
        except (NeedState, RefFault):
            return None

    def values(self, t: A.TypeExpr) -> tuple[int, ...]:
        if isinstance(t, A.TypeName):
            return self.m.types[t.name].values()
        if isinstance(t, A.BoolType):
            return (0, 1)
        if isinstance(t, A.RangeType):
            return tuple(range(self.ev(t.lo, {}, None), self.ev(t.hi, {}, None) + 1))
        assert isinstance(t, A.SetType)
        return tuple(sorted({self.ev(x, {}, None) for x in t.items}))

    # ------------------------------------------------------------------ sets of events
    def events_of(self, s: A.EventSet, env: Mapping[str, int]) -> frozenset[Event]:
        """A set of events as the prefixes it lists: `{| c.0 |}` is (c, 0), an event of
        `{c.0.1}` is its whole tuple, `Events` every unbuffered channel; an item that
        extends another is dropped. Membership is `member` (by prefix)."""
        if s.kind == "all":
            items = {(name,) for name, c in self.m.channels.items() if not c.buffered}
        else:
            items = {self.prefix(item, env) for item in s.items}
        return frozenset(p for p in items if not any(p[:k] in items for k in range(1, len(p))))

    def prefix(self, item: A.Event, env: Mapping[str, int]) -> Event:
        values = [self.ev(f.value, env, None) for f in item.fields]  # type: ignore[union-attr]
        return (item.channel, *values)

    def renaming(
        self, pairs: tuple[A.RenamePair, ...], env: Mapping[str, int]
    ) -> frozenset[tuple[Event, Event]]:
        """The pairs of a renaming, as (source prefix, target prefix)."""
        return frozenset((self.prefix(p.source, env), self.prefix(p.target, env)) for p in pairs)


def member(event: Event, prefixes: frozenset[Event]) -> bool:
    """Whether some prefix of the set starts the event."""
    return any(event[:k] in prefixes for k in range(1, len(event) + 1))


def images(event: Event, pairs: frozenset[tuple[Event, Event]]) -> list[Event]:
    """The events a renaming makes of event: one per pair whose source starts it (sorted);
    the event itself when none does."""
    out = sorted({dst + event[len(src) :] for src, dst in pairs if event[: len(src)] == src})
    return out or [event]
