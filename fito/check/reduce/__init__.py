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
        getters = [
            ([itemgetter(*b) if len(b) > 1 else _one(b[0]) for b in s.blocks], s.blocks)
            for s in self.symmetries
            if len(s.blocks) > 1 and s.blocks[0]
        ]

        def canonical(state: State) -> State:
            for gets, blocks in getters:
                keys = [g(state) for g in gets]
                order = sorted(keys)
                if order == keys:
                    continue
                out = list(state)
                for block, key in zip(blocks, order):
                    if len(block) == 1:
                        out[block[0]] = key
                    else:
                        for slot, v in zip(block, key):
                            out[slot] = v
                state = tuple(out)
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
        """The representatives of a block of packed rows (a new block; rows unchanged)."""
        if not self.symmetric or rows.shape[0] == 0:
            return rows
        import numpy as np  # lazy-import: only the frontier engine packs states

        out = rows.copy()
        fields = packed.packing.fields
        for sym in self.symmetries:
            if len(sym.blocks) <= 1 or not sym.blocks[0]:
                continue
            values = _block_values(out, fields, sym.blocks)  # (rows, members, slots)
            order = np.broadcast_to(np.arange(values.shape[1]), values.shape[:2]).copy()
            for k in reversed(range(values.shape[2])):  # LSD: stable sorts, last slot first
                col = np.take_along_axis(values[:, :, k], order, axis=1)
                order = np.take_along_axis(order, np.argsort(col, axis=1, kind="stable"), axis=1)
            ordered = np.take_along_axis(values, order[:, :, None], axis=1)
            for m, block in enumerate(sym.blocks):
                for k, slot in enumerate(block):
                    f = fields[slot]
                    word = out[:, f.word]
                    word &= ~np.uint64(f.mask << f.shift)
                    word |= ordered[:, m, k] << np.uint64(f.shift)
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
            values = _block_values(rows, fields, sym.blocks)
            same = np.all(values[:, 1:, :] == values[:, :-1, :], axis=2)  # rows, members - 1
            signatures.append(same)
            sizes.append(same.shape[1])
        joined = np.concatenate(signatures, axis=1)
        patterns, counts = np.unique(joined, axis=0, return_counts=True)
        total = 0
        for pattern, count in zip(patterns.tolist(), counts.tolist()):
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


def _block_values(rows: np.ndarray, fields: Sequence[Any], blocks: tuple) -> np.ndarray:
    import numpy as np  # lazy-import: only the frontier engine packs states

    M, L = len(blocks), len(blocks[0])
    values = np.empty((rows.shape[0], M, L), dtype=np.uint64)
    for m, block in enumerate(blocks):
        for k, slot in enumerate(block):
            f = fields[slot]
            values[:, m, k] = (rows[:, f.word] >> np.uint64(f.shift)) & np.uint64(f.mask)
    return values


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
