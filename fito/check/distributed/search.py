"""Breadth-first search over the ranks of an MPI run, level by level (`--distributed`).

Each rank owns the states whose row hash falls in its shard (`owners`, high bits of
`hash_rows` modulo the ranks) and keeps them in its own visited store, numbered locally;
per local state it keeps the state's global number and its parent link (owner rank, local
number). A level, on every rank at once:

1. the rank's frontier rows are expanded by the frontier engine's code in a forked child
   (fito/check/distributed/speculate.py), again after every rank has learnt the same codes
   if a child met new ones;
2. every candidate goes to its owner with its discovery key (the parent's number within the
   level << 32 | dense rank) and its parent's local number: one `Alltoallv` per array;
3. the owner inserts what it received, keeping for each new state the least key and the
   parent link it came with;
4. the new states are numbered globally in the order of their keys (a distributed rank:
   keys go to the rank owning their parents' range, are counted there and the numbers come
   back), which is the order the one-process search numbers them in; so the first error,
   deadlock or goal of a level is the same state, and so is the counterexample;
5. the ranks agree on the verdicts (allgather of each rank's first candidates) and on
   whether to go on (every rank takes the same decisions from the same gathered values).

Counterexamples are rebuilt at the end by walking the parent links back through their
owners (one broadcast per step); every rank gets the trace, so every rank builds the same
report, and rank 0 prints it.
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fito import budget
from fito.budget import BudgetExceeded
from fito.check.distributed import checkpoint
from fito.check.distributed import speculate as speculation
from fito.check.distributed.comm import exchange, gather_rows, owners, reply, world
from fito.check.distributed.speculate import learn, replicate, speculate
from fito.check.explore import (
    DEADLOCK,
    ERROR,
    EXHAUSTED,
    GOAL,
    LIMIT,
    Answers,
    Decided,
    Found,
    Progress,
    Task,
)
from fito.check.frontier.expand import Expander
from fito.check.frontier.level import CHUNK
from fito.check.frontier.visited import StateStore
from fito.check.options import Limits
from fito.check.reduce import NONE, Reduction
from fito.semantics.compiled import Compiled, Fault, StructureGrows, TimeLimit
from fito.semantics.packed import Overflow

LOW = (1 << 32) - 1
MAX_LEVEL = 2**31 - 1  # states of one level: a discovery key is parent << 32 | dense rank
MAX_ROUNDS = 10_000  # speculations of one level: each adds codes every rank learns


@dataclass(frozen=True, slots=True)
class Figures:
    """What one distributed search cost on this rank (bench/distributed.py reads them):
    per level the states after it, the bytes all ranks sent in its exchanges and its wall
    time; this rank's visited store in bytes and its peak resident memory, and its
    children's (the forked expanders)."""

    ranks: int
    states: tuple[int, ...]
    exchanged: tuple[int, ...]
    seconds: tuple[float, ...]
    store_bytes: int
    peak_rss: int
    peak_rss_children: int


FIGURES: list[Figures] = []  # one per distributed search of this process, in order


class Stop(Exception):
    """Every rank gives up the search for the same reason (a limit): verdict unknown."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(slots=True)
class Shard:
    """One rank's part of a distributed search, and the figures every rank agrees on."""

    comm: Any
    ex: Expander
    gid: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    prank: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    plid: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    lo: int = 0  # the rank's frontier: local states lo .. hi - 1
    hi: int = 0
    glo: int = 0  # the level's first global number, and how many states it has
    width: int = 1
    states: int = 1
    transitions: int = 0
    depth: int = 0
    learnt: list = field(default_factory=list)  # the rows every rank learnt from, in order
    level_states: list = field(default_factory=list)  # states after each level
    level_seconds: list = field(default_factory=list)  # wall time of each level
    exchanged: list = field(default_factory=list)  # bytes sent per level, all ranks together
    gathered: int = 0  # bytes of this level's frontier sent to every rank (small levels)
    where: dict = field(default_factory=dict)  # global number -> (rank, local number)
    predicates: dict = field(default_factory=dict)  # the tasks' goals over blocks
    positions: int = 0  # positions the owner hash reads (the packing's at the start)

    def owners(self, rows: np.ndarray) -> np.ndarray:
        """The owner of each row (fito/check/distributed/comm.py)."""
        return owners(self.ex.packed.packing, rows, self.ranks, self.positions)

    @property
    def ranks(self) -> int:
        return int(self.comm.Get_size())

    @property
    def me(self) -> int:
        return int(self.comm.Get_rank())

    def links(self, first: int, gids: np.ndarray, prank: np.ndarray, plid: np.ndarray) -> None:
        """Number and link the local states first .. first + len(gids) - 1."""
        self.gid = np.concatenate((self.gid[:first], gids))
        self.prank = np.concatenate((self.prank[:first], prank))
        self.plid = np.concatenate((self.plid[:first], plid))


