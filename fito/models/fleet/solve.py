"""Deciding whether a branch region has interior points: Z3, witnesses, Farkas certificates.

Numeric settings (coefficients in QQ) are linear: Z3's LRA gives an exact rational
witness, or the dual system gives Motzkin multipliers proving emptiness. Symbolic settings
(coefficients in QQ(W, V, f1, ...)) are nonlinear in the parameters: Z3 (nlsat) searches
parameters and state together; a witness is re-solved with rational parameters so that
every number in it is exact, and emptiness is Z3's word (a trusted verdict).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fito.models.fleet.linear import (
    CONST,
    Constraint,
    Form,
    _z3_form,
    farkas,
    farkas_on,
    witness,
    z3_form_cleared,
)
from fito.models.fleet.returnmap import Setting

SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether the open region is non-empty, with the evidence."""

    status: str
    point: tuple[Fraction, ...] | None = None
    params: tuple[tuple[str, Fraction], ...] = ()
    farkas: tuple[Fraction, ...] | None = None


class RegionSolver:
    """Checks regions of one setting (numeric or symbolic)."""

    def __init__(self, setting: Setting, m: int, timeout_ms: int = 30000) -> None:
        self.setting, self.m, self.timeout_ms = setting, m, timeout_ms
        self.K = setting.domain()
        self.symbolic = bool(setting.symbols)

    def check(self, constraints: Sequence[Constraint], certify: bool = True) -> Verdict:
        """sat with a witness, unsat with a certificate (numeric), or unknown."""
        if not self.symbolic:
            status, point = witness(constraints, self.m, self.K, self.timeout_ms)
            if status == UNSAT and certify:
                y = farkas(constraints, self.m, self.K)
                return Verdict(UNSAT if y is not None else UNKNOWN, farkas=y)
            return Verdict(status, point)
        return self._check_symbolic(constraints)

    def _check_symbolic(self, constraints: Sequence[Constraint]) -> Verdict:
        import z3  # lazy-import: z3 is slow to load

        params = [z3.Real(str(s)) for s in self.setting.symbols]
        xs = [z3.Real(f"x{i}") for i in range(self.m)]
        solver = z3.Solver()
        solver.set("timeout", self.timeout_ms)
        env = {str(s): p for s, p in zip(self.setting.symbols, params)}
        solver.add(*(sympy_to_z3(a, env) for a in self.setting.assumptions))
        solver.add(*(z3_form_cleared(c.form, xs, params) > 0 for c in constraints))
        verdict = solver.check()
        if verdict == z3.unsat:
            return Verdict(UNSAT)
        if verdict != z3.sat:
            return Verdict(UNKNOWN)
        model = solver.model()
        values = [_rational(model.eval(p, model_completion=True)) for p in params]
        return self._rational_witness(constraints, values)

    def _rational_witness(
        self, constraints: Sequence[Constraint], values: list[Fraction]
    ) -> Verdict:
        """Fix the parameters at rational values and solve the linear system for x."""
        if not self._assumptions_hold(values):
            return Verdict(UNKNOWN)
        from sympy import QQ  # lazy-import: sympy is slow to load

        numeric = [Constraint(instantiate(c.form, self.K, values), c.why) for c in constraints]
        status, point = witness(numeric, self.m, QQ, self.timeout_ms)
        if status != SAT:
            return Verdict(UNKNOWN)
        names = tuple(str(s) for s in self.setting.symbols)
        return Verdict(SAT, point, tuple(zip(names, values)))

    def _assumptions_hold(self, values: list[Fraction]) -> bool:
        import sympy  # lazy-import: sympy is slow to load

        env = {
            s: sympy.Rational(v.numerator, v.denominator)
            for s, v in zip(self.setting.symbols, values)
        }
        return all(bool(a.subs(env)) for a in self.setting.assumptions)


