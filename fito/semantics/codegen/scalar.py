"""Generated Python for one state at a time: two functions per (mode, candidate, locations).

A state is one flat tuple: the store (cells and buffers, fito/semantics/state/layout.py), then the
control (mode and one location per component, fito/semantics/network.py), then one region
of variables per component. For a cached group of transitions, `guards(s)` evaluates every
guard (a fault there is an error of the state itself) and `effects(s, g, out, base)`
appends the (rank, state after) pairs of the enabled ones, rank = base + transition number
(a fault there is an error of that transition, named by its rank): every guard of a state
is evaluated before any effect (docs/semantics.md, model errors).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fito.lang.arithmetic import checked_helpers
from fito.lang.resolve.model import ValueType
from fito.semantics.codegen.loader import load
from fito.semantics.codegen.notes import reset_note, write_note
from fito.semantics.codegen.python_exprs import chk_range, chk_set, contains_source, to_python
from fito.semantics.ir import IR, Fault
from fito.semantics.network import Network, Placement, Transition
from fito.semantics.rules.step import ASSERT, EVAL
from fito.semantics.state.layout import Layout


class StepFault(Exception):
    """A model error: the fault, and the transition whose effect raised it (None: a guard)."""

    def __init__(self, fault: Fault, step: object) -> None:
        super().__init__(fault, step)
        self.fault = fault
        self.step = step


@dataclass(frozen=True, slots=True)
class Group:
    """The compiled transitions of one (mode, candidate, locations)."""

    transitions: tuple[Transition, ...]
    guards: Callable[[tuple], tuple] | None  # None: no transition has a guard
    effects: Callable[[tuple, tuple | None, list, int], None]  # (s, guards, out, rank base)


class ScalarCode:
    """Compiles groups of transitions into Python functions over flat state tuples."""

    def __init__(self, layout: Layout, network: Network, conflict_site: int) -> None:
        self.layout = layout
        self.network = network
        self.cells = layout.size
        self.region = len(layout.region)
        self.conflict_site = conflict_site
        self._deferred: list[tuple[Transition, int]] = []
        self._resets: dict[int, tuple[tuple[int, int], ...]] = {}
        self._slots: dict[tuple[str, tuple[int, ...]], int] = {}  # (cell, index) -> slot
        self.namespace: dict[str, Any] = {
            "Fault": Fault,
            "StepFault": StepFault,
            "_rd": self._read,
            **checked_helpers(Fault),
            "_fault": _fault,
            "_slot": self._slot,
            "_conflict": self._conflict,
            "_ctl": self._deferred_tail,
            "_chkr": chk_range,
            "_chks": chk_set,
            "_safe": _safe,
            "_vars": self._crash_vars,
        }

    # ------------------------------------------------------------------ helpers of generated code
    def _read(self, s: Sequence[int], cell: str, index: tuple[int, ...], err: int) -> int:
        return s[self._slot(cell, index, err)]

    def _slot(self, cell: str, index: tuple[int, ...], err: int) -> int:
        slot = self._slots.get((cell, index))
        if slot is None:
            slot = self.layout.cells[cell].slot(index)
            if slot is None:
                raise Fault(err, "index " + ", ".join(map(str, index)))
            self._slots[(cell, index)] = slot
        return slot

    def _conflict(self, pairs: tuple[tuple[int, int], ...]) -> None:
        seen: dict[int, int] = {}
        for slot, value in pairs:
            if slot in seen and seen[slot] != value:
                raise Fault(self.conflict_site, f"slot {slot} := {seen[slot]} and := {value}")
            seen[slot] = value

    def _deferred_tail(self, j: int, s: tuple, post: list) -> tuple:
        t, size = self._deferred[j]
        K = self.cells
        return tail(
            self.network.resolve(t, post),
            s[K : K + 1 + size],
            post,
            K,
            size,
            self.region,
            self.layout,
        )

    def resets(self, tid: int) -> tuple[tuple[int, int], ...]:
        """(region slot, initial value) of every volatile variable a location's activations hold."""
        got = self._resets.get(tid)
        if got is None:
            out = []
            for marker in self.network.semantics.terms.markers(tid):
                frame = self.layout.frames[marker[0]]
                for j in frame.volatile():
                    out.append((j, marker[1][j - frame.base]))
            got = self._resets[tid] = tuple(sorted(out))
        return got

    def _crash_vars(self, s: tuple, post: list, size: int) -> None:
        """A crash resets the volatile variables of every live activation (in post)."""
        K, R = self.cells, self.region
        for q in range(size):
            base = K + 1 + size + q * R
            for j, v in self.resets(s[K + 1 + q]):
                post[base + j] = v

    # ------------------------------------------------------------------ generation
    def compile(self, size: int, transitions: tuple[Transition, ...], where: str = "") -> Group:
        """The group's functions; `size`: the number of positions of its (source) mode;
        `where` (e.g. `mode=3 cand=1`) names the group in tracebacks and dumped files."""
        guarded = [n for n, t in enumerate(transitions) if t.step.guard]
        position = {n: i for i, n in enumerate(guarded)}  # n's place in the guards' tuple
        title = f"fito-group {where or f'size={size} transitions={len(transitions)}'}"
        ns = dict(self.namespace)
        # Compiled in units of at most CHUNK transitions, each its own load (which looks at
        # the deadline first): compile() cannot be interrupted, so no unit may be large.
        guard_units = []
        for c, start in enumerate(range(0, len(guarded), CHUNK)):
            name = _unit_name("guards", c, len(guarded))
            part = guarded[start : start + CHUNK]
            exprs = ", ".join(guard_source(transitions[n].step.guard) for n in part)
            lines = [
                f"def {name}(s):",
                "    try:",
                f"        return ({exprs},)",
                "    except Fault as f:",
                "        raise StepFault(f, None)",
            ]
            guard_units.append(load("\n".join(lines), title, ns)[name])
        effect_units = []
        for c, start in enumerate(range(0, len(transitions), CHUNK)):
            name = _unit_name("effects", c, len(transitions))
            lines = [f"def {name}(s, g, out, base):", "    k = -1", "    try:", "        pass"]
            for n in range(start, min(start + CHUNK, len(transitions))):
                t = transitions[n]
                body = self._transition(n, t, size)
                if t.step.guard:
                    body = [f"if g[{position[n]}]:"] + ["    " + b for b in body]
                lines.extend("        " + b for b in body)
            lines += ["    except Fault as f:", "        raise StepFault(f, base + k)"]
            effect_units.append(load("\n".join(lines), title, ns)[name])
        if not effect_units:  # no transition: a group that adds nothing
            effect_units.append(load(_NO_EFFECTS, title, ns)["effects"])
        return Group(transitions, _joined_guards(guard_units), _joined_effects(effect_units))

    def _transition(self, n: int, t: Transition, size: int) -> list[str]:
        step = t.step
        body: list[str] = [f"k = {n}"]
        body += check_lines(step.checks)
        lines, source = self._writes(step, size)
        body += lines
        if step.fault is not None:
            body.append(f"_fault({step.fault[0]}, {step.fault[1]!r})")
        K = self.cells
        cells = f"s[:{K}]" if source == "s" else f"tuple(l[:{K}])"
        if t.deferred is not None:
            self._deferred.append((t, size))
            if source == "s":
                body.append("l = list(s)")
            body.append(
                f"out.append((base + {n}, {cells} + _ctl({len(self._deferred) - 1}, s, l)))"
            )
        else:
            rest = self._control(t) + self._regions(t, size, source)
            body.append(f"out.append((base + {n}, {cells} + {rest}))")
        return body

    def _writes(self, step: Any, size: int) -> tuple[list[str], str]:
        """Lines computing the writes into a list `l` (the state after them), and the name of
        the state to read the rest from: `l`, or `s` when nothing is written."""
        writes, crash = step.writes, step.crash
        if not writes and not crash:
            return [], "s"
        lines = [f"v{j} = {to_python(w.value)}" for j, w in enumerate(writes)]
        for j, w in enumerate(writes):
            lines.append(f"p{j} = {place_source(w.loc)}")
            if w.range_err >= 0:
                lines.append(
                    f"if not ({contains_source(f'v{j}', w.type)}): "
                    f"_fault({w.range_err}, {w.name!r} + ' := ' + str(v{j}))"
                )
        if (step.synced or step.conflict) and len(writes) > 1:
            pairs = ", ".join(f"(p{j}, v{j})" for j in range(len(writes)))
            lines.append(f"_conflict(({pairs},))")
        lines.append("l = list(s)")
        if crash:
            lines += [
                f"l[{slot}] = {self.layout.init[slot]}  {reset_note(slot, self.layout)}"
                for slot in self.layout.volatile
            ]
            if self.layout.frames:
                lines.append(f"_vars(s, l, {size})  # volatile variables := initial (crash)")
        lines += [f"l[p{j}] = v{j}  {write_note(w, self.layout)}" for j, w in enumerate(writes)]
        return lines, "l"

    def _control(self, t: Transition) -> str:
        """An expression for the control after t: constants, and slices of the source's."""
        K = self.cells
        items: list[tuple[str, int]] = [("k", t.mode)]
        items += [("s", K - e) if e < 0 else ("k", e) for e in t.locations]
        return " + ".join(_pieces(items, "s"))

    def _regions(self, t: Transition, size: int, source: str) -> str:
        """The regions after t: kept ones and copies are slices of the source's, after the
        step's writes; new activations their initial values; the rest zeros."""
        R = self.region
        if not R:
            return ""
        items = region_items(t.locations, t.regions, self.cells, size, R, self.layout)
        return " + " + " + ".join(_pieces(items, source))


