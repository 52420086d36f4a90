"""Reductions of the state space, handed to the engines as one frozen `Reduction`
(docs/reductions.md).

`plan(compiled, assertions, options)` decides what may run for a group of assertions
answered by one search:

- symmetry: the types declared `symmetric type` that the type checker proved sound
  (fito/types/symmetry.py), for deadlock freedom, `always` and `reaches` whose property and
  process are symmetric. A state is replaced by its canonical representative: the per-member
  blocks of cells (`Compiled.symmetry`, all cells indexed by the type together, member by
  member) sorted, never by enumerating permutations. A permutation maps runs to runs of the
  same length, so BFS depths, verdicts and the length of shortest counterexamples are kept;
  a counterexample is expanded back into a run of the unreduced system (`expand`).
- partial-order reduction (`por`): for deadlock freedom, `always` and `reaches`, in a
  model without crash steps and without symmetry in use, a state expands only the enabled
  steps of one process whose steps at its location read and write nothing but its own
  control and variables (so they are independent of every other step and invisible to
  every store property), which can synchronise with no other process there, and none of
  whose successors has been seen (the cycle proviso, in its breadth-first form). Such a
  set is stubborn: deadlocks and reachable property violations are kept. A violation found
  by the reduced search is searched again without it, so its trace is a shortest one
  (fito/check/verdicts.py).

`notes` say what ran and what was switched off, and why; the report prints them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any, TypeVar

from fito.check.options import CheckOptions, Limits
from fito.lang import nodes as A
from fito.semantics.compiled import RANK_BITS, Compiled, State, StepFault, SymmetryBlocks
from fito.types.symmetry import prove

if TYPE_CHECKING:
    import numpy as np

    from fito.semantics.packed import PackedStates

Successors = list[tuple[int, State]]


@dataclass(frozen=True, slots=True)
class Reduction:
    """What the engines apply: `canonical` per state, `canonical_rows` per block of packed
    rows (the frontier engine), `ample` per expanded state (identity: no partial-order
    reduction yet), and the report's `notes`."""

    symmetries: tuple[SymmetryBlocks, ...] = ()
    notes: tuple[str, ...] = ()
    por: bool = False  # partial-order reduction (`ample`)
    _local: dict[tuple[int, ...], tuple[int, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )  # per control (mode and locations): the candidates whose steps are process-local

    @property
    def symmetric(self) -> bool:
        """Whether states are replaced by canonical representatives."""
        return any(len(s.blocks) > 1 and s.blocks[0] for s in self.symmetries)

    # ------------------------------------------------------------------ one state
    def canonical(self, state: State) -> State:
        """The representative of the state's orbit: each type's member blocks sorted."""
        for sym in self.symmetries:
            state = _sort_blocks(state, sym.blocks)
        return state

    def canonical_fn(self) -> Callable[[State], State] | None:
        """`canonical` as one fast function (None when there is no symmetry)."""
        if not self.symmetric:
            return None
        steps = [_sorter(s.blocks) for s in self.symmetries if len(s.blocks) > 1 and s.blocks[0]]
        if len(steps) == 1:
            return steps[0]

        def canonical(state: State) -> State:
            for step in steps:
                state = step(state)
            return state

        return canonical

    def orbit(self, state: State) -> int:
        """How many states of the unreduced graph the representative stands for."""
        n = 1
        for sym in self.symmetries:
            if len(sym.blocks) > 1 and sym.blocks[0]:
                keys = [tuple(state[i] for i in b) for b in sym.blocks]
                n *= _multinomial(keys)
        return n

    # ------------------------------------------------------------------ packed rows
    def canonical_rows(self, packed: PackedStates, rows: np.ndarray) -> np.ndarray:
        """The representatives of a block of packed rows (a new block; rows unchanged):
        per symmetric type, each row's member keys (the fields of a member's block, in one
        integer) sorted by a sorting network over whole columns, then written back."""
        if not self.symmetric or rows.shape[0] == 0:
            return rows
        import numpy as np  # lazy-import: only the frontier engine packs states

        out = rows.copy()
        fields = packed.packing.fields
        for sym in self.symmetries:
            if len(sym.blocks) <= 1 or not sym.blocks[0]:
                continue
            keys = _member_keys(out, fields, sym.blocks)
            if keys is None:  # blocks wider than a word: the rows one by one
                return _rows_one_by_one(self, packed, rows)
            _sort_columns(keys)
            widths = [fields[slot].width for slot in sym.blocks[0]]
            by_word: dict[int, list[tuple[int, int, Any]]] = {}
            for m, block in enumerate(sym.blocks):
                for k, slot in enumerate(block):
                    by_word.setdefault(fields[slot].word, []).append((m, k, fields[slot]))
            n = out.shape[0]
            tmp = np.empty(n, dtype=np.uint64)
            for w, items in by_word.items():
                clear = 0
                bits = np.zeros(n, dtype=np.uint64)
                for m, k, f in items:
                    below = sum(widths[k + 1 :])  # the key holds slot 0 in its top bits
                    tmp[:] = keys[m]
                    if below:
                        tmp >>= np.uint64(below)
                    tmp &= np.uint64(f.mask)
                    tmp <<= np.uint64(f.shift)
                    bits |= tmp
                    clear |= f.mask << f.shift
                out[:, w] = (out[:, w] & np.uint64(~clear & ((1 << 64) - 1))) | bits
        return out

    def orbit_rows(self, packed: PackedStates, rows: np.ndarray) -> int:
        """The states of the unreduced graph that canonical rows stand for, in all."""
        if not self.symmetric or rows.shape[0] == 0:
            return int(rows.shape[0])
        import numpy as np  # lazy-import: only the frontier engine packs states

        fields = packed.packing.fields
        signatures = []
        sizes = []
        for sym in self.symmetries:
            if len(sym.blocks) <= 1 or not sym.blocks[0]:
                continue
            keys = _member_keys(rows, fields, sym.blocks)
            if keys is None:
                return sum(self.orbit(packed.unpack(r)) for r in rows)
            signatures.append((keys[1:] == keys[:-1]).T)  # rows, members - 1: sorted keys
            sizes.append(keys.shape[0] - 1)
        joined = np.ascontiguousarray(np.concatenate(signatures, axis=1))
        width = joined.shape[1]
        packed_bits = np.packbits(joined, axis=1)  # rows of bytes: few distinct patterns
        if packed_bits.shape[1] <= 8:
            wide = np.zeros((joined.shape[0], 8), dtype=np.uint8)
            wide[:, : packed_bits.shape[1]] = packed_bits
            _, first, counts = np.unique(
                wide.view(np.uint64)[:, 0], return_index=True, return_counts=True
            )
        else:
            _, first, counts = np.unique(packed_bits, axis=0, return_index=True, return_counts=True)
        total = 0
        for row, count in zip(first.tolist(), counts.tolist()):
            pattern = joined[row, :width].tolist()
            n, at = 1, 0
            for size in sizes:
                n *= _multinomial_runs(pattern[at : at + size])
                at += size
            total += n * count
        return total

    def represented(self, graph: Any, n: int) -> int:
        """The states of the unreduced graph that the first n states of a search's graph
        stand for (its whole orbits): the unreduced search's state count at the same depth."""
        if not self.symmetric:
            return n
        expander = getattr(graph, "expander", None)
        if expander is None:
            return sum(self.orbit(s) for s in graph.states[:n])
        total = 0
        for lo in range(0, n, 1 << 16):
            rows = expander.store.keys[lo : min(n, lo + (1 << 16))]
            total += self.orbit_rows(expander.packed, rows)
        return total

    # ------------------------------------------------------------------ POR
    def ample(
        self,
        compiled: Compiled,
        state: State,
        successors: Successors,
        visited: Container[State] | None = None,
    ) -> Successors:
        """The successors to explore: with `por`, the enabled steps of the first process
        whose steps are process-local (`_local_candidates`) and lead only to states not in
        `visited` (the cycle proviso); all of them otherwise (and always without `visited`)."""
        if not self.por or visited is None or len(successors) < 2:
            return successors
        K = compiled.layout.size
        size = compiled.mode(state[K]).size
        control = state[K : K + 1 + size]
        order = self._local.get(control)
        if order is None:
            order = self._local[control] = _local_candidates(compiled, state, control)
        for h in order:
            mine = [m for m in successors if m[0] >> RANK_BITS == h]
            if not mine or len(mine) == len(successors):
                continue
            if any(post in visited for _, post in mine):
                continue  # the proviso: a step closing a cycle may not be put off
            return mine
        return successors

    # ------------------------------------------------------------------ traces
    def expand(self, c: Compiled, root: State, chain: Sequence[State], step: int | None) -> tuple:
        """A run of the unreduced system through the representatives `chain` (the first
        one root's): (path of (state, rank), the rank of the failing step or None). Each
        step is replayed and the concrete successor whose representative is the next one
        is followed, so the run has the same length."""
        canonical = self.canonical_fn() or (lambda s: s)
        x = root
        path: list[tuple[State, int]] = []
        for target in chain[1:]:
            for rank, post in c.successors(x):
                if canonical(post) == target:
                    path.append((x, rank))
                    x = post
                    break
            else:  # pragma: no cover - a representative always has a concrete preimage
                raise AssertionError("no concrete successor matches the representative")
        if step is not None:
            try:
                c.successors(x)
            except StepFault as fault:
                step = fault.step if isinstance(fault.step, int) else step
        return path, x, step


def _local_candidates(c: Compiled, state: State, control: tuple[int, ...]) -> tuple[int, ...]:
    """The one-position candidates of a control whose steps are independent of every step
    of every other position and invisible: each of the position's transitions at its
    location reads and writes only the mode slot (read), its location and its region; it
    neither reshapes the mode nor crashes; the position cannot take part in a synchronised
    candidate (or a termination) at this location, so only it can move it; and no group of
    another candidate here reads or writes its location or region."""
    K = c.layout.size
    mode = control[0]
    m = c.mode(mode)
    size = m.size
    others = c.group_infos(state)
    out = []
    for h, movers in enumerate(m.candidates):
        if len(movers) != 1:
            continue
        p = movers[0]
        tid = control[1 + p]
        if _may_synchronise(c, m, h, p, tid):
            continue
        g = c.group_info(mode, h, (tid,))
        if not g.transitions:
            continue
        own = frozenset((c.layout.location_slot(p), *c.layout.region_slots(size, p)))
        if not all(
            not t.reshapes
            and t.target is not None
            and not t.step.crash
            and t.reads <= own | {K}
            and t.writes <= own
            for t in g.transitions
        ):
            continue
        if any(o.candidate != h and (o.reads | o.writes) & own for o in others):
            continue
        out.append(h)
    return tuple(out)


def _may_synchronise(c: Compiled, m: Any, h: int, p: int, tid: int) -> bool:
    """Whether position p at location tid may take part in a candidate other than h."""
    for h2, movers in enumerate(m.candidates):
        if h2 == h or p not in movers:
            continue
        reason = m.reasons[h2]
        if reason is None:
            return True
        chans, end = reason
        if end and c.takes_part(reason, None, tid):
            return True
        if any(c.takes_part(reason, ch, tid) for ch in chans):
            return True
    return False


_T = TypeVar("_T")
_PER_MODEL: dict[tuple[str, int], tuple[object, object]] = {}  # (what, id) -> (model, value)


def _once(what: str, model: object, compute: Callable[[], _T]) -> _T:
    """compute() for this model object, computed once: `plan` runs per assertion, and what
    it derives from the whole model must not be derived again each time (a spec of 20,000
    assertions made that quadratic). A few models are kept; identity, not equality."""
    key = (what, id(model))
    hit = _PER_MODEL.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]  # type: ignore[return-value]
    value = compute()
    if len(_PER_MODEL) > 32:  # forget other models, never this one's other facts
        for k in [k for k in _PER_MODEL if k[1] != id(model)]:
            del _PER_MODEL[k]
    _PER_MODEL[key] = (model, value)
    return value


