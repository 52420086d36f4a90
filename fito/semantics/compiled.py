"""A model ready to explore: the store layout, the compiled network and its transitions.

A state is one flat tuple: the store (cells, then buffers), then the control (the mode of
the parallel structure and one location per component; fito/semantics/network.py), then
one region of process variables per component. The transitions of a state are the cached
groups of its candidates; a transition is named by its *rank* (candidate number and
transition number in one int), the order in which a state's successors are listed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang.resolve.model import Model
from fito.semantics.codegen.loader import load
from fito.semantics.codegen.python_exprs import to_python
from fito.semantics.codegen.scalar import Group, ScalarCode, StepFault, tail
from fito.semantics.ir import IR, ExprCompiler, Fault, Sites, TimeLimit, evaluate
from fito.semantics.network import Mode, Network, Transition
from fito.semantics.rules.steps import EVENT, TAU, TICK, Semantics, Step, Write
from fito.semantics.state.layout import Layout, build_layout

NO_GROUP = Group((), None, lambda s, g, out, base: None)
Rank = int  # candidate number << RANK_BITS | transition number
RANK_BITS = 32
_MISS = object()


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
    _reader_cache: dict[int, list] = field(default_factory=dict)
    _group_lists: dict[tuple, list[Group]] = field(default_factory=dict)
    _entry_finders: dict[int, Callable[[tuple], list[tuple]]] = field(default_factory=dict)
    _offer_masks: OfferMasks = field(init=False)
    _K: int = field(init=False)
    _whole: bool = field(init=False)
    _sizes: _Sizes = field(init=False)
    # Set per assertion by fito.check.verdicts. Compiling a group is the one step whose cost
    # grows with the model rather than the state count, so the deadline is checked after
    # each compilation as well as by the explorers' own periodic checks.
    deadline: float | None = None

    def __post_init__(self) -> None:
        self._offer_masks = OfferMasks(self.network)
        self._K = self.layout.size
        self._whole = not self.layout.region  # the control is all of a state after the store
        self._sizes = _Sizes(self.network)

    @property
    def cells(self) -> int:
        """How many slots the store holds before the control (cells and buffers)."""
        return self.layout.size

    @property
    def region(self) -> int:
        """Slots of each component's region of variables, after the control."""
        return len(self.layout.region)

    def initial(self, p: A.Proc) -> tuple:
        """The initial state of process p (Fault: making it meets a model error)."""
        placement = self.network.split(self.semantics.initial(p))
        K = self.cells
        return self.layout.init + tail(placement, (), (), K, 0, self.region, self.layout)

    def is_terminated(self, s: tuple) -> bool:
        """Whether the state's process has terminated (Ω: not a deadlock)."""
        K = self.cells
        return s[K + 1] == self.semantics.omega and len(s) == K + 2 + self.region

    def control(self, s: tuple) -> tuple:
        """The mode and locations of a state."""
        K = self.cells
        if not self.region:
            return s[K:]
        return s[K : K + 1 + self.network.modes[s[K]].size]

    # ------------------------------------------------------------------ transitions
    def group(self, mode: int, h: int, locations: tuple[int, ...]) -> Group:
        key = (mode, h, locations)
        got = self._groups.get(key)
        if got is None:
            got = self.code.compile(
                self.network.modes[mode].size, self.network.transitions(mode, h, locations)
            )
            self._groups[key] = got
            self.check_time()
        return got

    def groups(self, s: tuple) -> list[Group]:
        """The groups of a state, in rank order (an empty one for a candidate that cannot
        move at these locations)."""
        mode = s[self.cells]
        return [self.groups_at(mode, h, read(s)) for h, _, read in self._readers(mode)]

    def _readers(self, mode: int) -> list[tuple[int, bool, Callable[[tuple], tuple]]]:
        """Per candidate of a mode: its number, whether it is one position, and a function
        reading its members' locations out of a state (as a tuple)."""
        got = self._reader_cache.get(mode)
        if got is None:
            base = self.cells + 1
            got = []
            for h, movers in enumerate(self.network.modes[mode].candidates):
                at = [base + p for p in movers]
                read = itemgetter(*at) if len(at) > 1 else (lambda s, i=at[0]: (s[i],))
                got.append((h, len(at) == 1, read))
            self._reader_cache[mode] = got
        return got

    def successors(self, s: tuple) -> list[tuple[Rank, tuple]]:
        """(rank, state after) of every enabled transition; StepFault on a model error (its
        step is None for an error of the state itself, else the failing transition's rank)."""
        K = self._K
        entries = self._by_control.get(s[K:] if self._whole else s[K : K + 1 + self._sizes[s[K]]])
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
        mode = s[self.cells]
        find = self._entry_finders.get(mode)
        if find is None:
            find = self._entry_finders[mode] = self._entry_finder(mode)
        entries = find(s)
        self._by_control[self.control(s)] = entries
        return entries

    def _entry_finder(self, mode: int) -> Callable[[tuple], list[tuple]]:
        """Generated Python listing the entries of a state of this mode: per candidate, one
        look-up of its members' locations in a table of its own (a state of a model whose
        control changes at every step makes a new control almost every time)."""
        base = self.cells + 1
        tables: list[dict] = [{} for _ in self.network.modes[mode].candidates]

        def miss(h: int, key: object, locations: tuple[int, ...]) -> tuple | None:
            g = self.groups_at(mode, h, locations)
            got = tables[h][key] = (g.guards, g.effects, rank_of(h, 0)) if g.transitions else None
            return got

        ns: dict[str, object] = {f"t{h}": t for h, t in enumerate(tables)}
        ns.update(M=_MISS, miss=miss, OM=self._offer_masks)
        lines = _finder_lines(self.network.modes[mode], base, self._offer_masks)
        load("\n".join(lines), f"fito-entries mode={mode}", ns)
        return ns["find"]  # type: ignore[return-value]

    def groups_at(self, mode: int, h: int, locations: tuple[int, ...]) -> Group:
        """The group of candidate h at these locations (NO_GROUP if it cannot move there)."""
        key = (mode, h, locations)
        got = self._groups.get(key)
        if got is None:
            if len(locations) == 1 or self.network.relevant(*key):
                got = self.group(*key)
            else:
                got = self._groups[key] = NO_GROUP
        return got

    def transition(self, s: tuple, rank: Rank) -> Transition:
        control = self.control(s)
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
        """A compiled store predicate, or its negation (raises Fault on a model error)."""
        ir = self.semantics.compiler.compile(e, {})
        body = f"not ({to_python(ir)})" if negate else to_python(ir)
        ns = dict(self.code.namespace)
        load(f"def pred(s):\n    return {body}\n", "fito-predicate", ns)
        return ns["pred"]

    # ------------------------------------------------------------------ showing steps and states
    def show(self, s: tuple) -> str:
        return self.layout.show(s[: self.cells])

    def label(self, s: tuple, rank: Rank) -> str:
        """How a transition reads in a trace: `flush.gpu.1`, `tau (x.1)`, `{x := 2}`, `q!3`,
        `assert x > 0`, `atomic {x := 2}`, `tick`."""
        step = self.step(s, rank)
        if step.kind == TICK:
            return "tick"
        if step.kind == EVENT or step.hidden:
            event = self.event_text(step, s)
            return f"tau ({event})" if step.hidden else event
        if step.label is not None:
            return self._label(step, s)
        if step.writes:
            return "{" + ", ".join(self._write_text(w, s) for w in step.writes) + "}"
        return "tau"

    def _label(self, step: Step, s: Sequence[int]) -> str:
        kind = step.label[0]  # type: ignore[index]
        if kind == "assert":
            return f"assert {step.label[1]}"  # type: ignore[index]
        if kind == "atomic":
            return "atomic {" + ", ".join(self._write_text(w, s) for w in step.writes) + "}"
        _, chan, idx, fields = step.label  # type: ignore[misc]
        types = self.model.channels[chan].fields
        k = len(idx)
        head = chan + "".join(f"[{t.show(self._value(i, s))}]" for i, t in zip(idx, types))
        mark = "!" if kind == "send" else "?"
        return head + "".join(mark + t.show(self._value(f, s)) for f, t in zip(fields, types[k:]))

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
        except (Fault, TypeError):
            return 0

    def _write_text(self, w: Write, s: Sequence[int]) -> str:
        cell = self.model.cells.get(w.name)
        types = cell.indices if cell is not None else self._var_indices(w.name)
        idx = tuple(self._value(x, s) for x in w.index)
        target = w.name + "".join(f"[{t.show(v)}]" for t, v in zip(types, idx))
        return f"{target} := {w.type.show(self._value(w.value, s))}"

    def _var_indices(self, name: str) -> tuple:
        for frame in self.layout.frames.values():
            if name in frame.vars:
                return frame.vars[name].slots.cell.indices
        return ()

    def error_site(self, fault: Fault) -> tuple[str, str, Span]:
        site, message = self.sites.describe(fault)
        return site.code, message, site.span


