"""Breadth-first search over whole levels of packed states (the fast engine).

A level is a block of packed states (fito/semantics/packing.py). Its rows are grouped by
mode and, per candidate of the mode, by the locations of the candidate's positions; each
group's compiled numpy function (fito/semantics/vector.py) produces the successors of all
its rows at once. Rows that may meet a model error are redone state by state by the scalar
code, which decides the error exactly. The successors are inserted into the visited store
(fito/check/visited.py) and the new states are numbered in the order a state-by-state
search would have found them (by parent, then by the rank of the transition), so verdicts,
state counts and traces are those of fito/check/explore.py.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from fito.check.explore import DEADLOCK, ERROR, EXHAUSTED, GOAL, LIMIT, Found, Graph, Limits, Progress
from fito.check.visited import StateStore
from fito.semantics.compiled import RANK_BITS, Compiled, StepFault, TimeLimit
from fito.semantics.ir import IR, Fault
from fito.semantics.packing import Codebook, Overflow, Packer, Packing, extract, layout_fields, repack
from fito.semantics.vector import NotVector, VectorCode

GROUP_BITS = 16      # candidate number and transition number in a dense rank (each < 2**16)
SCALAR = object()    # a group whose rows are always run state by state
ESTIMATE_CAP = 4096  # locations counted per position when estimating field widths


@dataclass(slots=True)
class FrontierGraph:
    """The visited states of a frontier search, as explore.Graph offers them to reports."""

    c: Compiled
    store: StateStore
    packer: Packer
    parents: np.ndarray
    transitions: int = 0
    depth: int = 0
    sizes: list[int] = field(default_factory=list)
    engine: str = "frontier"

    def __len__(self) -> int:
        return len(self.store)

    def state(self, sid: int) -> tuple:
        self.sizes = [m.size for m in self.c.network.modes]
        return self.packer.unpack(self.store.keys[sid], self.sizes)

    def path(self, sid: int) -> list[tuple[int, int]]:
        """(state, rank) pairs from the initial state to sid (ranks found again by the scalar
        successors of each state on the path)."""
        chain = [sid]
        while self.parents[chain[-1]] >= 0:
            chain.append(int(self.parents[chain[-1]]))
        chain.reverse()
        out = []
        for a, b in zip(chain, chain[1:]):
            target = self.state(b)
            rank = next(r for r, post in self.c.successors(self.state(a)) if post == target)
            out.append((a, rank))
        return out


class _Search:
    """One frontier search: packing, caches and the level loop."""

    def __init__(self, c: Compiled, root: tuple, limits: Limits) -> None:
        self.c = c
        self.limits = limits
        self.deadline = None if limits.timeout is None else time.monotonic() + limits.timeout
        self.codebook = Codebook()
        self.packing = _estimate(c, root)
        self.packer = Packer(self.packing, self.codebook)
        self.vector = VectorCode(c.layout, self.packing, self.codebook, c.code.channel_types)
        self.groups: dict[tuple, object] = {}
        self.store = StateStore(self.packing.words)
        self.parents = np.full(1024, -1, dtype=np.int32)

    # ------------------------------------------------------------------ packing
    def widen(self) -> None:
        """Re-pack every stored state with control fields wide enough for what is known."""
        c, old = self.c, self.packing
        positions = max([old.positions] + [m.size for m in c.network.modes])
        self.codebook.ensure(positions)
        bits = [max(old.position_field(p).width if p < old.positions else 0,
                    (len(self.codebook.terms[p]) * 2).bit_length()) for p in range(positions)]
        mode_bits = max(old.mode_field.width, (len(c.network.modes) * 2).bit_length())
        new = layout_fields(c.layout.types, mode_bits, bits)
        keys = repack(self.store.keys[:self.store.n], _padded(old, positions), new)
        self.store = StateStore.of(keys, self.store.keys.shape[0])
        self.packing = new
        self.packer = Packer(new, self.codebook)
        self.vector = VectorCode(c.layout, new, self.codebook, c.code.channel_types)
        self.groups.clear()

    # ------------------------------------------------------------------ one level
    def expand(self, frontier: np.ndarray) -> _Level:
        """Successor candidates of every state of a level (no insertion yet)."""
        level = _Level(frontier.size)
        F = self.store.keys[frontier]
        pk = self.packing
        modes = extract(F, pk.mode_field) if pk.mode_field.width else np.zeros(frontier.size, np.int64)
        for m in np.unique(modes):
            rows_m = np.flatnonzero(modes == m) if len(self.c.network.modes) > 1 else np.arange(frontier.size)
            self._expand_mode(int(m), F, rows_m, level)
        return level

    def _expand_mode(self, m: int, F: np.ndarray, rows_m: np.ndarray, level: _Level) -> None:
        mode = self.c.network.modes[m]
        Fm = F[rows_m]
        codes: dict[int, np.ndarray] = {}
        for h, movers in enumerate(mode.candidates):
            for p in movers:
                if p not in codes:
                    f = self.packing.position_field(p)
                    codes[p] = extract(Fm, f) if f.width else np.zeros(rows_m.size, np.int64)
            for combo, rows in _groups_by(tuple(codes[p] for p in movers)):
                terms = tuple(self.codebook.terms[p][code] for p, code in zip(movers, combo))
                group = self._group(m, h, movers, terms)
                if group is None:
                    continue
                sel = rows_m[rows]
                if group is SCALAR:
                    level.suspect[sel] = True
                    continue
                outs, cnt, sus = group(F[sel])  # type: ignore[operator]
                level.counts[sel] += cnt
                level.suspect[sel] |= sus
                for Y, which, n in outs:
                    level.add(Y, sel[which], (h << GROUP_BITS) | n)
                if self.deadline is not None and time.monotonic() > self.deadline:
                    raise TimeLimit()

    def _group(self, m: int, h: int, movers: tuple[int, ...], terms: tuple[int, ...]) -> object:
        key = (m, h, terms)
        got = self.groups.get(key, key)
        if got is key:
            transitions = self.c.network.transitions(m, h, terms)
            if not transitions:
                got = None
            elif h >> GROUP_BITS or len(transitions) >> GROUP_BITS:
                got = SCALAR
            else:
                try:
                    got = self.vector.compile(m, movers, terms, transitions)
                except NotVector:
                    got = SCALAR
            self.groups[key] = got
            self.c.check_time()
        return got

    def state(self, sid: int) -> tuple:
        return self.packer.unpack(self.store.keys[sid], [m.size for m in self.c.network.modes])

    def scalar_rows(self, frontier: np.ndarray, level: _Level) -> None:
        """Redo the suspect rows state by state: exact errors, or exact successors."""
        rows = np.flatnonzero(level.suspect)
        if not rows.size:
            return
        F = self.store.keys[frontier[rows]]
        sizes = [m.size for m in self.c.network.modes]
        mask = (1 << RANK_BITS) - 1
        for row, key in zip(rows.tolist(), F):
            s = self.packer.unpack(key, sizes)
            try:
                moves = self.c.successors(s)
            except StepFault as e:
                level.counts[row] = 0
                if e.step is None:
                    level.state_errors.append((row, e.fault))
                else:
                    level.step_errors.append((row, e.step, e.fault))
                continue
            level.counts[row] = len(moves)
            if moves:
                block = np.stack([self.packer.pack(post) for _, post in moves])
                ranks = np.array([((r >> RANK_BITS) << GROUP_BITS) | (r & mask) for r, _ in moves],
                                 dtype=np.int64)
                level.add(block, np.full(len(moves), row, dtype=np.int64), ranks, scalar=True)


@dataclass(slots=True)
class _Level:
    """The candidates of one level: successor rows with the frontier row and dense rank
    they came from; transitions per row; rows that need the scalar code; exact errors."""

    size: int
    blocks: list = field(default_factory=list)
    parents: list = field(default_factory=list)
    ranks: list = field(default_factory=list)
    scalar: list = field(default_factory=list)
    counts: np.ndarray = field(init=False)
    suspect: np.ndarray = field(init=False)
    state_errors: list = field(default_factory=list)
    step_errors: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.counts = np.zeros(self.size, dtype=np.int64)
        self.suspect = np.zeros(self.size, dtype=bool)

    def add(self, block: np.ndarray, parents: np.ndarray, rank: object, scalar: bool = False) -> None:
        self.blocks.append(block)
        self.parents.append(parents)
        self.ranks.append(np.broadcast_to(np.asarray(rank, dtype=np.int64), parents.shape))
        self.scalar.append(scalar)

    def candidates(self, words: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, parent row, dense rank) of every candidate, leaving out what the vector
        code produced for suspect rows (the scalar code redid those rows)."""
        if not self.blocks:
            return np.zeros((0, words), dtype=np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64)
        keep = [np.ones(p.size, dtype=bool) if sc else ~self.suspect[p]
                for p, sc in zip(self.parents, self.scalar)]
        mask = np.concatenate(keep)
        block = np.concatenate(self.blocks)[mask]
        return block, np.concatenate(self.parents)[mask], np.concatenate(self.ranks)[mask]


