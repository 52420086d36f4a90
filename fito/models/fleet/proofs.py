"""Certificate payloads for the fleet claims (proofs/fleet.py): engine output as JSON obligations.

Everything here turns what the return-map engine derived (forms over QQ or QQ(params))
into expressions of the proof kit, one side at a time and without simplifying, so that the
kernel does the algebra: the next state is written as the engine's two virtual counters
(x'_j = key_j - progress_j), the gaps as differences of the engine's firing times, a gap at
the next section as the firing-time forms applied to the next-state expressions. The
paper's side of every obligation is built by the claim code from fresh symbols (see
`paper_*` in proofs/fleet.py); nothing here reads the paper and nothing here decides
anything.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from fito.models.fleet.linear import CONST, Constraint, Form, substitute
from fito.models.fleet.linear import witness as lra
from fito.models.fleet.returnmap import Derivation, Setting
from fito.models.fleet.solve import SAT, Verdict, instantiate
from fito.proof import farkas, to_expr, witness
from fito.proof.kernel.expr import KernelError, parse
from fito.proof.kernel.expr import substitute as substitute_expr
from fito.proof.kernel.linear import check_farkas, parameters, rf_sign
from fito.proof.kernel.normal import Normalizer

Json = Any


# ---------------------------------------------------------------- engine values as JSON
def names(prefix: str, m: int) -> list[str]:
    """prefix1..prefixm: the section state x1..x(N-1) or the gaps a1..a(N-1)."""
    return [f"{prefix}{j}" for j in range(1, m + 1)]


def value_json(c: Any, K: Any) -> Json:
    """One coefficient of K (a rational or a rational function of the parameters) as JSON."""
    return to_expr(K.to_sympy(c))


def form_json(form: Form, K: Any, xs: Sequence[Json]) -> Json:
    """sum c_i * xs[i] + c, unexpanded: xs may be symbols or whole expressions (composition)."""
    terms: list = []
    for i, c in sorted(form.items()):
        coef = value_json(c, K)
        terms.append(coef if i == CONST else ["*", coef, xs[i]])
    return ["+", *terms] if len(terms) > 1 else (terms[0] if terms else 0)


def matrix_json(rows: Sequence[Sequence[Any]], K: Any) -> list[list[Json]]:
    """A matrix over K, entry by entry."""
    return [[value_json(v, K) for v in row] for row in rows]


def diagonal(entries: Sequence[Json]) -> list[list[Json]]:
    """The diagonal matrix with these entries (zeros elsewhere)."""
    return [[e if i == k else 0 for k in range(len(entries))] for i, e in enumerate(entries)]


def diagonal_chain(entries: Sequence[Json], j: str) -> Json:
    """entries[j - 1] for the symbol j = 1..len(entries), as an if-then-else chain (so that
    an enumeration over j can count or maximise the entries of a diagonal); 0 past the end."""
    out: Json = 0
    for i in range(len(entries) - 1, -1, -1):
        out = ["ite", ["=", j, i + 1], entries[i], out]
    return out


def next_state_json(der: Derivation, xs: Sequence[Json] | None = None) -> list[Json]:
    """x'_j = key_j - progress_j: job j's counter target minus its group's counter at the end."""
    K = der.K
    xs = names("x", der.m) if xs is None else xs
    return [
        ["-", form_json(key, K, xs), form_json(progress, K, xs)]
        for key, progress in der.next_state_parts
    ]


def fire_times_json(der: Derivation, xs: Sequence[Json]) -> list[Json]:
    """The firing times t_(s_1), t_(s_2), ... (firing order s) at the state xs."""
    return [form_json(t, der.K, xs) for _, t in der.fire_times]


def gaps_json(der: Derivation, xs: Sequence[Json]) -> list[Json]:
    """a_1 = t_(s_1) - 0 (job 0 fires at the section), a_i = t_(s_i) - t_(s_(i-1)), at xs."""
    times = fire_times_json(der, xs)
    return [times[0]] + [["-", b, a] for a, b in itertools.pairwise(times)]


def gap_map_sides(
    der: Derivation, multipliers: Sequence[Json], offsets: Sequence[Json] | None = None
) -> list[tuple[Json, Json]]:
    """(lhs, rhs) per gap: lhs = the engine's gap a_i at the engine's next state x' (the kernel
    composes and expands), rhs = multiplier_i * a_i(x) (+ offset_i), the multipliers and
    offsets given by the caller (the paper's formula)."""
    after = gaps_json(der, next_state_json(der))
    now = gaps_json(der, names("x", der.m))
    out = []
    for i, (lhs, gap) in enumerate(zip(after, now)):
        rhs: Json = ["*", multipliers[i], gap]
        if offsets is not None:
            rhs = ["+", rhs, offsets[i]]
        out.append((lhs, rhs))
    return out


def chart_sides(der: Derivation, inverse: Sequence[Form]) -> list[tuple[Json, Json]]:
    """(a_i(x(a)), a_i): the engine's gaps at the engine's inverse chart x(a) give back a."""
    a = names("a", der.m)
    xa = [form_json(form, der.K, a) for form in inverse]
    return list(zip(gaps_json(der, xa), a))


# ---------------------------------------------------------------- regions and witnesses
def region_formula(
    constraints: Sequence[Constraint], K: Any, m: int, extra: Sequence[Any] = ()
) -> list:
    """["and", [">", e_k, 0], ...] in the kit's JSON language (strict: the open region)."""
    xs = names("x", m)
    parts = [
        [">", _qq_json(c.form, K) if K.is_Numerical else form_json(c.form, K, xs), 0]
        for c in constraints
    ]
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
    out = []
    for a in setting.assumptions:
        op = {
            "StrictGreaterThan": ">",
            "GreaterThan": ">=",
            "StrictLessThan": "<",
            "LessThan": "<=",
        }[type(a).__name__]
        out.append([op, to_expr(a.lhs), to_expr(a.rhs)])
    return out


