"""The one seam between the explicit-state engine and the reports: `build_trace`.

It turns a run of the engine (flat states and transition ranks, fito/semantics/compiled.py)
into a `fito.check.traces.records` value, which holds names and shown values only.
Everything engine-specific about traces is here: replaying a step to get the state after
it, naming the processes that moved (mover paths through the parallel structure of the
term, mapped to the process declaration whose prefix made the step), and, in a deadlock,
what each process waits for. A new engine re-implements this module with the same
signature and leaves the reports alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from fito.check.traces.records import (
    ASSIGN,
    DEADLOCK,
    EVENT,
    HIDDEN,
    OTHER,
    TAU,
    TICK,
    CellInfo,
    Cells,
    Failure,
    Trace,
    TraceStep,
    Waiting,
)
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_proc
from fito.lang.resolve.model import EnumT, ValueType
from fito.semantics import compiled as S
from fito.semantics.compiled import Compiled, StateLayout, StepFault

Transition = tuple[tuple, int]  # the state a step leaves (cells, then control), its rank


def build_trace(
    c: Compiled,
    proc: A.Proc,
    path: Sequence[Transition],
    failure: Failure,
    expr: A.Expr | None = None,
) -> Trace:
    """The trace of `path` (the transitions from the initial state of `proc`, in order).

    `failure` says what the run shows; its state-dependent parts are filled in here: the
    cells that `expr` reads in the last state, and, for a deadlock, what each process of
    the last state waits for. A last step whose effect raises a model error is marked
    `failed` and leaves the state as it was."""
    layout = c.layout
    names = _Names(c, print_proc(proc))
    initial = _split(c, c.initial(proc))
    before = _shown(layout, initial[1])
    steps: list[TraceStep] = []
    whos: list[list[_Who | str]] = []
    end: tuple[int, tuple] = initial
    for i, (state, k) in enumerate(path, 1):
        tid, cells = _split(c, state)
        after = _after(c, state, k)
        step = _step(c, names, i, state, k, after, before)
        steps.append(step)
        whos.append([names.remembered(tid, m) for m in sorted(c.step(state, k).movers)])
        before = step.state
        if after is not None:
            end = after
    waiting: list[Waiting] = []
    if failure.kind == DEADLOCK:
        for who, w in _waiting(c, names, end[0], end[1]):
            whos.append([who])
            waiting.append(w)
    named = _named(whos)
    steps = [replace(s, movers=m) for s, m in zip(steps, named)]
    if waiting:
        named_waiting = named[len(steps) :]
        failure = replace(
            failure, waiting=tuple(replace(w, process=n[0]) for w, n in zip(waiting, named_waiting))
        )
    if expr is not None:
        failure = replace(failure, cells=_cells_read(c, expr, end[1]))
    return Trace(names.root, cell_infos(layout), _shown(layout, initial[1]), tuple(steps), failure)


def thread_names(c: Compiled, proc: A.Proc) -> list[tuple[str, tuple[int, ...]]]:
    """The sequential threads of proc's initial state: their names (as traces show them) and
    mover paths."""
    names = _Names(c, print_proc(proc))
    tid = c.term_of(c.initial(proc))
    found = [(names.thread(tid, path), path) for _, path in _threads(names, tid, ())]
    shown = _named([[who] for who, _ in found])
    return [(name[0], path) for name, (_, path) in zip(shown, found)]


def cell_infos(layout: StateLayout) -> tuple[CellInfo, ...]:
    """Every cell element's name, domain (its first enumeration index) and durability, then
    every buffer's (the entries `StateLayout.entries` shows)."""
    out: list[CellInfo] = []
    for slots in layout.cells:
        cell = slots.cell
        combos = itertools.product(*(t.values() for t in cell.indices))
        for k, combo in enumerate(combos):
            domain = next(
                (t.show(v) for t, v in zip(cell.indices, combo) if isinstance(t, EnumT)), OTHER
            )
            out.append(CellInfo(layout.names[slots.base + k], domain, cell.durable))
    for b in layout.buffers:
        out.extend(CellInfo(label, OTHER, b.durable) for label in b.labels)
    return tuple(out)