def _finder_lines(m: Mode, base: int, masks: OfferMasks) -> list[str]:
    """The source of an entry finder (Compiled._entry_finder) for mode m: the offer masks of
    the positions in synchronised candidates, then each candidate's look-up, a synchronised
    one only where its members' masks share a bit with its reason's."""
    members = sorted(
        {p for h, movers in enumerate(m.candidates) if m.reasons[h] is not None for p in movers}
    )
    lines = ["def find(s):", "    out = []"] + [f"    o{p} = OM[s[{base + p}]]" for p in members]
    for h, movers in enumerate(m.candidates):
        at = [f"s[{base + p}]" for p in movers]
        key = at[0] if len(at) == 1 else "(" + ", ".join(at) + ")"
        locations = f"({at[0]},)" if len(at) == 1 else key
        body = [
            f"e = t{h}.get({key}, M)",
            f"if e is M: e = miss({h}, {key}, {locations})",
            "if e is not None: out.append(e)",
        ]
        if m.reasons[h] is not None:
            bits = masks.bits(*m.reasons[h])
            if not bits:
                continue
            lines.append(f"    if {' & '.join(f'o{p}' for p in movers)} & {bits}:")
            body = ["    " + b for b in body]
        lines += ["    " + b for b in body]
    return lines + ["    return out"]


