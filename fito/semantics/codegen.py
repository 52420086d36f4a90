"""Generated Python for the hot loop: one successor function per term.

`succ(s)` returns the (step number, state after) pairs of every enabled step of the term
in cell state s (a tuple). A model error raises `StepFault` carrying the step number when
a step's effect failed, or None when evaluating a guard failed in state s itself.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fito.lang.values import BoolT, EnumT, IntRange, SetT, ValueType
from fito.semantics.ir import IR, Fault, to_python
from fito.semantics.layout import Layout
from fito.semantics.steps import Step


class StepFault(Exception):
    """A model error: the fault, and the step whose effect raised it (None: a guard)."""

    def __init__(self, fault: Fault, step: int | None) -> None:
        super().__init__(fault, step)
        self.fault = fault
        self.step = step


Successors = Callable[[tuple], list]


class CodeGen:
    """Compiles step lists of terms into successor functions, sharing helpers per layout."""

    def __init__(self, layout: Layout, channel_types: dict[str, tuple[ValueType, ...]],
                 conflict_site: int) -> None:
        self.layout = layout
        self.channel_types = channel_types
        self.conflict_site = conflict_site
        self.namespace: dict[str, Any] = {
            "Fault": Fault, "StepFault": StepFault,
            "_rd": self._read, "_div": _div, "_mod": _mod, "_fault": _fault,
            "_slot": self._slot, "_chk": self._check_slot, "_conflict": self._conflict,
        }

    # ------------------------------------------------------------------ helpers used by generated code
    def _read(self, s: Sequence[int], cell: str, index: tuple[int, ...], err: int) -> int:
        slot = self.layout.cells[cell].slot(index)
        if slot is None:
            raise Fault(err, "index " + ", ".join(map(str, index)))
        return s[slot]

    def _slot(self, cell: str, index: tuple[int, ...], err: int) -> int:
        slot = self.layout.cells[cell].slot(index)
        if slot is None:
            raise Fault(err, "index " + ", ".join(map(str, index)))
        return slot

    def _check_slot(self, slot: int, value: int, err: int) -> None:
        if not self.layout.types[slot].contains(value):
            raise Fault(err, f"{self.layout.names[slot]} := {value}")

    # ------------------------------------------------------------------ generation
    def successors(self, steps: Sequence[Step]) -> Successors:
        # Every guard is evaluated before any effect (docs/semantics.md, model errors): a
        # fault in a guard is the state's own error, whichever step it belongs to.
        lines = ["def succ(s):", "    out = []", "    k = -1", "    try:", "        pass"]
        for n, step in enumerate(steps):
            if step.guard:
                lines.append(f"        g{n} = {self.guard_source(step.guard)}")
        lines += ["    except Fault as f:", "        raise StepFault(f, None)", "    try:", "        pass"]
        for n, step in enumerate(steps):
            lines.extend("        " + line for line in self._step(n, step))
        lines += ["    except Fault as f:", "        raise StepFault(f, k)", "    return out"]
        code = "\n".join(lines)
        ns = dict(self.namespace)
        exec(compile(code, "<fito-successors>", "exec"), ns)  # noqa: S102 - our own generated code
        return ns["succ"]

    def guard_source(self, guard: Sequence[IR]) -> str:
        return " and ".join(f"({to_python(g)})" for g in guard) or "True"

    def _step(self, n: int, step: Step) -> list[str]:
        body: list[str] = [f"k = {n}"]
        for ir, i, err in step.checks:
            body += [f"x = {to_python(ir)}",
                     f"if not ({_contains('x', self._field_type(step, i))}): _fault({err}, x)"]
        body += self._effect(step)
        if not step.guard:
            return body
        return [f"if g{n}:"] + ["    " + b for b in body]

    def _field_type(self, step: Step, i: int) -> ValueType:
        return self.channel_types[step.channel][i]  # type: ignore[index]

    def _conflict(self, pairs: tuple[tuple[int, int], ...]) -> None:
        seen: dict[int, int] = {}
        for slot, value in pairs:
            if slot in seen and seen[slot] != value:
                raise Fault(self.conflict_site, f"{self.layout.names[slot]} := {seen[slot]} and := {value}")
            seen[slot] = value

    def _effect(self, step: Step) -> list[str]:
        writes = step.writes
        if not writes and not step.crash:
            return [f"out.append(({_n(step)}, s))"]
        lines = [f"v{j} = {to_python(w.value)}" for j, w in enumerate(writes)]
        for j, w in enumerate(writes):
            if w.slot is not None:
                lines.append(f"p{j} = {w.slot}")
                t = self.layout.types[w.slot]
                lines.append(f"if not ({_contains(f'v{j}', t)}): _fault({w.range_err}, "
                             f"'{self.layout.names[w.slot]} := ' + str(v{j}))")
            else:
                idx = ", ".join(to_python(x) for x in w.index)
                lines.append(f"p{j} = _slot({w.cell!r}, ({idx},), {w.index_err})")
                lines.append(f"_chk(p{j}, v{j}, {w.range_err})")
        if step.synced and len(writes) > 1:
            pairs = ", ".join(f"(p{j}, v{j})" for j in range(len(writes)))
            lines.append(f"_conflict(({pairs},))")
        if not step.crash and len(writes) == 1 and writes[0].slot is not None:
            k = writes[0].slot
            lines.append(f"out.append(({_n(step)}, s[:{k}] + (v0,) + s[{k + 1}:]))")
            return lines
        lines.append("l = list(s)")
        if step.crash:
            for slot in self.layout.volatile:
                lines.append(f"l[{slot}] = {self.layout.init[slot]}")
        for j in range(len(writes)):
            lines.append(f"l[p{j}] = v{j}")
        lines.append(f"out.append(({_n(step)}, tuple(l)))")
        return lines


def _n(step: Step) -> str:
    return "k"


def _contains(var: str, t: ValueType) -> str:
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
