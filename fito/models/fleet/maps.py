"""Linear algebra of derived return maps: the gap map M = T F T^-1, its spectrum, its region."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fito.models.fleet.linear import CONST, Form, f_add, f_const, f_row, f_scale
from fito.models.fleet.returnmap import Derivation


@dataclass(frozen=True)
class GapMap:
    """a = T x + c on the section; a' = M a + d (exact entries in the derivation's field)."""

    derivation: Derivation
    T: tuple[tuple, ...]
    c: tuple
    M: tuple[tuple, ...]
    d: tuple
    x_of_a: tuple[Form, ...]  # x_j as forms in the gaps a (T^-1 (a - c))

    @property
    def K(self) -> Any:
        return self.derivation.K

    @property
    def is_linear(self) -> bool:
        return all(not v for v in self.d)

    def is_diagonal(self) -> bool:
        return all(
            not self.M[i][j] for i in range(len(self.M)) for j in range(len(self.M)) if i != j
        )

    def is_triangular(self) -> bool:
        m = len(self.M)
        lower = all(not self.M[i][j] for i in range(m) for j in range(i + 1, m))
        upper = all(not self.M[i][j] for i in range(m) for j in range(i))
        return lower or upper


def _dm(rows: Sequence[Sequence[Any]], K: Any):
    from sympy.polys.matrices import DomainMatrix  # lazy-import: sympy is slow to load

    m = len(rows)
    return DomainMatrix([list(r) for r in rows], (m, len(rows[0]) if m else 0), K)


def _rows(matrix: Any) -> tuple[tuple, ...]:
    return tuple(tuple(r) for r in matrix.to_list())


def _chart(der: Derivation) -> tuple[tuple[Form, ...], list[list], list, list[list]] | None:
    """(gap forms, T, c, T^-1) with the gaps a = T x + c, or None when T is not invertible."""
    forms = der.gap_forms()
    if forms is None:
        return None
    rows = [f_row(a, der.m, der.K) for a in forms]
    T_rows, c = [r for r, _ in rows], [k for _, k in rows]
    Tinv_rows = _inverse(T_rows, der.K)
    if Tinv_rows is None:
        return None
    return forms, T_rows, c, Tinv_rows


def gap_chart(der: Derivation) -> tuple[tuple[Form, ...], tuple[Form, ...]] | None:
    """(the gaps a = T x + c, the inverse chart x = T^-1 (a - c)), or None without a chart."""
    chart = _chart(der)
    if chart is None:
        return None
    forms, _, c, Tinv_rows = chart
    return forms, tuple(_affine_row(Tinv_rows[i], c, der.K) for i in range(der.m))


def gap_map(der: Derivation) -> GapMap | None:
    """The gap map of a return-map branch, or None when the gaps do not chart the section."""
    chart = _chart(der) if der.is_return_map else None
    if chart is None:
        return None
    _, T_rows, c, Tinv_rows = chart
    K, m = der.K, der.m
    F_rows, e = der.state_matrix()
    M = _sparse_product(_sparse_product(T_rows, F_rows, K), Tinv_rows, K)
    # a' = T (F x + e) + c with x = Tinv (a - c):  d = T e + c - M c
    Te, Mc = _apply(T_rows, e, K), _apply(M, c, K)
    d = tuple(te + ci - mc for te, ci, mc in zip(Te, c, Mc))
    x_of_a = tuple(_affine_row(Tinv_rows[i], c, K) for i in range(m))
    return GapMap(der, tuple(map(tuple, T_rows)), tuple(c), tuple(map(tuple, M)), d, x_of_a)


def _inverse(rows: list[list], K: Any) -> list[list] | None:
    """T^-1, over QQ when every entry is a rational constant (the usual case), else over K."""
    ground = getattr(K, "domain", None)
    if ground is not None and all(_is_ground(v) for row in rows for v in row):
        from sympy import QQ  # lazy-import: sympy is slow to load

        q = [
            [QQ.convert(v.numer.LC) / QQ.convert(v.denom.LC) if v else QQ.zero for v in row]
            for row in rows
        ]
        T = _dm(q, QQ)
        if not T.det():
            return None
        return [[K.convert(v, QQ) for v in row] for row in _rows(T.inv())]
    T = _dm(rows, K)
    if not T.det():
        return None
    return [list(r) for r in _rows(T.inv())]


def _is_ground(v: Any) -> bool:
    return not v or (v.numer.is_ground and v.denom.is_ground)


def _sparse_product(A: Sequence[Sequence[Any]], B: Sequence[Sequence[Any]], K: Any) -> list[list]:
    """A B skipping zero entries (the maps are sparse: bidiagonal charts, triangular maps)."""
    cols = len(B[0]) if B else 0
    out = []
    for row in A:
        acc = [K.zero] * cols
        for k, a in enumerate(row):
            if a:
                for j, b in enumerate(B[k]):
                    if b:
                        acc[j] += a * b
        out.append(acc)
    return out


def _apply(A: Sequence[Sequence[Any]], v: Sequence[Any], K: Any) -> list:
    return [sum((a * b for a, b in zip(row, v) if a and b), K.zero) for row in A]


def _affine_row(row: Sequence[Any], c: Sequence[Any], K: Any) -> Form:
    """sum_j row_j (a_j - c_j) as a form in a."""
    out: Form = {}
    for j, r in enumerate(row):
        if r:
            out = f_add(out, {j: r}, K)
            out = f_add(out, f_const(-r * c[j]), K)
    return out


def region_in_gaps(gm: GapMap) -> tuple[Form, ...]:
    """The derivation's constraints with x replaced by T^-1 (a - c)."""
    K = gm.K
    out = []
    for con in gm.derivation.constraints:
        form = f_const(con.form.get(CONST, K.zero))
        for i, coef in con.form.items():
            if i != CONST:
                form = f_add(form, f_scale(gm.x_of_a[i], coef, K), K)
        out.append(form)
    return tuple(out)


