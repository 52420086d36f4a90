"""The state graph of a process of a spec, as plain data (exported by `fito.check.api`).

The whole labelled transition system that `fito lts` exports, for engines outside the
checker that count over it (`fito.models.bilateral_count`): states as the values of the
named cells, transitions by their event labels. Nothing of the checker's own state
representation (flat tuples: store, control, process variables) leaves this module.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StateGraph:
    """Every state reachable from the process (state 0 is the start) and every transition."""

    cells: tuple[str, ...]                       # cell names, e.g. "got[0]"
    values: tuple[tuple[int, ...], ...]          # the cells of each state, in `cells` order
    edges: tuple[tuple[int, str, int], ...]      # (source, event label, target)

    def cell(self, state: int, name: str) -> int:
        """The value of the named cell in a state."""
        return self.values[state][self.cells.index(name)]


class GraphError(Exception):
    """The spec does not resolve, or its graph has more states than the limit."""


Arg = bool | int | str


def state_graph(text: str, process: str, args: tuple[Arg, ...], limit: int) -> StateGraph:
    """The graph of the call `process(args)` (a bool, an int, or a constant's name each) in
    the spec `text`; GraphError past `limit` states."""
    from fito.check.lts import TooLarge, build_lts
    from fito.driver import front_end
    from fito.lang import nodes as A
    from fito.semantics.compiled import compile_model

    def literal(a: Arg) -> A.Expr:
        if isinstance(a, bool):
            return A.BoolLit(a)
        return A.IntLit(a) if isinstance(a, int) else A.Name(a)

    _, model, diagnostics = front_end(text)
    errors = [d for d in diagnostics if d.is_error]
    if model is None or errors:
        raise GraphError(f"the spec does not resolve: {errors[:1]}")
    compiled = compile_model(model)
    try:
        root = compiled.initial(A.ProcRef(process, tuple(literal(a) for a in args)))
        lts = build_lts(compiled, root, limit)
    except TooLarge:
        raise GraphError(f"more than {limit:,} states") from None
    names = tuple(compiled.layout.names)
    values = tuple(tuple(int(v) for v in s[:len(names)]) for s in lts.states)
    return StateGraph(names, values, lts.edges)