def _shown(layout: StateLayout, cells: Sequence[int]) -> Cells:
    return tuple(layout.entries(cells))


def _split(c: Compiled, state: tuple) -> tuple[int, tuple]:
    """(term id, cells) of a flat state: the term rebuilt from the network's control."""
    return c.term_of(state), state[: c.cells]


def _after(c: Compiled, state: tuple, k: int) -> tuple[int, tuple] | None:
    """The state transition k leads to, as (term, cells), or None when its effect raises a
    model error."""
    try:
        moves = c.successors(state)
    except StepFault:
        return None
    for j, post in moves:
        if j == k:
            return _split(c, post)
    return None


def _step(
    c: Compiled,
    names: _Names,
    index: int,
    source: tuple,
    k: int,
    after: tuple[int, tuple] | None,
    before: Cells,
) -> TraceStep:
    tid, cells = _split(c, source)
    step = c.step(source, k)
    state = before if after is None else _shown(c.layout, after[1])
    writes = tuple(pair for pair, old in zip(state, before) if pair != old)
    reset: tuple[str, ...] = ()
    if step.crash:
        volatile = {info.name for info in cell_infos(c.layout) if not info.durable}
        initial = _shown(c.layout, c.layout.init)
        reset = tuple(
            n
            for (n, v), (_, v0) in zip(_shown(c.layout, cells), initial)
            if n in volatile and v != v0
        )
    channel = step.channel if step.kind == S.EVENT or step.hidden else None
    values: tuple[str, ...] = ()
    if channel is not None:
        types = c.model.channels[channel].fields
        values = tuple(t.show(int(v)) for v, t in zip(c.event_key(step, source)[1:], types))
    return TraceStep(
        index,
        _kind(step),
        c.label(source, k),
        channel,
        values,
        (),
        writes,
        state,
        step.crash,
        reset,
        names.line(tid, step),
        after is None,
    )


def _kind(step: S.Step) -> str:
    if step.kind == S.TICK:
        return TICK
    if step.kind == S.EVENT:
        return EVENT
    if step.hidden:
        return HIDDEN
    return ASSIGN if step.writes else TAU


def _cells_read(c: Compiled, e: A.Expr, cells: Sequence[int]) -> Cells:
    """The slots of every cell the expression names, with their values."""
    used: dict[str, None] = {}
    todo: list[object] = [e]
    while todo:
        node = todo.pop()
        if isinstance(node, A.Name) and c.layout.find(node.id) is not None:
            used[node.id] = None
        elif isinstance(node, tuple):
            todo.extend(node)
        elif hasattr(node, "__dataclass_fields__"):
            todo.extend(getattr(node, f) for f in node.__dataclass_fields__ if f != "span")
    shown = _shown(c.layout, cells)
    out: list[tuple[str, str]] = []
    for slots in c.layout.cells:
        if slots.cell.name in used:
            out.extend(shown[slots.base : slots.base + slots.size])
    for b in c.layout.buffers:
        if b.name in used:
            labels = set(b.labels)
            out.extend(pair for pair in shown if pair[0] in labels)
    return tuple(out)


# ---------------------------------------------------------------------- naming processes
_WRAPPERS = {
    "hide": (2,),
    "rename": (2,),
    "intr": (1, 2),
    "seq": (1,),
    "slide": (1,),
    "ext": (1, 2),
    "guard": (3,),
    "if": (3, 4),
    "ichoice": (),
}


@dataclass(frozen=True, slots=True)
class _Who:
    """A thread as its process declaration with the values of what it reads."""

    decl: str
    arity: int
    params: tuple[tuple[str, str], ...]  # parameters known from the term, in order
    threads: tuple[tuple[str, str], ...]  # binders of replicated parallels (`||| d: Dom @`)