def _crashes(node: object) -> bool:
    """Whether a syntax tree names an event of channel `crash` (a crash step resets the
    volatile variables of every process, so it depends on every process's control)."""
    stack = [node]
    seen: set[int] = set()
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, A.Event) and x.channel == "crash":
            return True
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in fields(x))
    return False


def _sorter(blocks: tuple[tuple[int, ...], ...]) -> Callable[[State], State]:
    """A state's member blocks sorted, as one function of the state."""
    if all(len(b) == 1 for b in blocks):
        slots = [b[0] for b in blocks]
        get = itemgetter(*slots)
        lo, hi = min(slots), max(slots) + 1
        if slots == list(range(lo, hi)):  # one run of slots: a slice assignment

            def contiguous(state: State) -> State:
                vals = get(state)
                order = sorted(vals)
                if list(vals) == order:
                    return state
                return state[:lo] + tuple(order) + state[hi:]

            return contiguous

        def scattered(state: State) -> State:
            vals = get(state)
            order = sorted(vals)
            if list(vals) == order:
                return state
            out = list(state)
            for slot, v in zip(slots, order):
                out[slot] = v
            return tuple(out)

        return scattered
    gets = [itemgetter(*b) if len(b) > 1 else _one(b[0]) for b in blocks]

    def general(state: State) -> State:
        keys = [g(state) for g in gets]
        order = sorted(keys)
        if order == keys:
            return state
        out = list(state)
        for block, key in zip(blocks, order):
            if len(block) == 1:
                out[block[0]] = key
            else:
                for slot, v in zip(block, key):
                    out[slot] = v
        return tuple(out)

    return general