def frontier_search(c: Compiled, root: tuple, goal: IR | None, negate: bool,
                    scalar_goal: Callable[[tuple], object] | None, deadlock: bool,
                    limits: Limits, start: Graph | None = None) -> tuple[Found, FrontierGraph]:
    """BFS from root until a goal state, a deadlock (if asked) or a model error; or, from
    `start`, go on where a state-by-state search handed over (its next level pending)."""
    search = _Search(c, root, limits)
    graph = FrontierGraph(c, search.store, search.packer, search.parents)
    frontier = _adopt(search, graph, start) if start is not None else _begin(search, root)
    if start is None and scalar_goal is not None:
        try:
            if scalar_goal(root):
                return Found(GOAL, 0), graph
        except Fault as f:
            return Found(ERROR, 0, None, f), graph
    progress = Progress(limits.progress)
    try:
        return _levels(search, graph, frontier, goal, negate, scalar_goal, deadlock, progress), graph
    except TimeLimit:
        return Found(LIMIT, reason=f"timeout after {limits.timeout:g} s"), graph
    finally:
        graph.store, graph.packer, graph.parents = search.store, search.packer, search.parents
        progress.done()


def _begin(search: _Search, root: tuple) -> np.ndarray:
    while True:
        try:
            search.store.insert(search.packer.pack(root)[None, :])
            return np.zeros(1, dtype=np.int64)
        except Overflow:
            search.widen()