@dataclass(slots=True)
class DistributedGraph:
    """What the reports read of a distributed search: the states of the traces (gathered
    from their owners at the end), by global number."""

    c: Compiled
    ex: Expander
    engine: str
    rows: dict = field(default_factory=dict)  # global number -> packed row
    parent: dict = field(default_factory=dict)  # global number -> parent's (-1 at the root)
    orbits: dict = field(default_factory=dict)  # n -> unreduced states the first n stand for
    transitions: int = 0
    depth: int = 0

    def state(self, sid: int) -> tuple:
        return self.ex.packed.unpack(self.rows[sid])

    def chain(self, sid: int) -> list[int]:
        """The states from the initial state to sid."""
        chain = [sid]
        while self.parent[chain[-1]] >= 0:
            chain.append(self.parent[chain[-1]])
        chain.reverse()
        return chain

    def represented(self, n: int) -> int:
        """The states of the unreduced graph the first n states stand for (gathered from
        every rank at the end of the search, fito.check.reduce)."""
        return int(self.orbits[n])

    def path(self, sid: int) -> list[tuple[int, int]]:
        """(state, rank) pairs from the initial state to sid."""
        chain = self.chain(sid)
        out = []
        for a, b in zip(chain, chain[1:]):
            target = self.state(b)
            rank = next(r for r, post in self.c.successors(self.state(a)) if post == target)
            out.append((a, rank))
        return out


def distributed_search(
    c: Compiled, root: tuple, tasks: list[Task], limits: Limits, reduction: Reduction = NONE
) -> list[Decided]:
    """BFS from root over every rank of the MPI run until every task is answered; every
    rank returns the same answers (NotPackable: the caller searches state by state). With a
    symmetry `reduction`, every state is stored, and hashed to its owner, as its canonical
    representative (the frontier engine's `canonical_rows`)."""
    comm = world()
    answers = Answers(tasks, None)
    root = reduction.canonical(root)
    try:
        ex = Expander(c, root, limits, reduction)
    except TimeLimit:
        answers.close(Found(LIMIT, reason=f"timeout after {limits.timeout:g} s"), 1, 0, 0)
        return answers.got  # type: ignore[return-value]
    ranks = int(comm.Get_size())
    graph = DistributedGraph(c, ex, f"distributed ({ranks} rank{'s' if ranks > 1 else ''})")
    answers.graph = graph
    shard = Shard(comm, ex, positions=ex.packed.packing.positions)
    progress = Progress(limits.progress and shard.me == 0)
    checkpoint.check_identity(limits, comm, c, shard.positions)
    plan = checkpoint.Plan.of(limits, comm, c, shard.positions)
    try:
        if limits.resume is not None and checkpoint.resume(plan, shard, answers, root):
            graph.engine += f", resumed after level {shard.depth}"
        else:
            _insert_root(shard, root)
            answers.decide_root(root)
        if answers.open():
            _levels(shard, answers, progress, limits, plan)
    except Stop as stop:
        answers.close(
            Found(LIMIT, reason=stop.reason), shard.states, shard.transitions, shard.depth
        )
    finally:
        progress.done()
    graph.transitions, graph.depth = shard.transitions, shard.depth
    FIGURES.append(_figures(shard))
    _gather_traces(shard, graph, answers.got)  # type: ignore[arg-type]
    if reduction.symmetric:
        _gather_orbits(shard, graph, reduction, answers.got)  # type: ignore[arg-type]
    return answers.got  # type: ignore[return-value]


def _figures(shard: Shard) -> Figures:
    kib = 1024  # ru_maxrss is in KiB on Linux
    return Figures(
        shard.ranks,
        tuple(shard.level_states),
        tuple(shard.exchanged),
        tuple(shard.level_seconds),
        shard.ex.store.nbytes + int(shard.gid.nbytes + shard.prank.nbytes + shard.plid.nbytes),
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * kib,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * kib,
    )


