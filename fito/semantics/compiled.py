"""The model interface: what every search of fito/check/ knows of a compiled model.

In the spirit of LTSmin's PINS and Stateright's `Model`: a state vector, an initial state,
transition groups with their read and write dependencies, successors per state and per
group, labels, predicates and a packed-state view. fito/check/ imports nothing else of
fito/semantics/ (tests/layers/test_layers.py); docs/model-interface.md is the long form.

State vector. A state is a flat tuple of ints: the store at slots 0 .. K - 1 (every cell
element, then every buffered channel's lengths and message fields), the mode at K (the
shape of the parallel structure, fito/semantics/network.py), the location of each of the
mode's positions (components) at K + 1 + p (a term id), then one region of R slots per
position (the process variables of its activation). `layout` (a frozen `StateLayout`)
names the slots, gives their types and initial values and numbers them; `mode(m)` gives a
mode's size (positions) and candidates. Modes and locations are discovered as the search
goes: `mode_count` grows.

Initial state: `initial(p)` (Fault when making it meets a model error). `is_terminated(s)`
says whether a state without successors has terminated rather than deadlocked.

Transition groups. For a mode, a candidate (numbered h) is a set of positions that move
together (`movers`: one position, the participants of a synchronisation, or every part of
a parallel that terminates); at given locations of its movers it has a fixed tuple of
transitions, compiled once: the group (mode, h, locations). `group_info(...)` and
`group_infos(s)` describe groups as frozen `GroupInfo` values: movers, the channels they
synchronise on, and per transition (`TransitionInfo`) its step as data (guard, checks,
writes and event fields as IR), its target control, and the state slots its guard reads
(`guard`), it reads (`reads`: enabledness, label and successor) and it may change
(`writes`), with the copy semantics of fito/semantics/descriptors.py. These sets are what
partial-order reduction (independence), symmetry (which slots a member owns) and a
symbolic engine (guard and effect as data) are built on.

Successors. A transition is named by its rank (h << RANK_BITS | n, n its number in the
group), the order successors are listed in. `successors(s)` gives (rank, state after) of
every enabled transition of s, evaluating every guard of s before any effect, and raises
StepFault on a model error (step None: a guard's, else the failing transition's rank);
`group_successors(s, h)` those of one candidate. `step(s, rank)` is the transition's step,
`label(s, rank)` its text in a trace, `event_key` its event as data. The packed view
(`packed_view`, fito/semantics/packed.py) gives the same per group over blocks of packed
rows.

Predicates and errors: `predicate(e)` compiles a store predicate (`expression(e)` its IR,
for the packed view's vectorised form); `error_site(fault)` names a model error's code,
message and span. `set_deadline` bounds the time compiling groups and expanding
quantifiers may take (TimeLimit).

Terms (for traces and diagnostics, read only): `term_of(s)` is the process term of a
state, `terms[tid]` its entry in the table of terms (a tuple), `steps_of(tid)` its symbolic
steps.

Exceptions a search meets: Fault, StepFault, TimeLimit, StructureGrows (the parallel
structure grows without bound), NotSupported (a refused model, with its diagnostic) and
NotPackable (states that do not pack: the state-by-state engine is used); the packed view
adds Overflow and NotVector.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang.resolve.model import Model, ValueType
from fito.semantics.codegen.loader import load
from fito.semantics.codegen.python_exprs import to_python
from fito.semantics.codegen.scalar import Group, ScalarCode, StepFault, tail
from fito.semantics.descriptors import (
    BufferView,
    Expr,
    GroupInfo,
    StateLayout,
    SymmetryBlocks,
    TransitionInfo,
    group_info,
    state_layout,
    symmetry_blocks,
)
from fito.semantics.ir import Fault, Sites, TimeLimit, evaluate
from fito.semantics.network import Mode, Network, StructureGrows, Transition
from fito.semantics.rules.refusal import NotSupported
from fito.semantics.rules.steps import EVENT, TAU, TICK, Semantics, Step, Write
from fito.semantics.state.layout import CellSlots, Layout, build_layout
from fito.semantics.state.ranges import NotPackable

if TYPE_CHECKING:
    import threading

    from fito.semantics.packed import PackedStates

State = tuple[int, ...]
Rank = int  # candidate number << RANK_BITS | transition number
RANK_BITS = 32
ESTIMATE_CAP = 64  # locations counted per position when estimating field widths
NO_GROUP = Group((), None, lambda s, g, out, base: None)
_MISS = object()
Guards = Callable[[State], tuple[object, ...]]  # every guard of a group, at once
Effects = Callable[[State, tuple[object, ...] | None, list[tuple[Rank, State]], int], None]
Entry = tuple[Guards | None, Effects, int]  # a group of a control: guards, effects, rank base
GroupKey = tuple[int, int, tuple[int, ...]]


def rank_of(h: int, k: int) -> Rank:
    return (h << RANK_BITS) | k


class Compiled:
    """A model ready to explore, built once per spec (compile_model): the interface every
    search uses. Its caches grow as the search meets new controls; nothing else changes."""

    __slots__ = (
        "_K",
        "_by_control",
        "_code",
        "_deadline",
        "_entry_finders",
        "_group_infos",
        "_group_lists",
        "_groups",
        "_layout",
        "_network",
        "_offer_masks",
        "_reader_cache",
        "_semantics",
        "_sites",
        "_sizes",
        "_view",
        "_model",
        "_whole",
    )

    def __init__(
        self,
        model: Model,
        layout: Layout,
        sites: Sites,
        semantics: Semantics,
        network: Network,
        code: ScalarCode,
    ) -> None:
        self._model = model
        self._layout = layout
        self._sites = sites
        self._semantics = semantics
        self._network = network
        self._code = code
        self._view = state_layout(layout)
        self._groups: dict[GroupKey, Group] = {}
        self._group_infos: dict[GroupKey, GroupInfo] = {}
        self._by_control: dict[tuple[int, ...], list[Entry]] = {}
        self._reader_cache: dict[int, list[tuple[int, bool, Callable[[State], Any]]]] = {}
        self._group_lists: dict[tuple[int, ...], list[Group]] = {}
        self._entry_finders: dict[int, Callable[[State], list[Entry]]] = {}
        self._offer_masks = OfferMasks(network)
        self._K = layout.size
        self._whole = not layout.region  # the control is all of a state after the store
        self._sizes = _Sizes(network)
        # Compiling a group is the one step whose cost grows with the model rather than the
        # state count, so the deadline is checked after each compilation as well as by the
        # searches' own periodic checks.
        self._deadline: float | None = None

    # ------------------------------------------------------------------ the state vector
    @property
    def model(self) -> Model:
        """The resolved spec (fito/lang/resolve): its channels, cells, processes, types."""
        return self._model

    @property
    def layout(self) -> StateLayout:
        """The state vector's slots: names, types, initial values, volatile slots, regions."""
        return self._view

    @property
    def cells(self) -> int:
        """K: how many slots the store holds before the control (cells and buffers)."""
        return self._K

    @property
    def region(self) -> int:
        """R: slots of each position's region of variables, after the control."""
        return len(self._layout.region)

    @property
    def mode_count(self) -> int:
        """The modes met so far (numbered 0 .. mode_count - 1)."""
        return len(self._network.modes)

    def mode(self, m: int) -> Mode:
        """A mode: its size (positions) and its candidates (movers, in rank order) with the
        reason each moves together (None for one position, else (channels, termination))."""
        return self._network.modes[m]

    def symmetry(self, name: str) -> SymmetryBlocks:
        """The per-member blocks of store slots that permuting symmetric type `name` moves
        (no blocks when no cell is indexed by it). Whether the type may be permuted is the
        type checker's proof (fito/types/symmetry.py), made before this is used."""
        dims: dict[str, int] = {}
        for cell in self._model.cells.values():
            decl = cell.decl
            if decl is None:
                continue
            for k, p in enumerate(decl.indices):
                if isinstance(p.type, A.TypeName) and p.type.name == name:
                    dims[cell.name] = k
        return symmetry_blocks(self._view, name, dims)

    def initial(self, p: A.Proc) -> State:
        """The initial state of process p (Fault: making it meets a model error)."""
        placement = self._network.split(self._semantics.initial(p))
        K = self._K
        return self._layout.init + tail(placement, (), (), K, 0, self.region, self._layout)

    def is_terminated(self, s: State) -> bool:
        """Whether the state's process has terminated (Ω: not a deadlock)."""
        K = self._K
        return bool(s[K + 1] == self._semantics.omega and len(s) == K + 2 + self.region)

    def ends_validly(self, s: State) -> bool:
        """Whether a state without successors is no deadlock: it has terminated, or every
        component has terminated or waits at a valid end location (`end P`)."""
        if self.is_terminated(s):
            return True
        terms = self._semantics.terms
        if not terms.ends:
            return False
        omega = self._semantics.omega
        return all(loc == omega or terms.at_end(loc) for loc in self.control(s)[1:])

    def control(self, s: State) -> State:
        """The mode and locations of a state."""
        K = self._K
        if not self.region:
            return s[K:]
        return s[K : K + 1 + self._network.modes[s[K]].size]

    # ------------------------------------------------------------------ transition groups
    def _compiled_group(self, mode: int, h: int, locations: tuple[int, ...]) -> Group:
        """The compiled group of candidate h at these locations (compiled on first use)."""
        key = (mode, h, locations)
        got = self._groups.get(key)
        if got is None:
            got = self._code.compile(
                self._network.modes[mode].size,
                self._network.transitions(mode, h, locations),
                where=f"mode={mode} cand={h}",
            )
            self._groups[key] = got
            self.check_time()
        return got

    def _state_groups(self, s: State) -> list[Group]:
        """The groups of a state, in rank order (an empty one for a candidate that cannot
        move at these locations)."""
        mode = s[self._K]
        return [self._group_at(mode, h, read(s)) for h, _, read in self._readers(mode)]

    def _group_at(self, mode: int, h: int, locations: tuple[int, ...]) -> Group:
        """The group of candidate h at these locations (NO_GROUP if it cannot move there)."""
        key = (mode, h, locations)
        got = self._groups.get(key)
        if got is None:
            if len(locations) == 1 or self._network.relevant(*key):
                got = self._compiled_group(*key)
            else:
                got = self._groups[key] = NO_GROUP
        return got

    def transition_count(self, mode: int, h: int, locations: tuple[int, ...]) -> int:
        """How many transitions candidate h has at these locations (without compiling them)."""
        if len(locations) == 1 or self._network.relevant(mode, h, locations):
            return len(self._network.transitions(mode, h, locations))
        return 0

    def takes_part(self, reason: tuple[frozenset[str], bool], key: str | None, tid: int) -> bool:
        """Whether a component at location tid can take part in a candidate moving for
        `reason` on channel `key` (None: the termination of a parallel)."""
        return self._network.takes_part(reason, key, tid)

    def group_info(self, mode: int, h: int, locations: tuple[int, ...]) -> GroupInfo:
        """The descriptor of a group: movers, transitions as data, read and write slots."""
        key = (mode, h, locations)
        got = self._group_infos.get(key)
        if got is None:
            m = self._network.modes[mode]
            transitions = self._network.transitions(*key) if self.transition_count(*key) else ()
            got = group_info(
                self._layout,
                mode,
                m.size,
                h,
                m.candidates[h],
                locations,
                m.reasons[h],
                transitions,
                rank_of(h, 0),
            )
            self._group_infos[key] = got
        return got

    def group_infos(self, s: State) -> list[GroupInfo]:
        """The descriptors of the groups of a state that have transitions, in rank order."""
        mode = s[self._K]
        out = []
        for h, _, read in self._readers(mode):
            locations = read(s)
            if self.transition_count(mode, h, locations):
                out.append(self.group_info(mode, h, locations))
        return out

    def _readers(self, mode: int) -> list[tuple[int, bool, Callable[[State], Any]]]:
        """Per candidate of a mode: its number, whether it is one position, and a function
        reading its members' locations out of a state (as a tuple)."""
        got = self._reader_cache.get(mode)
        if got is None:
            base = self._K + 1
            got = []
            for h, movers in enumerate(self._network.modes[mode].candidates):
                at = [base + p for p in movers]
                got.append((h, len(at) == 1, _reader(at)))
            self._reader_cache[mode] = got
        return got

    # ------------------------------------------------------------------ successors
    def successors(self, s: State) -> list[tuple[Rank, State]]:
        """(rank, state after) of every enabled transition; StepFault on a model error (its
        step is None for an error of the state itself, else the failing transition's rank)."""
        K = self._K
        entries = self._by_control.get(s[K:] if self._whole else s[K : K + 1 + self._sizes[s[K]]])
        if entries is None:
            entries = self._entries(s)
        out: list[tuple[Rank, State]] = []
        if len(entries) == 1:
            guards, effects, base = entries[0]
            effects(s, guards(s) if guards is not None else None, out, base)
            return out
        verdicts = [guards(s) if guards is not None else None for guards, _, _ in entries]
        for (_, effects, base), v in zip(entries, verdicts):
            effects(s, v, out, base)
        return out

    def group_successors(self, s: State, h: int) -> list[tuple[Rank, State]]:
        """(rank, state after) of the enabled transitions of candidate h of the state's
        mode (StepFault as `successors`, for this group's guards and effects alone)."""
        readers = self._readers(s[self._K])
        g = self._group_at(s[self._K], h, readers[h][2](s))
        out: list[tuple[Rank, State]] = []
        if g.transitions:
            g.effects(s, g.guards(s) if g.guards is not None else None, out, rank_of(h, 0))
        return out

    def _entries(self, s: State) -> list[Entry]:
        """(guards, effects, rank base) of the groups of a control that have transitions."""
        mode = s[self._K]
        find = self._entry_finders.get(mode)
        if find is None:
            find = self._entry_finders[mode] = self._entry_finder(mode)
        entries = find(s)
        self._by_control[self.control(s)] = entries
        return entries

    def _entry_finder(self, mode: int) -> Callable[[State], list[Entry]]:
        """Generated Python listing the entries of a state of this mode: per candidate, one
        look-up of its members' locations in a table of its own (a state of a model whose
        control changes at every step makes a new control almost every time)."""
        base = self._K + 1
        tables: list[dict[object, Entry | None]] = [
            {} for _ in self._network.modes[mode].candidates
        ]

        def miss(h: int, key: object, locations: tuple[int, ...]) -> Entry | None:
            g = self._group_at(mode, h, locations)
            got = tables[h][key] = (g.guards, g.effects, rank_of(h, 0)) if g.transitions else None
            return got

        ns: dict[str, object] = {f"t{h}": t for h, t in enumerate(tables)}
        ns.update(M=_MISS, miss=miss, OM=self._offer_masks)
        lines = _finder_lines(self._network.modes[mode], base, self._offer_masks)
        load("\n".join(lines), f"fito-entries mode={mode}", ns)
        return ns["find"]  # type: ignore[return-value]

    def transition(self, s: State, rank: Rank) -> Transition:
        """The transition of a state with this rank (its step and target)."""
        control = self.control(s)
        groups = self._group_lists.get(control)
        if groups is None:  # once per control: refinement asks for every step of a state
            groups = self._group_lists[control] = self._state_groups(s)
        return groups[rank >> RANK_BITS].transitions[rank & ((1 << RANK_BITS) - 1)]

    def step(self, s: State, rank: Rank) -> Step:
        """The step (guard, event, writes, movers) of the transition with this rank."""
        return self.transition(s, rank).step

    # ------------------------------------------------------------------ time
    @property
    def deadline(self) -> float | None:
        """The current assertion's deadline (time.monotonic()), or None."""
        return self._deadline

    def set_deadline(self, deadline: float | None) -> None:
        """Bound compiling groups and expanding quantifiers (TimeLimit past `deadline`)."""
        self._deadline = deadline
        self._semantics.compiler.deadline = deadline

    def check_time(self) -> None:
        """TimeLimit if the deadline has passed."""
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise TimeLimit()

    # ------------------------------------------------------------------ predicates
    def expression(self, e: A.Expr) -> Expr:
        """A store expression as IR (fito/semantics/ir.py), e.g. for the packed view."""
        return self._semantics.compiler.compile(e, {})

    def predicate(self, e: A.Expr, negate: bool = False) -> Callable[[State], object]:
        """A compiled store predicate, or its negation (raises Fault on a model error)."""
        ir = self._semantics.compiler.compile(e, {})
        body = f"not ({to_python(ir)})" if negate else to_python(ir)
        ns = dict(self._code.namespace)
        load(f"def pred(s):\n    return {body}\n", "fito-predicate", ns)
        return ns["pred"]  # type: ignore[no-any-return]

    def error_site(self, fault: Fault) -> tuple[str, str, Span]:
        """A model error's code, message and place."""
        site, message = self._sites.describe(fault)
        return site.code, message, site.span

    # ------------------------------------------------------------------ labels
    def show(self, s: State) -> str:
        return self._layout.show(s[: self._K])

    def label(self, s: State, rank: Rank) -> str:
        """How a transition reads in a trace: `flush.gpu.1`, `tau (x.1)`, `{x := 2}`, `q!3`,
        `assert x > 0`, `atomic {x := 2}`, `tick`."""
        step = self.step(s, rank)
        if step.kind == TICK:
            return "tick"
        if step.kind == EVENT or step.hidden:
            event = self.event_text(step, s)
            return f"tau ({event})" if step.hidden else event
        if step.label is not None:
            return self._label(step, step.label, s)
        if step.writes:
            return "{" + ", ".join(self._write_text(w, s) for w in step.writes) + "}"
        return "tau"

    def _label(self, step: Step, label: tuple[Any, ...], s: Sequence[int]) -> str:
        kind = label[0]
        if kind == "assert":
            return f"assert {label[1]}"
        if kind == "atomic":
            return "atomic {" + ", ".join(self._write_text(w, s) for w in step.writes) + "}"
        _, chan, idx, fields = label
        types = self.model.channels[chan].fields
        k = len(idx)
        head: str = chan + "".join(f"[{t.show(self._value(i, s))}]" for i, t in zip(idx, types))
        mark = "!" if kind == "send" else "?"
        return head + "".join(mark + t.show(self._value(f, s)) for f, t in zip(fields, types[k:]))

    def event_key(self, step: Step, s: Sequence[int]) -> tuple[object, ...]:
        """The event as data: (channel, values...) or ("tick",)."""
        if step.kind == TICK:
            return ("tick",)
        return (step.channel, *(self._value(f, s) for f in step.fields))

    def event_text(self, step: Step, s: Sequence[int]) -> str:
        """The event as text: `flush.gpu.1`."""
        assert step.channel is not None
        types = self.model.channels[step.channel].fields
        parts = [step.channel] + [self._shown(f, t, s) for f, t in zip(step.fields, types)]
        return ".".join(parts)

    def _shown(self, ir: Expr, t: ValueType, s: Sequence[int]) -> str:
        """A field's value over the store, or `_` for one that reads a process variable (the
        store alone does not hold it: a deadlock's offers are explained from the store)."""
        try:
            return t.show(self._value(ir, s))
        except AssertionError:  # a variable not relocated into the store
            return "_"

    def _value(self, ir: Expr, s: Sequence[int]) -> int:
        try:
            return int(evaluate(ir, s, self._layout))
        except (Fault, TypeError):
            return 0

    def _write_text(self, w: Write, s: Sequence[int]) -> str:
        cell = self.model.cells.get(w.name)
        types = cell.indices if cell is not None else self._var_indices(w.name)
        idx = tuple(self._value(x, s) for x in w.index)
        target = w.name + "".join(f"[{t.show(v)}]" for t, v in zip(types, idx))
        return f"{target} := {w.type.show(self._value(w.value, s))}"

    def _var_indices(self, name: str) -> tuple[Any, ...]:
        for frame in self._layout.frames.values():
            if name in frame.vars:
                return frame.vars[name].slots.cell.indices
        return ()

    # ------------------------------------------------------------------ terms (read only)
    def term_of(self, s: State) -> int:
        """The process term (its id) of a state: the mode's shape with its components."""
        return self._network.term(s[self._K :])

    @property
    def terms(self) -> Sequence[tuple[Any, ...]]:
        """The table of terms by id (it grows as the search makes terms): each entry a
        tuple (tag, ...) whose parts are term ids, program node keys and bound values
        (fito/semantics/terms/closures.py)."""
        return self._semantics.terms.table

    def term_id(self, t: tuple[Any, ...]) -> int:
        """The id of a term given by its entry."""
        return self._semantics.terms.ids[t]

    def program_node(self, key: int) -> object:
        """The program node (fito/lang/nodes.py) a term's entry refers to by key."""
        return self._semantics.terms.node(key)

    def steps_of(self, tid: int) -> tuple[Step, ...]:
        """The symbolic steps of a term (each a transition schema)."""
        return self._semantics.steps(tid)

    def guard_holds(self, step: Step, store: Sequence[int]) -> bool:
        """Whether a step's guard holds over a store (False where it meets an error or
        reads a process variable)."""
        try:
            return all(evaluate(g, store, self._layout) for g in step.guard)
        except (Fault, AssertionError):
            return False

    # ------------------------------------------------------------------ the packed view
    def packed_view(self, root: State, lock: threading.RLock) -> PackedStates:
        """Packed rows of states for a search from root (fito/semantics/packed.py), the
        control fields sized for the locations root's components reach by their own steps."""
        from fito.semantics.packed import PackedStates  # lazy-import: numpy, frontier only

        return PackedStates(
            self._layout, self._network, self._code.resets, self._location_bits(root), lock
        )

    def _location_bits(self, root: State) -> list[int]:
        """Field widths for root's positions: each position's locations reachable by its own
        steps (up to ESTIMATE_CAP), doubled."""
        terms = self._semantics.terms
        bits = []
        for tid in self.control(root)[1:]:
            seen = {tid}
            todo = [tid]
            while todo and len(seen) < ESTIMATE_CAP:
                self.check_time()
                for s in self._semantics.steps(todo.pop()):
                    if (
                        isinstance(s.target, int)
                        and s.target not in seen
                        and not terms.has_par(s.target)
                    ):
                        seen.add(s.target)
                        todo.append(s.target)
            bits.append((len(seen) * 2 + 1).bit_length())
        return bits


