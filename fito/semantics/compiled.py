"""A model ready to explore: layout, steps, generated successor functions, labels."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang.resolve import Model
from fito.semantics.codegen import CodeGen, Successors
from fito.semantics.ir import IR, ExprCompiler, Fault, Sites, evaluate, to_python
from fito.semantics.layout import Layout, build_layout
from fito.semantics.steps import EVENT, TAU, TICK, Semantics, Step


class TimeLimit(Exception):
    """The deadline of the assertion being checked has passed (raised between compilations)."""


@dataclass(slots=True)
class Compiled:
    """Everything the explorers need, built once per spec."""

    model: Model
    layout: Layout
    sites: Sites
    semantics: Semantics
    codegen: CodeGen
    _succ: dict[int, Successors] = field(default_factory=dict)
    _targets: dict[int, list[object]] = field(default_factory=dict)
    # Set per assertion by fito.check.api. Compiling the successors of a new term is the one
    # step whose cost grows with the model rather than the state count, so the deadline is
    # checked after each compilation as well as by the explorers' own periodic checks.
    deadline: float | None = None

    @property
    def omega(self) -> int:
        return self.semantics.omega

    def successors(self, tid: int) -> Successors:
        fn = self._succ.get(tid)
        if fn is None:
            steps = self.semantics.steps(tid)
            fn = self.codegen.successors(steps)
            self._succ[tid] = fn
            self._targets[tid] = [s.target for s in steps]
            self.check_time()
        return fn

    def check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeLimit()

    def target(self, tid: int, k: int, post: tuple) -> int:
        """The term reached by step k of term tid, given the cells after it (the explorer's
        hot loop inlines this)."""
        return self.semantics.resolve_target(self._targets[tid][k], post)

    def targets(self, tid: int) -> list[object]:
        if tid not in self._targets:
            self.successors(tid)
        return self._targets[tid]

    def initial(self, p: A.Proc) -> tuple[int, tuple[int, ...]]:
        return self.semantics.initial(p), self.layout.init

    def predicate(self, e: A.Expr, negate: bool = False) -> Callable[[tuple], object]:
        """A compiled cell predicate, or its negation (raises Fault on a model error)."""
        ir = self.semantics.compiler.compile(e, {})
        body = f"not ({to_python(ir)})" if negate else to_python(ir)
        ns = dict(self.codegen.namespace)
        exec(compile(f"def pred(s):\n    return {body}\n", "<fito-predicate>", "exec"), ns)  # noqa: S102
        return ns["pred"]

    # ------------------------------------------------------------------ showing steps
    def step(self, tid: int, k: int) -> Step:
        return self.semantics.steps(tid)[k]

    def label(self, tid: int, k: int, cells: Sequence[int]) -> str:
        """How a transition reads in a trace: `flush.gpu.1`, `tau (x.1)`, `{x := 2}`, `tick`."""
        step = self.step(tid, k)
        if step.kind == TICK:
            return "tick"
        if step.kind == EVENT or step.hidden:
            event = self.event_text(step, cells)
            return f"tau ({event})" if step.hidden else event
        if step.writes:
            return "{" + ", ".join(self._write_text(w, cells) for w in step.writes) + "}"
        return "tau"

    def event_key(self, step: Step, cells: Sequence[int]) -> tuple:
        """The event as data: (channel, values...) or ("tick",)."""
        if step.kind == TICK:
            return ("tick",)
        return (step.channel,) + tuple(self._value(f, cells) for f in step.fields)

    def event_text(self, step: Step, cells: Sequence[int]) -> str:
        types = self.model.channels[step.channel].fields  # type: ignore[index]
        parts = [step.channel] + [t.show(self._value(f, cells)) for f, t in zip(step.fields, types)]
        return ".".join(parts)  # type: ignore[arg-type]

    def _value(self, ir: IR, cells: Sequence[int]) -> int:
        try:
            return int(evaluate(ir, cells, self.layout))
        except Fault:
            return 0

    def _write_text(self, w: object, cells: Sequence[int]) -> str:
        from fito.semantics.steps import Write

        assert isinstance(w, Write)
        slots = self.layout.cells[w.cell]
        idx = tuple(self._value(x, cells) for x in w.index)
        target = w.cell + "".join(f"[{t.show(v)}]" for t, v in zip(slots.cell.indices, idx))
        return f"{target} := {slots.cell.type.show(self._value(w.value, cells))}"

    def error_site(self, fault: Fault) -> tuple[str, str, Span]:
        site, message = self.sites.describe(fault)
        return site.code, message, site.span


def compile_model(model: Model) -> Compiled:
    """Lay out the cells and prepare the semantics and code generator."""
    layout = build_layout(model)
    sites = Sites()
    semantics = Semantics(model, layout, sites)
    conflict = sites.add("M008", "two processes write one cell differently in one event", Span(1, 1, 1, 1))
    channel_types = {name: ch.fields for name, ch in model.channels.items()}
    codegen = CodeGen(layout, channel_types, conflict)
    return Compiled(model, layout, sites, semantics, codegen)


__all__ = ["TAU", "Compiled", "ExprCompiler", "compile_model"]
