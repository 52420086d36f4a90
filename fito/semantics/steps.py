"""The symbolic steps of a term: structural operational semantics with cells.

A step is a transition *schema*: it fires in every state where its guard holds, performs
its writes (reading the state before the step), and leads to its target term. Steps are
computed once per term and cached; the explorers evaluate them on concrete states.
Rules follow Roscoe's operational semantics of CSP, extended with cells (docs/semantics.md).
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from fito.lang import nodes as A
from fito.lang.resolve import CRASH, Model
from fito.semantics.ir import IR, ExprCompiler, Sites, domain_values, negate
from fito.semantics.layout import Layout
from fito.semantics.terms import OMEGA, Deferred, Joint, Terms

EVENT, TAU, TICK = 0, 1, 2

Target = "int | Deferred"


@dataclass(frozen=True, slots=True)
class Write:
    """`cell[index] := value`, evaluated on the state before the step."""

    cell: str
    index: tuple[IR, ...]
    value: IR
    slot: int | None        # known when the indices are constant
    range_err: int
    index_err: int


@dataclass(frozen=True, slots=True)
class Step:
    kind: int                       # EVENT, TAU or TICK
    channel: str | None             # for events, and for hidden events (shown as tau)
    fields: tuple[IR, ...]          # field values of the event
    guard: tuple[IR, ...]           # all must hold
    writes: tuple[Write, ...]
    crash: bool                     # a crash event: volatile cells reset first
    target: object                  # a term id, or a Deferred (needs the state after the step)
    hidden: bool = False
    checks: tuple[tuple[IR, int, int], ...] = ()  # (field value, field number, error site)
    synced: bool = False            # writes of several processes: check for conflicts
    movers: frozenset = frozenset({()})  # threads that move: paths of component indices
    parts: frozenset = frozenset()  # components of the configuration that take part (network.py)


class Semantics:
    """Steps of terms, for one model."""

    def __init__(self, model: Model, layout: Layout, sites: Sites) -> None:
        self.model = model
        self.layout = layout
        self.sites = sites
        self.compiler = ExprCompiler(model, layout, sites)
        self.terms = Terms(model, self.compiler)
        self.omega = self.terms.intern(OMEGA)
        self._steps: dict[int, tuple[Step, ...]] = {}

    # ------------------------------------------------------------------ entry points
    def initial(self, p: A.Proc) -> int:
        return self.terms.make(p, {}, self.layout.init)

    def steps(self, tid: int) -> tuple[Step, ...]:
        got = self._steps.get(tid)
        if got is None:
            got = tuple(self._compute(self.terms.table[tid]))
            self._steps[tid] = got
        return got

    def resolve_target(self, target: object, post: Sequence[int]) -> int:
        return target if isinstance(target, int) else target(post)  # type: ignore[operator]

    # ------------------------------------------------------------------ rules
    def _compute(self, t: tuple) -> list[Step]:
        tag = t[0]
        if tag in ("omega", "stop", "hole"):
            return []
        if tag == "mark":
            mine = frozenset((t[1],))
            return [replace(s, parts=mine) for s in self.steps(t[2])]
        if tag == "skip":
            return [Step(TICK, None, (), (), (), False, self.omega)]
        if tag == "pre":
            return self._prefix(t)
        if tag == "error":  # one internal step whose guard is the model error itself
            return [Step(TAU, None, (), (("fault", t[1], t[2]),), (), False, self.omega)]
        if tag == "ichoice":
            return [Step(TAU, None, (), (), (), False, part) for part in t[1]]
        if tag == "ext":
            return self._ext(t)
        if tag == "seq":
            return self._seq(t)
        if tag == "intr":
            return self._interrupt(t)
        if tag == "par":
            return self._par(t)
        if tag == "hide":
            return self._hide(t)
        if tag == "guard":
            cond = self._condition(t)
            return [replace(s, guard=(cond,) + s.guard) for s in self.steps(t[3])]
        assert tag == "if"
        cond = self._condition(t)
        then = [replace(s, guard=(cond,) + s.guard) for s in self.steps(t[3])]
        other = negate(cond)
        return then + [replace(s, guard=(other,) + s.guard) for s in self.steps(t[4])]

    def _condition(self, t: tuple) -> IR:
        node = self.terms.node(t[1])
        return self.compiler.compile(node.cond, dict(t[2]))  # type: ignore[attr-defined]

    def _wrap(self, target: object, build: Callable[[int], tuple]) -> object:
        intern = self.terms.intern
        if isinstance(target, int):
            return intern(build(target))
        assert isinstance(target, (Deferred, Joint))
        return target.wrapped(build)

    def _ext(self, t: tuple) -> list[Step]:
        """The steps of a chain `P1 [] ... [] Pn`, its operands' in order: a visible step
        resolves the choice, an internal one keeps the chain with Pi replaced by its target.
        Taken over the whole chain at once (not per nested pair, which copies every step
        list once per level: quadratic in n)."""
        terms = self.terms
        ops = terms.operands(terms.intern(t))
        out = []
        for i, o in enumerate(ops):
            def build(x: int, i: int = i) -> tuple:
                return terms.ext_all(ops[:i] + [x] + ops[i + 1:])

            out += [replace(s, target=self._wrap(s.target, build)) if s.kind == TAU else s
                    for s in self.steps(o)]
        return out

    def _seq(self, t: tuple) -> list[Step]:
        _, first, qkey, qenv = t
        out = []
        for s in self.steps(first):
            if s.kind == TICK:
                out.append(replace(s, kind=TAU, target=self._make_target(self.terms.node(qkey), qenv)))
            else:
                out.append(replace(s, target=self._wrap(s.target, lambda x: ("seq", x, qkey, qenv))))
        return out

    def _interrupt(self, t: tuple) -> list[Step]:
        _, left, right = t
        out = []
        for s in self.steps(left):
            if s.kind == TICK:
                out.append(replace(s, target=self.omega))
            else:
                out.append(replace(s, target=self._wrap(s.target, lambda x: ("intr", x, right))))
        for s in self.steps(right):
            out.append(replace(s, target=self._wrap(s.target, lambda x: ("intr", left, x)))
                       if s.kind == TAU else s)
        return out

    def _hide(self, t: tuple) -> list[Step]:
        _, chans, inner = t
        out = []
        for s in self.steps(inner):
            if s.kind == TICK:
                out.append(replace(s, target=self.omega))
                continue
            target = self._wrap(s.target, lambda x: ("hide", chans, x))
            if s.kind == EVENT and s.channel in chans:
                out.append(replace(s, kind=TAU, hidden=True, target=target))
            else:
                out.append(replace(s, target=target))
        return out

    # ------------------------------------------------------------------ parallel
    def _par(self, t: tuple) -> list[Step]:
        _, sync, parts = t
        out: list[Step] = []
        offers: list[dict[str, list[Step]]] = []
        for i, part in enumerate(parts):
            mine: dict[str, list[Step]] = {}
            for s in self.steps(part):
                if s.kind == EVENT and s.channel in sync:
                    mine.setdefault(s.channel, []).append(s)  # type: ignore[arg-type]
                    continue
                if s.kind == TICK:
                    s = replace(s, kind=TAU, target=self.omega)
                out.append(replace(s, target=self._replace_part(parts, sync, {i: s.target}),
                                   movers=_prefixed(i, s.movers)))
            offers.append(mine)
        for chan in sorted(sync):
            if all(chan in o for o in offers):
                out.extend(self._synchronise(chan, offers, parts, sync))
        ended = self._terminated(parts)
        if ended is not None:
            out.append(Step(TICK, None, (), (), (), False, self.omega, parts=ended))
        return out

    def _terminated(self, parts: tuple[int, ...]) -> frozenset | None:
        """The components taking part when every part has terminated (None: not all have)."""
        table, omega = self.terms.table, self.omega
        marks: set[int] = set()
        for p in parts:
            t = table[p]
            if t[0] == "mark" and t[2] == omega:
                marks.add(t[1])
            elif p != omega:
                return None
        return frozenset(marks)

    def _replace_part(self, parts: tuple[int, ...], sync: frozenset, new: dict[int, object]) -> object:
        intern = self.terms.intern
        if all(isinstance(v, int) for v in new.values()):
            return intern(("par", sync, tuple(new.get(i, p) for i, p in enumerate(parts))))  # type: ignore[misc]

        if len(new) == 1:
            ((i, inner),) = new.items()
            assert isinstance(inner, (Deferred, Joint))
            return inner.wrapped(lambda x: ("par", sync, parts[:i] + (x,) + parts[i + 1:]))

        def build(post: Sequence[int]) -> int:  # several synchronised parts, some deferred
            resolved = {i: v if isinstance(v, int) else v(post) for i, v in new.items()}  # type: ignore[operator]
            return intern(("par", sync, tuple(resolved.get(i, p) for i, p in enumerate(parts))))

        return Joint(self.terms, build)

    def _synchronise(self, chan: str, offers: list[dict[str, list[Step]]], parts: tuple[int, ...],
                     sync: frozenset) -> list[Step]:
        partial: list[tuple[Step, dict[int, object]]] = [
            (replace(s, movers=_prefixed(0, s.movers)), {0: s.target}) for s in offers[0][chan]]
        for i in range(1, len(parts)):
            nxt = []
            for acc, targets in partial:
                for s in offers[i][chan]:
                    merged = _merge(acc, replace(s, movers=_prefixed(i, s.movers)))
                    if merged is not None:
                        nxt.append((merged, {**targets, i: s.target}))
            partial = nxt
            if not partial:
                return []
        return [replace(s, target=self._replace_part(parts, sync, targets), synced=True)
                for s, targets in partial]

    # ------------------------------------------------------------------ prefixes
    def _make_target(self, body: A.Proc, env_values: tuple | dict) -> object:
        env = env_values if isinstance(env_values, dict) else self.terms.bind(body, env_values)
        if self.terms.needs_state(body, env):
            return Deferred(self.terms, body, env)
        return self.terms.make(body, env, None)

    def _prefix(self, t: tuple) -> list[Step]:
        node = self.terms.node(t[1])
        assert isinstance(node, A.Prefix)
        env = self.terms.bind(node, t[2])
        if node.event is None:
            writes = self._writes(node.assigns, env)
            return [Step(TAU, None, (), (), writes, False, self._make_target(node.body, env))]
        ev = node.event
        chan = self.model.channels[ev.channel]
        inputs = [(i, f) for i, f in enumerate(ev.fields) if isinstance(f, A.InField)]
        choices = [self._input_values(f, chan.fields[i]) for i, f in inputs]
        out = []
        for combo in itertools.product(*choices):
            inner = dict(env)
            for (i, f), v in zip(inputs, combo):
                inner[f.var] = v  # type: ignore[union-attr]
            fields, checks = self._fields(ev, inner, chan.fields, dict(zip((i for i, _ in inputs), combo)))
            writes = self._writes(node.assigns, inner)
            out.append(Step(EVENT, ev.channel, fields, (), writes, ev.channel == CRASH,
                            self._make_target(node.body, inner), checks=checks))
        return out

    def _input_values(self, f: A.InField, ftype: object) -> tuple[int, ...]:
        if f.restriction is None:
            return ftype.values()  # type: ignore[attr-defined]
        return domain_values(self.model, f.restriction)

    def _fields(self, ev: A.Event, env: dict[str, int], types: tuple, inputs: dict[int, int]
                ) -> tuple[tuple[IR, ...], tuple[tuple[IR, int, int], ...]]:
        fields: list[IR] = []
        checks: list[tuple[IR, int, int]] = []
        for i, f in enumerate(ev.fields):
            if i in inputs:
                fields.append(("k", inputs[i]))
                continue
            ir = self.compiler.compile(f.value, env)  # type: ignore[union-attr]
            fields.append(ir)
            if ir[0] != "k" or not types[i].contains(ir[1]):
                err = self.sites.add("M001", f"value outside the field type of channel '{ev.channel}'",
                                     f.value.span)  # type: ignore[union-attr]
                checks.append((ir, i, err))
        return tuple(fields), tuple(checks)

    def _writes(self, assigns: tuple[A.Assign, ...], env: dict[str, int]) -> tuple[Write, ...]:
        out = []
        for a in assigns:
            indices: list[A.Expr] = []
            root: A.Expr = a.target
            while isinstance(root, A.Index):
                indices.append(root.index)
                root = root.base
            indices.reverse()
            assert isinstance(root, A.Name)
            idx = tuple(self.compiler.compile(i, env) for i in indices)
            slots = self.layout.cells[root.id]
            slot = slots.slot(tuple(x[1] for x in idx)) if all(x[0] == "k" for x in idx) else None
            range_err = self.sites.add("M001", f"value outside the type of '{root.id}'", a.value.span)
            index_err = self.sites.add("M007", f"index out of range in '{root.id}'", a.target.span)
            out.append(Write(root.id, idx, self.compiler.compile(a.value, env), slot, range_err, index_err))
        return tuple(out)


def _merge(a: Step, b: Step) -> Step | None:
    """Two processes' offers of one event on a synchronised channel, as one step (or None)."""
    fields: list[IR] = []
    guard = list(a.guard) + list(b.guard)
    for fa, fb in zip(a.fields, b.fields):
        if fa[0] == "k" and fb[0] == "k":
            if fa[1] != fb[1]:
                return None
            fields.append(fa)
        elif fa == fb:
            fields.append(fa)
        else:
            guard.append(("op", "==", fa, fb, -1))
            fields.append(fa if fa[0] == "k" else fb)
    return Step(EVENT, a.channel, tuple(fields), tuple(guard), a.writes + b.writes, a.crash or b.crash,
                None, checks=a.checks + b.checks, synced=True, movers=a.movers | b.movers,
                parts=a.parts | b.parts)


def _prefixed(i: int, movers: frozenset) -> frozenset:
    return frozenset((i,) + m for m in movers)