class _Names:
    """Names of threads: the process declaration (and its arguments) behind a term."""

    def __init__(self, c: Compiled, root: str) -> None:
        self.c = c
        self.root = root
        self.table = c.terms
        self.seen: dict[tuple[int, ...], _Who | str] = {}
        self.owner: dict[int, tuple[A.ProcessDecl, dict[str, ValueType | None]]] = {}
        types = c.model.types
        for decl in c.model.processes.values():
            threads: dict[str, ValueType | None] = {
                n.var: types.get(n.domain.name)
                for n in _procs(decl.body)
                if isinstance(n, A.Replicated)
                and n.op in ("|||", "[||]")
                and isinstance(n.domain, A.TypeName)
            }
            threads.update(
                {
                    n.var: None
                    for n in _procs(decl.body)
                    if isinstance(n, A.Replicated)
                    and n.var not in threads
                    and n.op in ("|||", "[||]")
                }
            )
            for node in _procs(decl.body):
                self.owner[id(node)] = (decl, threads)

    def thread(self, tid: int, path: tuple[int, ...]) -> _Who | str:
        """The thread at `path` (component indices of parallel terms) in tid; the root's name
        for the empty path."""
        t = self.table[tid]
        who: _Who | str = self.root
        if not path and self._par_below(t) is None:  # a sequential process: name it
            return self.who(t) or self.root
        for i in path:
            par = self._par_below(t)
            if par is None or i >= len(par[2]):
                break
            t = self.table[par[2][i]]
            who = self.who(t) or who
        return who

    def remembered(self, tid: int, path: tuple[int, ...]) -> _Who | str:
        """thread(), but a thread left with no program node (SKIP, terminated) keeps the name
        its path had earlier in the run."""
        who = self.thread(tid, path)
        if who == self.root and path:
            return self.seen.get(path, who)
        self.seen[path] = who
        return who

    def _par_below(self, t: tuple) -> tuple | None:
        todo = [t]
        while todo:
            t = todo.pop(0)
            if t[0] in ("par", "apar"):
                return t
            todo.extend(self.table[t[i]] for i in _WRAPPERS.get(t[0], ()))
        return None

    def _lead(
        self, t: tuple
    ) -> tuple[A.ProcessDecl, dict[str, ValueType | None], dict[str, int]] | None:
        """The declaration owning the first program node of t (leftmost first), its replicated
        parallel binders, and the bound values known there."""
        todo = [t]
        for _ in range(10_000):
            if not todo:
                return None
            t = todo.pop(0)
            tag = t[0]
            if tag in ("pre", "guard", "if") and t[1] in self.owner:
                decl, threads = self.owner[t[1]]
                env = dict(t[2])
                if tag != "pre":  # the body knows more of the bound values
                    inner = self._lead(self.table[t[3]])
                    if inner is not None and inner[0] is decl:
                        env.update(inner[2])
                return decl, threads, env
            if tag == "seq" and t[2] in self.owner:
                first = self._lead(self.table[t[1]])
                if first is not None:
                    return first
                decl, threads = self.owner[t[2]]
                return decl, threads, dict(t[3])
            if tag in ("par", "apar", "ichoice"):
                todo[:0] = [self.table[p] for p in t[-1]]
            elif tag == "sel":
                todo[:0] = [self.table[p] for p in t[1]]
            else:
                todo[:0] = [self.table[t[i]] for i in _WRAPPERS.get(tag, ())]
        return None

    def who(self, t: tuple) -> _Who | None:
        lead = self._lead(t)
        if lead is None:
            return None
        decl, threads, env = lead
        types: dict[str, ValueType] = dict(
            zip((p.name for p in decl.params), self.c.model.param_types.get(decl.name, ()))
        )
        types.update((n, t) for n, t in threads.items() if t is not None)

        def show(n: str) -> str:
            v = env[n]
            return types[n].show(v) if n in types else str(v)

        params = tuple((p.name, show(p.name)) for p in decl.params if p.name in env)
        bound = tuple((n, show(n)) for n in sorted(env) if n in threads)
        return _Who(decl.name, len(decl.params), params, bound)

    def line(self, tid: int, step: S.Step) -> int | None:
        """The source line of a prefix of tid that makes an event of step's channel."""
        todo = [self.table[tid]]
        for _ in range(10_000):
            if not todo:
                return None
            t = todo.pop(0)
            if t[0] == "pre":
                node = self.c.program_node(t[1])
                ev = getattr(node, "event", None)
                if (ev.channel if ev is not None else None) == step.channel:
                    return node.span.line or None  # type: ignore[attr-defined]
            elif t[0] in ("par", "apar", "ichoice"):
                todo.extend(self.table[p] for p in t[-1])
            elif t[0] == "sel":
                todo.extend(self.table[p] for p in t[1])
            else:
                todo.extend(self.table[t[i]] for i in _WRAPPERS.get(t[0], ()))
        return None