def _insert_root(shard: Shard, root: tuple) -> None:
    ex = shard.ex
    while True:
        try:
            row = ex.packed.pack(root)[None, :]
            break
        except Overflow:
            ex.widen()  # every rank alike: the same root, the same view
    owner = int(shard.owners(row)[0])
    if owner == shard.me:
        ex.store.insert(row)
        shard.links(0, np.zeros(1, np.int64), np.full(1, -1, np.int64), np.full(1, -1, np.int64))
        shard.hi = 1
    shard.where[0] = (owner, 0)


def _levels(shard: Shard, answers: Answers, progress: Progress, limits: Limits, plan: Any) -> None:
    tasks = answers.tasks
    deadline = None if limits.timeout is None else time.monotonic() + limits.timeout
    while shard.width > 0:
        began = time.perf_counter()
        todo = answers.open()
        deadlock = any(tasks[i].deadlock for i in todo)
        spec = _speculate(shard, deadlock)
        first = shard.ex.store.n
        best = _exchange(shard, spec.block, spec.keys)
        gids = _number(shard, first, best)
        count = int(shard.comm.allreduce(int(gids.size)))
        shard.transitions += int(shard.comm.allreduce(spec.out.transitions))
        shard.states += count
        shard.depth += 1
        progress.tick(shard.states, shard.depth - 1)
        mine = _candidates(shard, answers, todo, spec.out, first, best)
        gathered = shard.comm.allgather(mine)
        for i in todo:
            found = _verdict(shard, tasks[i], i, gathered)
            if found is not None:
                answers.decide(i, found, shard.states, shard.transitions, shard.depth)
        shard.glo, shard.width = shard.states - count, count
        shard.level_states.append(shard.states)
        shard.level_seconds.append(time.perf_counter() - began)
        shard.lo, shard.hi = first, shard.ex.store.n
        if not answers.open():
            return
        if shard.width > MAX_LEVEL:  # a discovery key holds a parent's number in the level
            raise Stop(f"a level of more than {MAX_LEVEL:,} states (the discovery keys' limit)")
        if limits.max_states is not None and shard.states > limits.max_states:
            raise Stop(f"more than {limits.max_states:,} states")
        late = deadline is not None and time.monotonic() > deadline
        if shard.comm.bcast(late, root=0):
            raise Stop(f"timeout after {limits.timeout:g} s")
        _poll(shard)
        plan.after_level(shard, answers)
    answers.close(Found(EXHAUSTED), shard.states, shard.transitions, shard.depth)


def _poll(shard: Shard) -> None:
    """--max-memory on every rank: any rank over its budget stops them all."""
    try:
        budget.current().poll()
        reason = None
    except BudgetExceeded as exc:
        reason = exc.message
    reasons = [r for r in shard.comm.allgather(reason) if r]
    if reasons:
        raise Stop(reasons[0])


def _speculate(shard: Shard, deadlock: bool) -> Any:
    """The rank's candidates of this level: a small level expanded whole by every rank, a
    large one by the ranks' children, once no child learnt anything new."""
    if shard.width < speculation.REPLICATE_BELOW:
        rows, mine = gather_rows(shard.comm, shard.ex.store.keys[shard.lo : shard.hi])
        shard.learnt.append(("whole", rows, deadlock))  # for rebuilding the codes on resume
        shard.gathered = int(rows.nbytes) * (shard.ranks - 1)
        try:
            return replicate(shard.ex, rows, mine, shard.lo, deadlock)
        except StructureGrows as grows:
            raise Stop(grows.message) from None
    for _ in range(MAX_ROUNDS):
        spec = speculate(shard.ex, shard.lo, shard.hi, deadlock)
        told = shard.comm.allgather((spec.stop, spec.learners))
        stops = [stop for stop, _ in told if stop]
        if stops:
            raise Stop(stops[0])
        learners = [rows for _, rows in told if rows is not None]
        if not learners:
            return spec
        rows = np.concatenate(learners)
        shard.learnt.append(("learn", rows, deadlock))
        try:
            learn(shard.ex, rows)
        except StructureGrows as grows:
            raise Stop(grows.message) from None
    raise Stop("the model kept meeting new locations at one level")