def _reader(at: list[int]) -> Callable[[State], Any]:
    """A function reading the slots `at` of a state, as a tuple."""
    if len(at) > 1:
        return itemgetter(*at)
    i = at[0]
    return lambda s: (s[i],)


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
        reason = m.reasons[h]
        if reason is not None:
            bits = masks.bits(*reason)
            if not bits:
                continue
            lines.append(f"    if {' & '.join(f'o{p}' for p in movers)} & {bits}:")
            body = ["    " + b for b in body]
        lines += ["    " + b for b in body]
    return lines + ["    return out"]


class _Sizes(dict[int, int]):
    """Number of positions per mode, filled in as modes are made."""

    def __init__(self, network: Network) -> None:
        super().__init__()
        self.network = network

    def __missing__(self, mode: int) -> int:
        got = self[mode] = self.network.modes[mode].size
        return got


class OfferMasks(dict[int, int]):
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


__all__ = [
    "EVENT",
    "RANK_BITS",
    "TAU",
    "TICK",
    "BufferView",
    "CellSlots",
    "Compiled",
    "Fault",
    "GroupInfo",
    "Mode",
    "NotPackable",
    "NotSupported",
    "Rank",
    "State",
    "StateLayout",
    "SymmetryBlocks",
    "Step",
    "StepFault",
    "StructureGrows",
    "TimeLimit",
    "TransitionInfo",
    "compile_model",
]
