"""Paper A, claim 2: the epoch lattice L = E^k, its laws, its diagonal, its mixed vectors.

Two derivations meet in every certificate: the model's count, by the kernel enumerating E^k
itself and by recurrences whose steps SymPy derives from the definitions
(`fito.models.epochs.lattice.steps`), against the paper's formula typed here in fresh symbols
(PAPER_*), instantiated unsimplified so that the kernel does the arithmetic. The lattice
laws hold on every chain of reals (Farkas refutations of each case of the negation) and are
enumerated on small E^k written out coordinate by coordinate.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import sympy as sp

from fito.models.epochs import lattice as lat
from fito.proof import (
    Claim,
    claim,
    conjunction,
    enumeration,
    instance,
    prove_linear,
    proved,
    recurrence,
    register,
    to_expr,
)

Json = Any

K_MAX, N_MAX = 6, 3

# ---------------------------------------------------------------- the paper's formulas
# PAPERS.md, claims 1 and 2, typed from the paper in fresh symbols k (domains) and n (the
# newest epoch); never simplified and never taken from the engine.
PAPER_EPOCHS = ["+", "n", 1]  # |E|
PAPER_SIZE = ["^", ["+", "n", 1], "k"]  # |L| = (n+1)^k
PAPER_DIAGONAL = ["+", "n", 1]  # |diagonal| = n + 1
PAPER_MIXED_FRACTION = ["-", 1, ["^", ["+", "n", 1], ["-", 1, "k"]]]  # 1 - (n+1)^(1-k)
PAPER_WINDOW_MIXED = ["-", ["^", 2, "k"], 2]  # 2^k - 2 of {e-1, e}^k


@functools.cache
def forms() -> lat.ClosedForms:
    """The closed forms, derived once per process."""
    return lat.closed_forms()


@functools.cache
def steps() -> lat.Steps:
    """How the counts grow, derived from the definitions once per process."""
    return lat.steps()


def _box(k: int, n: int, name: str = "x", lo: int = 0) -> list[tuple[str, int, int]]:
    return [(f"{name}{i}", lo, n) for i in range(1, k + 1)]


def _all_equal(xs: list[str]) -> Json:
    """Every coordinate equals the first: (x1 = x2) and ... (JSON, unsimplified)."""
    return ["and", *(["=", x, xs[0]] for x in xs[1:])]


def _counted(paper: Json, where_of, k_range=None, n_range=None, start_k: int = 1):
    """One enumeration per (k, n): the kernel counts E^k where `where` holds and compares
    with the paper's formula at (k, n), which it evaluates itself."""
    out = []
    ks = k_range or range(start_k, K_MAX + 1)
    for k, n in itertools.product(ks, n_range or range(0, N_MAX + 1)):
        box = _box(k, n)
        where = where_of([x for x, _, _ in box])
        out.append(
            enumeration(
                box,
                "count",
                instance(paper, {"k": k, "n": n}),
                where=where,
                note=f"k = {k}, n = {n}",
            )
        )
    return out


def _none(xs):
    return None


def _mixed(xs: list[str]) -> Json:
    return ["not", _all_equal(xs)]


# ---------------------------------------------------------------- sizes
@claim(
    id="lattice.epoch-count",
    title="|E| = n + 1",
    method="sympy+induction+enumeration",
    model="E = {0, ..., n}, n a natural number",
)
def epoch_count():
    """|{0..n}| = n + 1 for every natural n: |{0}| = 1 and E(n+1) = E(n) plus the epochs
    SymPy counts in the difference (one). Counted by the kernel for n = 0..3."""
    st = steps()
    return proved(
        recurrence(
            "n",
            0,
            initial=st.epochs_at_zero,
            step=["+", "prev", to_expr(st.new_epochs)],
            closed=PAPER_EPOCHS,
        ),
        *(
            enumeration([("e", 0, n)], "count", instance(PAPER_EPOCHS, {"n": n}), note=f"n = {n}")
            for n in range(0, N_MAX + 1)
        ),
    )