def instance_witness(der: Derivation, values: dict[str, Fraction], note: str) -> Any:
    """A witness of the branch region with the parameters fixed at rational values: the
    formula is the region with those values substituted (an LRA problem for the state)."""
    from sympy import QQ  # lazy-import: sympy is slow to load

    ordered = [values[str(s)] for s in der.setting.symbols]
    numeric = [Constraint(instantiate(c.form, der.K, ordered), c.why) for c in der.constraints]
    status, point = lra(numeric, der.m, QQ)
    if status != SAT or point is None:
        return None
    assignment = {f"x{j}": v for j, v in enumerate(point, start=1)}
    shown = ", ".join(f"{k} = {v}" for k, v in values.items())
    return witness(region_formula(numeric, QQ, der.m), assignment, note=f"{note} ({shown})")


def witness_assignment(verdict: Verdict, m: int) -> dict[str, Fraction]:
    """The witness point (state and, for symbolic settings, parameters) by name."""
    point = dict(verdict.params)
    point.update({f"x{j}": v for j, v in enumerate(verdict.point or (), start=1)})
    return point


# ---------------------------------------------------------------- empty regions
def parameter_domains(setting: Setting) -> dict[str, Any]:
    """The regime of a symbolic setting for the kernel's parametric Farkas check: every
    symbol positive, and a cap k <= C < k + 1 as ["interval", k, k + 1, "[)"] ("()" for k = 0)."""
    out: dict[str, Any] = {str(s): "positive" for s in setting.symbols}
    bounds = {}
    for a in setting.assumptions:
        name = str(a.lhs)
        if name == "C" and type(a).__name__ in ("GreaterThan", "StrictLessThan"):
            bounds[type(a).__name__] = int(a.rhs)
    if bounds:
        low, high = bounds["GreaterThan"], bounds["StrictLessThan"]
        out["C"] = ["interval", low, high, "[)" if low > 0 else "()"]
    return out


def empty_region(
    constraints: Sequence[Constraint], K: Any, m: int, setting: Setting, note: str
) -> Any:
    """A Farkas obligation showing the open region has no point for any parameters of the
    regime (symbolic settings, one state variable): two of its constraints whose
    coefficients have opposite signs, multiplied crosswise (the kernel checks the signs for
    every parameter value); those two alone have no common point. None if no pair does."""
    formula = region_formula(constraints, K, m)[1:]
    if K.is_Numerical or m != 1:
        return None
    params = parameter_domains(setting)
    slope = [c.form.get(0, K.zero) for c in constraints]
    const = [c.form.get(CONST, K.zero) for c in constraints]
    signs = _signs(slope, K, params)
    up = [i for i, sg in enumerate(signs) if sg == "pos"]
    down = [j for j, sg in enumerate(signs) if sg == "neg"]
    pairs = list(itertools.product(up, down))
    # the combination's constant, -a_j b_i + a_i b_j, must be <= 0: try those pairs first
    combos = _signs([-slope[j] * const[i] + slope[i] * const[j] for i, j in pairs], K, params)
    pairs = [p for p, sg in zip(pairs, combos) if sg in ("neg", "nonpos", "zero")]
    for i, j in pairs:  # the two constraints alone have no common point: neither has the region
        mults = [["-", value_json(slope[j], K)], value_json(slope[i], K)]
        ob = farkas(
            [formula[i], formula[j]], mults, variables=names("x", m), parameters=params, note=note
        )
        try:
            check_farkas(dict(ob.to_json()))
        except KernelError:
            continue
        return ob
    return None


def _signs(coefficients: Sequence[Any], K: Any, params: dict[str, Any]) -> list[str | None]:
    """The sign of each coefficient for every parameter value of the regime (the kernel's rule)."""
    subst, positive, nonneg, _ = parameters(params, set(params))
    norm = Normalizer(positive=positive, nonneg=nonneg)
    return [
        rf_sign(norm.rf(substitute_expr(parse(value_json(c, K)), subst)), positive, nonneg)
        for c in coefficients
    ]


def numeric_empty_region(
    constraints: Sequence[Constraint], K: Any, m: int, multipliers: Sequence[Fraction], note: str
) -> Any:
    """The engine's Motzkin multipliers for a numeric region as a Farkas obligation, on the
    constraints they use (those alone have no common point, so neither has the region)."""
    used = [i for i, y in enumerate(multipliers) if y]
    formula = region_formula([constraints[i] for i in used], K, m)[1:]
    return farkas(formula, [multipliers[i] for i in used], note=note)


def image_constraints(
    leaf_constraints: Sequence[Constraint],
    end_state: Sequence[Form],
    target: Sequence[Constraint],
    K: Any,
) -> list[Constraint]:
    """The points x of a branch's region whose image (the branch's end state, affine in x)
    lies in the target region: the branch's constraints and the target's at the image."""
    rows = dict(enumerate(end_state))
    return list(leaf_constraints) + [
        Constraint(substitute(c.form, rows, K), f"image: {c.why}") for c in target
    ]


__all__ = [
    "assumptions_json",
    "empty_region",
    "image_constraints",
    "numeric_empty_region",
    "parameter_domains",
    "chart_sides",
    "diagonal",
    "diagonal_chain",
    "fire_times_json",
    "form_json",
    "gap_map_sides",
    "gaps_json",
    "instance_witness",
    "matrix_json",
    "names",
    "next_state_json",
    "region_formula",
    "value_json",
    "witness_assignment",
]
