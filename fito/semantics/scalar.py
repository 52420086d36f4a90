"""Generated Python for one state at a time: two functions per (mode, candidate, locations).

A state is one flat tuple: the cells (fito/semantics/layout.py), then the control (mode
and one location per component, fito/semantics/network.py). For a cached group of
transitions, `guards(s)` evaluates every guard (a fault there is an error of the state
itself) and `effects(s, g, out, base)` appends the (rank, state after) pairs of the enabled
ones, rank = base + transition number (a fault there is an error of that transition, named
by its rank): every guard of a state is evaluated before any effect (docs/semantics.md,
model errors).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fito.lang.values import BoolT, EnumT, IntRange, SetT, ValueType
from fito.semantics.ir import IR, Fault, to_python
from fito.semantics.layout import Layout
from fito.semantics.network import Network, Transition


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
    guards: Callable[[tuple], tuple] | None   # None: no transition has a guard
    effects: Callable[[tuple, tuple | None, list, int], None]  # (s, guards, out, rank base)


class ScalarCode:
    """Compiles groups of transitions into Python functions over flat state tuples."""

    def __init__(self, layout: Layout, network: Network, channel_types: dict[str, tuple[ValueType, ...]],
                 conflict_site: int) -> None:
        self.layout = layout
        self.network = network
        self.cells = len(layout.init)
        self.channel_types = channel_types
        self.conflict_site = conflict_site
        self._deferred: list[Transition] = []
        self.namespace: dict[str, Any] = {
            "Fault": Fault, "StepFault": StepFault,
            "_rd": self._read, "_div": _div, "_mod": _mod, "_fault": _fault,
            "_slot": self._slot, "_chk": self._check_slot, "_conflict": self._conflict,
            "_ctl": self._deferred_control,
        }

    # ------------------------------------------------------------------ helpers of generated code
    def _read(self, s: Sequence[int], cell: str, index: tuple[int, ...], err: int) -> int:
        return s[self._slot(cell, index, err)]

    def _slot(self, cell: str, index: tuple[int, ...], err: int) -> int:
        slot = self.layout.cells[cell].slot(index)
        if slot is None:
            raise Fault(err, "index " + ", ".join(map(str, index)))
        return slot

    def _check_slot(self, slot: int, value: int, err: int) -> None:
        if not self.layout.types[slot].contains(value):
            raise Fault(err, f"{self.layout.names[slot]} := {value}")

    def _conflict(self, pairs: tuple[tuple[int, int], ...]) -> None:
        seen: dict[int, int] = {}
        for slot, value in pairs:
            if slot in seen and seen[slot] != value:
                raise Fault(self.conflict_site, f"{self.layout.names[slot]} := {seen[slot]} and := {value}")
            seen[slot] = value

    def _deferred_control(self, j: int, s: tuple, cells: tuple) -> tuple:
        return self.network.resolve(self._deferred[j], s[self.cells:], cells)

    # ------------------------------------------------------------------ generation
    def compile(self, transitions: tuple[Transition, ...]) -> Group:
        guarded = [n for n, t in enumerate(transitions) if t.step.guard]
        lines = []
        if guarded:
            exprs = ", ".join(guard_source(transitions[n].step.guard) for n in guarded)
            lines += ["def guards(s):", "    try:", f"        return ({exprs},)",
                      "    except Fault as f:", "        raise StepFault(f, None)"]
        lines += ["def effects(s, g, out, base):", "    k = -1", "    try:", "        pass"]
        for n, t in enumerate(transitions):
            body = self._transition(n, t)
            if t.step.guard:
                body = [f"if g[{guarded.index(n)}]:"] + ["    " + b for b in body]
            lines.extend("        " + b for b in body)
        lines += ["    except Fault as f:", "        raise StepFault(f, base + k)"]
        ns = dict(self.namespace)
        exec(compile("\n".join(lines), "<fito-group>", "exec"), ns)  # noqa: S102 - our own code
        return Group(transitions, ns.get("guards"), ns["effects"])

    def _transition(self, n: int, t: Transition) -> list[str]:
        step = t.step
        body: list[str] = [f"k = {n}"]
        for ir, i, err in step.checks:
            ftype = self.channel_types[step.channel][i]  # type: ignore[index]
            body += [f"x = {to_python(ir)}", f"if not ({contains('x', ftype)}): _fault({err}, x)"]
        lines, cells = self._cells(step)
        body += lines
        if t.deferred is not None:
            self._deferred.append(t)
            body += [f"c = {cells}", f"out.append((base + {n}, c + _ctl({len(self._deferred) - 1}, s, c)))"]
        else:
            body.append(f"out.append((base + {n}, {cells} + {self._control(t)}))")
        return body

    def _cells(self, step: object) -> tuple[list[str], str]:
        """Lines computing the writes, and an expression for the cells after the step."""
        writes, crash, K = step.writes, step.crash, self.cells  # type: ignore[attr-defined]
        if not writes and not crash:
            return [], f"s[:{K}]"
        lines = [f"v{j} = {to_python(w.value)}" for j, w in enumerate(writes)]
        for j, w in enumerate(writes):
            if w.slot is not None:
                t = self.layout.types[w.slot]
                lines += [f"p{j} = {w.slot}",
                          f"if not ({contains(f'v{j}', t)}): _fault({w.range_err}, "
                          f"{self.layout.names[w.slot] + ' := '!r} + str(v{j}))"]
            else:
                idx = ", ".join(to_python(x) for x in w.index)
                lines += [f"p{j} = _slot({w.cell!r}, ({idx},), {w.index_err})",
                          f"_chk(p{j}, v{j}, {w.range_err})"]
        if step.synced and len(writes) > 1:  # type: ignore[attr-defined]
            pairs = ", ".join(f"(p{j}, v{j})" for j in range(len(writes)))
            lines.append(f"_conflict(({pairs},))")
        if not crash and len(writes) == 1 and writes[0].slot is not None:
            k = writes[0].slot
            return lines, f"(s[:{k}] + (v0,) + s[{k + 1}:{K}])"
        lines.append(f"l = list(s[:{K}])")
        if crash:
            lines += [f"l[{slot}] = {self.layout.init[slot]}" for slot in self.layout.volatile]
        lines += [f"l[p{j}] = v{j}" for j in range(len(writes))]
        return lines, "tuple(l)"

    def _control(self, t: Transition) -> str:
        """An expression for the control after t: constants, and slices of the source's."""
        K = self.cells
        items: list[tuple[str, int]] = [("k", t.mode)]
        items += [("s", K - e) if e < 0 else ("k", e) for e in t.locations]
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
                pieces.append(f"s[{v}:{v + j - i}]")
            i = j
        return " + ".join(pieces)


def guard_source(guard: Sequence[IR]) -> str:
    return " and ".join(f"({to_python(g)})" for g in guard) or "True"


def contains(var: str, t: ValueType) -> str:
    """A Python test that the value named var lies in t."""
    if isinstance(t, IntRange):
        return f"{t.lo} <= {var} <= {t.hi}"
    if isinstance(t, EnumT):
        return f"0 <= {var} < {len(t.members)}"
    if isinstance(t, BoolT):
        return f"{var} in (0, 1)"
    if isinstance(t, SetT):
        return f"{var} in {set(t.members)!r}"
    return "True"


def _div(a: int, b: int, err: int) -> int:
    if b == 0:
        raise Fault(err)
    return a // b


def _mod(a: int, b: int, err: int) -> int:
    if b == 0:
        raise Fault(err)
    return a % b


def _fault(err: int, detail: object = "") -> None:
    raise Fault(err, str(detail))
