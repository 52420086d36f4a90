"""Interleavings and mixed recoveries of the reflect-then-commit protocol, from fito's state graph.

`count(k, mode)` builds the labelled transition system that fito's checker explores for
`fito.models.epochs.bilateral.spec(k, epochs=1)` (one epoch written, crashes unbounded; through
`fito.check.verdicts`) and walks it:

- the *protocol graph*: the states reached from the start by write, reflect and commit
  events alone; it is acyclic, and its paths from the start to the commit are the
  crash-free interleavings of the epoch;
- the *crash points*: its states (in each, the crash transition is enabled);
- a crash point's *recovery*: the crash transition, then the restore events up to the last
  domain; the epochs restored are mixed or not;
- a *crash run*: an interleaving and a crash point on it (counted as paths to the point
  times paths from it to the commit).

`predicted(k, mode)` gives the same numbers from the phase vectors in closed form
(docs/bilateral.md); the tests and proofs/paper_a.py compare the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb, factorial

from fito.models.epochs.bilateral import spec
from fito.pipeline import GraphError, StateGraph, state_graph

MODES = ("bilateral", "latest")
PROTOCOL_EVENTS = ("write.", "reflect.", "commit.")
LIMIT = 500_000


@dataclass(frozen=True, slots=True)
class Counts:
    """What the walk finds for k domains and one recovery rule."""

    k: int
    mode: str
    states: int | None  # states of the whole graph, crashes and recoveries included
    # (None: a closed form, which does not count them)
    interleavings: int  # crash-free paths from the start to the commit
    crash_points: int  # states of those paths
    crash_runs: int  # (interleaving, crash point on it) pairs
    mixed_points: int  # crash points whose recovery restores mixed epochs
    mixed_runs: int  # crash runs whose recovery restores mixed epochs


def graph(k: int, mode: str) -> StateGraph:
    """The state graph of `Node(mode, false)` in the one-epoch spec."""
    if mode not in MODES:
        raise ValueError(f"the recovery must be one of {', '.join(MODES)}, not {mode!r}")
    try:
        return state_graph(spec(k, epochs=1), "Node", (mode, False), LIMIT)
    except GraphError as exc:
        raise ValueError(f"the generated spec: {exc}") from None


Adjacency = dict[int, list[tuple[str, int]]]


def adjacency(g: StateGraph) -> Adjacency:
    """state -> [(label, target)] for every transition of the graph."""
    out: Adjacency = {}
    for a, label, b in g.edges:
        out.setdefault(a, []).append((label, b))
    return out


def is_protocol(label: str) -> bool:
    """A write, reflect or commit event."""
    return label.startswith(PROTOCOL_EVENTS)


def topological(start: int, succ: Adjacency) -> list[int]:
    """The states reachable from start by protocol events, sources first; ValueError on a cycle."""
    order: list[int] = []
    mark = {start: "open"}
    stack = [(start, iter(b for label, b in succ.get(start, ()) if is_protocol(label)))]
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            mark[node] = "done"
            order.append(node)
        elif mark.get(nxt) == "open":
            raise ValueError("the protocol graph has a cycle")
        elif nxt not in mark:
            mark[nxt] = "open"
            stack.append((nxt, iter(b for label, b in succ.get(nxt, ()) if is_protocol(label))))
    return order[::-1]


def _only(succ: Adjacency, state: int, prefix: str) -> int:
    """The one target of a transition whose label starts with prefix."""
    found = [b for label, b in succ.get(state, ()) if label.startswith(prefix)]
    if len(found) != 1:
        raise ValueError(f"state {state}: {len(found)} transitions {prefix}*, expected one")
    return found[0]


def recovery(g: StateGraph, succ: Adjacency, k: int, point: int) -> tuple[int, ...]:
    """The epochs restored when a crash strikes at `point`: the crash, then each restore
    (got[d] is the ghost each restore writes)."""
    state = _only(succ, point, "crash")
    for d in range(k):
        state = _only(succ, state, f"restore.{d}.")
    return tuple(g.cell(state, f"got[{d}]") for d in range(k))


def path_counts(order: list[int], succ: Adjacency) -> tuple[dict[int, int], dict[int, int]]:
    """Protocol paths from the start to each state, and from each state to a commit."""
    to = {s: 0 for s in order}
    to[order[0]] = 1
    for s in order:
        for label, b in succ.get(s, ()):
            if is_protocol(label):
                to[b] += to[s]
    frm: dict[int, int] = {}
    for s in reversed(order):
        moves = [(label, b) for label, b in succ.get(s, ()) if is_protocol(label)]
        frm[s] = 1 if not moves else sum(frm[b] for _, b in moves)
    return to, frm


def count(k: int, mode: str = "bilateral") -> Counts:
    """Walk the state graph of k domains under the given recovery rule."""
    g = graph(k, mode)
    succ = adjacency(g)
    order = topological(0, succ)
    ends = [s for s in order if not any(is_protocol(label) for label, _ in succ.get(s, ()))]
    commits = {b for s in order for label, b in succ.get(s, ()) if label.startswith("commit.")}
    if set(ends) != commits:
        raise ValueError("a crash-free run ends elsewhere than at a commit")
    to, frm = path_counts(order, succ)
    mixed = [s for s in order if len(set(recovery(g, succ, k, s))) > 1]
    return Counts(
        k,
        mode,
        len(g.values),
        sum(to[s] for s in ends),
        len(order),
        sum(to[s] * frm[s] for s in order),
        len(mixed),
        sum(to[s] * frm[s] for s in mixed),
    )


def predicted(k: int, mode: str = "bilateral") -> Counts:
    """The same numbers in closed form, from the phase vectors (docs/bilateral.md).

    Before the commit a domain is in phase 0 (nothing written), 1 (written) or 2 (reflected):
    3^k vectors, plus the committed state. A vector with a domains in phase 1 and b in phase
    2 is reached by i!/2^b paths (i = a + 2b events, each domain's in order) and leads to the
    commit by (2k - i)!/2^(k-a-b). The naive recovery is mixed exactly when some but not all
    domains wrote (1 <= a + b <= k - 1); the bilateral one never is."""
    if mode not in MODES:
        raise ValueError(f"the recovery must be one of {', '.join(MODES)}, not {mode!r}")
    runs_total = mixed_points = mixed_runs = 0
    for a in range(k + 1):
        for b in range(k + 1 - a):
            i, vectors = a + 2 * b, comb(k, a) * comb(k - a, b)
            runs = vectors * factorial(i) // 2**b * factorial(2 * k - i) // 2 ** (k - a - b)
            runs_total += runs
            if mode == "latest" and 1 <= a + b <= k - 1:
                mixed_points += vectors
                mixed_runs += runs
    interleavings = factorial(2 * k) // 2**k
    return Counts(
        k, mode, None, interleavings, 3**k + 1, runs_total + interleavings, mixed_points, mixed_runs
    )
