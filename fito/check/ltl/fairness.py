"""Fairness: which infinite runs count (docs/ltl.md).

An assumption is weak (a run that from some point on has a transition of the set enabled
in every state takes one infinitely often) or strong (a run that has one enabled
infinitely often takes one infinitely often), about one set of transitions: those of a
process (a thread of the system that some transition moves), those of a set of events,
or, for `weak` / `strong` written alone, each process separately (the threads are found as
the search meets them).

A complete strongly connected component of the product contains a fair accepting cycle
exactly when, after the refinement of Emerson and Lei ("Modalities for model checking",
1987) for strong fairness, some part of it is still cyclic, carries every acceptance set,
and for each weak set either takes it or has a state where it is disabled. The refinement:
a strong set enabled in the component and never taken inside it cannot be enabled on a fair
cycle, so the states enabling it are removed and the rest split into components again.
Weak sets need no refinement: a cycle through every state and edge of the component is fair
for them whenever any cycle inside is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fito.check.ltl.emptiness import Accepting, Edge, Goal
from fito.check.ltl.product import (
    STUTTER,
    EventKey,
    Key,
    Product,
    Succ,
    decode,
    event_matcher,
    step_event,
)
from fito.check.traces.from_states import thread_names
from fito.lang import nodes as A
from fito.lang import temporal as T
from fito.lang.printer.canonical import print_event_set, print_proc
from fito.semantics.compiled import Compiled

Member = Callable[[frozenset, object], bool]  # (movers, event) -> is the transition in the set


@dataclass(frozen=True, slots=True)
class Assumption:
    """One fairness assumption: weak or strong, about a set (None: each process alone)."""

    strong: bool
    member: Member | None
    text: str  # as the report names it: "weak fairness of every process", ...


class Refused(Exception):
    """An assumption names what the model does not have (the reason, with its code)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(slots=True)
class _Facts:
    """What the assumptions need to know of the states and edges of a component."""

    enabled: dict[Key, tuple[frozenset, int]]  # per state: threads enabled, fixed sets enabled
    inner: dict[Key, list[tuple[Succ, frozenset, int]]]  # edges inside: threads moved, sets


class Judge:
    """Decides complete components (emptiness.search's `judge`)."""

    def __init__(self, p: Product, assumptions: tuple[Assumption, ...]) -> None:
        self.p = p
        self.fixed = [a for a in assumptions if a.member is not None]
        self.each = [a for a in assumptions if a.member is None]

    def __call__(self, members: list[Key]) -> Accepting | None:
        order = {k: i for i, k in enumerate(members)}  # the search's order: deterministic
        todo = [frozenset(members)]
        every = self.p.aut.all_sets
        while todo:
            comp = todo.pop()
            facts = self._facts(comp)
            if not any(facts.inner.values()):
                continue
            acc = 0
            for edges in facts.inner.values():
                for (_, a, _), _, _ in edges:
                    acc |= a
            if acc != every or not self._weak_ok(comp, facts):
                continue
            drop = self._strong_drop(comp, facts)
            if not drop:
                return Accepting(comp, facts.inner, self._goals(facts))
            rest = comp - drop
            succ = {k: [e[0][0] for e in facts.inner[k]] for k in rest}
            todo.extend(components(rest, succ, order))
        return None

    def _facts(self, comp: frozenset[Key]) -> _Facts:
        c, p = self.p.c, self.p
        enabled: dict[Key, tuple[frozenset, int]] = {}
        inner: dict[Key, list[tuple[Succ, frozenset, int]]] = {}
        info: dict[tuple[tuple[int, ...], int], tuple[frozenset, int]] = {}
        for i, key in enumerate(comp):
            if i & 1023 == 1023:
                c.check_time()  # TimeLimit: the verdict is unknown
            s = decode(key)[0]
            threads: set = set()
            sets = 0
            for k, _ in p.moves(s):
                movers, event = step_event(c, s, k)
                bits = self._bits(movers, event)
                info[(s, k)] = (movers, bits)
                threads |= movers
                sets |= bits
            enabled[key] = (frozenset(threads), sets)
            inner[key] = [(e, *info[(s, e[2])]) for e in p.successors(key) if e[0] in comp]
        return _Facts(enabled, inner)

    def _goals(self, facts: _Facts) -> tuple[Goal, ...]:
        """What a fair cycle through the component must do: per weak set, take it or pass a
        state where it is disabled; per strong set enabled in the component, take it."""
        goals: list[Goal] = []
        some_sets = 0
        some: set = set()
        for threads, sets in facts.enabled.values():
            some_sets |= sets
            some |= threads
        en = facts.enabled
        for i, a in enumerate(self.fixed):
            b = 1 << i
            if a.strong and some_sets & b:
                goals.append(_takes_set(b, None))
            elif not a.strong:
                goals.append(_takes_set(b, en))
        for a in self.each:
            for t in sorted(some):
                goals.append(_moves_thread(t, None if a.strong else en))
        return tuple(goals)

    def _bits(self, movers: frozenset, event: object) -> int:
        return sum(1 << i for i, a in enumerate(self.fixed) if a.member(movers, event))  # type: ignore[misc]

    def _weak_ok(self, comp: frozenset[Key], facts: _Facts) -> bool:
        taken_sets = 0
        moved: set = set()
        for edges in facts.inner.values():
            for _, movers, bits in edges:
                taken_sets |= bits
                moved |= movers
        always_sets = -1
        always: frozenset | None = None
        for threads, sets in facts.enabled.values():
            always_sets &= sets
            always = threads if always is None else always & threads
        for i, a in enumerate(self.fixed):
            if not a.strong and always_sets >> i & 1 and not taken_sets >> i & 1:
                return False
        if any(not a.strong for a in self.each) and always and not always <= moved:
            return False
        return True

    def _strong_drop(self, comp: frozenset[Key], facts: _Facts) -> frozenset[Key]:
        """The states enabling a strong set that the component never takes."""
        taken_sets = 0
        moved: set = set()
        for edges in facts.inner.values():
            for _, movers, bits in edges:
                taken_sets |= bits
                moved |= movers
        bad = sum(1 << i for i, a in enumerate(self.fixed) if a.strong) & ~taken_sets
        strong_each = any(a.strong for a in self.each)
        drop = set()
        for key, (threads, sets) in facts.enabled.items():
            if sets & bad or (strong_each and not threads <= moved):
                drop.add(key)
        return frozenset(drop)


