"""The epoch lattice E^k: enumeration and closed forms against the paper's formulas (PAPERS.md,
claim 2)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fito.models.epochs import lattice as lat


@pytest.fixture(scope="module")
def forms() -> lat.ClosedForms:
    return lat.closed_forms()


@pytest.mark.parametrize("k", range(1, 7))
@pytest.mark.parametrize("n", range(0, 4))
def test_enumeration_matches_the_papers_counts(k: int, n: int) -> None:
    counts = lat.count(lat.EpochLattice(k, n))
    assert counts.size == (n + 1) ** k
    assert counts.consistent == n + 1
    assert counts.mixed_fraction == 1 - Fraction(n + 1) ** (1 - k)


def test_closed_forms_are_the_papers_formulas_symbolically(forms: lat.ClosedForms) -> None:
    k, n = forms.k, forms.n
    assert sp.simplify(forms.epoch_count - (n + 1)) == 0
    assert sp.simplify(forms.size - (n + 1) ** k) == 0
    assert sp.simplify(forms.consistent - (n + 1)) == 0
    assert sp.simplify(forms.mixed_fraction - (1 - (n + 1) ** (1 - k))) == 0
    assert sp.simplify(forms.mixed_in_window - (2**k - 2)) == 0


@pytest.mark.parametrize("k", range(1, 7))
def test_closed_forms_agree_with_enumeration(forms: lat.ClosedForms, k: int) -> None:
    for n in range(0, 4):
        values = forms.evaluate(k, n)
        counted = lat.count(lat.EpochLattice(k, n))
        assert values["size"] == counted.size
        assert values["consistent"] == counted.consistent
        assert values["mixed_fraction"] == counted.mixed_fraction
    window = lat.crash_window(lat.EpochLattice(k, 2), 2)
    assert forms.evaluate(k, 2)["mixed_in_window"] == sum(1 for v in window if len(set(v)) > 1)


@pytest.mark.parametrize("k,n", [(1, 3), (2, 2), (3, 1), (2, 3)])
def test_meet_and_join_are_the_order_bounds(k: int, n: int) -> None:
    L = lat.EpochLattice(k, n)
    for x, y in itertools.product(L.elements(), repeat=2):
        assert L.meet(x, y) == L.glb(x, y) == tuple(map(min, x, y))
        assert L.join(x, y) == L.lub(x, y) == tuple(map(max, x, y))


vectors = st.integers(1, 5).flatmap(
    lambda k: st.tuples(
        *(st.lists(st.integers(0, 6), min_size=k, max_size=k).map(tuple) for _ in range(3))
    )
)


@settings(max_examples=200, deadline=None)
@given(vectors)
def test_lattice_laws(xyz) -> None:
    x, y, z = xyz
    L = lat.EpochLattice(len(x), 6)
    meet, join = L.meet, L.join
    assert meet(x, join(y, z)) == join(meet(x, y), meet(x, z))
    assert join(x, meet(y, z)) == meet(join(x, y), join(x, z))
    assert meet(x, join(x, y)) == x == join(x, meet(x, y))
    assert meet(x, meet(y, z)) == meet(meet(x, y), z)
    assert L.leq(meet(x, y), x) and L.leq(x, join(x, y))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=6).map(tuple))
def test_best_recovery_point_is_the_greatest_consistent_element_below(x) -> None:
    L = lat.EpochLattice(len(x), 5)
    best = L.best_recovery_point(x)
    assert best == (min(x),) * len(x)
    assert L.is_consistent(best) and L.leq(best, x)
    assert all(L.leq(c, best) for c in L.diagonal() if L.leq(c, x))


def test_diagonal_and_bounds() -> None:
    L = lat.EpochLattice(3, 2)
    assert L.diagonal() == ((0, 0, 0), (1, 1, 1), (2, 2, 2))
    assert L.bottom == (0, 0, 0) and L.top == (2, 2, 2)
    assert L.is_consistent((1, 1, 1)) and not L.is_consistent((1, 2, 1))


@pytest.mark.parametrize("k", range(1, 7))
def test_crash_window(k: int) -> None:
    window = lat.crash_window(lat.EpochLattice(k, 3), 3)
    assert set(window) == set(itertools.product((2, 3), repeat=k))
    assert sum(1 for v in window if len(set(v)) > 1) == 2**k - 2


@pytest.mark.parametrize("args", [(0, 2), (2, -1), (True, 2), (2, 1.5), ("3", 1)])
def test_bad_sizes_are_refused(args) -> None:
    with pytest.raises(ValueError):
        lat.EpochLattice(*args)


def test_bad_vectors_and_epochs_are_refused() -> None:
    L = lat.EpochLattice(2, 2)
    for bad in [(0, 3), (0,), (0, -1), [0, 1]]:
        with pytest.raises(ValueError):
            L.best_recovery_point(bad)  # type: ignore[arg-type]
    for epoch in (0, 3):
        with pytest.raises(ValueError):
            lat.crash_window(L, epoch)