def _adopt(search: _Search, graph: FrontierGraph, start: Graph) -> np.ndarray:
    """Take over the states, parent links and pending level of a scalar search."""
    while True:
        try:
            keys = np.stack([search.packer.pack(s) for s in start.states])
            break
        except Overflow:
            search.widen()
    search.store = StateStore.of(keys, 1 << max(12, (2 * keys.shape[0]).bit_length()))
    search.parents = _grown(search.parents, keys.shape[0])
    search.parents[:keys.shape[0]] = np.frombuffer(start.parent, dtype=np.int64)
    graph.store, graph.parents = search.store, search.parents
    graph.transitions, graph.depth = start.transitions, start.depth
    return np.array(start.frontier, dtype=np.int64)


def _levels(search: _Search, graph: FrontierGraph, frontier: np.ndarray, goal: IR | None,
            negate: bool, scalar_goal: Callable[[tuple], object] | None, deadlock: bool,
            progress: Progress) -> Found:
    limits = search.limits
    predicate = None
    while frontier.size:
        while True:
            try:
                level = search.expand(frontier)
                search.scalar_rows(frontier, level)
                if goal is not None and predicate is None:
                    predicate = search.vector.predicate(goal, negate)
                break
            except Overflow:
                search.widen()
                predicate = None
        graph.store, graph.packer = search.store, search.packer
        depth = graph.depth
        graph.transitions += int(level.counts.sum())
        nxt, best = _insert(search, level, frontier)
        graph.parents = search.parents
        graph.depth += 1
        progress.tick(search.store.n, depth)
        # verdicts of length depth (an error of a state, a deadlock) come first
        found = _this_level_verdict(search, level, frontier, deadlock)
        if found is None:
            found = _next_level_verdict(search, level, frontier, nxt, best, predicate, scalar_goal)
        if found is not None:
            return found
        if limits.max_states is not None and search.store.n > limits.max_states:
            return Found(LIMIT, reason=f"more than {limits.max_states:,} states")
        if search.deadline is not None and time.monotonic() > search.deadline:
            raise TimeLimit()
        frontier = nxt
    return Found(EXHAUSTED)


