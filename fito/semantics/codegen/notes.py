"""Comments in generated code: the place each write sets, named as a trace shows it.

`has[gpu][1] := true` for a constant written at constant indices, `write has[gpu][?]` for
a value or an index computed from the state. Made once per group, from the layout alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from fito.lang.resolve.model import ValueType
from fito.semantics.ir import IR
from fito.semantics.rules.step import Write
from fito.semantics.state.layout import Layout


def write_note(w: Write, layout: Layout) -> str:
    """A comment naming the place w writes, and its value when it is a constant."""
    target = _place(w, layout)
    if w.value[0] == "k" and w.loc[0] != "fault":
        return f"# {target} := {w.type.show(w.value[1])}"
    return f"# write {target}"


def reset_note(slot: int, layout: Layout) -> str:
    """A comment naming a store slot a crash resets, and the value it gets."""
    return f"# {layout.names[slot]} := {layout.types[slot].show(layout.init[slot])} (crash)"


def _place(w: Write, layout: Layout) -> str:
    loc = w.loc
    if loc[0] == "c" and loc[1] < len(layout.names):
        return layout.names[loc[1]]
    if loc[0] == "cd":
        cell = layout.cells[loc[1]].cell
        return cell.name + _indices(loc[2], cell.indices)
    if loc[0] == "fault":
        return f"{w.name}: index out of range"
    return w.name + _indices(w.index, _variable_indices(w.name, layout))


def _indices(index: Sequence[IR], types: Sequence[ValueType]) -> str:
    """`[gpu][?]`: constant indices shown in their types (when known), computed ones as ?."""
    out = []
    for k, ir in enumerate(index):
        if ir[0] != "k":
            out.append("[?]")
        elif k < len(types):
            out.append(f"[{types[k].show(ir[1])}]")
        else:
            out.append(f"[{ir[1]}]")
    return "".join(out)


def _variable_indices(name: str, layout: Layout) -> tuple[ValueType, ...]:
    for frame in (layout.frames or {}).values():
        var = frame.vars.get(name)
        if var is not None:
            return var.slots.cell.indices
    return ()
