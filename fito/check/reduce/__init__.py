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
- partial-order reduction: not implemented; `ample` is the identity.

`notes` say what ran and what was switched off, and why; the report prints them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from fito.check.options import CheckOptions, Limits
from fito.lang import nodes as A
from fito.semantics.compiled import Compiled, State, StepFault, SymmetryBlocks
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
    def ample(self, compiled: Compiled, state: State, successors: Successors) -> Successors:
        """The successors to explore: all of them (no partial-order reduction yet)."""
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
    proof = prove(model)
    if not proof.declared:
        return NONE
    if getattr(options, "engine", "auto") == "symbolic":
        return Reduction(notes=("symmetry off: the symbolic engine explores no states",))
    notes: list[str] = []
    usable: set[str] = set(proof.sound)
    for a in assertions:
        n = next(i for i, b in enumerate(model.assertions) if b is a)
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
    return Reduction(syms, tuple(dict.fromkeys(notes)))


__all__ = ["NONE", "Reduction", "plan"]
