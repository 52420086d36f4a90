"""Affine forms over a coefficient field, branch regions, Z3 witnesses and Farkas certificates.

A form is a dict {variable index: coefficient} with key -1 for the constant term; the
coefficients live in a SymPy domain K (QQ for a numeric model, a rational-function field
QQ(W, V, f1, ...) for symbolic parameters). A region is a tuple of forms, each meaning
`form >= 0`; its interior (every form > 0) is what Z3 checks non-empty.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

Form = dict  # {int: K element}; -1 is the constant term
CONST = -1


def f_add(a: Form, b: Form, K: Any) -> Form:
    """a + b."""
    out = dict(a)
    for i, c in b.items():
        v = out.get(i)
        v = c if v is None else v + c
        if v:
            out[i] = v
        else:
            out.pop(i, None)
    return out


def f_sub(a: Form, b: Form, K: Any) -> Form:
    """a - b."""
    out = dict(a)
    for i, c in b.items():
        v = out.get(i)
        v = -c if v is None else v - c
        if v:
            out[i] = v
        else:
            out.pop(i, None)
    return out


def f_scale(a: Form, c: Any, K: Any) -> Form:
    """c * a."""
    if not c:
        return {}
    if c == K.one:
        return dict(a)
    if c == -K.one:
        return {i: -v for i, v in a.items()}
    return {i: v * c for i, v in a.items()}


def f_const(c: Any) -> Form:
    """The constant form c."""
    return {CONST: c} if c else {}


def f_var(i: int, K: Any) -> Form:
    """The form x_i."""
    return {i: K.one}


def f_row(a: Form, m: int, K: Any) -> tuple[list, Any]:
    """The dense coefficient row (length m) and the constant of `a`."""
    return [a.get(i, K.zero) for i in range(m)], a.get(CONST, K.zero)


@dataclass(frozen=True, slots=True)
class Constraint:
    """`form >= 0` with where it came from (e.g. "step 3: fire job 2 before end job 0")."""

    form: Form
    why: str


def to_fraction(c: Any, K: Any) -> Fraction:
    """A QQ element as a Fraction."""
    return Fraction(int(K.numer(c)), int(K.denom(c)))


def evaluate(form: Form, point: Sequence[Fraction], K: Any) -> Fraction:
    """The value of a QQ form at an exact point."""
    total = Fraction(0)
    for i, c in form.items():
        v = to_fraction(c, K)
        total += v if i == CONST else v * point[i]
    return total


# ---------------------------------------------------------------------------- Z3
def witness(
    constraints: Sequence[Constraint], m: int, K: Any, timeout_ms: int = 20000
) -> tuple[str, tuple[Fraction, ...] | None]:
    """('sat', a point of the open region) | ('unsat', None) | ('unknown', None); QQ forms."""
    import z3  # lazy-import: z3 is slow to load

    xs = [z3.Real(f"x{i}") for i in range(m)]
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    for con in constraints:
        solver.add(_z3_form(con.form, xs, K) > 0)
    verdict = solver.check()
    if verdict == z3.sat:
        model = solver.model()
        point = tuple(_z3_value(model.eval(x, model_completion=True)) for x in xs)
        return "sat", point
    return ("unsat" if verdict == z3.unsat else "unknown"), None


def _z3_form(form: Form, xs: Sequence[Any], K: Any):
    import z3  # lazy-import: z3 is slow to load

    terms = []
    for i, c in sorted(form.items()):
        v = to_fraction(c, K)
        q = z3.Q(v.numerator, v.denominator)
        terms.append(q if i == CONST else q * xs[i])
    return z3.Sum(terms) if terms else z3.RealVal(0)


def _z3_value(value: Any) -> Fraction:
    return Fraction(value.numerator_as_long(), value.denominator_as_long())


def farkas(constraints: Sequence[Constraint], m: int, K: Any) -> tuple[Fraction, ...] | None:
    """Multipliers y >= 0, sum y = 1, sum y_k a_k = 0, sum y_k b_k <= 0 (Motzkin), or None.

    They prove that no x satisfies every a_k . x + b_k > 0: the combination would be a
    constant <= 0 that is also > 0. Found by the proof kit's exact simplex (m + 2 rows).
    """
    return motzkin(constraints, m, K)


def farkas_on(
    core: Sequence[int], constraints: Sequence[Constraint], m: int, K: Any
) -> tuple[Fraction, ...] | None:
    """Motzkin multipliers found on the constraints of `core` alone (zero on the others)."""
    y = motzkin([constraints[i] for i in core], m, K)
    if y is None:
        return None
    full = [Fraction(0)] * len(constraints)
    for i, v in zip(core, y):
        full[i] = v
    return tuple(full)


def motzkin(constraints: Sequence[Constraint], m: int, K: Any) -> tuple[Fraction, ...] | None:
    from fito.proof.lp import feasible_nonnegative  # lazy-import: the proof kit, for Motzkin only

    rows = [f_row(con.form, m, K) for con in constraints]
    if not rows:
        return None
    coeffs = [[to_fraction(v, K) for v in r] for r, _ in rows]
    consts = [to_fraction(c, K) for _, c in rows]
    zero, one = Fraction(0), Fraction(1)
    a = [[row[i] for row in coeffs] + [zero] for i in range(m)]
    a.append([one] * len(rows) + [zero])
    a.append(consts + [one])  # sum y_k b_k + s = 0 with slack s >= 0
    y = feasible_nonnegative(a, [zero] * m + [one, zero])
    return None if y is None else tuple(y[:-1])


def _q(c: Any, K: Any):
    import z3  # lazy-import: z3 is slow to load

    v = to_fraction(c, K)
    return z3.Q(v.numerator, v.denominator)


def check_farkas(
    rows: Sequence[tuple[Sequence[Fraction], Fraction]], y: Sequence[Fraction]
) -> bool:
    """Re-check a Motzkin certificate with exact fractions (no solver)."""
    if len(rows) != len(y) or any(v < 0 for v in y) or sum(y) != 1:
        return False
    m = len(rows[0][0]) if rows else 0
    if any(sum(v * row[0][i] for v, row in zip(y, rows)) != 0 for i in range(m)):
        return False
    return sum(v * row[1] for v, row in zip(y, rows)) <= 0


# ---------------------------------------------------------------------------- printing
def form_text(form: Form, names: Sequence[str], K: Any) -> str:
    """A readable `a*x1 - x2 + 3` rendering (exact coefficients)."""
    parts: list[str] = []
    for i in sorted(form, key=lambda j: (j == CONST, j)):
        c = form[i]
        text = _coef_text(K.to_sympy(c))
        if i == CONST:
            parts.append(text)
            continue
        if text == "1":
            parts.append(names[i])
        elif text == "-1":
            parts.append("-" + names[i])
        else:
            parts.append(f"{text}*{names[i]}" if _is_atom(text) else f"({text})*{names[i]}")
    if not parts:
        return "0"
    out = parts[0]
    for p in parts[1:]:
        out += f" - {p[1:]}" if p.startswith("-") else f" + {p}"
    return out


def _coef_text(expr: Any) -> str:
    return str(expr).replace("**", "^")


def _is_atom(text: str) -> bool:
    body = text[1:] if text.startswith("-") else text
    return all(ch.isalnum() or ch in "/_." for ch in body)


def inequality_text(form: Form, names: Sequence[str], K: Any) -> str:
    """`lhs <= rhs` with the variables on the left where it reads naturally."""
    const = form.get(CONST)
    body = {i: c for i, c in form.items() if i != CONST}
    if not body:
        return f"{form_text(form, names, K)} >= 0"
    lead = body[min(body)]
    neg = K.to_sympy(lead).could_extract_minus_sign()
    if neg:
        rhs = form_text(f_const(const) if const is not None else {}, names, K)
        return f"{form_text(f_scale(body, -K.one, K), names, K)} <= {rhs}"
    rhs = form_text(f_const(-const) if const is not None else {}, names, K)
    return f"{form_text(body, names, K)} >= {rhs}"


def fraction_text(v: Fraction) -> str:
    return str(v)


def substitute(form: Form, matrix_rows: Mapping[int, Form], K: Any) -> Form:
    """form with x_i replaced by the form matrix_rows[i] (a change of coordinates)."""
    out = f_const(form.get(CONST, K.zero))
    for i, c in form.items():
        if i != CONST:
            out = f_add(out, f_scale(matrix_rows[i], c, K), K)
    return out


# ---------------------------------------------------------------------------- symbolic
def z3_poly(poly: Any, params: Sequence[Any]):
    """A SymPy PolyElement (over QQ) as a Z3 real term in `params`."""
    import z3  # lazy-import: z3 is slow to load

    terms = []
    for monom, coef in poly.terms():
        v = Fraction(int(coef.numerator), int(coef.denominator))
        term = z3.Q(v.numerator, v.denominator)
        for p, e in zip(params, monom):
            for _ in range(e):
                term = term * p
        terms.append(term)
    return z3.Sum(terms) if terms else z3.RealVal(0)


def has_positive_coefficients(poly: Any) -> bool:
    """True when every coefficient is > 0: the polynomial is positive for positive symbols."""
    return all(coef > 0 for _, coef in poly.terms())


def z3_form_cleared(form: Form, xs: Sequence[Any], params: Sequence[Any]):
    """(form * L) as a Z3 term: L = lcm of the denominators, squared unless it is plainly
    positive (positive coefficients, positive symbols), so that the sign is the form's."""
    import z3  # lazy-import: z3 is slow to load

    if not form:
        return z3.RealVal(0)
    denoms = [c.denom for c in form.values()]
    lcm = denoms[0]
    for d in denoms[1:]:
        lcm = lcm.lcm(d)
    if not has_positive_coefficients(lcm):
        lcm = lcm * lcm
    terms = []
    for i, c in sorted(form.items()):
        term = z3_poly(c.numer * lcm.exquo(c.denom), params)
        terms.append(term if i == CONST else term * xs[i])
    return z3.Sum(terms)