def _one(slot: int) -> Callable[[State], Any]:
    return itemgetter(slot)


def _sort_blocks(state: State, blocks: tuple[tuple[int, ...], ...]) -> State:
    if len(blocks) <= 1 or not blocks[0]:
        return state
    keys = [tuple(state[i] for i in b) for b in blocks]
    order = sorted(keys)
    if order == keys:
        return state
    out = list(state)
    for block, key in zip(blocks, order):
        for slot, v in zip(block, key):
            out[slot] = v
    return tuple(out)


def _multinomial(keys: list[tuple[int, ...]]) -> int:
    counts: dict[tuple[int, ...], int] = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    n = math.factorial(len(keys))
    for m in counts.values():
        n //= math.factorial(m)
    return n


def _multinomial_runs(same_as_previous: list[bool]) -> int:
    """M! / prod(run lengths!) for sorted blocks, given which equal their predecessor."""
    n = math.factorial(len(same_as_previous) + 1)
    run = 1
    for same in same_as_previous:
        if same:
            run += 1
        else:
            n //= math.factorial(run)
            run = 1
    return n // math.factorial(run)


def _member_keys(rows: np.ndarray, fields: Sequence[Any], blocks: tuple) -> np.ndarray | None:
    """Per member (first axis) and row, its block's fields as one unsigned integer, the
    first slot in the top bits (so keys compare as the blocks do); None past 64 bits."""
    import numpy as np  # lazy-import: only the frontier engine packs states

    widths = [fields[slot].width for slot in blocks[0]]
    total = sum(widths)
    if total > 64:
        return None
    dtype: Any = np.uint8 if total <= 8 else np.uint16 if total <= 16 else np.uint32
    if total > 32:
        dtype = np.uint64
    n = rows.shape[0]
    words = np.ascontiguousarray(rows.T)
    keys = np.empty((len(blocks), n), dtype=dtype)
    tmp = np.empty(n, dtype=np.uint64)
    acc = np.empty(n, dtype=np.uint64)
    for m, block in enumerate(blocks):
        acc[:] = 0
        for slot, w in zip(block, widths):
            f = fields[slot]
            np.right_shift(words[f.word], np.uint64(f.shift), out=tmp)
            tmp &= np.uint64(f.mask)
            acc <<= np.uint64(w)
            acc |= tmp
        keys[m] = acc
    return keys


