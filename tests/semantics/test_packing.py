"""Packed states: `pack_many` gives the same rows as `pack` one by one, and `unpack` gives
back every state (on the states of shipped specs, reached by the scalar search)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fito.pipeline import front_end
from fito.semantics.codegen.scalar import StepFault
from fito.semantics.compiled import compile_model
from fito.semantics.state.packing import Codebook, Overflow, Packer, layout_fields

SPECS = Path(__file__).resolve().parents[2] / "specs"


def packer_for(compiled, states) -> Packer:
    """A packer wide enough for these states."""
    modes = [compiled.mode(m) for m in range(compiled.mode_count)]
    positions = max(m.size for m in modes)
    book = Codebook()
    book.ensure(positions)
    K = compiled.cells
    for s in states:
        for p in range(modes[s[K]].size):
            book.code(p, s[K + 1 + p])
    bits = [(len(book.terms[p]) * 2).bit_length() for p in range(positions)]
    packing = layout_fields(
        compiled.layout.types, (len(modes) * 2).bit_length(), bits, compiled.layout.region
    )
    return Packer(packing, book, modes)


def reached(compiled, root: tuple, limit: int) -> list[tuple]:
    """The first `limit` states of a breadth-first search (model errors skipped)."""
    seen, order = {root}, [root]
    for s in order:
        try:
            moves = compiled.successors(s)
        except StepFault:  # a model error: no successors to pack
            continue
        for _, post in moves:
            if post not in seen and len(order) < limit:
                seen.add(post)
                order.append(post)
    return order


@pytest.mark.parametrize("name", ["checkpoint_commit.fito", "abp.fito", "leader_election.fito"])
def test_pack_many_is_pack_row_by_row(name: str) -> None:
    model = front_end((SPECS / name).read_text(encoding="utf-8")).model
    compiled = compile_model(model)
    root = compiled.initial(model.assertions[0].proc or model.system)
    states = reached(compiled, root, 3_000)
    packer = packer_for(compiled, states)
    many = packer.pack_many(states)
    assert many.dtype == np.uint64
    assert np.array_equal(many, np.stack([packer.pack(s) for s in states]))
    sizes = [compiled.mode(m).size for m in range(compiled.mode_count)]
    assert all(packer.unpack(row, sizes) == tuple(s) for row, s in zip(many, states))


def test_pack_many_refuses_a_value_out_of_its_field() -> None:
    model = front_end((SPECS / "checkpoint_commit.fito").read_text(encoding="utf-8")).model
    compiled = compile_model(model)
    root = compiled.initial(model.system)
    packer = packer_for(compiled, [root])
    K = compiled.cells
    bad = (compiled.layout.init[0] + (1 << 40),) + tuple(root[1:K]) + tuple(root[K:])
    with pytest.raises(Overflow):
        packer.pack_many([root, bad])