@claim(
    id="lattice.size",
    title="|L| = (n+1)^k",
    method="sympy+induction+enumeration",
    model="L = E^k with E = {0..n}, k domains",
)
def lattice_size():
    """|E^k| = (n+1)^k for all natural k, n: E^0 has one element and a vector of E^(k+1)
    is a vector of E^k and one more coordinate, |E| ways (|E| = n + 1 as SymPy sums it).
    Counted by the kernel for k = 1..6, n = 0..3."""
    st = steps()
    return proved(
        recurrence(
            "k", 0, initial=1, step=["*", "prev", to_expr(st.extensions)], closed=PAPER_SIZE
        ),
        *_counted(PAPER_SIZE, _none),
    )


@claim(
    id="lattice.diagonal",
    title="|diagonal| = n + 1",
    method="sympy+induction+enumeration",
    model="consistent durable vectors (e, ..., e) of E^k, k >= 1",
)
def diagonal_size():
    """For every k >= 1 the consistent vectors of E^k number n + 1: with n = 0 only
    (0, ..., 0); the epoch n + 1 adds exactly the consistent vectors that use it (one, as
    SymPy counts them). Counted by the kernel for k = 2..6, n = 0..3."""
    st = steps()
    return proved(
        recurrence(
            "n",
            0,
            initial=st.consistent_at_zero,
            step=["+", "prev", to_expr(st.new_consistent)],
            closed=PAPER_DIAGONAL,
        ),
        *_counted(PAPER_DIAGONAL, _all_equal, start_k=2),
    )


@claim(
    id="lattice.mixed-fraction",
    title="mixed fraction 1 - (n+1)^(1-k)",
    method="sympy+induction+enumeration",
    model="mixed (non-diagonal) vectors of E^k, k >= 1",
)
def mixed_fraction():
    """The number of mixed vectors of E^k is the paper's fraction 1 - (n+1)^(1-k) times
    |L| = (n+1)^k, for every k >= 1: M(1) = 0, and a vector of E^(k+1) is mixed iff its
    first k coordinates are, or they are consistent (n + 1 ways) and the last differs
    (n ways), so M(k+1) = |E| M(k) + D n with |E|, D and n as SymPy derives them from the
    definitions. Counted by the kernel for k = 2..6, n = 0..3."""
    st = steps()
    step = [
        "+",
        ["*", "prev", to_expr(st.extensions)],
        ["*", to_expr(st.consistent), to_expr(st.breaking)],
    ]
    closed = ["*", PAPER_MIXED_FRACTION, PAPER_SIZE]
    return proved(
        recurrence(
            "k", 1, initial=st.mixed_one_domain, step=step, closed=closed, nonzero=[["+", "n", 1]]
        ),
        *_counted(closed, _mixed, start_k=2),
    )


# ---------------------------------------------------------------- order and laws
def _flatten(term, defs: list) -> sp.Symbol:
    """A min/max term as a fresh variable, its definition appended to defs (linear, with cases)."""
    if isinstance(term, sp.Symbol):
        return term
    op, left, right = term
    a, b = _flatten(left, defs), _flatten(right, defs)
    z = sp.Symbol(f"z{len(defs)}")
    bound = sp.And(z <= a, z <= b) if op == "min" else sp.And(z >= a, z >= b)
    defs.append(sp.And(bound, sp.Or(sp.Eq(z, a), sp.Eq(z, b))))
    return z


def _chain_law(lhs, rhs) -> sp.Basic:
    """'lhs = rhs for all reals' with min/max replaced by defined variables: a linear formula."""
    defs: list = []
    left, right = _flatten(lhs, defs), _flatten(rhs, defs)
    return sp.Implies(sp.And(*defs), sp.Eq(left, right))


def _coordinate(term, i: int) -> Json:
    """Coordinate i of a meet/join term over vectors of E^k (the model's componentwise
    min and max), as JSON written out, never simplified."""
    if isinstance(term, sp.Symbol):
        return f"{term.name}{i}"
    op, left, right = term
    return [op, _coordinate(left, i), _coordinate(right, i)]


def _law_on_lattice(lhs, rhs, names, k: int, n: int):
    """Enumeration: the law holds componentwise for every tuple of vectors of E^k."""
    box = [(f"{v.name}{i}", 0, n) for v in names for i in range(1, k + 1)]
    expr = ["and", *(["=", _coordinate(lhs, i), _coordinate(rhs, i)] for i in range(1, k + 1))]
    return enumeration(box, "all", True, expr=expr, note=f"E^{k}, n = {n}")