def _sort_columns(keys: np.ndarray) -> None:
    """Sort every column of keys (members x rows) in place: a sorting network of
    compare-exchanges over whole rows of the array (Batcher's odd-even merge sort)."""
    import numpy as np  # lazy-import: only the frontier engine packs states

    tmp = np.empty_like(keys[0])
    for a, b in _network(keys.shape[0]):
        np.minimum(keys[a], keys[b], out=tmp)
        np.maximum(keys[a], keys[b], out=keys[b])
        keys[a] = tmp


_NETWORKS: dict[int, tuple[tuple[int, int], ...]] = {}


def _network(n: int) -> tuple[tuple[int, int], ...]:
    """Batcher's odd-even merge sort on n inputs: the compare-exchange pairs, in order."""
    got = _NETWORKS.get(n)
    if got is None:
        pairs = []
        p = 1
        while p < n:
            k = p
            while k >= 1:
                for j in range(k % p, n - k, 2 * k):
                    for i in range(min(k, n - j - k)):
                        if (i + j) // (2 * p) == (i + j + k) // (2 * p):
                            pairs.append((i + j, i + j + k))
                k //= 2
            p *= 2
        got = _NETWORKS[n] = tuple(pairs)
    return got


def _rows_one_by_one(red: Reduction, packed: PackedStates, rows: np.ndarray) -> np.ndarray:
    """canonical_rows for blocks wider than a word: unpack, reduce and pack each row."""
    return packed.pack_many([red.canonical(packed.unpack(r)) for r in rows])