def determinant(rows: Sequence[Sequence[Any]], K: Any) -> Any:
    """det of a square matrix over K, as a SymPy expression."""
    if not rows:
        return K.to_sympy(K.one)
    return K.to_sympy(_dm(rows, K).det())


def eigenvalues(gm: GapMap) -> tuple[Any, ...]:
    """The eigenvalues of M (with multiplicity) as exact SymPy expressions where possible."""
    import sympy  # lazy-import: sympy is slow to load

    K, M = gm.K, gm.M
    if gm.is_triangular():
        return tuple(sympy.factor(K.to_sympy(M[i][i])) for i in range(len(M)))
    lam = sympy.Symbol("lambda")
    coeffs = _dm(M, K).charpoly()
    poly = sympy.Poly([K.to_sympy(c) for c in coeffs], lam)
    out: list = []
    for factor, mult in sympy.factor_list(poly)[1]:
        symbolic = bool(gm.derivation.setting.symbols)
        roots = sympy.roots(factor, lam) if factor.degree() <= 2 or not symbolic else {}
        if sum(roots.values()) != factor.degree():
            roots = {r: 1 for r in factor.nroots()} if not gm.derivation.setting.symbols else {}
        if not roots:
            raise ValueError("the characteristic polynomial has no closed-form roots")
        for r, k in roots.items():
            out += [r] * (k * mult)
    return tuple(out)


def expanding_directions(values: Sequence[Any]) -> int | None:
    """How many eigenvalues have modulus > 1 (None if some modulus is symbolic)."""
    count = 0
    for v in values:
        if not v.is_number:
            return None
        modulus = abs(complex(v)) if not v.is_Rational else abs(Fraction(str(v)))
        if v.is_Rational:
            count += modulus > 1
        elif modulus > 1 + 1e-12:
            count += 1
    return count


def to_fraction_matrix(rows: Sequence[Sequence[Any]], K: Any) -> list[list[Fraction]]:
    """A QQ matrix as Fractions."""
    return [[Fraction(int(K.numer(v)), int(K.denom(v))) for v in row] for row in rows]


def gap_values(gm: GapMap, point: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """The gaps a = T x + c at an exact section state x (numeric setting)."""
    K = gm.K
    T = to_fraction_matrix(gm.T, K)
    c = [Fraction(int(K.numer(v)), int(K.denom(v))) for v in gm.c]
    return tuple(sum(t * x for t, x in zip(row, point)) + ci for row, ci in zip(T, c))
