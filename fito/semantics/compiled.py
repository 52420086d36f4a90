"""A model ready to explore: the cell layout, the compiled network and its transitions.

A state is one flat tuple: the cells, then the control (the mode of the parallel structure
and one location per component; fito/semantics/network.py). The transitions of a state are
the cached groups of its candidates; a transition is named by its *rank* (candidate number
and transition number in one int), the order in which a state's successors are listed.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang.resolve import Model
from fito.semantics.ir import IR, ExprCompiler, Fault, Sites, TimeLimit, evaluate, to_python
from fito.semantics.layout import Layout, build_layout
from fito.semantics.network import Network, Transition
from fito.semantics.scalar import Group, ScalarCode, StepFault
from fito.semantics.steps import EVENT, TAU, TICK, Semantics, Step, Write

NO_GROUP = Group((), None, lambda s, g, out, base: None)
Rank = int  # candidate number << RANK_BITS | transition number
RANK_BITS = 32


def rank_of(h: int, k: int) -> Rank:
    return (h << RANK_BITS) | k


@dataclass(slots=True)
class Compiled:
    """Everything the explorers need, built once per spec."""

    model: Model
    layout: Layout
    sites: Sites
    semantics: Semantics
    network: Network
    code: ScalarCode
    _groups: dict[tuple, Group] = field(default_factory=dict)
    _by_control: dict[tuple, list[tuple]] = field(default_factory=dict)
    _group_lists: dict[tuple, list[Group]] = field(default_factory=dict)
    # Set per assertion by fito.check.api. Compiling a group is the one step whose cost
    # grows with the model rather than the state count, so the deadline is checked after
    # each compilation as well as by the explorers' own periodic checks.
    deadline: float | None = None

    @property
    def cells(self) -> int:
        """How many cells a state holds before its control."""
        return len(self.layout.init)

    def initial(self, p: A.Proc) -> tuple:
        return self.layout.init + self.network.split(self.semantics.initial(p))

    def is_terminated(self, s: tuple) -> bool:
        """Whether the state's process has terminated (Ω: not a deadlock)."""
        K = self.cells
        return s[K + 1] == self.semantics.omega and len(s) == K + 2

    # ------------------------------------------------------------------ transitions
    def group(self, mode: int, h: int, locations: tuple[int, ...]) -> Group:
        key = (mode, h, locations)
        got = self._groups.get(key)
        if got is None:
            got = self.code.compile(self.network.transitions(mode, h, locations))
            self._groups[key] = got
            self.check_time()
        return got

    def groups(self, s: tuple) -> list[Group]:
        """The groups of a state, in rank order (an empty one for a candidate that cannot
        move at these locations)."""
        K = self.cells
        mode = s[K]
        base = K + 1
        out = []
        for h, movers in enumerate(self.network.modes[mode].candidates):
            locations = tuple(s[base + p] for p in movers)
            relevant = len(movers) == 1 or self.network.relevant(mode, h, locations)
            out.append(self.group(mode, h, locations) if relevant else NO_GROUP)
        return out

    def successors(self, s: tuple) -> list[tuple[Rank, tuple]]:
        """(rank, state after) of every enabled transition; StepFault on a model error (its
        step is None for an error of the state itself, else the failing transition's rank)."""
        entries = self._by_control.get(s[self.cells:])
        if entries is None:
            entries = self._entries(s)
        out: list[tuple[Rank, tuple]] = []
        if len(entries) == 1:
            guards, effects, base = entries[0]
            effects(s, guards(s) if guards is not None else None, out, base)
            return out
        verdicts = [guards(s) if guards is not None else None for guards, _, _ in entries]
        for (_, effects, base), v in zip(entries, verdicts):
            effects(s, v, out, base)
        return out

    def _entries(self, s: tuple) -> list[tuple]:
        """(guards, effects, rank base) of the groups of a control that have transitions."""
        entries = [(g.guards, g.effects, rank_of(h, 0)) for h, g in enumerate(self.groups(s))
                   if g.transitions]
        self._by_control[s[self.cells:]] = entries
        return entries

    def transition(self, s: tuple, rank: Rank) -> Transition:
        control = s[self.cells:]
        groups = self._group_lists.get(control)
        if groups is None:  # once per control: refinement asks for every step of a state
            groups = self._group_lists[control] = self.groups(s)
        return groups[rank >> RANK_BITS].transitions[rank & ((1 << RANK_BITS) - 1)]

    def step(self, s: tuple, rank: Rank) -> Step:
        return self.transition(s, rank).step

    def check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeLimit()

    def predicate(self, e: A.Expr, negate: bool = False) -> Callable[[tuple], object]:
        """A compiled cell predicate, or its negation (raises Fault on a model error)."""
        ir = self.semantics.compiler.compile(e, {})
        body = f"not ({to_python(ir)})" if negate else to_python(ir)
        ns = dict(self.code.namespace)
        exec(compile(f"def pred(s):\n    return {body}\n", "<fito-predicate>", "exec"), ns)  # noqa: S102
        return ns["pred"]

    # ------------------------------------------------------------------ showing steps and states
    def show(self, s: tuple) -> str:
        return self.layout.show(s[:self.cells])

    def label(self, s: tuple, rank: Rank) -> str:
        """How a transition reads in a trace: `flush.gpu.1`, `tau (x.1)`, `{x := 2}`, `tick`."""
        step = self.step(s, rank)
        if step.kind == TICK:
            return "tick"
        if step.kind == EVENT or step.hidden:
            event = self.event_text(step, s)
            return f"tau ({event})" if step.hidden else event
        if step.writes:
            return "{" + ", ".join(self._write_text(w, s) for w in step.writes) + "}"
        return "tau"

    def event_key(self, step: Step, s: Sequence[int]) -> tuple:
        """The event as data: (channel, values...) or ("tick",)."""
        if step.kind == TICK:
            return ("tick",)
        return (step.channel,) + tuple(self._value(f, s) for f in step.fields)

    def event_text(self, step: Step, s: Sequence[int]) -> str:
        types = self.model.channels[step.channel].fields  # type: ignore[index]
        parts = [step.channel] + [t.show(self._value(f, s)) for f, t in zip(step.fields, types)]
        return ".".join(parts)  # type: ignore[arg-type]

    def _value(self, ir: IR, s: Sequence[int]) -> int:
        try:
            return int(evaluate(ir, s, self.layout))
        except Fault:
            return 0

    def _write_text(self, w: Write, s: Sequence[int]) -> str:
        slots = self.layout.cells[w.cell]
        idx = tuple(self._value(x, s) for x in w.index)
        target = w.cell + "".join(f"[{t.show(v)}]" for t, v in zip(slots.cell.indices, idx))
        return f"{target} := {slots.cell.type.show(self._value(w.value, s))}"

    def error_site(self, fault: Fault) -> tuple[str, str, Span]:
        site, message = self.sites.describe(fault)
        return site.code, message, site.span


def compile_model(model: Model) -> Compiled:
    """Lay out the cells and prepare the semantics, the network and the code generator."""
    layout = build_layout(model)
    sites = Sites()
    semantics = Semantics(model, layout, sites)
    network = Network(semantics)
    conflict = sites.add("M008", "two processes write one cell differently in one event", Span(1, 1, 1, 1))
    channel_types = {name: ch.fields for name, ch in model.channels.items()}
    code = ScalarCode(layout, network, channel_types, conflict)
    return Compiled(model, layout, sites, semantics, network, code)


__all__ = ["TAU", "Compiled", "ExprCompiler", "StepFault", "compile_model"]