NONE = Reduction()


def plan(
    compiled: Compiled, assertions: Sequence[A.AssertDecl], options: CheckOptions | Limits
) -> Reduction:
    """The reductions one search may use for these assertions (about one process)."""
    model = compiled.model
    if not getattr(options, "reduce", True):
        declared = any(isinstance(d, A.TypeDecl) and d.symmetric for d in model.spec.decls)
        return Reduction(notes=("reductions off (--no-reduce)",) if declared else ())
    if getattr(options, "engine", "auto") == "symbolic":
        declared = any(isinstance(d, A.TypeDecl) and d.symmetric for d in model.spec.decls)
        if not declared:
            return NONE
        return Reduction(notes=("symmetry off: the symbolic engine explores no states",))
    syms, notes = _symmetry(compiled, assertions)
    por, why = _por(compiled, assertions, options, syms)
    if why is not None:
        notes.append(why)
    if not syms and not por and not notes:
        return NONE
    return Reduction(syms, tuple(dict.fromkeys(notes)), por)


POR_NOTE = (
    "partial-order reduction (steps of one process that touch only its own control and "
    "variables, with the cycle proviso; a violation is searched again without it, for a "
    "shortest trace)"
)


def _por(
    compiled: Compiled,
    assertions: Sequence[A.AssertDecl],
    options: CheckOptions | Limits,
    syms: tuple[SymmetryBlocks, ...],
) -> tuple[bool, str | None]:
    """Whether partial-order reduction may run, and the note that says so (or why not)."""
    if os.environ.get("FITO_POR") != "1":
        # opt-in for now: on by default it changed the state counts other engines, SPIN's
        # twins and the reference interpreter are compared with (docs/reductions.md)
        return False, None
    if getattr(options, "distributed", False) or getattr(options, "engine", "auto") == "frontier":
        return False, None  # the frontier and distributed engines expand every state
    if _once("crashes", compiled.model, lambda: _crashes(compiled.model.spec)):
        return False, None  # a crash step depends on every process: nothing to reduce
    kinds = {a.kind for a in assertions}
    if not kinds <= {"deadlock", "always", "reaches"}:
        off = ", ".join(sorted(kinds - {"deadlock", "always", "reaches"}))
        return False, f"partial-order reduction off for {off}: it needs a proviso fito lacks"
    if any(len(s.blocks) > 1 and s.blocks[0] for s in syms):
        return False, None  # symmetry runs instead
    return True, POR_NOTE


def _symmetry(
    compiled: Compiled, assertions: Sequence[A.AssertDecl]
) -> tuple[tuple[SymmetryBlocks, ...], list[str]]:
    """The symmetric types one search may use, and the notes that say so."""
    model = compiled.model
    proof = _once("symmetry", model, lambda: prove(model))
    if not proof.declared:
        return (), []
    notes: list[str] = []
    usable: set[str] = set(proof.sound)
    index = _once("index", model, lambda: {id(b): i for i, b in enumerate(model.assertions)})
    for a in assertions:
        n = index[id(a)]
        types, why = proof.for_assertion(n, a.kind)
        usable &= set(types)
        if why is not None:
            notes.append(why)
    refused = [t for t in proof.declared if t not in proof.sound]
    if refused:
        notes.append(
            f"symmetry off for {', '.join(refused)}: not proved sound (see the diagnostics)"
        )
    syms = tuple(compiled.symmetry(t) for t in proof.declared if t in usable)
    for s in syms:
        if len(s.blocks) > 1 and s.blocks[0]:
            notes.append(
                f"symmetry over {s.type} ({len(s.blocks)} members, {len(s.blocks[0])} cells each)"
            )
        else:
            notes.append(f"symmetry over {s.type}: no cell is indexed by it, nothing to permute")
    return syms, notes


__all__ = ["NONE", "Reduction", "plan"]