def region_items(
    locations: Sequence[int], recipes: Sequence[object], K: int, size: int, R: int, layout: Layout
) -> list[tuple[str, int]]:
    """The target's regions as items: ("k", value) or ("s", source slot)."""
    items: list[tuple[str, int]] = []
    for e, recipe in zip(locations, recipes):
        if e < 0:
            start = K + 1 + size + (-e - 1) * R
            items += [("s", start + j) for j in range(R)]
            continue
        for frame, how in zip(layout.frames.values(), recipe):
            if how is None:
                items += [("k", 0)] * frame.size
            elif how[0] == "init":
                items += [("k", v) for v in how[1]]
            else:
                start = K + 1 + size + how[1] * R + frame.base
                items += [("s", start + j) for j in range(frame.size)]
    return items


def tail(
    placement: Placement,
    source: Sequence[int],
    post: Sequence[int],
    K: int,
    size: int,
    R: int,
    layout: Layout,
) -> tuple:
    """The control and regions after a transition from a state whose control is `source`
    (mode and locations), the state after the transition's writes being post."""
    entries = placement.control[1:]
    control = (placement.control[0],) + tuple(source[-e] if e < 0 else e for e in entries)
    if not R:
        return control
    items = region_items(entries, placement.regions, K, size, R, layout)
    return control + tuple(v if kind == "k" else post[v] for kind, v in items)


