"""The reference interpreter's store: cells, buffers and live activations.

A state of the reference is *(term, store)*. The store holds every cell (a flat tuple laid out
as the cells are declared), the contents of every buffered channel (a tuple of messages, the
oldest first) and the activations of process definitions with variables (docs/semantics.md,
"Process variables"). A term refers to an activation by its index, written `("@act", k)` in
the environments of the closures made inside that definition's body. After every transition
`canonical` drops the activations no part of the term refers to and renumbers the others in
the order in which a left-to-right walk of the term meets them, so that two states that differ
only in how activations are numbered are one state.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any

from fito.lang.resolve.model import Model, ValueType, Variable

ACT = "@act"  # the environment key of the current activation (no name contains '@')
DEF = "@def"  # ... and of its definition (an index into Evaluator.proc_names)


class RefFault(Exception):
    """A model error (the message names it)."""


@dataclass(frozen=True)
class Act:
    """One activation: the definition, its variables' initial and current values."""

    proc: str
    init: tuple[int, ...]
    vals: tuple[int, ...]


@dataclass(frozen=True)
class Store:
    cells: tuple[int, ...]
    bufs: tuple[tuple[tuple[int, ...], ...], ...]
    acts: tuple[Act, ...] = ()


#: ("c", slot) a cell, ("l", activation, slot) a process variable, ("v", name, type) a `var`
#: parameter (it lives in the environment of the terms that follow, not in the store)
Loc = tuple


@dataclass(frozen=True)
class Frame:
    """How one definition's variables are laid out in its activations."""

    slots: dict[str, tuple[int, tuple[ValueType, ...]]]  # name -> (offset, index types)
    types: tuple[ValueType, ...]  # per slot
    durable: tuple[bool, ...]  # per slot
    variables: tuple[Variable, ...]

    def slot(self, name: str, idx: tuple[int, ...]) -> int | None:
        """The slot of name[idx...], or None when an index is outside its type."""
        offset, index_types = self.slots[name]
        return _row_major(offset, idx, index_types)


def _row_major(offset: int, idx: tuple[int, ...], types: tuple[ValueType, ...]) -> int | None:
    pos = 0
    for v, t in zip(idx, types):
        values = t.values()
        if v not in values:
            return None
        pos = pos * len(values) + values.index(v)
    return offset + pos


def frames_of(model: Model) -> dict[str, Frame]:
    """The frame of every definition that has variables."""
    out: dict[str, Frame] = {}
    for proc, all_variables in model.variables.items():
        variables = tuple(v for v in all_variables if v.init is not None)  # not `var` params
        if not variables:
            continue
        slots: dict[str, tuple[int, tuple[ValueType, ...]]] = {}
        types: list[ValueType] = []
        durable: list[bool] = []
        for v in variables:
            slots[v.name] = (len(types), v.indices)
            n = 1
            for t in v.indices:
                n *= len(t.values())
            types.extend([v.type] * n)
            durable.extend([v.durable] * n)
        out[proc] = Frame(slots, tuple(types), tuple(durable), variables)
    return out


def index_combos(types: tuple[ValueType, ...]) -> list[tuple[int, ...]]:
    """Every index tuple of an array, row-major."""
    return list(itertools.product(*(t.values() for t in types)))


def write(store: Store, loc: Loc, value: int) -> Store:
    """The store with one location changed."""
    if loc[0] == "c":
        cells = list(store.cells)
        cells[loc[1]] = value
        return replace(store, cells=tuple(cells))
    _, k, slot = loc
    act = store.acts[k]
    vals = list(act.vals)
    vals[slot] = value
    acts = list(store.acts)
    acts[k] = replace(act, vals=tuple(vals))
    return replace(store, acts=tuple(acts))


# ---------------------------------------------------------------------- canonical states
def canonical(term: tuple, store: Store) -> tuple[tuple, Store]:
    """Drop the activations the term does not refer to; number the rest in order of
    first reference (a depth-first, left-to-right walk of the term)."""
    if not store.acts:
        return term, store
    order: dict[int, int] = {}
    _collect(term, order)
    if list(order) == list(range(len(store.acts))):
        return term, store
    acts = [None] * len(order)
    for old, new in order.items():
        acts[new] = store.acts[old]  # type: ignore[call-overload]
    return _renumber(term, order), replace(store, acts=tuple(acts))  # type: ignore[arg-type]


def _collect(t: Any, order: dict[int, int]) -> None:
    stack = [t]
    while stack:
        x = stack.pop()
        if type(x) is tuple:
            if len(x) == 2 and x[0] == ACT:
                order.setdefault(x[1], len(order))
            else:
                stack.extend(reversed(x))


def _renumber(t: Any, order: dict[int, int]) -> Any:
    if type(t) is not tuple:
        return t
    if len(t) == 2 and t[0] == ACT:
        return (ACT, order[t[1]])
    return tuple(_renumber(x, order) for x in t)
