"""The control skeleton: the finite graph of controls (mode and locations) a spec's compiled
network can be in, found by an explicit search that abstracts the data.

The explicit engine discovers modes and locations as its search goes. Here every control
reachable from the initial one by some transition, whatever its guard, is enumerated once:
from a control, each group of its candidates (`Compiled.group_infos`) lists its transitions
with their target controls (`TransitionInfo.target`). That over-approximates the controls
the data lets a run reach, which is sound for the transition relation built over it (a
transition whose guard never holds adds no edge to a run). A target made from the state
after the step, process variables (regions) and a structure that keeps growing are refused.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from fito.check.symbolic.encode import Unsupported
from fito.semantics.compiled import Compiled, StructureGrows, TransitionInfo

MAX_CONTROLS = 5_000  # more controls than this: refused (the skeleton is enumerated eagerly)

Control = tuple[int, ...]  # (mode, location of each position)


@dataclass(frozen=True, slots=True)
class Edge:
    """One transition from a control: its rank in a state of that control, its descriptor
    and the number of the control after it."""

    rank: int
    info: TransitionInfo
    target: int


@dataclass(frozen=True, slots=True)
class Skeleton:
    """The controls (numbered from 0, the initial one first), the transitions of each in
    rank order, and which controls are the terminated process."""

    controls: tuple[Control, ...]
    edges: tuple[tuple[Edge, ...], ...]
    terminated: tuple[bool, ...]

    def index(self, control: Control) -> int:
        return self.controls.index(control)


def control_skeleton(c: Compiled, root: tuple[int, ...], deadline: float) -> Skeleton:
    """The controls reachable from root's control, ignoring guards and data (Unsupported
    past MAX_CONTROLS or the deadline, `time.monotonic()`: terms that grow at every step,
    which only the data bounds)."""
    if c.region:
        raise Unsupported("process variables (the regions of the compiled network)")
    K = c.cells
    store = root[:K]
    first = tuple(root[K:])
    numbers: dict[Control, int] = {first: 0}
    order: list[Control] = [first]
    edges: list[tuple[Edge, ...]] = []
    done = 0
    try:
        while done < len(order):
            control = order[done]
            done += 1
            c.check_time()
            if time.monotonic() > deadline:
                raise Unsupported(
                    f"a control skeleton that is still growing at {len(order):,} locations "
                    "(terms that grow at every step, bounded only by the data)"
                )
            state = store + control
            out = []
            for g in c.group_infos(state):
                for t in g.transitions:
                    if t.target is None:
                        raise Unsupported("a process call whose arguments read the state")
                    after = _after(control, t.target)
                    n = numbers.get(after)
                    if n is None:
                        if len(order) >= MAX_CONTROLS:
                            raise Unsupported(f"more than {MAX_CONTROLS:,} control locations")
                        n = numbers[after] = len(order)
                        order.append(after)
                    out.append(Edge(t.rank, t, n))
            edges.append(tuple(out))
    except StructureGrows as grows:
        raise Unsupported(grows.message) from None
    terminated = tuple(c.ends_validly(store + ctl) for ctl in order)  # no deadlock there
    return Skeleton(tuple(order), tuple(edges), terminated)


def _after(source: Control, target: tuple[int, ...]) -> Control:
    """The control a target names from a source: entries -(p + 1) keep position p's."""
    mode, *entries = target
    return (mode, *(source[-e] if e < 0 else e for e in entries))