def _exchange(shard: Shard, block: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Send the candidates to their owners and insert them there: the least discovery key
    of every new local state; the parent links are kept in the shard (for `_number`)."""
    ex = shard.ex
    parent = keys >> 32
    level_keys = ((shard.gid[parent] - shard.glo) << 32) | (keys & LOW)
    block, level_keys, parent = _combine(block, level_keys, parent)
    (rows, got, plid), source, route = exchange(
        shard.comm, shard.owners(block), [block, level_keys, parent]
    )
    shard.exchanged.append(int(shard.comm.allreduce(route.bytes)) + shard.gathered)
    shard.gathered = 0
    order = np.argsort(got, kind="stable")  # the least key of each state comes first
    rows, got, plid, source = rows[order], got[order], plid[order], source[order]
    first = ex.store.n
    reason = None
    try:
        ex.store.track(first)
        sid = _insert(ex, rows)
    except (BudgetExceeded, MemoryError) as exc:
        reason = getattr(exc, "message", None) or "out of memory on a rank"
        sid = np.zeros(0, np.int64)
    reasons = [r for r in shard.comm.allgather(reason) if r]
    if reasons:
        raise Stop(reasons[0])
    fresh = sid >= first
    _, at = np.unique(sid[fresh], return_index=True)
    best, prank, plink = got[fresh][at], source[fresh][at], plid[fresh][at]
    perm = np.argsort(best, kind="stable")
    ex.store.reorder(first, perm)
    shard.links(first, np.zeros(perm.size, np.int64), prank[perm], plink[perm])
    return best[perm]


def _combine(
    block: np.ndarray, keys: np.ndarray, parent: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One candidate per distinct row, the one with the least key (the owner keeps the
    least key anyway): fewer bytes to send, the same states, keys and parent links."""
    if block.shape[0] < 2:
        return block, keys, parent
    order = np.argsort(keys, kind="stable")
    block, keys, parent = block[order], keys[order], parent[order]
    seen = StateStore(block.shape[1], 1 << max(4, block.shape[0].bit_length()))
    sid = _insert_into(seen, block)
    _, first = np.unique(sid, return_index=True)  # in key order: the least key's row
    first.sort()
    return block[first], keys[first], parent[first]


def _insert(ex: Expander, rows: np.ndarray) -> np.ndarray:
    return _insert_into(ex.store, rows)


def _insert_into(store: StateStore, rows: np.ndarray) -> np.ndarray:
    out = np.empty(rows.shape[0], dtype=np.int64)
    for start in range(0, rows.shape[0], CHUNK):
        out[start : start + CHUNK] = store.insert(rows[start : start + CHUNK])
    return out


def _number(shard: Shard, first: int, best: np.ndarray) -> np.ndarray:
    """Global numbers of the new local states (given in order of their keys): the states
    before this level, plus the new states of every rank with a smaller key."""
    comm, ranks = shard.comm, shard.ranks
    dest = ((best >> 32) * ranks) // max(1, shard.width)
    (keys,), _, route = exchange(comm, dest, [best])
    shard.exchanged[-1] += 2 * int(comm.allreduce(route.bytes))  # the keys, and numbers back
    order = np.argsort(keys, kind="stable")
    pos = np.empty(keys.size, dtype=np.int64)
    pos[order] = np.arange(keys.size, dtype=np.int64)
    offset = comm.exscan(int(keys.size)) or 0
    ids = shard.states + offset + pos
    gids = reply(comm, route, ids)
    shard.gid[first:] = gids
    return gids


def _candidates(
    shard: Shard, answers: Answers, todo: list[int], out: Any, first: int, best: np.ndarray
) -> tuple:
    """This rank's first error, deadlock and per task first goal or failing goal of the
    level, with global numbers (what every rank gathers to agree on the verdicts)."""
    gid, me, glo = shard.gid, shard.me, shard.glo
    state_error = dead = step_error = None
    if out.state_error is not None:
        sid, fault = out.state_error
        state_error = (int(gid[sid]), me, sid, fault)
    if out.dead is not None:
        dead = (int(gid[out.dead]), me, out.dead)
    for sid, rank, fault in out.step_errors:
        key = ((int(gid[sid]) - glo) << 32) - 1
        if step_error is None or key < step_error[0]:
            step_error = (key, int(gid[sid]), me, sid, rank, fault)
    goals = {i: _goal(shard, answers.tasks[i], first, best) for i in todo}
    return out.transitions, state_error, dead, step_error, goals


def _goal(shard: Shard, task: Task, first: int, best: np.ndarray) -> tuple:
    """(first model error of the goal, first goal state) among the rank's new states."""
    if task.ir is None:
        return None, None
    ex = shard.ex
    key = (id(task), ex.packed.packing)
    predicate = shard.predicates.get(key)
    if predicate is None:  # compiled anew after the fields widen
        predicate = ex.packed.predicate(task.ir, task.negate)  # type: ignore[arg-type]
        shard.predicates[key] = predicate
    error: tuple | None = None
    hit: tuple | None = None
    for start in range(first, ex.store.n, CHUNK):
        stop = min(ex.store.n, start + CHUNK)
        truth, faulty = predicate(ex.store.keys[start:stop])
        truth = np.array(truth)
        for i in np.flatnonzero(faulty).tolist():
            try:
                truth[i] = bool(task.goal(ex.state(start + i)))  # type: ignore[misc]
            except Fault as f:
                truth[i] = False
                at = int(best[start + i - first])
                if error is None or at < error[0]:
                    error = (at, int(shard.gid[start + i]), shard.me, start + i, f)
        hits = np.flatnonzero(truth)
        if hits.size and hit is None:
            sid = start + int(hits[0])
            hit = (int(shard.gid[sid]), shard.me, sid)
    return error, hit


def _verdict(shard: Shard, task: Task, i: int, gathered: list) -> Found | None:
    """The task's answer at this level, as the one-process search draws it: an error of a
    frontier state, else a deadlock, else the first error of a transition or of the goal,
    else the first goal state."""
    state_errors = [g[1] for g in gathered if g[1] is not None]
    if state_errors:
        g, r, lid, fault = min(state_errors, key=lambda x: x[0])
        shard.where[g] = (r, lid)
        return Found(ERROR, g, None, fault)
    deads = [g[2] for g in gathered if g[2] is not None]
    if task.deadlock and deads:
        g, r, lid = min(deads)
        shard.where[g] = (r, lid)
        return Found(DEADLOCK, g)
    errors = [(e[0], e[1], e[2], e[3], e[4], e[5]) for e in (g[3] for g in gathered) if e]
    errors += [(e[0], e[1], e[2], e[3], None, e[4]) for e in (g[4][i][0] for g in gathered) if e]
    if errors:
        _, g, r, lid, rank, fault = min(errors, key=lambda x: x[0])
        shard.where[g] = (r, lid)
        return Found(ERROR, g, rank, fault)
    hits = [h for h in (g[4][i][1] for g in gathered) if h]
    if hits:
        g, r, lid = min(hits)
        shard.where[g] = (r, lid)
        return Found(GOAL, g)
    return None


def _gather_traces(shard: Shard, graph: DistributedGraph, got: list[Decided]) -> None:
    """Walk the parent links of every answered state back to the root through their owners;
    every rank gets each state's row and parent."""
    wanted = sorted(
        {d.found.state for d in got if d is not None and d.found.kind in (GOAL, DEADLOCK, ERROR)}
    )
    comm, me = shard.comm, shard.me
    for g in wanted:
        rank, lid = shard.where[g]
        while g not in graph.rows:
            mine = None
            if rank == me:
                parent_rank, parent_lid = int(shard.prank[lid]), int(shard.plid[lid])
                parent = -1
                if parent_rank >= 0:
                    parent = -2  # the parent's number is known to its owner
                mine = (shard.ex.store.keys[lid].copy(), parent_rank, parent_lid, parent)
            row, parent_rank, parent_lid, parent = comm.bcast(mine, root=rank)
            if parent_rank >= 0:
                theirs = int(shard.gid[parent_lid]) if parent_rank == me else None
                parent = comm.bcast(theirs, root=parent_rank)
            graph.rows[g], graph.parent[g] = row, parent
            if parent < 0:
                break
            g, rank, lid = parent, parent_rank, parent_lid


def _gather_orbits(
    shard: Shard, graph: DistributedGraph, reduction: Reduction, got: list[Decided]
) -> None:
    """For every answer's state count n: the unreduced states the first n (by global
    number) stand for, summed over the ranks."""
    ex = shard.ex
    for n in sorted({d.states for d in got if d is not None}):
        local = ex.store.keys[: ex.store.n][shard.gid[: ex.store.n] < n]
        mine = reduction.orbit_rows(ex.packed, local) if local.shape[0] else 0
        graph.orbits[n] = int(shard.comm.allreduce(int(mine)))