class Session:
    """An incremental Z3 session over one setting: push constraints, check, pop (DFS)."""

    def __init__(self, region: RegionSolver, cores: bool = False) -> None:
        import z3  # lazy-import: z3 is slow to load

        self.region = region
        self.cores = cores and not region.symbolic  # track constraints for unsat cores
        self.solver = z3.Solver()
        self.solver.set("timeout", region.timeout_ms)
        self.xs = [z3.Real(f"x{i}") for i in range(region.m)]
        self.flags: list[Any] = []  # one Boolean per pushed constraint, for unsat cores
        self.marks: list[int] = []
        self.params = [z3.Real(str(s)) for s in region.setting.symbols]
        env = {str(s): p for s, p in zip(region.setting.symbols, self.params)}
        self.solver.add(*(sympy_to_z3(a, env) for a in region.setting.assumptions))

    def push(self, constraints: Sequence[Constraint]) -> None:
        import z3  # lazy-import: z3 is slow to load

        self.solver.push()
        self.marks.append(len(self.flags))
        for c in constraints:
            if not self.cores:
                self.solver.add(self._term(c.form) > 0)
                continue
            flag = z3.Bool(f"c{len(self.flags)}")
            self.flags.append(flag)
            self.solver.add(z3.Implies(flag, self._term(c.form) > 0))

    def pop(self) -> None:
        self.solver.pop()
        del self.flags[self.marks.pop() :]

    def _term(self, form: Form):
        if self.region.symbolic:
            return z3_form_cleared(form, self.xs, self.params)

        return _z3_form(form, self.xs, self.region.K)

    def check(self, constraints: Sequence[Constraint], certify: bool) -> Verdict:
        """The verdict of everything pushed; `constraints` (the same set) for certificates."""
        import z3  # lazy-import: z3 is slow to load

        verdict = self.solver.check(*self.flags)
        if verdict == z3.unknown:
            return Verdict(UNKNOWN)
        if verdict == z3.unsat:
            if self.region.symbolic or not certify:
                return Verdict(UNSAT)
            core = {str(b) for b in self.solver.unsat_core()}
            index = [i for i, f in enumerate(self.flags) if str(f) in core]
            y = farkas_on(index, constraints, self.region.m, self.region.K) if index else None
            if y is None:  # the core is Z3's; the exact simplex has the last word
                y = farkas(constraints, self.region.m, self.region.K)
            return Verdict(UNSAT if y is not None else UNKNOWN, farkas=y)
        model = self.solver.model()
        if self.region.symbolic:
            values = [_rational(model.eval(p, model_completion=True)) for p in self.params]
            return self.region._rational_witness(constraints, values)
        return Verdict(SAT, tuple(_rational(model.eval(x, model_completion=True)) for x in self.xs))


def instantiate(form: Form, K: Any, values: Sequence[Fraction]) -> Form:
    """A form over QQ(params) evaluated at rational parameter values (a form over QQ)."""
    from sympy import QQ  # lazy-import: sympy is slow to load

    out: Form = {}
    for i, c in form.items():
        den = _eval_poly(c.denom, values)
        if den == 0:
            raise ZeroDivisionError("a coefficient's denominator vanishes at the parameters")
        value = _eval_poly(c.numer, values) / den
        if value:
            out[i] = QQ(value.numerator, value.denominator)
    return out


def _eval_poly(poly: Any, values: Sequence[Fraction]) -> Fraction:
    """A polynomial over QQ at a rational point (term by term, exact)."""
    total = Fraction(0)
    for monom, coef in poly.terms():
        term = Fraction(int(coef.numerator), int(coef.denominator))
        for v, e in zip(values, monom):
            if e:
                term *= v**e
        total += term
    return total


def _rational(value: Any) -> Fraction:
    import z3  # lazy-import: z3 is slow to load

    if z3.is_rational_value(value):
        return Fraction(value.numerator_as_long(), value.denominator_as_long())
    approx = value.approx(30)  # an algebraic number: a nearby rational
    return Fraction(approx.numerator_as_long(), approx.denominator_as_long()).limit_denominator(
        10**12
    )


def sympy_to_z3(expr: Any, env: dict[str, Any]):
    """A SymPy relation or polynomial expression (numbers, symbols, +, *, ^) as Z3."""
    import sympy  # lazy-import: sympy is slow to load
    import z3  # lazy-import: z3 is slow to load

    if isinstance(expr, sympy.core.relational.Relational):
        lhs, rhs = sympy_to_z3(expr.lhs, env), sympy_to_z3(expr.rhs, env)
        table = {
            "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b,
            ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b,
            "==": lambda a, b: a == b,
        }
        return table[expr.rel_op](lhs, rhs)
    if expr.is_Symbol:
        return env[str(expr)]
    if expr.is_Rational:
        return z3.Q(int(expr.p), int(expr.q))
    if expr.is_Add:
        return z3.Sum([sympy_to_z3(a, env) for a in expr.args])
    if expr.is_Mul:
        out = sympy_to_z3(expr.args[0], env)
        for a in expr.args[1:]:
            out = out * sympy_to_z3(a, env)
        return out
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        base = sympy_to_z3(expr.base, env)
        out = base
        for _ in range(int(expr.exp) - 1):
            out = out * base
        return out
    raise ValueError(f"cannot translate {expr} to Z3")


def constant_form(form: Form) -> bool:
    return set(form) <= {CONST}
