"""The state graph of a process of a spec, as plain data: the one seam between the models'
counting engines (`fito.models.bilateral_count`) and the checker's state-graph builder.

`fito.check.api` answers assertions (verdicts, counts, traces) but has no entry point for
the whole labelled transition system that `fito lts` exports; until it has one, this module
is the only place outside `fito/check/` that calls the builder and reads the checker's state
representation (flat tuples: cells, then control). Everything it returns is named: cells by
their spec names, transitions by their event labels.
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
    width = compiled.cells
    values = tuple(tuple(int(v) for v in s[:width]) for s in lts.states)
    return StateGraph(tuple(compiled.layout.names), values, lts.edges)
