"""Exact linear programming (Fractions, Bland's rule): Farkas multipliers for the proof kit.

Producer side, not trusted: whatever it finds, the kernel re-checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from fito.proof.kernel import poly as P
from fito.proof.kernel.expr import KernelError
from fito.proof.kernel.normal import Normalizer

Row = list[Fraction]


def feasible_nonnegative(
    a: Sequence[Sequence[Fraction | int]], b: Sequence[Fraction | int]
) -> list[Fraction] | None:
    """A vector y >= 0 with a y = b, or None when there is none (phase one of the simplex
    method)."""
    m, n = len(a), len(a[0]) if a else 0
    rows = [[Fraction(x) for x in r] + [Fraction(v)] for r, v in zip(a, b)]
    for r in rows:
        if r[-1] < 0:
            r[:] = [-x for x in r]
    # artificial variables n..n+m-1 form the starting basis
    tab = [r[:n] + [Fraction(int(i == j)) for j in range(m)] + [r[-1]] for i, r in enumerate(rows)]
    basis = list(range(n, n + m))
    cost = [Fraction(0)] * n + [Fraction(1)] * m + [Fraction(0)]
    obj = [cost[j] - sum(tab[i][j] for i in range(m)) for j in range(n + m + 1)]
    from fito import budget  # lazy-import: fito.proof's API loads with the kernel alone

    while True:
        budget.check()  # the command's deadline and memory: pivots of exact fractions add up
        enter = next((j for j in range(n + m) if obj[j] < 0), None)
        if enter is None:
            break
        ratios = [(tab[i][-1] / tab[i][enter], basis[i], i) for i in range(m) if tab[i][enter] > 0]
        if not ratios:
            return None  # unbounded cannot happen in phase one; defensive
        _, _, leave = min(ratios)
        _pivot(tab, obj, leave, enter)
        basis[leave] = enter
    if -obj[-1] != 0:
        return None
    y = [Fraction(0)] * n
    for i, j in enumerate(basis):
        if j < n:
            y[j] = tab[i][-1]
    return y


def _pivot(tab: list[Row], obj: Row, r: int, c: int) -> None:
    piv = tab[r][c]
    tab[r] = [x / piv for x in tab[r]]
    for i, row in enumerate(tab):
        if i != r and row[c]:
            f = row[c]
            tab[i] = [x - f * y for x, y in zip(row, tab[r])]
    f = obj[c]
    obj[:] = [x - f * y for x, y in zip(obj, tab[r])]


def linear_forms(constraints: Sequence[object]) -> tuple[list[str], list[tuple[P.Poly, str]]]:
    """Parsed comparisons as (variables, [(g, op)]) with g op 0 and op in >=, >, =."""
    forms = []
    for i, c in enumerate(constraints, 1):
        if not isinstance(c, tuple) or c[0] not in ("<", "<=", "=", ">=", ">"):
            raise KernelError(f"constraint {i} is not a comparison <, <=, =, >=, >")
        norm = Normalizer()
        lhs, rhs = norm.poly(c[1]), norm.poly(c[2])
        g = P.sub(lhs, rhs) if c[0] in (">", ">=", "=") else P.sub(rhs, lhs)
        if P.degree(g) > 1:
            raise KernelError(f"constraint {i} is not linear")
        forms.append((g, {"<": ">", "<=": ">=", ">": ">", ">=": ">=", "=": "="}[c[0]]))
    names = sorted(set().union(*(P.variables(g) for g, _ in forms)))
    return names, forms


def farkas_multipliers(constraints: Sequence[object]) -> list[Fraction] | None:
    """Multipliers proving the parsed linear constraints have no real solution, or None."""
    names, forms = linear_forms(constraints)
    cols: list[tuple[int, int]] = []  # (constraint index, sign)
    for i, (_, op) in enumerate(forms):
        cols.append((i, 1))
        if op == "=":
            cols.append((i, -1))
    coef = [[sign * forms[i][0].get(((v, 1),), Fraction(0)) for i, sign in cols] for v in names]
    const = [sign * P.const_value(forms[i][0]) for i, sign in cols]
    strict = [Fraction(int(forms[i][1] == ">" and sign == 1)) for i, sign in cols]
    y = feasible_nonnegative(coef + [const], [Fraction(0)] * len(names) + [Fraction(-1)])
    if y is None and any(strict):
        slack = [[Fraction(0)] for _ in names] + [[Fraction(1)], [Fraction(0)]]
        rows = [[*r, *s] for r, s in zip(coef + [const] + [strict], slack)]
        y = feasible_nonnegative(rows, [Fraction(0)] * len(names) + [Fraction(0), Fraction(1)])
        y = None if y is None else y[:-1]
    if y is None:
        return None
    out = [Fraction(0)] * len(forms)
    for (i, sign), v in zip(cols, y):
        out[i] += sign * v
    return out