# ---------------------------------------------------------------------------- presentation
def normalized(form: Form, K: Any) -> Form:
    """A positive multiple of `form` that reads well: primitive integer coefficients over QQ;
    over a parameter field, divided by its first coefficient when that is a positive monomial."""
    if not form:
        return form
    if K.is_Numerical:
        fracs = {i: to_fraction(c, K) for i, c in form.items()}
        lcm = math.lcm(*(v.denominator for v in fracs.values()))
        gcd = math.gcd(*(int(v * lcm) for v in fracs.values()))
        scale = Fraction(lcm, gcd)
        return {
            i: K.convert(v.numerator * scale.numerator // (v.denominator * scale.denominator))
            if (v * scale).denominator == 1
            else form[i]
            for i, v in fracs.items()
        }
    lead = form[min(i for i in form if i != CONST)] if any(i != CONST for i in form) else None
    if lead is None or len(lead.numer.terms()) != 1 or len(lead.denom.terms()) != 1:
        return form
    positive = K.one / lead if lead.numer.LC > 0 else -K.one / lead
    if (positive.numer.LC > 0) == (positive.denom.LC > 0):
        return f_scale(form, positive, K)
    return form


def irredundant(forms: Sequence[Form], m: int, K: Any, timeout_ms: int = 5000) -> list[Form]:
    """Drop every inequality implied by the others (QQ forms; each dropped one is checked
    infeasible against the kept ones, in order)."""
    import z3  # lazy-import: z3 is slow to load

    xs = [z3.Real(f"x{i}") for i in range(m)]
    terms = [_z3_form(f, xs, K) for f in forms]
    keep = list(range(len(forms)))
    for k in range(len(forms)):
        solver = z3.Solver()
        solver.set("timeout", timeout_ms)
        solver.add(*(terms[i] >= 0 for i in keep if i != k), terms[k] < 0)
        if solver.check() == z3.unsat:
            keep.remove(k)
    return [forms[i] for i in keep]
