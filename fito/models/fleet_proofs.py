"""Certificate payloads for the fleet claims (proofs/fleet.py): engine output as JSON obligations.

Everything here turns what the return-map engine derived (forms over QQ or QQ(params))
into expressions of the proof kit, so that the kernel re-checks it: gap maps as identities
in the section state, regions as witness formulas, branch enumerations as identities plus
witnesses. Nothing here decides anything.
"""
from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from fito.models.fleet_linear import CONST, Constraint, Form, f_add, f_scale, f_sub
from fito.models.fleet_solve import Verdict
from fito.models.returnmap import Derivation, Setting


def state_symbols(m: int) -> list:
    """x1..xm: the remaining amounts of jobs 1..N-1 on the section (plain SymPy symbols)."""
    import sympy

    return [sympy.Symbol(f"x{j}") for j in range(1, m + 1)]


def to_sympy(form: Form, K: Any, xs: Sequence[Any]):
    """A form as a SymPy expression in xs and the setting's parameters."""
    import sympy

    terms = []
    for i, c in sorted(form.items()):
        value = K.to_sympy(c)
        terms.append(value if i == CONST else value * xs[i])
    return sympy.Add(*terms)


def compose(form: Form, inner: Sequence[Form], K: Any) -> Form:
    """form(x) with x_i replaced by the forms inner[i] (e.g. a gap at the next state)."""
    out: Form = {CONST: form[CONST]} if CONST in form else {}
    for i, c in form.items():
        if i != CONST:
            out = f_add(out, f_scale(inner[i], c, K), K)
    return out


def next_gap_identities(der: Derivation, gaps: Sequence[Form], multipliers: Sequence[Any],
                        offsets: Sequence[Any] | None = None) -> list[tuple[Any, Any]]:
    """(lhs, rhs) with lhs = gap i at the next section, rhs = multiplier_i * gap i (+ d_i):
    the identity a'_i = lambda_i a_i + d_i in the section state x, one per gap."""
    K = der.K
    xs = state_symbols(der.m)
    out = []
    for i, gap in enumerate(gaps):
        nxt = to_sympy(compose(gap, der.next_state, K), K, xs)
        rhs = multipliers[i] * to_sympy(gap, K, xs)
        if offsets is not None:
            rhs = rhs + offsets[i]
        out.append((nxt, rhs))
    return out


def chart_identities(gaps: Sequence[Form], inverse: Sequence[Form],
                     K: Any) -> list[tuple[Any, Any]]:
    """(T x(a) + c)_i = a_i: the engine's inverse chart x(a) is a right inverse of the gaps,
    so every gap vector is reached by some section state (T is invertible)."""
    import sympy

    a = [sympy.Symbol(f"a{i}") for i in range(1, len(gaps) + 1)]
    return [(to_sympy(compose(g, inverse, K), K, a), a[i]) for i, g in enumerate(gaps)]


def region_formula(constraints: Sequence[Constraint], K: Any, m: int,
                   extra: Sequence[Any] = ()) -> list:
    """["and", [">", e_k, 0], ...] in the kit's JSON language (strict: the open region)."""
    from fito.proof import to_expr

    if K.is_Numerical:  # QQ forms: straight to JSON, no SymPy detour
        parts = [[">", _qq_json(c.form, K), 0] for c in constraints]
    else:
        xs = state_symbols(m)
        parts = [[">", to_expr(to_sympy(c.form, K, xs)), 0] for c in constraints]
    return ["and", *parts, *extra]


def _qq_json(form: Form, K: Any) -> Any:
    """sum c_i x_(i+1) + c as a JSON expression with exact "p/q" coefficients."""
    terms: list = []
    for i, c in sorted(form.items()):
        v = Fraction(int(K.numer(c)), int(K.denom(c)))
        coef: Any = v.numerator if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
        terms.append(coef if i == CONST else ["*", coef, f"x{i + 1}"])
    return ["+", *terms] if len(terms) > 1 else (terms[0] if terms else 0)


def assumptions_json(setting: Setting) -> list:
    """The setting's assumptions (C in its regime, symbols positive) as JSON comparisons."""
    from fito.proof import to_expr

    out = []
    for a in setting.assumptions:
        op = {"StrictGreaterThan": ">", "GreaterThan": ">=", "StrictLessThan": "<",
              "LessThan": "<="}[type(a).__name__]
        out.append([op, to_expr(a.lhs), to_expr(a.rhs)])
    return out


def witness_assignment(verdict: Verdict, m: int) -> dict[str, Fraction]:
    """The witness point (state and, for symbolic settings, parameters) by name."""
    point = dict(verdict.params)
    point.update({f"x{j}": v for j, v in enumerate(verdict.point or (), start=1)})
    return point


def numeric_instance(setting: Setting, values: dict[str, Fraction]) -> Setting:
    """The setting with its parameters replaced by rational values (a numeric setting)."""
    import sympy

    env = {s: sympy.Rational(values[str(s)].numerator, values[str(s)].denominator)
           for s in setting.symbols}

    def sub(exprs):
        return tuple(sympy.sympify(e).subs(env) for e in exprs)

    return Setting(sub(setting.work), sub(setting.volume), sub(setting.f), sub(setting.g),
                   (), (), setting.label + " (instance)")


def difference(a: Form, b: Form, K: Any) -> Form:
    return f_sub(a, b, K)


__all__ = [
    "assumptions_json",
    "chart_identities",
    "compose",
    "next_gap_identities",
    "numeric_instance",
    "region_formula",
    "state_symbols",
    "to_sympy",
    "witness_assignment",
]