Enabled = dict[Key, tuple[frozenset, int]]


def _takes_set(b: int, enabled: Enabled | None) -> Goal:
    """An edge of fixed set b (or, given what is enabled, one leaving a state where it is not)."""

    def goal(k: Key, e: Edge) -> bool:
        return bool(e[2] & b) or (enabled is not None and not enabled[k][1] & b)

    return goal


def _moves_thread(t: object, enabled: Enabled | None) -> Goal:
    """An edge moving thread t (or, given what is enabled, one leaving a state where it cannot)."""

    def goal(k: Key, e: Edge) -> bool:
        return t in e[1] or (enabled is not None and t not in enabled[k][0])

    return goal


def components(
    nodes: frozenset[Key], succ: dict[Key, list[Key]], order: dict[Key, int]
) -> list[frozenset[Key]]:
    """The strongly connected components of a graph that have an edge (iterative Tarjan,
    roots taken in `order`)."""
    succ = {v: [w for w in succ.get(v, ()) if w in nodes] for v in nodes}
    index: dict[Key, int] = {}
    low: dict[Key, int] = {}
    stack: list[Key] = []
    on: set[Key] = set()
    out: list[frozenset[Key]] = []
    for root in sorted(nodes, key=order.__getitem__):
        if root in index:
            continue
        work = [(root, 0)]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, i = work[-1]
            nxt = succ[v]
            if i < len(nxt):
                work[-1] = (v, i + 1)
                w = nxt[i]
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, 0))
                elif w in on:
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
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                cs = frozenset(comp)
                if len(comp) > 1 or v in succ[v]:
                    out.append(cs)
    return out


def build_assumptions(
    c: Compiled, proc: A.Proc, fairness: tuple[T.Fairness, ...]
) -> tuple[Assumption, ...]:
    """The assumptions of an ltl assertion (Refused: a process it names is not there)."""
    out: list[Assumption] = []
    threads: list[tuple[str, tuple[int, ...]]] | None = None
    for f in fairness:
        strong = f.kind == T.STRONG
        if not f.targets:
            out.append(Assumption(strong, None, f"{f.kind} fairness of every process"))
            continue
        for target in f.targets:
            if isinstance(target, A.EventSet):
                shown = f"{f.kind} fairness of {print_event_set(target)}"
                out.append(
                    Assumption(
                        strong,
                        _of_events(event_matcher(c, target)),
                        shown,
                    )
                )
                continue
            if threads is None:
                threads = thread_names(c, proc)
            name = print_proc(target)
            paths = [path for n, path in threads if n == name]
            if not paths:
                known = ", ".join(dict.fromkeys(n for n, _ in threads))
                where = f"no process of {print_proc(proc)} is called {name} at the start"
                raise Refused(f"[M302] {where} (its processes: {known})")
            out.append(Assumption(strong, _moves_any(paths), f"{f.kind} fairness of {name}"))
    return tuple(out)


def _of_events(match: Callable[[EventKey | None], bool]) -> Member:
    def member(movers: frozenset, event: object) -> bool:
        return match(event)  # type: ignore[arg-type]

    return member


def _moves_any(paths: list[tuple[int, ...]]) -> Member:
    def member(movers: frozenset, event: object) -> bool:
        return any(m[: len(p)] == p for m in movers for p in paths)

    return member


def is_fair(
    c: Compiled, assumptions: tuple[Assumption, ...], cycle: list[tuple[tuple[int, ...], int]]
) -> bool:
    """Whether a cycle of model steps (state, rank), repeated forever, is fair."""
    enabled: list[tuple[frozenset, list[tuple[frozenset, EventKey | None]]]] = []
    taken: list[tuple[frozenset, EventKey | None]] = []
    for s, k in cycle:
        moves = [step_event(c, s, r) for r, _ in (c.successors(s) or [(STUTTER, s)])]
        enabled.append((frozenset().union(*(m for m, _ in moves)), moves))
        taken.append(step_event(c, s, k))
    for a in assumptions:
        if a.member is None:
            threads = frozenset().union(*(t for t, _ in enabled))
            for t in threads:
                on = [t in en for en, _ in enabled]
                if (all(on) or (a.strong and any(on))) and not any(t in m for m, _ in taken):
                    return False
            continue
        member = a.member
        on = [any(member(m, e) for m, e in moves) for _, moves in enabled]
        if (all(on) or (a.strong and any(on))) and not any(member(m, e) for m, e in taken):
            return False
    return True