def _named(whos: Sequence[Sequence[_Who | str]]) -> list[tuple[str, ...]]:
    """Names, consistent over one trace: a declaration's parameters are shown when every
    occurrence of it knows them (positionally when that is all of them)."""
    known: dict[str, set[str]] = {}
    for step in whos:
        for w in step:
            if isinstance(w, _Who):
                names = {n for n, _ in w.params}
                known[w.decl] = known[w.decl] & names if w.decl in known else names

    def name(w: _Who | str) -> str:
        if isinstance(w, str):
            return w
        params = [(n, v) for n, v in w.params if n in known[w.decl]]
        positional = len(params) == w.arity
        args = ", ".join(v if positional else f"{n}={v}" for n, v in params)
        text = f"{w.decl}({args})" if args else w.decl
        return text + "".join(f"[{n}={v}]" for n, v in w.threads)

    return [tuple(dict.fromkeys(name(w) for w in step)) for step in whos]


def _procs(p: A.Proc) -> Iterator[A.Proc]:
    """Every process node of a body (iteratively)."""
    todo: list[A.Proc] = [p]
    while todo:
        node = todo.pop()
        yield node
        children = list(getattr(node, "branches", ()))
        children += [
            getattr(node, f, None) for f in ("body", "left", "right", "proc", "then", "orelse")
        ]
        for child in children:
            if isinstance(
                child,
                (
                    A.Prefix,
                    A.Guard,
                    A.ProcBinary,
                    A.Parallel,
                    A.Hide,
                    A.ProcIf,
                    A.Replicated,
                    A.ProcRef,
                    A.Stop,
                    A.Skip,
                    A.AssertStep,
                    A.Atomic,
                    A.Select,
                    A.AlphaParallel,
                    A.Rename,
                ),
            ):
                todo.append(child)


# ---------------------------------------------------------------------- deadlocks
def _waiting(
    c: Compiled, names: _Names, tid: int, cells: tuple
) -> Iterator[tuple[_Who | str, Waiting]]:
    """Each thread of the deadlocked term and the events it offers or waits to offer (the
    process names are filled in by the caller)."""
    for thread, path in _threads(names, tid, ()):
        who = names.remembered(tid, path)
        if thread[0] == "omega":
            yield who, Waiting("", terminated=True)
            continue
        offers: list[str] = []
        guarded: list[str] = []
        for step in c.steps_of(c.term_id(thread)):
            shown = (
                "tick"
                if step.kind == S.TICK
                else (c.event_text(step, cells) if step.channel is not None else "tau")
            )
            (offers if c.guard_holds(step, cells) else guarded).append(shown)
        yield who, Waiting("", tuple(dict.fromkeys(offers)), tuple(dict.fromkeys(guarded)))


def _threads(names: _Names, tid: int, path: tuple[int, ...]) -> Iterator[tuple[tuple, tuple]]:
    """The sequential threads of a term with their mover paths (parallel parts split)."""
    todo = [(names.table[tid], path)]
    while todo:
        t, p = todo.pop(0)
        if t[0] in ("par", "apar"):
            todo.extend((names.table[part], p + (i,)) for i, part in enumerate(t[2]))
        elif t[0] in ("intr", "hide") or (t[0] == "seq" and names._par_below(t) is not None):
            todo.extend((names.table[t[i]], p) for i in _WRAPPERS[t[0]])
        else:
            yield t, p


__all__ = ["Transition", "build_trace", "cell_infos"]