class _Sizes(dict):
    """Number of positions per mode, filled in as modes are made."""

    def __init__(self, network: Network) -> None:
        super().__init__()
        self.network = network

    def __missing__(self, mode: int) -> int:
        got = self[mode] = self.network.modes[mode].size
        return got


class OfferMasks(dict):
    """Per location (term id): the channels its component offers, as bits of an int, and a
    bit of its own for the terminated process; so a synchronised candidate can take part
    exactly where the masks of its members and of its reason share a bit
    (Network.relevant)."""

    def __init__(self, network: Network) -> None:
        super().__init__()
        self.network = network
        self.index: dict[str | None, int] = {None: 0}

    def bit(self, channel: str | None) -> int:
        got = self.index.get(channel)
        if got is None:
            got = self.index[channel] = len(self.index)
        return 1 << got

    def bits(self, chans: frozenset[str], end: bool) -> int:
        return sum(self.bit(c) for c in chans) | (self.bit(None) if end else 0)

    def __missing__(self, tid: int) -> int:
        got = self.bits(self.network.offers(tid), tid == self.network.semantics.omega)
        self[tid] = got
        return got


def compile_model(model: Model) -> Compiled:
    """Lay out the store and prepare the semantics, the network and the code generator."""
    layout = build_layout(model)
    sites = Sites()
    semantics = Semantics(model, layout, sites)
    network = Network(semantics)
    conflict = sites.add(
        "M008", "two processes write one cell differently in one event", Span(1, 1, 1, 1)
    )
    code = ScalarCode(layout, network, conflict)
    return Compiled(model, layout, sites, semantics, network, code)


__all__ = ["TAU", "Compiled", "ExprCompiler", "StepFault", "compile_model"]