a, b, c = sp.symbols("a b c")
LAWS = {
    "meet-commutative": (("min", a, b), ("min", b, a)),
    "join-commutative": (("max", a, b), ("max", b, a)),
    "meet-associative": (("min", a, ("min", b, c)), ("min", ("min", a, b), c)),
    "join-associative": (("max", a, ("max", b, c)), ("max", ("max", a, b), c)),
    "meet-idempotent": (("min", a, a), a),
    "join-idempotent": (("max", a, a), a),
    "absorption-meet": (("min", a, ("max", a, b)), a),
    "absorption-join": (("max", a, ("min", a, b)), a),
    "distributive-meet": (("min", a, ("max", b, c)), ("max", ("min", a, b), ("min", a, c))),
    "distributive-join": (("max", a, ("min", b, c)), ("min", ("max", a, b), ("max", a, c))),
}


def _law_claim(name: str, lhs, rhs) -> None:
    names = sorted({s for s in (a, b, c) if s in _symbols_of(lhs) | _symbols_of(rhs)}, key=str)

    def run():
        sizes = [(2, 2), (3, 1)] if len(names) == 3 else [(2, 3), (3, 2)]
        return conjunction(
            prove_linear(_chain_law(lhs, rhs)),
            proved(*(_law_on_lattice(lhs, rhs, names, k, n) for k, n in sizes)),
        )

    register(
        Claim(
            f"lattice.law.{name}",
            f"lattice law: {name}",
            f"{_show(lhs)} = {_show(rhs)} in E^k, componentwise: it holds on every chain "
            "of reals (each min/max is a defined variable; Farkas refutation of every "
            "case of the negation), hence in every product of chains; also enumerated on "
            "small E^k.",
            "L = E^k with meet = componentwise min, join = componentwise max",
            "farkas+enumeration",
            run,
        )
    )


def _symbols_of(term) -> set:
    return {term} if isinstance(term, sp.Symbol) else _symbols_of(term[1]) | _symbols_of(term[2])


def _show(term) -> str:
    if isinstance(term, sp.Symbol):
        return term.name
    op, left, right = term
    return f"{'meet' if op == 'min' else 'join'}({_show(left)}, {_show(right)})"


for _name, (_lhs, _rhs) in LAWS.items():
    _law_claim(_name, _lhs, _rhs)


@claim(
    id="lattice.meet-is-glb",
    title="meet = componentwise min is the greatest lower bound",
    method="farkas+enumeration",
    model="L = E^k with the product order",
)
def meet_is_glb():
    """For all x, y, z of E^k: z <= x and z <= y iff z <= meet(x, y), with meet the
    componentwise min; and join = componentwise max is the least upper bound (dually).
    Per coordinate on every chain of reals by Farkas cases; enumerated on E^2 (n = 3) and
    E^3 (n = 2), where the engine's meet and join (fito.models.epochs.lattice) of every pair are the
    componentwise min and max."""
    z, m = sp.symbols("z m")
    is_min = sp.And(m <= a, m <= b, sp.Or(sp.Eq(m, a), sp.Eq(m, b)))
    is_max = sp.And(m >= a, m >= b, sp.Or(sp.Eq(m, a), sp.Eq(m, b)))
    glb = sp.Implies(
        is_min,
        sp.And(
            sp.Implies(sp.And(z <= a, z <= b), z <= m), sp.Implies(z <= m, sp.And(z <= a, z <= b))
        ),
    )
    lub = sp.Implies(
        is_max,
        sp.And(
            sp.Implies(sp.And(z >= a, z >= b), z >= m), sp.Implies(z >= m, sp.And(z >= a, z >= b))
        ),
    )
    sizes = ((2, 3), (3, 2))
    return conjunction(
        prove_linear(glb),
        prove_linear(lub),
        proved(
            *(_order_enumeration(k, n) for k, n in sizes),
            *(_engine_operation(k, n, op) for k, n in sizes for op in ("min", "max")),
        ),
    )


