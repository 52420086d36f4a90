"""What the terms need to know of the program: the names a node reads (a closure keeps the
values of those alone), and the calls of a definition that loop (they keep its activation
of process variables; docs/semantics.md, "Process variables")."""

from __future__ import annotations

from fito.lang import nodes as A


def names_read(node: object, memo: dict[int, frozenset[str]] | None = None) -> frozenset[str]:
    """Every name a node reads and does not bind itself (binders, inputs). Composed from its
    children's names, each node once with a shared `memo` (by node id): the names of every
    suffix of a prefix chain cost linear time, not quadratic."""
    memo = {} if memo is None else memo
    got = memo.get(id(node))
    if got is None:
        got = memo[id(node)] = _read(node, memo)
    return got


def _read(n: object, memo: dict[int, frozenset[str]]) -> frozenset[str]:
    if isinstance(n, A.Name):
        return frozenset((n.id,))
    if isinstance(n, (A.Quant, A.Replicated, A.AssignLoop, A.Let)):
        own = {n.var} if isinstance(n, A.Replicated) and n.op == "||" else set()
        return (
            names_read(getattr(n, "domain", None), memo)
            | names_read(getattr(n, "value", None), memo)
            | (names_read(getattr(n, "sync", ()), memo) - own)
            | (names_read(n.body, memo) - {n.var})
        )
    if isinstance(n, A.Prefix):
        return _read_prefix(n, memo)
    if isinstance(n, tuple):
        return frozenset().union(*(names_read(x, memo) for x in n))
    if hasattr(n, "__slots__"):
        return frozenset().union(
            *(
                names_read(getattr(n, name), memo)
                for name in n.__slots__
                if name not in ("span", "name_span", "name_spans")
            )
        )
    return frozenset()


def _read_prefix(n: A.Prefix, memo: dict[int, frozenset[str]]) -> frozenset[str]:
    """Input variables bind the later fields, the assignments and the body; a field's
    restriction reads only the names outside the prefix."""
    out: set[str] = set()
    bound: set[str] = set()
    for f in n.event.fields if n.event else ():
        if isinstance(f, A.InField):
            out |= names_read(f.restriction, memo)
            bound.add(f.var)
        else:
            out |= names_read(f.value, memo) - bound
    out |= (names_read(n.assigns, memo) | names_read(n.body, memo)) - bound
    return frozenset(out)
