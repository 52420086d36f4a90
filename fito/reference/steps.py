"""The reference interpreter's steps: prefixes (channels and buffers), `assert` and `atomic`
steps, assignments, and the synchronisation of parallel components.

A transition (`Tr`) is computed in the state before it: its label, its writes, its buffer
operation, the checks to make when it is taken (values of channel fields), and `fault`, a
model error that taking it raises (an assignment that cannot be evaluated, an assertion that
fails). Its target is computed from the store after it (`Tr.target`), because process calls
read their arguments there.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fito.lang import nodes as A
from fito.lang.printer.canonical import print_expr
from fito.lang.resolve.model import CRASH, ValueType
from fito.reference.expressions import member
from fito.reference.store import (
    ACT,
    Loc,
    RefFault,
    Store,
    index_combos,
    write,
)

if TYPE_CHECKING:
    from fito.reference.expressions import Evaluator

    _Base = Evaluator
else:
    _Base = object

TAU, TICK, EVENT = "tau", "tick", "event"
Target = Callable[[Store], tuple[tuple, Store]]


def to(term: tuple) -> Target:
    """The target that is this term (made already), with the store as it is."""
    return lambda post: (term, post)


@dataclass(frozen=True)
class Tr:
    kind: str  # tau, tick or event
    event: tuple  # (channel, values...) of an event; () for tau and tick
    writes: tuple  # ((location, value), ...), all read in the state before
    crash: bool  # an event of channel crash (resets volatile state)
    target: Target  # store after -> (term after, store after)
    checks: tuple = ()  # ((value, type), ...) checked when taken
    fault: str | None = None  # a model error raised when taken
    buffer: tuple | None = None  # ("push", b, message) or ("pop", b)


def retarget(tr: Tr, wrap: Callable[[tuple], tuple]) -> Tr:
    """The same transition, its target term wrapped (the store is left as it is)."""
    inner = tr.target

    def target(post: Store) -> tuple[tuple, Store]:
        term, store = inner(post)
        return wrap(term), store

    return Tr(tr.kind, tr.event, tr.writes, tr.crash, target, tr.checks, tr.fault, tr.buffer)


class StepRules(_Base):
    """Transitions of the step nodes and of parallel composition (a mixin of Reference)."""

    def make(self, p: A.Proc, env: Mapping[str, int], store: Store) -> tuple[tuple, Store]:
        raise NotImplementedError

    def trans(self, t: tuple, store: Store) -> list[Tr]:
        raise NotImplementedError

    def _then(self, node: A.Proc, env: Mapping[str, int]) -> Target:
        return lambda post: self.make(node, env, post)

    # ------------------------------------------------------------------ step nodes
    var_params: dict[int, dict[str, ValueType]]  # id(assignment) -> the `var` parameters

    def _after(self, node: A.Proc, env: Mapping[str, int], writes: tuple) -> Target:
        """The target of a step: its body, with the `var` parameters it wrote rebound."""
        rebound = {loc[1]: v for loc, v in writes if loc[0] == "v"}
        return self._then(node, {**env, **rebound} if rebound else env)

    def step(self, node: A.Proc, env: Mapping[str, int], store: Store) -> list[Tr]:
        """The transitions of a prefix, `assert(b) -> P` or `atomic { } -> P`."""
        if isinstance(node, A.AssertStep):
            fault = None
            try:
                if not self.ev(node.cond, env, store):
                    fault = (
                        f"assertion violated: assert({_text(node.cond)}) at line {node.span.line}"
                    )
            except RefFault as exc:
                fault = str(exc)
            return [Tr(TAU, (), (), False, self._then(node.body, env), fault=fault)]
        if isinstance(node, A.Atomic):
            writes, fault = self.run_atomic(node.stmts, env, store)
            return [Tr(TAU, (), writes, False, self._after(node.body, env, writes), fault=fault)]
        assert isinstance(node, A.Prefix)
        if node.event is None:
            writes, fault = self.writes_of(node.assigns, env, store)
            return [Tr(TAU, (), writes, False, self._after(node.body, env, writes), fault=fault)]
        if self.m.channels[node.event.channel].buffered:
            return self._buffer_step(node, env, store)
        return self._event_steps(node, env, store)

    def _event_steps(self, node: A.Prefix, env: Mapping[str, int], store: Store) -> list[Tr]:
        ev = node.event
        assert ev is not None
        chan = self.m.channels[ev.channel]
        inputs = [(i, f) for i, f in enumerate(ev.fields) if isinstance(f, A.InField)]
        choices = [
            self.values(f.restriction) if f.restriction is not None else chan.fields[i].values()
            for i, f in inputs
        ]
        out = []
        for combo in itertools.product(*choices):
            inner = dict(env)
            given = {}
            for (i, f), v in zip(inputs, combo):
                inner[f.var] = v
                given[i] = v
            values, checks = [], []
            for i, field in enumerate(ev.fields):
                if i in given:
                    values.append(given[i])
                else:
                    v = self.ev(field.value, inner, store)  # type: ignore[union-attr]
                    values.append(v)
                    checks.append((v, chan.fields[i]))
            writes, fault = self.writes_of(node.assigns, inner, store)
            out.append(
                Tr(
                    EVENT,
                    (ev.channel, *values),
                    writes,
                    ev.channel == CRASH,
                    self._after(node.body, inner, writes),
                    tuple(checks),
                    fault,
                )
            )
        return out

    def _buffer_step(self, node: A.Prefix, env: Mapping[str, int], store: Store) -> list[Tr]:
        """A send (`q!v`, enabled while q is not full) or a receive (`q?x`, enabled while the
        oldest message matches the fields): an internal step of this process alone."""
        ev = node.event
        assert ev is not None
        chan = self.m.channels[ev.channel]
        k = chan.arrays  # the leading fields name the FIFO of an array of buffers
        idx = tuple(self.ev(f.value, env, store) for f in ev.fields[:k])  # type: ignore[union-attr]
        b = self.buffer_of(ev.channel, idx)
        queue = store.bufs[b]
        if not any(isinstance(f, A.InField) for f in ev.fields):
            if len(queue) >= chan.capacity:
                return []
            values = tuple(self.ev(f.value, env, store) for f in ev.fields[k:])  # type: ignore[union-attr]
            writes, fault = self.writes_of(node.assigns, env, store)
            return [
                Tr(
                    TAU,
                    (),
                    writes,
                    False,
                    self._after(node.body, env, writes),
                    tuple(zip(values, chan.fields[k:])),
                    fault,
                    ("push", b, values),
                )
            ]
        if not queue:
            return []
        inner = dict(env)
        for f, v in zip(ev.fields[k:], queue[0]):
            if isinstance(f, A.InField):
                if f.restriction is not None and v not in self.values(f.restriction):
                    return []
                inner[f.var] = v
            elif self.ev(f.value, inner, store) != v:
                return []
        writes, fault = self.writes_of(node.assigns, inner, store)
        return [
            Tr(
                TAU,
                (),
                writes,
                False,
                self._after(node.body, inner, writes),
                fault=fault,
                buffer=("pop", b),
            )
        ]

    # ------------------------------------------------------------------ assignments
    def writes_of(
        self, assigns: tuple[A.Statement, ...], env: Mapping[str, int], store: Store
    ) -> tuple[tuple, str | None]:
        """The writes of a `{ }` block, every value read in store; or the fault it meets."""
        out: list[tuple[Loc, int]] = []
        try:
            for a in assigns:
                out.extend(self.assignment(a, env, store))
        except RefFault as exc:
            return (), str(exc)
        return tuple(out), None

    def assignment(
        self, a: A.Statement, env: Mapping[str, int], store: Store
    ) -> list[tuple[Loc, int]]:
        """The writes of one assignment (a loop: one per value of its domain)."""
        if isinstance(a, A.AssignLoop):
            out: list[tuple[Loc, int]] = []
            for v in self.values(a.domain):
                out.extend(self.assignment(a.body, {**env, a.var: v}, store))
            return out
        assert isinstance(a, A.Assign)
        whole = self.array_name(a.target, env)
        if whole is not None:  # `x := y` of whole arrays, element by element
            source = a.value.id  # type: ignore[union-attr]
            return [
                (self.place(whole, idx, env), self.read(self.place(source, idx, env), store))
                for idx in index_combos(self.array_indices(whole, env))
            ]
        if isinstance(a.target, A.Name) and a.target.id in env:  # a `var` parameter
            name = a.target.id
            return [(("v", name, self.var_params[id(a)][name]), self.ev(a.value, env, store))]
        idx: list[int] = []
        root: A.Expr = a.target
        while isinstance(root, A.Index):
            idx.append(self.ev(root.index, env, store))
            root = root.base
        assert isinstance(root, A.Name)
        loc = self.place(root.id, tuple(reversed(idx)), env)
        return [(loc, self.ev(a.value, env, store))]

    def array_name(self, target: A.Expr, env: Mapping[str, int]) -> str | None:
        """The name, when target is the bare name of a whole array."""
        if not isinstance(target, A.Name) or target.id in env:
            return None
        return target.id if self.array_indices(target.id, env) else None

    def array_indices(self, name: str, env: Mapping[str, int]) -> tuple[ValueType, ...]:
        frame = self.frame_of(env)
        if frame is not None and name in frame.slots:
            return frame.slots[name][1]
        cell = self.m.cells.get(name)
        return cell.indices if cell is not None else ()

    def run_atomic(
        self, stmts: tuple[A.Statement, ...], env: Mapping[str, int], store: Store
    ) -> tuple[tuple, str | None]:
        """Run the statements in order, each seeing the writes before it: the net writes,
        or the fault met (a value out of range, a failed assertion, an evaluation error)."""
        scratch, senv = store, dict(env)
        written: dict[Loc, int] = {}
        try:
            work = list(reversed(stmts))
            while work:
                s = work.pop()
                if isinstance(s, A.BlockIf):
                    branch = s.then if self.ev(s.cond, senv, scratch) else s.orelse
                    work.extend(reversed(branch))
                elif isinstance(s, A.BlockAssert):
                    if not self.ev(s.cond, senv, scratch):
                        return (
                            (),
                            f"assertion violated: assert({_text(s.cond)}) at line {s.span.line}",
                        )
                else:
                    for loc, value in self.assignment(s, senv, scratch):
                        if not self.type_at(loc, scratch).contains(value):
                            raise RefFault("value out of range")
                        if loc[0] == "v":
                            senv[loc[1]] = value
                        else:
                            scratch = write(scratch, loc, value)
                        written[loc] = value
        except RefFault as exc:
            return (), str(exc)
        return tuple(written.items()), None

    # ------------------------------------------------------------------ parallel
    def synchronise(
        self,
        parts: tuple,
        alphas: tuple | None,
        sync: frozenset,
        wrap: Callable[[tuple], tuple],
        store: Store,
    ) -> list[Tr]:
        """Transitions of n components in parallel. With `alphas` (one set per component),
        component i performs only events of alphas[i] and an event needs every component
        whose alphabet has it; otherwise events of `sync` need every component."""
        out: list[Tr] = []
        offers: list[list[Tr]] = []
        for i, part in enumerate(parts):
            mine = []
            for tr in self.trans(part, store):
                if tr.kind == EVENT and (alphas is not None or member(tr.event, sync)):
                    if alphas is None or member(tr.event, alphas[i]):
                        mine.append(tr)
                    continue
                if tr.kind == TICK:
                    tr = Tr(TAU, (), (), False, to(("omega",)))
                out.append(retarget(tr, _in_place(parts, i, wrap)))
            offers.append(mine)
        events = sorted({tr.event for o in offers for tr in o}, key=repr)
        for event in events:
            who = [
                i
                for i in range(len(parts))
                if (member(event, alphas[i]) if alphas is not None else True)
            ]
            per_part = [[tr for tr in offers[i] if tr.event == event] for i in who]
            for combo in itertools.product(*per_part):
                out.append(_joint(event, who, combo, parts, wrap))
        if all(p == ("omega",) for p in parts):
            out.append(Tr(TICK, (), (), False, to(("omega",))))
        return out


def _in_place(parts: tuple, i: int, wrap: Callable[[tuple], tuple]) -> Callable[[tuple], tuple]:
    """Put a component's new term in its place among the parts."""
    return lambda x: wrap(parts[:i] + (x,) + parts[i + 1 :])


def _joint(
    event: tuple, who: list[int], combo: tuple, parts: tuple, wrap: Callable[[tuple], tuple]
) -> Tr:
    """One synchronised transition: the writes of every participant happen together."""

    def target(post: Store) -> tuple[tuple, Store]:
        new = list(parts)
        for i, tr in zip(who, combo):
            new[i], post = tr.target(post)
        return wrap(tuple(new)), post

    faults = [tr.fault for tr in combo if tr.fault is not None]
    return Tr(
        EVENT,
        event,
        sum((c.writes for c in combo), ()),
        any(c.crash for c in combo),
        target,
        sum((c.checks for c in combo), ()),
        faults[0] if faults else None,
    )


def _text(e: A.Expr) -> str:
    return print_expr(e)


__all__ = ["ACT", "EVENT", "TAU", "TICK", "StepRules", "Tr", "retarget"]