def _engine_operation(k: int, n: int, op: str):
    """The engine's meet (join) of every pair of E^k, as codes of (x, y, meet(x, y)), against
    the componentwise min (max) written here: the laws above are about the model's lattice."""
    L, base = lat.EpochLattice(k, n), n + 1
    operation = L.meet if op == "min" else L.join
    pairs = list(itertools.product(L.elements(), repeat=2))
    table = sorted(_code(x + y + operation(x, y), base) for x, y in pairs)
    xs, ys = [x for x, _, _ in _box(k, n)], [y for y, _, _ in _box(k, n, "y")]
    paper = _json_code([*xs, *ys, *([op, x, y] for x, y in zip(xs, ys))], base)
    name = "meet" if op == "min" else "join"
    return enumeration(
        [*_box(k, n), *_box(k, n, "y")],
        "set",
        table,
        expr=paper,
        note=f"E^{k}, n = {n}: codes of (x, y, the engine's {name}) against "
        f"(x, y, componentwise {op})",
    )


def _order_enumeration(k: int, n: int):
    """For all x, y, z of E^k: z <= x and z <= y iff z <= meet(x, y); x <= z and y <= z iff
    join(x, y) <= z; meet and join the model's componentwise min and max (JSON)."""
    xs, ys, zs = ([f"{v}{i}" for i in range(1, k + 1)] for v in "xyz")

    def le(u, w):
        return ["and", *(["<=", p, q] for p, q in zip(u, w))]

    def iff(p, q):
        return ["and", ["implies", p, q], ["implies", q, p]]

    meet = [["min", p, q] for p, q in zip(xs, ys)]
    join = [["max", p, q] for p, q in zip(xs, ys)]
    expr = [
        "and",
        iff(["and", le(zs, xs), le(zs, ys)], le(zs, meet)),
        iff(["and", le(xs, zs), le(ys, zs)], le(join, zs)),
    ]
    box = [(v, 0, n) for v in xs + ys + zs]
    return enumeration(box, "all", True, expr=expr, note=f"E^{k}, n = {n}")


def _code(vector, base: int) -> int:
    return sum(x * base**i for i, x in enumerate(vector))


def _json_code(names: list[Json], base: int) -> Json:
    return ["+", *(["*", base**i, x] for i, x in enumerate(names))]


@claim(
    id="lattice.best-recovery-point",
    title="best recovery point = (min x, ..., min x)",
    method="farkas+enumeration",
    model="durable vectors x of E^k; consistent elements (c, ..., c)",
)
def best_recovery_point():
    """For every x in E^k, (c, ..., c) <= x iff c <= min(x_1..x_k), so the greatest consistent
    element below x is (min x, ..., min x). Induction on k: c <= min(m, y) iff c <= m and
    c <= y (Farkas cases over the reals); the equivalence enumerated for k = 1..4, n = 0..3;
    and the engine's best recovery point (the join of the consistent elements below x,
    fito.models.epochs.lattice) is min x at every x of E^k for k = 1..3, n = 0..3."""
    m, y, z = sp.symbols("m y z")
    step = sp.Implies(
        sp.And(z <= m, z <= y, sp.Or(sp.Eq(z, m), sp.Eq(z, y))),
        sp.And(
            sp.Implies(c <= z, sp.And(c <= m, c <= y)), sp.Implies(sp.And(c <= m, c <= y), c <= z)
        ),
    )
    obligations = []
    for k, n in itertools.product(range(1, 5), range(0, N_MAX + 1)):
        xs = [x for x, _, _ in _box(k, n)]
        below = ["and", *(["<=", "c", x] for x in xs)]
        low = ["<=", "c", ["min", *xs]]
        expr = ["and", ["implies", below, low], ["implies", low, below]]
        obligations.append(
            enumeration(
                [*_box(k, n), ("c", 0, n)], "all", True, expr=expr, note=f"k = {k}, n = {n}"
            )
        )
    for k, n in itertools.product(range(1, 4), range(0, N_MAX + 1)):
        L, base = lat.EpochLattice(k, n), n + 1
        table = sorted(
            _code(v, base) + _code(L.best_recovery_point(v)[:1], base) * base**k
            for v in L.elements()
        )
        xs = [x for x, _, _ in _box(k, n)]
        paper = ["+", _json_code(xs, base), ["*", base**k, ["min", *xs]]]
        obligations.append(
            enumeration(
                _box(k, n),
                "set",
                table,
                expr=paper,
                note=f"k = {k}, n = {n}: codes of (x, the engine's best "
                f"recovery point of x) against (x, min x)",
            )
        )
    return conjunction(prove_linear(step), proved(*obligations))
