"""The model interface's dependency sets (fito/semantics/descriptors.py) are sound: on the
states of shipped specs and of random small specs, every transition changes only slots of
its `writes`, and changing a slot outside a group's `reads` changes neither which of its
transitions are enabled nor their successors (beyond the changed slot itself, which a
transition that does not write it carries over)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fito.pipeline import front_end
from fito.semantics.compiled import (
    Compiled,
    GroupInfo,
    NotSupported,
    StepFault,
    StructureGrows,
    compile_model,
)
from tests.helpers.random_specs import Gen

SPECS = Path(__file__).resolve().parents[2] / "specs"
SHIPPED = [
    "checkpoint_commit.fito",
    "abp.fito",
    "leader_election.fito",
    "peterson.fito",
    "dining_philosophers.fito",
    "runtime_commit.fito",
    "firmware_rollout.fito",
]
STATES = 250  # states reached per spec
CHANGES = 3  # slots changed per state and group


def reached(c: Compiled, root: tuple, limit: int) -> list[tuple]:
    """The first states of a breadth-first search (states with model errors kept, not
    expanded)."""
    seen, order = {root}, [root]
    for s in order:
        try:
            moves = c.successors(s)
        except StepFault:
            continue
        for _, post in moves:
            if post not in seen and len(order) < limit:
                seen.add(post)
                order.append(post)
    return order


def outcome(c: Compiled, s: tuple, h: int) -> object:
    """A group's successors of s with the label of each (rank, state after, label), or its
    model error (site, detail, failing step)."""
    try:
        moves = c.group_successors(s, h)
    except StepFault as e:
        return ("fault", e.fault.site, e.fault.detail, e.step)
    return [(rank, post, c.label(s, rank)) for rank, post in moves]


def other_value(c: Compiled, s: tuple, slot: int, r: random.Random, terms: list[int]) -> int:
    """A value for a slot other than its value in s: within the slot's type for the store
    and the regions, another location for a location."""
    bounds = c.layout.bounds(slot, c.mode(s[c.cells]).size)
    if bounds is None:  # a location
        choices = [t for t in terms if t != s[slot]] or [s[slot] + 1]
        return r.choice(choices)
    lo, hi = bounds
    choices = [v for v in range(lo, hi + 1) if v != s[slot]]
    return r.choice(choices) if choices else s[slot]


def check_writes(c: Compiled, s: tuple, g: GroupInfo) -> None:
    """Every successor differs from s only in the writes of its transition."""
    got = outcome(c, s, g.candidate)
    if not isinstance(got, list):
        return
    by_rank = {t.rank: t for t in g.transitions}
    for rank, post, _ in got:
        t = by_rank[rank]
        if t.reshapes:
            assert set(range(c.cells, len(s))) <= t.writes
            changed = {i for i in range(c.cells) if post[i] != s[i]}
        else:
            assert len(post) == len(s)
            changed = {i for i, (a, b) in enumerate(zip(s, post)) if a != b}
        assert changed <= t.writes, (c.label(s, rank), sorted(changed - t.writes))


def check_reads(c: Compiled, s: tuple, g: GroupInfo, r: random.Random, terms: list[int]) -> None:
    """Changing one slot outside the group's reads: the same transitions enabled, the same
    successors but for that slot, which each keeps unless it writes it."""
    outside = [i for i in range(len(s)) if i not in g.reads]
    before = outcome(c, s, g.candidate)
    for slot in r.sample(outside, min(CHANGES, len(outside))):
        v = other_value(c, s, slot, r, terms)
        if v == s[slot]:
            continue
        changed = s[:slot] + (v,) + s[slot + 1 :]
        after = outcome(c, changed, g.candidate)
        if not isinstance(before, list):
            assert after == before, (slot, before, after)
            continue
        assert isinstance(after, list), (slot, after)
        assert [(k, label) for k, _, label in after] == [(k, label) for k, _, label in before]
        writes = {t.rank: t.writes for t in g.transitions}
        for (rank, post, label), (_, post2, _) in zip(before, after):
            want = post[:slot] + ((post[slot] if slot in writes[rank] else v),) + post[slot + 1 :]
            assert post2 == want, (label, slot)


def check_spec(text: str, seed: int) -> int:
    """Check every group of the first states of each assertion's process; the number of
    (state, group) pairs checked."""
    model = front_end(text).model
    assert model is not None
    c = compile_model(model)
    r = random.Random(seed)
    procs = {id(p): p for p in [model.system] + [a.proc for a in model.assertions] if p}
    checked = 0
    for proc in procs.values():
        try:
            states = reached(c, c.initial(proc), STATES)
        except (NotSupported, StructureGrows):
            continue
        K = c.cells
        terms = sorted({t for s in states for t in c.control(s)[1:]})
        for s in states:
            try:
                whole = c.successors(s)
            except StepFault:
                whole = None
            groups = c.group_infos(s)
            if whole is not None:  # the groups' successors are the state's, in rank order
                assert [x for g in groups for x in c.group_successors(s, g.candidate)] == whole
                assert sorted(t.rank for g in groups for t in g.transitions) == [
                    t.rank for g in groups for t in g.transitions
                ]
            for g in groups:
                assert g.control == {K, *(K + 1 + p for p in g.movers)} <= g.reads
                assert g.guard <= g.reads
                assert all(t.guard <= t.reads for t in g.transitions)
                check_writes(c, s, g)
                check_reads(c, s, g, r, terms)
                checked += 1
    return checked


@pytest.mark.parametrize("name", SHIPPED)
def test_dependencies_of_shipped_specs(name: str) -> None:
    assert check_spec((SPECS / name).read_text(encoding="utf-8"), 0) > 0


@pytest.mark.parametrize("seed", range(40))
def test_dependencies_of_random_specs(seed: int) -> None:
    text = Gen(seed, forms=seed % 2 == 1).spec()
    if front_end(text).model is None:
        pytest.skip("the random spec does not resolve")
    check_spec(text, seed)


def test_a_write_at_a_computed_index_reads_the_whole_array() -> None:
    text = (
        "domain i: 0..1 = 0 durable\n"
        "domain a[k: 0..1]: 0..2 = 0 durable\n"
        "domain z: 0..1 = 0 durable\n"
        "channel go, flip\n"
        "process P = go {a[i] := 2} -> P [] flip {i := 1 - i} -> P\n"
        "system P\n"
    )
    c = compile_model(front_end(text).model)
    root = c.initial(c.model.system)
    (g,) = c.group_infos(root)
    go, flip = g.transitions
    a = c.layout.find("a")
    elements = {a.base, a.base + 1}
    i, z = c.layout.find("i").base, c.layout.find("z").base
    assert go.writes == elements and elements | {i} <= go.reads and z not in go.reads
    assert flip.writes == {i} and i in flip.reads and not elements & flip.reads
    assert go.visible and go.channel == "go" and not go.reshapes


def test_a_crash_reads_every_location_and_resets_the_volatile_variables() -> None:
    text = (
        "channel a, b, crash\n"
        "process P\n  var l: 0..2 = 0\n  = a {l := 1} -> P [] crash -> P\n"
        "process Q\n  var l: 0..2 = 0\n  = b {l := 2} -> Q\n"
        "process Sys = P ||| Q\n"
        "system Sys\n"
    )
    c = compile_model(front_end(text).model)
    s = c.initial(c.model.system)
    (after_a,) = [post for rank, post in c.successors(s) if c.label(s, rank) == "a"]
    (crash,) = [t for g in c.group_infos(after_a) for t in g.transitions if t.channel == "crash"]
    assert not crash.reshapes  # P goes on: the crash resets Q's variables too
    size = c.mode(after_a[c.cells]).size
    locations = {c.layout.location_slot(p) for p in range(size)}
    variables = {c.layout.region_slots(size, p)[j] for p in range(size) for j in range(c.region)}
    assert locations <= crash.reads and variables <= crash.reads & crash.writes
    check_spec(text, 0)
