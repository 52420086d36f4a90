"""A step, the value the rules make: a transition schema of one term, and its writes.

A step fires in every state where its guard holds, performs its checks and writes (reading
the state before the step), and leads to its target term (fito/semantics/rules/steps.py
makes them; the code generators, fito/semantics/codegen/, turn them into Python).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fito.lang.resolve.model import ValueType
from fito.semantics.ir import IR

EVENT, TAU, TICK = 0, 1, 2
ASSERT, EVAL = "assert", "eval"  # kinds of checks besides a value type


@dataclass(frozen=True, slots=True)
class Write:
    """`loc := value`, evaluated on the state before the step. `loc` is a read IR of the
    place: ("c", slot), ("cd", key, indices, err), ("r", j), ("rd", ...) or ("fault", ...)."""

    loc: IR
    value: IR
    type: ValueType
    range_err: int
    name: str  # the cell or variable, for labels
    index: tuple[IR, ...] = ()  # its indices as written, for labels


@dataclass(frozen=True, slots=True)
class Step:
    """One transition schema of a term: guard, checks, writes and target."""

    kind: int  # EVENT, TAU or TICK
    channel: str | None  # for events, and for hidden events (shown as tau)
    fields: tuple[IR, ...]  # field values of the event
    guard: tuple[IR, ...]  # all must hold
    writes: tuple[Write, ...]
    crash: bool  # a crash event: volatile state reset first
    target: object  # a term id, or a Deferred (needs the state after the step)
    hidden: bool = False
    # what taking the step evaluates, in order: (value, type, err) checks a value against a
    # type; (b, ASSERT, err) requires b; (e, EVAL, err) evaluates e for its errors
    checks: tuple[tuple[IR, object, int], ...] = ()
    synced: bool = False  # writes of several processes: check for conflicts
    movers: frozenset = frozenset({()})  # threads that move: paths of component indices
    parts: frozenset = frozenset()  # components of the configuration that take part (network.py)
    conflict: bool = False  # two writes may hit one place: check they agree (M008)
    fault: tuple[int, str] | None = None  # taking the step is this model error (its target)
    label: tuple | None = None  # ("send"|"recv", chan, indices, fields), ("assert", text),
    # ("atomic",): how a trace shows the step


def may_collide(writes: Sequence[Write]) -> bool:
    """Whether two writes of one block may hit one place (a loop, or computed indices)."""
    seen: dict[str, set] = {}
    for w in writes:
        places = seen.setdefault(w.loc[1] if w.loc[0] in ("cd", "rd") else w.name, set())
        key = w.loc if w.loc[0] in ("c", "r") else None
        if places and (key is None or None in places or key in places):
            return True
        places.add(key)
    return False
