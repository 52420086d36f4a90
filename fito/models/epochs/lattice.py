"""The epoch lattice L = E^k, E = {0..n}, with the product order (paper A, claim 2).

An element is a *durable vector*: the epoch each of the k persistence domains holds. The
order, meet and join are componentwise; the consistent elements are the diagonal; the best
recovery point of a durable vector is the greatest consistent element below it. The module
computes these by enumeration (exact, small k and n) and derives the closed forms
symbolically with SymPy from the same definitions (`closed_forms`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from fito import budget

if TYPE_CHECKING:  # pragma: no cover
    import sympy

Vector = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class EpochLattice:
    """L = E^k with E = {0, ..., epochs} and k = domains, ordered componentwise."""

    domains: int
    epochs: int

    def __post_init__(self) -> None:
        if isinstance(self.domains, bool) or not isinstance(self.domains, int) or self.domains < 1:
            raise ValueError(f"the number of domains must be an integer >= 1, not {self.domains!r}")
        if isinstance(self.epochs, bool) or not isinstance(self.epochs, int) or self.epochs < 0:
            raise ValueError(f"the newest epoch must be an integer >= 0, not {self.epochs!r}")

    @property
    def epoch_set(self) -> range:
        """E = {0, ..., n}."""
        return range(self.epochs + 1)

    def elements(self) -> Iterator[Vector]:
        """Every durable vector, in lexicographic order."""
        return itertools.product(self.epoch_set, repeat=self.domains)

    def contains(self, x: Vector) -> bool:
        """Whether x is an element of L."""
        return (
            isinstance(x, tuple)
            and len(x) == self.domains
            and all(isinstance(v, int) and 0 <= v <= self.epochs for v in x)
        )

    def check(self, x: Vector) -> Vector:
        """x itself, or ValueError naming why it is not an element of L."""
        if not self.contains(x):
            raise ValueError(f"{x!r} is not a vector of {self.domains} epochs in 0..{self.epochs}")
        return x

    @staticmethod
    def leq(x: Vector, y: Vector) -> bool:
        """The product order: x <= y in every domain."""
        return all(a <= b for a, b in zip(x, y, strict=True))

    @staticmethod
    def meet(x: Vector, y: Vector) -> Vector:
        """Greatest lower bound: the componentwise minimum."""
        return tuple(min(a, b) for a, b in zip(x, y, strict=True))

    @staticmethod
    def join(x: Vector, y: Vector) -> Vector:
        """Least upper bound: the componentwise maximum."""
        return tuple(max(a, b) for a, b in zip(x, y, strict=True))

    @property
    def bottom(self) -> Vector:
        """The least element (0, ..., 0)."""
        return (0,) * self.domains

    @property
    def top(self) -> Vector:
        """The greatest element (n, ..., n)."""
        return (self.epochs,) * self.domains

    @staticmethod
    def is_consistent(x: Vector) -> bool:
        """Whether every domain holds the same epoch (x is on the diagonal)."""
        return len(set(x)) <= 1

    def diagonal(self) -> tuple[Vector, ...]:
        """The consistent elements (e, ..., e), e in E, in increasing order."""
        return tuple((e,) * self.domains for e in self.epoch_set)

    def lower_bounds(self, x: Vector) -> Iterator[Vector]:
        """Every element of L below x."""
        return itertools.product(*(range(v + 1) for v in self.check(x)))

    def best_recovery_point(self, x: Vector) -> Vector:
        """The greatest consistent element below x: the join of the consistent ones below it."""
        below = [c for c in self.diagonal() if self.leq(c, self.check(x))]
        best = below[0]  # the bottom is consistent and below every x
        for c in below[1:]:
            best = self.join(best, c)
        return best

    def glb(self, x: Vector, y: Vector) -> Vector:
        """The greatest lower bound from the order alone (enumerated), to check `meet`."""
        common = [z for z in self.lower_bounds(x) if self.leq(z, y)]
        return _greatest(common, self.leq)

    def lub(self, x: Vector, y: Vector) -> Vector:
        """The least upper bound from the order alone (enumerated), to check `join`."""
        above = [z for z in self.elements() if self.leq(x, z) and self.leq(y, z)]
        return _greatest(above, lambda a, b: self.leq(b, a))


def _greatest(candidates: list[Vector], leq: Callable[[Vector, Vector], bool]) -> Vector:
    """The element above all others in `candidates`; ValueError if there is none."""
    for c in candidates:
        if all(leq(z, c) for z in candidates):
            return c
    raise ValueError("no greatest element")


@dataclass(frozen=True, slots=True)
class LatticeCounts:
    """Sizes of L counted by enumeration: elements, consistent ones, mixed ones."""

    domains: int
    epochs: int
    size: int
    consistent: int

    @property
    def mixed(self) -> int:
        """Elements off the diagonal."""
        return self.size - self.consistent

    @property
    def mixed_fraction(self) -> Fraction:
        """The fraction of durable vectors that are mixed-epoch, exactly."""
        return Fraction(self.mixed, self.size)


def count(lattice: EpochLattice) -> LatticeCounts:
    """Count L and its diagonal by walking every element (exponential in k: small sizes only)."""
    size = consistent = 0
    check = budget.check  # the command's deadline and memory
    for x in lattice.elements():
        check()
        size += 1
        consistent += lattice.is_consistent(x)
    return LatticeCounts(lattice.domains, lattice.epochs, size, consistent)


def crash_window(lattice: EpochLattice, epoch: int) -> tuple[Vector, ...]:
    """{e-1, e}^k: the durable vectors claim 1 says a crash can find while epoch e is written."""
    if not 1 <= epoch <= lattice.epochs:
        raise ValueError(f"the epoch being written must be in 1..{lattice.epochs}, not {epoch}")
    return tuple(itertools.product((epoch - 1, epoch), repeat=lattice.domains))


@dataclass(frozen=True, slots=True)
class ClosedForms:
    """Closed forms in the symbols k (domains) and n (newest epoch), derived by SymPy."""

    k: sympy.Symbol
    n: sympy.Symbol
    epoch_count: sympy.Expr  # |E|
    size: sympy.Expr  # |L|
    consistent: sympy.Expr  # |diagonal|
    mixed_fraction: sympy.Expr  # 1 - |diagonal| / |L|
    mixed_in_window: sympy.Expr  # mixed vectors of {e-1, e}^k

    def evaluate(self, domains: int, epochs: int) -> dict[str, Fraction]:
        """Every closed form at k = domains, n = epochs, as exact fractions."""
        values = {self.k: domains, self.n: epochs}
        return {
            name: _to_fraction(getattr(self, name).subs(values))
            for name in ("epoch_count", "size", "consistent", "mixed_fraction", "mixed_in_window")
        }


def _to_fraction(value: sympy.Expr) -> Fraction:
    import sympy  # lazy-import: sympy is slow to load

    q = value if value.is_Rational else sympy.nsimplify(value)  # nsimplify can mangle
    if not q.is_Rational:  # an exact rational
        raise ValueError(f"{value} is not rational")
    return Fraction(int(q.p), int(q.q))


def closed_forms() -> ClosedForms:
    """Derive |E|, |L|, |diagonal|, the mixed fraction and the window count from the definitions."""
    import sympy  # lazy-import: sympy is slow to load

    k, n = sympy.symbols("k n", integer=True, positive=True)
    d, e, x, j = sympy.symbols("d e x j", integer=True, nonnegative=True)
    epoch_count = sympy.Sum(1, (e, 0, n)).doit()  # |E| = sum over E of 1
    size = sympy.Product(epoch_count, (d, 1, k)).doit()  # |E^k| = prod over domains
    # (e,...,e) is the only vector whose every coordinate equals e: prod_d #{x in E: x = e}.
    hits = sympy.refine(sympy.Sum(sympy.KroneckerDelta(x, e), (x, 0, n)).doit(), sympy.Q.le(e, n))
    consistent = sympy.Sum(sympy.Product(hits, (d, 1, k)).doit(), (e, 0, n)).doit()
    mixed_fraction = sympy.powsimp(1 - consistent / size, force=True)
    # {e-1, e}^k: vectors with j coordinates at e; mixed iff 0 < j < k.
    window = sympy.simplify(sympy.Sum(sympy.binomial(k, j), (j, 1, k - 1)).doit())
    return ClosedForms(k, n, epoch_count, size, consistent, mixed_fraction, window)


@dataclass(frozen=True, slots=True)
class Steps:
    """How the counts grow, derived by SymPy from the definitions (not from the closed forms):
    appending a domain (k -> k + 1) or an epoch (n -> n + 1)."""

    epochs_at_zero: sympy.Expr  # |E(0)|
    new_epochs: sympy.Expr  # |E(n+1)| - |E(n)|
    consistent: sympy.Expr  # |diagonal| of E(n)^k: one vector (c, ..., c) per c in E
    consistent_at_zero: sympy.Expr  # the same for n = 0
    new_consistent: sympy.Expr  # consistent vectors that use the epoch n + 1
    mixed_one_domain: sympy.Expr  # mixed vectors of E^1: |E| - |diagonal|
    extensions: sympy.Expr  # |E|: ways to append one coordinate
    breaking: sympy.Expr  # #{y in E : y != e}: appended epochs that break a diagonal
    window_extensions: int  # |{e-1, e}|
    window_breaking: int  # #{y in {e-1, e} : y != x}
    window_consistent: int  # consistent vectors of {e-1, e}^k, any k >= 1


def steps() -> Steps:
    """The recurrences' steps. A vector of E^(k+1) is (x, y), x in E^k and y in E; it is
    mixed iff x is mixed, or x = (e, ..., e) and y != e. Epoch n + 1 adds the one
    consistent vector (n+1, ..., n+1)."""
    import sympy  # lazy-import: sympy is slow to load

    n = sympy.Symbol("n", integer=True, positive=True)
    e, y = sympy.symbols("e y", integer=True, nonnegative=True)
    size_of = lambda top: sympy.Sum(1, (e, 0, top)).doit()  # noqa: E731
    new = sympy.simplify(size_of(n + 1) - size_of(n))
    # consistent vectors of E(n) are (c, ..., c), c in E(n): those with c = n + 1 are new
    diag = lambda top: sympy.Sum(1, (e, 0, top)).doit()  # noqa: E731
    new_consistent = sympy.simplify(diag(n + 1) - diag(n))
    breaking = sympy.refine(
        sympy.Sum(1 - sympy.KroneckerDelta(y, e), (y, 0, n)).doit(), sympy.Q.le(e, n)
    )
    window = (0, 1)  # {e-1, e}, shifted
    return Steps(
        size_of(0),
        new,
        diag(n),
        diag(0),
        new_consistent,
        size_of(n) - diag(n),
        size_of(n),
        sympy.simplify(breaking),
        len(window),
        sum(1 for v in window if v != window[0]),
        len(window),
    )