def _insert(search: _Search, level: _Level, frontier: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Add the level's new states in discovery order; their numbers and discovery keys."""
    block, parent_rows, ranks = level.candidates(search.packing.words)
    first = search.store.n
    sid = search.store.insert(block) if block.shape[0] else np.zeros(0, np.int64)
    fresh = sid >= first
    count = search.store.n - first
    best = np.full(count, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best, sid[fresh] - first, (parent_rows[fresh] << 32) | ranks[fresh])
    perm = np.argsort(best, kind="stable")
    search.store.reorder(first, perm)
    best = best[perm]
    search.parents = _grown(search.parents, search.store.n)
    search.parents[first:search.store.n] = frontier[best >> 32]
    return np.arange(first, search.store.n, dtype=np.int64), best


def _this_level_verdict(search: _Search, level: _Level, frontier: np.ndarray, deadlock: bool) -> Found | None:
    """An error of a state of this level (first in order), else a deadlock."""
    if level.state_errors:
        row, fault = min(level.state_errors, key=lambda x: x[0])
        return Found(ERROR, int(frontier[row]), None, fault)
    if deadlock:
        failed = {row for row, _, _ in level.step_errors}
        for r in np.flatnonzero(level.counts == 0).tolist():
            if r not in failed and not search.c.is_terminated(search.state(int(frontier[r]))):
                return Found(DEADLOCK, int(frontier[r]))
    return None


def _next_level_verdict(search: _Search, level: _Level, frontier: np.ndarray, nxt: np.ndarray,
                        best: np.ndarray, predicate: object, scalar_goal: object) -> Found | None:
    """Errors of transitions and goal states among the new states, first found first."""
    errors: list[tuple[int, Found]] = []
    for row, rank, fault in level.step_errors:
        errors.append(((row << 32) - 1, Found(ERROR, int(frontier[row]), rank, fault)))
    hit = None
    if predicate is not None and nxt.size:
        truth, faulty = predicate(search.store.keys[nxt])  # type: ignore[operator]
        truth = np.array(truth)
        for i in np.flatnonzero(faulty).tolist():
            try:
                truth[i] = bool(scalar_goal(search.state(int(nxt[i]))))  # type: ignore[operator]
            except Fault as f:
                truth[i] = False
                errors.append((int(best[i]), Found(ERROR, int(nxt[i]), None, f)))
        hits = np.flatnonzero(truth)
        if hits.size:
            hit = Found(GOAL, int(nxt[hits[0]]))
    if errors:
        return min(errors, key=lambda x: x[0])[1]
    return hit


def _grown(parents: np.ndarray, need: int) -> np.ndarray:
    if need <= parents.size:
        return parents
    size = parents.size
    while size < need:
        size *= 2
    out = np.full(size, -1, dtype=np.int32)
    out[:parents.size] = parents
    return out


def _groups_by(codes: tuple[np.ndarray, ...]) -> list[tuple[tuple[int, ...], np.ndarray]]:
    """The distinct combinations of codes, each with the rows that have it."""
    if len(codes) == 1:
        key = codes[0]
    else:
        key = codes[0].copy()
        for c in codes[1:]:
            key = key * (int(c.max(initial=0)) + 1) + c
    values = np.unique(key)
    if values.size == 1:
        rows = np.arange(key.size)
        return [(tuple(int(c[0]) for c in codes), rows)] if key.size else []
    if values.size <= 8:
        out = []
        for v in values:
            rows = np.flatnonzero(key == v)
            out.append((tuple(int(c[rows[0]]) for c in codes), rows))
        return out
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
    ends = np.r_[starts[1:], key.size]
    return [(tuple(int(c[order[a]]) for c in codes), np.sort(order[a:b])) for a, b in zip(starts, ends)]


def _padded(p: Packing, positions: int) -> Packing:
    """A packing with extra (empty) position fields up to `positions`."""
    if positions <= p.positions:
        return p
    extra = tuple(type(p.fields[0])(p.words - 1, 64, 0, 0) for _ in range(positions - p.positions))
    return Packing(p.fields + extra, p.words, p.cells, positions)


def _estimate(c: Compiled, root: tuple) -> Packing:
    """Field widths from the root: each position's locations reachable by its own steps."""
    K = c.cells
    terms = c.semantics.terms
    bits = []
    for tid in root[K + 1:]:
        seen = {tid}
        todo = [tid]
        while todo and len(seen) < ESTIMATE_CAP:
            for s in c.semantics.steps(todo.pop()):
                if isinstance(s.target, int) and s.target not in seen and not terms.has_par(s.target):
                    seen.add(s.target)
                    todo.append(s.target)
        bits.append((len(seen) * 2 + 1).bit_length())
    return layout_fields(c.layout.types, (len(c.network.modes) * 2 + 1).bit_length(), bits)
