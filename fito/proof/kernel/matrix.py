"""Matrix facts by exact recomputation: equality, products, determinants, characteristic
polynomials, eigenvalues (as roots of the characteristic polynomial) and eigenvalue counts.

Entries are expressions; arithmetic is on rational forms. Standard library only.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fito.proof.kernel import poly as P
from fito.proof.kernel import props
from fito.proof.kernel.checks import Obligation, assert_equal, fields, normalizer, not_same
from fito.proof.kernel.expr import (
    KernelError,
    compile_expr,
    is_number,
    is_symbol,
    parse,
    symbols,
    to_json,
)

MAX_DIM = 64
MAX_MINORS = 20_000  # symbolic Laplace expansion skips zero entries: sparse/triangular stay cheap
T = "t"  # a name for the characteristic variable, made fresh when the matrix uses it
FACTS = ("equals", "product", "det", "charpoly", "eigenvalues", "count")


def check_matrix(ob: Obligation) -> Any:
    """Every fact stated about the matrix holds, recomputed exactly; returns the facts."""
    fields(ob, ("matrix",), FACTS + ("nonzero",))
    if not any(f in ob for f in FACTS):
        raise KernelError("a matrix obligation states no fact")
    norm = normalizer(ob)
    a = _matrix(ob["matrix"], "matrix")
    if "equals" in ob:
        not_same(a, _matrix(ob["equals"], "equals"), "the matrix and equals")
        _entries_equal(norm, a, _matrix(ob["equals"], "equals"), "matrix != equals")
    if "product" in ob:
        _check_product(norm, a, ob["product"])
    square = {"det", "charpoly", "eigenvalues", "count"} & set(ob)
    if square and len(a) != len(a[0]):
        raise KernelError(f"{min(square)} needs a square matrix")
    rows = [[norm.rf(x) for x in row] for row in a]
    if "det" in ob:
        _same(norm, _det(rows), parse(ob["det"]), "det")
    if "charpoly" in ob:
        _check_charpoly(norm, a, rows, ob["charpoly"])
    if "eigenvalues" in ob:
        _check_eigenvalues(norm, a, rows, ob["eigenvalues"])
    if "count" in ob:
        _check_count(ob)
    return _conclusion(ob, a)


def _as_matrix(rows: list[list[Any]]) -> Any:
    return ["matrix", *([to_json(x) for x in row] for row in rows)]


def _conclusion(ob: Obligation, a: list[list[Any]]) -> Any:
    """The facts as a proposition: for all values of the entries' symbols (where the
    declared expressions are nonzero), M = E, M = P1 P2..., det M = d, ..."""
    m = _as_matrix(a)
    facts: list[Any] = []
    parsed: list[Any] = [x for row in a for x in row]
    if "equals" in ob:
        e = _matrix(ob["equals"], "equals")
        facts.append(["=", m, _as_matrix(e)])
        parsed += [x for row in e for x in row]
    if "product" in ob:
        mats = [_matrix(f, "factor") for f in ob["product"]]
        facts.append(["=", m, ["matmul", *(_as_matrix(f) for f in mats)]])
        parsed += [x for f in mats for row in f for x in row]
    if "det" in ob:
        d = parse(ob["det"])
        facts.append(["=", ["det", m], to_json(d)])
        parsed.append(d)
    if "charpoly" in ob:
        t, p = ob["charpoly"]["var"], parse(ob["charpoly"]["poly"])
        facts.append(["=", ["charpoly", m, t], to_json(p)])
        parsed += [t, p]
    if "eigenvalues" in ob:
        values = [parse(e) for e in ob["eigenvalues"]]
        facts.append(["=", ["spectrum", m], ["list", *(to_json(v) for v in values)]])
        parsed += values
    if "count" in ob:
        cnt = ob["count"]
        where = parse(cnt["where"])
        over = [[cnt["bind"], ["spectrum", m]]]
        facts.append(["=", ["count", over, to_json(where)], cnt["value"]])
        parsed += [x for x in symbols(where) - {cnt["bind"]}]
    conds = [parse(c) for c in ob.get("nonzero", [])]
    bound = props.binders(parsed + conds)
    return props.forall(bound, props.implies(props.nonzero_hypotheses(conds), props.conj(facts)))


def _matrix(x: Any, what: str) -> list[list[Any]]:
    if not isinstance(x, list) or not x or not all(isinstance(r, list) and r for r in x):
        raise KernelError(f"{what} must be a nonempty list of nonempty rows")
    if len({len(r) for r in x}) != 1:
        raise KernelError(f"{what}: rows have different lengths")
    if len(x) > MAX_DIM or len(x[0]) > MAX_DIM:
        raise KernelError(f"{what} is larger than {MAX_DIM}x{MAX_DIM}")
    return [[parse(e) for e in r] for r in x]


def _entries_equal(norm, a: list, b: list, what: str) -> None:
    if (len(a), len(a[0])) != (len(b), len(b[0])):
        raise KernelError(f"{what}: shapes {len(a)}x{len(a[0])} and {len(b)}x{len(b[0])} differ")
    for i, (ra, rb) in enumerate(zip(a, b), 1):
        for j, (x, y) in enumerate(zip(ra, rb), 1):
            assert_equal(norm, x, y, f"{what} at entry ({i},{j})")


def _check_product(norm, a: list, factors: Any) -> None:
    if not isinstance(factors, list) or not factors:
        raise KernelError("product must be a nonempty list of matrices")
    mats = [_matrix(f, f"product factor {i}") for i, f in enumerate(factors, 1)]
    acc = [[norm.rf(x) for x in row] for row in mats[0]]
    for i, m in enumerate(mats[1:], 2):
        if len(acc[0]) != len(m):
            raise KernelError(f"product factor {i} has {len(m)} rows, expected {len(acc[0])}")
        rows = [[norm.rf(x) for x in row] for row in m]
        acc = [
            [
                P.rf_sum(P.rf_mul(acc[r][k], rows[k][c]) for k in range(len(m)))
                for c in range(len(m[0]))
            ]
            for r in range(len(acc))
        ]
    if (len(acc), len(acc[0])) != (len(a), len(a[0])):
        raise KernelError("product: the shape of the product differs from the matrix")
    for i, row in enumerate(a, 1):
        for j, x in enumerate(row, 1):
            _same_rf(norm.rf(x), acc[i - 1][j - 1], f"matrix != product at entry ({i},{j})")


def _numeric(rows: list[list[P.RF]]) -> list[list[Fraction]] | None:
    """The matrix as Fractions when every entry is a constant, else None."""
    if not all(P.is_const(x[0]) and P.is_const(x[1]) for row in rows for x in row):
        return None
    return [[P.const_value(x[0]) / P.const_value(x[1]) for x in row] for row in rows]


def _det_numeric(a: list[list[Fraction]]) -> Fraction:
    """Gaussian elimination over the rationals."""
    a, n, det = [list(r) for r in a], len(a), Fraction(1)
    for c in range(n):
        pivot = next((r for r in range(c, n) if a[r][c] != 0), None)
        if pivot is None:
            return Fraction(0)
        if pivot != c:
            a[c], a[pivot], det = a[pivot], a[c], -det
        det *= a[c][c]
        for r in range(c + 1, n):
            f = a[r][c] / a[c][c]
            if f:
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return det


def _charpoly_numeric(a: list[list[Fraction]], t: str) -> P.RF:
    """det(t I - A) by the Faddeev-LeVerrier recurrence, exactly over the rationals."""
    n = len(a)
    coeffs, m = [Fraction(1)], [[Fraction(0)] * n for _ in range(n)]
    for k in range(1, n + 1):
        m = [
            [
                sum((a[i][h] * m[h][j] for h in range(n)), coeffs[-1] if i == j else Fraction(0))
                for j in range(n)
            ]
            for i in range(n)
        ]
        am_trace = sum((a[i][h] * m[h][i] for i in range(n) for h in range(n)), Fraction(0))
        coeffs.append(-am_trace / k)
    poly: P.Poly = {}
    for power, c in zip(range(n, -1, -1), coeffs):
        poly = P.add(poly, P.scale(P.power(P.var(t), power), c))
    return poly, P.const(1)


def _det(rows: list[list[P.RF]]) -> P.RF:
    """det: Gaussian elimination for rational matrices, else Laplace expansion (division-free)."""
    numeric = _numeric(rows)
    if numeric is not None:
        return P.const(_det_numeric(numeric)), P.const(1)
    return _laplace(rows)


def _charpoly(rows: list[list[P.RF]], t: str) -> P.RF:
    """det(t I - M)."""
    numeric = _numeric(rows)
    if numeric is not None:
        return _charpoly_numeric(numeric, t)
    return _laplace(_char_rows(rows, t))


def _laplace(rows: list[list[P.RF]]) -> P.RF:
    """Laplace expansion along rows with memoized minors: exact, division-free."""
    n = len(rows)
    memo: dict[tuple[int, ...], P.RF] = {}

    def minor(cols: tuple[int, ...]) -> P.RF:
        r = n - len(cols)
        if not cols:
            return P.const(1), P.const(1)
        if cols not in memo:
            if len(memo) >= MAX_MINORS:
                raise KernelError(
                    f"the determinant needs more than {MAX_MINORS} minors (too dense "
                    "for the kernel)"
                )
            terms = []
            for idx, c in enumerate(cols):
                entry = rows[r][c]
                if not entry[0]:
                    continue
                term = P.rf_mul(entry, minor(cols[:idx] + cols[idx + 1 :]))
                terms.append(P.rf_neg(term) if idx % 2 else term)
            memo[cols] = P.rf_tidy(P.rf_sum(terms))
        return memo[cols]

    return minor(tuple(range(n)))


def _same(norm, got: P.RF, claimed: Any, what: str) -> None:
    _same_rf(norm.rf(claimed), got, f"{what} differs from the recomputed value")


def _same_rf(a: P.RF, b: P.RF, what: str) -> None:
    left, right = P.rf_difference(a, b)
    diff = P.first_difference(left, right)
    if diff is not None:
        mono, cl, cr = diff
        raise KernelError(
            f"{what}: coefficient of {P.mono_str(mono)} is {cl} in the certificate, {cr} recomputed"
        )


def _fresh(a: list) -> str:
    used = set().union(*(symbols(x) for row in a for x in row))
    name = T
    while name in used:
        name += "_"
    return name


def _char_rows(rows: list[list[P.RF]], t: str) -> list[list[P.RF]]:
    n = len(rows)
    return [
        [P.rf_add((P.var(t) if i == j else {}, P.const(1)), P.rf_neg(rows[i][j])) for j in range(n)]
        for i in range(n)
    ]


def _check_charpoly(norm, a: list, rows: list, cp: Any) -> None:
    if not isinstance(cp, dict) or set(cp) != {"var", "poly"} or not is_symbol(cp["var"]):
        raise KernelError('charpoly must be {"var": symbol, "poly": expression}')
    t = cp["var"]
    if any(t in symbols(x) for row in a for x in row):
        raise KernelError(f"charpoly variable {t} occurs in the matrix")
    _same(norm, _charpoly(rows, t), parse(cp["poly"]), f"charpoly det({t}*I - M)")


def _check_eigenvalues(norm, a: list, rows: list, eig: Any) -> None:
    if not isinstance(eig, list) or len(eig) != len(a):
        raise KernelError(f"eigenvalues must list {len(a)} values (with multiplicity)")
    t = _fresh(a)
    values = [parse(e) for e in eig]
    if any(t in symbols(v) for v in values):
        raise KernelError(f"eigenvalues use the reserved name {t}")
    claimed = ("*", *(("-", t, v) for v in values))
    _same(norm, _charpoly(rows, t), claimed, f"characteristic polynomial vs prod({t} - eigenvalue)")


def _check_count(ob: Obligation) -> None:
    cnt = ob["count"]
    if (
        not isinstance(cnt, dict)
        or set(cnt) != {"bind", "where", "value"}
        or not is_symbol(cnt["bind"])
    ):
        raise KernelError('count must be {"bind": symbol, "where": formula, "value": integer}')
    if "eigenvalues" not in ob:
        raise KernelError("count needs the eigenvalues")
    where = compile_expr(parse(cnt["where"]))
    got = 0
    for i, e in enumerate(ob["eigenvalues"], 1):
        v = compile_expr(parse(e))({})
        if not is_number(v):
            raise KernelError(f"eigenvalue {i} is not a number")
        ok = where({cnt["bind"]: v})
        if not isinstance(ok, bool):
            raise KernelError("count: where is not a truth value")
        got += ok
    want = cnt["value"]
    if isinstance(want, bool) or not isinstance(want, int) or want != got:
        raise KernelError(f"count of eigenvalues is {got}, the certificate says {want}")