def _pieces(items: list[tuple[str, int]], source: str) -> list[str]:
    """Runs of constants as tuples, runs of consecutive source slots as slices."""
    pieces: list[str] = []
    i = 0
    while i < len(items):
        kind, v = items[i]
        j = i + 1
        if kind == "k":
            while j < len(items) and items[j][0] == "k":
                j += 1
            pieces.append("(" + "".join(f"{x}, " for _, x in items[i:j]) + ")")
        else:
            while j < len(items) and items[j] == ("s", v + j - i):
                j += 1
            piece = f"{source}[{v}:{v + j - i}]"
            pieces.append(piece if source == "s" else f"tuple({piece})")
        i = j
    return pieces


CHUNK = 128  # transitions per unit of generated code


_NO_EFFECTS = "def effects(s, g, out, base):\n    pass\n"


def _unit_name(kind: str, c: int, count: int) -> str:
    """`effects` (or `guards`) when one unit holds them all, else `effects_0`, `effects_1`..."""
    return kind if count <= CHUNK else f"{kind}_{c}"


def _joined_guards(units: list[Callable[[tuple], tuple]]) -> Callable[[tuple], tuple] | None:
    """One function giving the guards of every unit, in order (the unit itself if one)."""
    if len(units) <= 1:
        return units[0] if units else None

    def guards(s: tuple) -> tuple:
        out: list = []
        for unit in units:
            out.extend(unit(s))
        return tuple(out)

    return guards


def _joined_effects(units: list[Callable[..., None]]) -> Callable[..., None]:
    """One function running the effects of every unit, in order (the unit itself if one)."""
    if len(units) == 1:
        return units[0]

    def effects(s: tuple, g: tuple | None, out: list, base: int) -> None:
        for unit in units:
            unit(s, g, out, base)

    return effects


def check_lines(checks: Sequence[tuple[IR, object, int]]) -> list[str]:
    """The checks a step makes when taken, in order."""
    out = []
    for ir, kind, err in checks:
        if kind == ASSERT:
            out.append(f"if not ({to_python(ir)}): _fault({err})")
        elif kind == EVAL:
            out.append(to_python(ir))
        else:
            out += [
                f"x = {to_python(ir)}",
                f"if not ({contains_source('x', kind)}): _fault({err}, x)",
            ]
    return out


def place_source(loc: IR) -> str:
    """The slot a write's place names (its indices evaluated and checked)."""
    if loc[0] == "c":
        return str(loc[1])
    if loc[0] == "fault":
        return f"_fault({loc[1]}, {loc[2]!r})"
    assert loc[0] == "cd", loc
    idx = ", ".join(to_python(x) for x in loc[2])
    return f"_slot({loc[1]!r}, ({idx},), {loc[3]})"


def guard_source(guard: Sequence[IR]) -> str:
    return " and ".join(f"({to_python(g)})" for g in guard) or "True"


def contains(var: str, t: ValueType) -> str:
    """A Python test that the value named var lies in t."""
    return contains_source(var, t)


def _fault(err: int, detail: object = "") -> None:
    raise Fault(err, str(detail))


def _safe(thunk: Callable[[], int]) -> int | None:
    """A value, or None where computing it is a model error (a guard that must not fail)."""
    try:
        return thunk()
    except Fault:
        return None
