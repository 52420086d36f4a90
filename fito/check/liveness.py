"""`P |= eventually e` under weak fairness of every process.

A counterexample is a run that never reaches a state satisfying e: either a finite maximal
run (it deadlocks or terminates first) or a lasso whose loop is weakly fair. A process
(thread: a leaf of the parallel structure, named by its path of component indices) that is
enabled in every state of the loop must move in it. So: explore the states where e is false
breadth-first; any dead end is a counterexample; otherwise a strongly connected component of
those states is a fair loop when every thread enabled throughout it moves inside it (weak
fairness is a generalised Büchi condition, decided per component).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from fito.check.explore import stop_reason
from fito.check.options import Limits
from fito.check.result import FAILS, HOLDS, UNKNOWN, ModelError, Verdict
from fito.check.traces.from_states import build_trace
from fito.check.traces.records import DEADLOCK, END, LOOP, MODEL_ERROR, Failure
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_expr
from fito.semantics.compiled import Compiled, Fault, StepFault, TimeLimit


class _Stop(Exception):
    def __init__(self, verdict: Verdict) -> None:
        super().__init__()
        self.verdict = verdict


def check_eventually(c: Compiled, a: A.AssertDecl, text: str, limits: Limits) -> Verdict:
    assert a.expr is not None
    proc = a.proc if a.proc is not None else c.model.system
    assert proc is not None
    goal = c.predicate(a.expr)
    try:
        return _check(c, a, text, limits, c.initial(proc), goal)
    except _Stop as stop:
        return stop.verdict
    except TimeLimit:
        return Verdict(
            text,
            a.span.line,
            UNKNOWN,
            reason=f"timeout after {limits.timeout:g} s",
            limit_hit=True,
            engine="liveness",
        )


def _check(c: Compiled, a: A.AssertDecl, text: str, limits: Limits, root: tuple, goal) -> Verdict:
    proc = a.proc if a.proc is not None else c.model.system
    assert proc is not None and a.expr is not None
    shown = print_expr(a.expr)
    states = [root]
    index = {root: 0}
    parent, via = [-1], [-1]
    edges: list[list[tuple[int, int, frozenset]]] = []  # per state: (step, target, movers)
    enabled: list[frozenset] = []  # per state: threads that can move
    transitions = 0

    def verdict(kind: str, **kw: object) -> Verdict:
        return Verdict(text, a.span.line, kind, len(states), transitions, engine="liveness", **kw)  # type: ignore[arg-type]

    def path(sid: int) -> list[tuple[int, int]]:
        out = []
        while parent[sid] >= 0:
            out.append((parent[sid], via[sid]))
            sid = parent[sid]
        return out[::-1]

    def run(steps: Iterable[tuple[int, int]], failure: Failure) -> dict[str, object]:
        got = build_trace(
            c,
            proc,
            [(states[s], k) for s, k in steps],
            failure,
            a.expr if failure.kind != MODEL_ERROR else None,
        )
        return {"trace": got.labels, "run": got}

    def error(fault: Fault, steps: list[tuple[int, int]]) -> Verdict:
        code, message, span = c.error_site(fault)
        reason = f"model error [{code}]: {message}"
        failure = Failure(MODEL_ERROR, reason, code=code, line=span.line, column=span.column)
        return verdict(FAILS, reason=reason, error=ModelError(message, span), **run(steps, failure))

    try:
        if goal(root):
            return verdict(HOLDS)
    except Fault as f:
        return error(f, [])
    i = 0
    while i < len(states):
        here = states[i]
        try:
            moves = c.successors(here)
        except StepFault as e:
            return error(e.fault, path(i) + ([(i, e.step)] if e.step is not None else []))
        except TimeLimit:
            return verdict(UNKNOWN, reason=f"timeout after {limits.timeout:g} s", limit_hit=True)
        transitions += len(moves)
        if not moves:
            what = "terminates" if c.is_terminated(here) else "deadlocks"
            reason = f"the run {what} before reaching a state where the expression holds"
            failure = Failure(END if c.is_terminated(here) else DEADLOCK, reason, expression=shown)
            return verdict(FAILS, reason=reason, **run(path(i), failure))
        mine: list[tuple[int, int, frozenset]] = []
        threads: set = set()
        for k, post in moves:
            movers = c.step(here, k).movers
            threads |= movers
            try:
                if goal(post):
                    continue
            except Fault as f:
                return error(f, path(i) + [(i, k)])
            j = index.get(post)
            if j is None:
                if limits.max_states is not None and len(states) >= limits.max_states:
                    return verdict(  # exact: never more than N states
                        UNKNOWN, reason=f"more than {limits.max_states:,} states", limit_hit=True
                    )
                j = index[post] = len(states)
                states.append(post)
                parent.append(i)
                via.append(k)
                stop = stop_reason(c.deadline, limits) if len(states) & 1023 == 0 else None
                if stop is not None:  # the deadline, --max-memory
                    return verdict(UNKNOWN, reason=stop, limit_hit=True)
            mine.append((k, j, movers))
        edges.append(mine)
        enabled.append(frozenset(threads))
        i += 1
    loop = _fair_loop(edges, enabled)
    if loop is None:
        return verdict(HOLDS)
    entry, cycle = loop
    stem = path(entry)
    reason = (
        f"a weakly fair loop avoids the expression forever: transitions "
        f"{len(stem) + 1} to {len(stem) + len(cycle)} repeat"
    )
    failure = Failure(LOOP, reason, expression=shown, loop_start=len(stem) + 1)
    return verdict(FAILS, reason=reason, **run(stem + cycle, failure))


def _fair_loop(
    edges: list[list[tuple[int, int, frozenset]]], enabled: list[frozenset]
) -> tuple[int, list[tuple[int, int]]] | None:
    """The entry state and the steps of a fair cycle, or None (components by Tarjan,
    iteratively)."""
    best: tuple[int, list[tuple[int, int]]] | None = None
    for comp in _components(edges):
        members = set(comp)
        inner = [(s, k, t, m) for s in comp for k, t, m in edges[s] if t in members]
        if not inner:
            continue
        always = frozenset.intersection(*(enabled[s] for s in comp))
        moved = frozenset().union(*(m for _, _, _, m in inner))
        if not always <= moved:
            continue  # some thread is enabled throughout and never moves: unfair
        entry = min(comp)
        cycle = _cover(entry, inner, [m for m in always])
        if best is None or entry < best[0]:
            best = (entry, cycle)
    return best


def _cover(
    entry: int, inner: list[tuple[int, int, int, frozenset]], threads: list
) -> list[tuple[int, int]]:
    """A cycle from entry through one move of each thread in `threads`, back to entry."""
    succ: dict[int, list[tuple[int, int, frozenset]]] = {}
    for s, k, t, m in inner:
        succ.setdefault(s, []).append((k, t, m))
    cycle: list[tuple[int, int]] = []
    here = entry
    for thread in sorted(threads, key=repr):
        if any(
            thread in m for _, _, _, m in [(s, k, t, m) for s, k, t, m in inner if (s, k) in cycle]
        ):
            continue
        target = next((s, k, t) for s, k, t, m in inner if thread in m)
        cycle += _walk(succ, here, target[0])
        cycle.append((target[0], target[1]))
        here = target[2]
    if here != entry or not cycle:
        if not cycle:
            s, k, t, _ = next(x for x in inner if x[0] == entry)
            cycle.append((s, k))
            here = t
        cycle += _walk(succ, here, entry)
    return cycle


def _walk(
    succ: dict[int, list[tuple[int, int, frozenset]]], start: int, goal: int
) -> list[tuple[int, int]]:
    """Shortest steps from start to goal inside a component (BFS)."""
    if start == goal:
        return []
    prev: dict[int, tuple[int, int]] = {start: (-1, -1)}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        for k, t, _ in succ.get(s, ()):
            if t not in prev:
                prev[t] = (s, k)
                if t == goal:
                    out = []
                    while t != start:
                        ps, pk = prev[t]
                        out.append((ps, pk))
                        t = ps
                    return out[::-1]
                queue.append(t)
    raise AssertionError("not strongly connected")


def _components(edges: list[list[tuple[int, int, frozenset]]]) -> list[list[int]]:
    """Strongly connected components (iterative Tarjan)."""
    n = len(edges)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, i = work[-1]
            if i < len(edges[v]):
                work[-1] = (v, i + 1)
                w = edges[v][i][1]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out
