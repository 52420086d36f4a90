"""The frontier search's visited store (fito/check/frontier/visited.py) against a Python dict: block
insertion numbers each distinct row once, in order; `find` only reads; `reorder` renumbers a
level, with or without the slots tracked during insertion; the table grows and rebuilds."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fito.check.frontier.visited import StateStore, rows_equal

WORDS = st.integers(1, 3)


def blocks(words: int, universe: int) -> st.SearchStrategy[list[np.ndarray]]:
    """A few blocks of rows drawn from a small universe (so rows repeat within and across
    blocks); values near both ends of a word."""
    pool = np.random.default_rng(universe).integers(
        0, 2**64 - 1, size=(universe, words), dtype=np.uint64, endpoint=True
    )
    pool[0] = 0
    one = st.lists(st.integers(0, universe - 1), min_size=0, max_size=300)
    return st.lists(one, min_size=1, max_size=6).map(
        lambda idx: [pool[np.array(i, dtype=np.int64)] for i in idx]
    )


@settings(max_examples=60, deadline=None)
@given(data=st.data(), words=WORDS, universe=st.integers(1, 400), regions=st.sampled_from([1, 2]))
def test_insert_numbers_each_distinct_row_once_in_order(
    data: st.DataObject, words: int, universe: int, regions: int
) -> None:
    store = StateStore(words, capacity=16)
    if regions > 1:  # probes wrap within each half of the table (fito/check/frontier/workers.py)
        store.partition(regions)
    seen: dict[bytes, int] = {}
    for block in data.draw(blocks(words, universe)):
        block = block.reshape(-1, words)
        expected_new = len({r.tobytes() for r in block} - seen.keys())
        before = store.n
        sid = store.insert(block)
        assert store.n == before + expected_new
        for row, i in zip(block, sid.tolist()):
            key = row.tobytes()
            assert seen.setdefault(key, i) == i
            assert (store.keys[i] == row).all()
        assert set(sid.tolist()) >= set(range(before, store.n))
    keys = np.frombuffer(b"".join(seen), dtype=np.uint64).reshape(-1, words)
    found = store.find(keys)
    assert found.tolist() == list(seen.values())


@settings(max_examples=40, deadline=None)
@given(data=st.data(), words=WORDS)
def test_find_reads_only_and_misses_absent_rows(data: st.DataObject, words: int) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    rows = np.unique(rng.integers(0, 50, size=(200, words), dtype=np.uint64), axis=0)
    half = rows[: rows.shape[0] // 2]
    store = StateStore(words, capacity=16)
    store.insert(half)
    table, n = store.table.copy(), store.n
    got = store.find(rows)
    assert (store.table == table).all() and store.n == n
    assert (got[: half.shape[0]] >= 0).all() and (got[half.shape[0] :] == -1).all()
    assert rows_equal(store.keys[got[: half.shape[0]]], half).all()


@settings(max_examples=40, deadline=None)
@given(data=st.data(), words=WORDS, tracked=st.booleans())
def test_reorder_renumbers_a_level(data: st.DataObject, words: int, tracked: bool) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    rows = np.unique(rng.integers(0, 1000, size=(300, words), dtype=np.uint64), axis=0)
    cut = data.draw(st.integers(0, rows.shape[0]))
    store = StateStore(words, capacity=16)
    store.insert(rows[:cut])
    first = store.n
    if tracked:
        store.track(first)
    for part in np.array_split(rows[cut:], 3):  # the table may grow between blocks
        store.insert(part)
    perm = rng.permutation(store.n - first)
    before = store.keys[first : store.n].copy()
    old = store.find(rows)
    store.reorder(first, perm)
    assert (store.keys[first : store.n] == before[perm]).all()
    moved = old >= first
    old[moved] = first + np.argsort(perm)[old[moved] - first]
    assert store.find(rows).tolist() == old.tolist()
