"""The steps of prefixes: events, `{ }` assignments, `assert(b) -> P`, `atomic { } -> P`, and
sends and receives on buffered channels (docs/semantics.md).

An assignment to a `var` parameter changes the term that follows, not the store: its value
is folded when it is a constant of the environment; otherwise the step is split, one copy
per value of the parameter's type, each guarded by that value (a guard that cannot fail:
a value that cannot be computed, or lies outside the type, selects a last copy whose
checks raise that model error when it is taken).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from fito.lang import nodes as A
from fito.lang.printer.canonical import print_expr
from fito.lang.resolve.model import CRASH, ValueType
from fito.semantics.ir import IR, Fault, disjoin, domain_values, fold, split_index
from fito.semantics.rules.atomic import Atomic as AtomicRun
from fito.semantics.rules.buffers import buffer_steps
from fito.semantics.rules.refusal import check_expansion, values_of
from fito.semantics.rules.step import ASSERT, EVENT, TAU, Step, Write, may_collide
from fito.semantics.terms.closures import NeedsState
from fito.semantics.terms.deferred import Deferred

if TYPE_CHECKING:
    from fito.semantics.rules.steps import Semantics

Rebind = tuple[str, IR, ValueType, int]  # a `var` parameter, its new value, type, error site


class Prefixes:
    """Steps of the "pre" terms of one model."""

    def __init__(self, sem: Semantics) -> None:
        self.sem = sem
        self.model = sem.model
        self.compiler = sem.compiler
        self.terms = sem.terms
        self.sites = sem.sites
        self.var_params: dict[int, dict[str, ValueType]] = {}
        for name, decl in self.model.processes.items():
            params = {v.name: v.type for v in self.model.variables.get(name, ()) if v.init is None}
            if params:
                for n in _nodes(decl.body):
                    if isinstance(n, A.Assign):
                        self.var_params[id(n)] = params

    # ------------------------------------------------------------------ targets
    def target(self, body: A.Proc, env: Mapping[str, object]) -> tuple[object, tuple | None]:
        """(the term a step leads to, None), or (a Deferred, None) when making it reads the
        state after the step, or (Ω, the model error) when making it fails."""
        try:
            return self.terms.make(body, env, None), None
        except NeedsState:
            return Deferred(self.terms, body, env), None
        except Fault as f:
            return self.sem.omega, (f.site, f.detail)

    def _finish(
        self, step: Step, body: A.Proc, env: Mapping[str, object], rebinds: Sequence[Rebind]
    ) -> list[Step]:
        """The step leading to body, once per value of the `var` parameters it sets."""
        out = []
        for guard, bound, checks in _choices(rebinds):
            target, fault = self.target(body, {**env, **bound})
            out.append(
                replace(
                    step,
                    guard=step.guard + guard,
                    checks=step.checks + checks,
                    target=target,
                    fault=fault,
                )
            )
        return out

    # ------------------------------------------------------------------ prefixes
    def steps(self, t: tuple) -> list[Step]:
        node = self.terms.node(t[1])
        env = dict(t[2])
        if isinstance(node, A.AssertStep):
            err = self.sites.add(
                "M009",
                f"assertion violated: assert({print_expr(node.cond)}) at line {node.span.line}",
                node.span,
            )
            cond = self.compiler.compile(node.cond, env)
            step = Step(
                TAU,
                None,
                (),
                (),
                (),
                False,
                None,
                checks=((cond, ASSERT, err),),
                label=("assert", print_expr(node.cond)),
            )
            return self._finish(step, node.body, env, ())
        if isinstance(node, A.Atomic):
            run = AtomicRun(self, env)
            run.block(node.stmts)
            writes, checks, rebinds = run.result(node.span)
            step = Step(TAU, None, (), (), writes, False, None, checks=checks, label=("atomic",))
            return self._finish(step, node.body, env, rebinds)
        assert isinstance(node, A.Prefix)
        if node.event is None:
            writes, rebinds = self.writes(node.assigns, env)
            step = Step(TAU, None, (), (), writes, False, None, conflict=may_collide(writes))
            return self._finish(step, node.body, env, rebinds)
        if self.model.channels[node.event.channel].buffered:
            return buffer_steps(self, node, env)
        return self._event_steps(node, env)

    def _event_steps(self, node: A.Prefix, env: dict[str, object]) -> list[Step]:
        ev = node.event
        assert ev is not None
        chan = self.model.channels[ev.channel]
        inputs = [(i, f) for i, f in enumerate(ev.fields) if isinstance(f, A.InField)]
        choices = [self.input_values(f, chan.fields[i]) for i, f in inputs]
        total = 1
        for c in choices:
            total *= len(c)
        check_expansion(total, f"the input of '{ev.channel}'", ev.span)
        out = []
        for combo in itertools.product(*choices):
            inner = dict(env)
            for (_, f), v in zip(inputs, combo):
                inner[f.var] = v
            given = dict(zip((i for i, _ in inputs), combo))
            fields, checks = self.fields(ev, inner, chan.fields, given)
            writes, rebinds = self.writes(node.assigns, inner)
            step = Step(
                EVENT,
                ev.channel,
                fields,
                (),
                writes,
                ev.channel == CRASH,
                None,
                checks=checks,
                conflict=may_collide(writes),
            )
            out += self._finish(step, node.body, inner, rebinds)
        return out

    def input_values(self, f: A.InField, ftype: ValueType) -> tuple[int, ...]:
        if f.restriction is None:
            return values_of(ftype, f"the input '{f.var}'", f.span)
        return domain_values(self.model, f.restriction)

    def fields(
        self,
        ev: A.Event,
        env: Mapping[str, object],
        types: Sequence[ValueType],
        inputs: Mapping[int, int],
    ) -> tuple[tuple[IR, ...], tuple]:
        out: list[IR] = []
        checks = []
        for i, f in enumerate(ev.fields):
            if i in inputs:
                out.append(("k", inputs[i]))
                continue
            ir = self.compiler.compile(f.value, env)  # type: ignore[union-attr]
            out.append(ir)
            if ir[0] != "k" or not types[i].contains(ir[1]):
                err = self.sites.add(
                    "M001", f"value outside the field type of channel '{ev.channel}'", f.value.span
                )
                checks.append((ir, types[i], err))
        return tuple(out), tuple(checks)

    # ------------------------------------------------------------------ assignments
    def writes(
        self, assigns: Sequence[A.Statement], env: Mapping[str, object]
    ) -> tuple[tuple[Write, ...], tuple[Rebind, ...]]:
        """The writes of a `{ }` block (every value read in the state before the step), and
        the `var` parameters it sets."""
        writes: list[Write] = []
        rebinds: list[Rebind] = []
        for a in assigns:
            for w in self.assignment(a, env):
                (rebinds if isinstance(w, tuple) else writes).append(w)  # type: ignore[arg-type]
        return tuple(writes), tuple(rebinds)

    def assignment(self, a: A.Statement, env: Mapping[str, object]) -> list[Write | Rebind]:
        """The writes of one assignment (a loop: one per value of its domain)."""
        if isinstance(a, A.AssignLoop):
            out: list[Write | Rebind] = []
            for v in domain_values(self.model, a.domain):
                out += self.assignment(a.body, {**env, a.var: v})
            return out
        assert isinstance(a, A.Assign)
        if isinstance(a.target, A.Name) and a.target.id in env:  # a `var` parameter
            name = a.target.id
            vtype = self.var_params[id(a)][name]
            err = self.sites.add("M001", f"value outside the type of '{name}'", a.value.span)
            return [(name, self.compiler.compile(a.value, env), vtype, err)]
        whole = self.whole_array(a, env)
        if whole is not None:
            return whole  # type: ignore[return-value]
        root, indices = split_index(a.target)
        return [self.write(root, indices, self.compiler.compile(a.value, env), env, a)]

    def write(
        self,
        root: str,
        indices: Sequence[A.Expr],
        value: IR,
        env: Mapping[str, object],
        a: A.Assign,
    ) -> Write:
        index_err = self.sites.add("M007", f"index out of range in '{root}'", a.target.span)
        loc = self.compiler.element(root, indices, env, index_err)
        _, slots, _ = self.compiler.place(root, env)
        range_err = self.sites.add("M001", f"value outside the type of '{root}'", a.value.span)
        index = tuple(self.compiler.compile(i, env) for i in indices)
        return Write(loc, value, slots.cell.type, range_err, root, index)  # type: ignore[attr-defined]

    def whole_array(self, a: A.Assign, env: Mapping[str, object]) -> list[Write] | None:
        """`x := y` of whole arrays, element by element; None for other assignments."""
        if not isinstance(a.target, A.Name) or a.target.id in env:
            return None
        _, slots, _ = self.compiler.place(a.target.id, env)
        cell = slots.cell  # type: ignore[attr-defined]
        if not cell.indices:
            return None
        source = a.value.id  # type: ignore[union-attr]
        out = []
        for idx in itertools.product(*(t.values() for t in cell.indices)):
            lits = [A.IntLit(v) for v in idx]
            value = self.compiler.element(source, lits, env, -1)
            out.append(self.write(a.target.id, lits, value, env, a))
        return out


def _choices(rebinds: Sequence[Rebind]) -> list[tuple[tuple[IR, ...], dict[str, int], tuple]]:
    """(guard, bound values, checks) per combination of the values `var` parameters take."""
    per: list[list[tuple[tuple[IR, ...], dict[str, int], tuple]]] = []
    for name, ir, vtype, err in rebinds:
        if ir[0] == "k":
            if vtype.contains(ir[1]):
                per.append([((), {name: ir[1]}, ())])
            else:
                per.append([((), {name: 0}, ((ir, vtype, err),))])
            continue
        values = values_of(vtype, f"the variable '{name}'")
        opts = [((fold(("op", "==", ("safe", ir), ("k", v), -1)),), {name: v}, ()) for v in values]
        inside = disjoin([opts_guard[0] for opts_guard, _, _ in opts])
        opts.append(((fold(("not", inside)),), {name: values[0]}, ((ir, vtype, err),)))
        per.append(opts)
    out = []
    for combo in itertools.product(*per):
        guard = tuple(g for part in combo for g in part[0])
        bound = {k: v for part in combo for k, v in part[1].items()}
        checks = tuple(c for part in combo for c in part[2])
        out.append((guard, bound, checks))
    return out


def _nodes(root: object) -> list[object]:
    out, stack = [], [root]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif hasattr(n, "__slots__"):
            out.append(n)
            stack.extend(
                getattr(n, s) for s in n.__slots__ if s not in ("span", "name_span", "name_spans")
            )
    return out
