"""Z3 searches for mixed-epoch restored optimizer states that break an invariant (paper A, claim 3).

A checkpoint of step e holds the optimizer state after e steps; a mixed restore takes some
parts from epoch e and others from epoch e' != e. Each search unrolls the step maps of
`fito.models.epochs.optimizer` (SymPy) for a few steps, hands the invariant's negation on the mixed
tuple to Z3, and returns the values it finds, re-checked exactly with SymPy rationals.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from fito.models.epochs import optimizer as opt

Pairs = tuple[tuple[str, Fraction], ...]


@dataclass(frozen=True, slots=True)
class MixedState:
    """A restored state mixing epochs, with the values that make it violate an invariant."""

    optimizer: str
    invariant: str
    epochs: tuple[tuple[str, int], ...]  # restored part -> the epoch it came from
    hyper: Pairs  # fixed hyperparameters of the model
    unknowns: Pairs  # the values Z3 chose (start state and gradients)
    restored: Pairs  # the values of the restored parts
    formula: Any  # the invariant on the restored parts (SymPy), false here
    assignment: Pairs  # the unknowns, for evaluating `formula`

    def holds(self) -> bool:
        """The invariant evaluated exactly at the assignment (False for a genuine violation)."""
        value = self.formula.xreplace(
            {sympy.Symbol(n, real=True): _rat(v) for n, v in self.assignment}
        )
        return bool(value)


def _z3_of(expr: Any, env: Mapping[Any, Any]) -> Any:
    """A SymPy polynomial/rational expression as a Z3 real term."""
    import z3  # lazy-import: z3 is slow to load

    if isinstance(expr, sympy.Symbol):
        return env[expr]
    if isinstance(expr, sympy.Rational):
        return z3.RealVal(f"{expr.p}/{expr.q}")
    if isinstance(expr, sympy.Add):
        return z3.Sum(*(_z3_of(a, env) for a in expr.args))
    if isinstance(expr, sympy.Mul):
        return z3.Product(*(_z3_of(a, env) for a in expr.args))
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and expr.exp > 0:
        base = _z3_of(expr.base, env)
        return z3.Product(*([base] * int(expr.exp)))
    if isinstance(expr, sympy.core.relational.Relational):
        lhs, rhs = _z3_of(expr.lhs, env), _z3_of(expr.rhs, env)
        return {
            "<": lhs < rhs,
            "<=": lhs <= rhs,
            ">": lhs > rhs,
            ">=": lhs >= rhs,
            "==": lhs == rhs,
            "!=": lhs != rhs,
        }[expr.rel_op]
    if isinstance(expr, (sympy.And, sympy.Or)):
        parts = [_z3_of(a, env) for a in expr.args]
        return z3.And(*parts) if isinstance(expr, sympy.And) else z3.Or(*parts)
    raise ValueError(f"{expr} is not polynomial")


def _solve(violation: Any, unknowns: Sequence[Any], box: int) -> dict[Any, Fraction] | None:
    """Z3 values of the unknowns in [-box, box] satisfying `violation`, as rationals."""
    import z3  # lazy-import: z3 is slow to load

    env = {u: z3.Real(u.name) for u in unknowns}
    solver = z3.Solver()
    solver.set("timeout", 20_000)
    solver.add(_z3_of(violation, env))
    for u in unknowns:
        solver.add(env[u] >= -box, env[u] <= box)
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    values = {u: _fraction(model.eval(env[u], model_completion=True)) for u in unknowns}
    exact = violation.xreplace({u: _rat(v) for u, v in values.items()})
    return values if bool(exact) else None


def _fraction(value: Any) -> Fraction:
    import z3  # lazy-import: z3 is slow to load

    if z3.is_algebraic_value(value):
        value = value.approx(30)  # a strict inequality survives rounding; re-checked exactly
    return Fraction(value.numerator_as_long(), value.denominator_as_long())


def _pairs(mapping: Mapping[Any, Any]) -> Pairs:
    return tuple((str(k), Fraction(str(v))) for k, v in mapping.items())


def _search(build: Any, horizon: int, box: int) -> MixedState | None:
    """Try every (e, e') with e != e' in 1..horizon, in order; the first violation found."""
    for e, e2 in itertools.permutations(range(1, horizon + 1), 2):
        found = build(e, e2, box)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------- momentum
def momentum_violation(
    horizon: int = 3,
    beta: Fraction = Fraction(9, 10),
    eta: Fraction = Fraction(1, 10),
    box: int = 10,
) -> MixedState | None:
    """(theta_(e-1), theta_e) from epoch e, m from e': break theta_e - theta_(e-1) = -eta m."""
    s = opt.symbols()
    theta0, m0 = sympy.Symbol("theta0", real=True), sympy.Symbol("m0", real=True)
    gs = tuple(sympy.Symbol(f"g{k}", real=True) for k in range(1, horizon + 1))
    step_map = opt.momentum()
    fixed = {
        s["beta"]: sympy.Rational(beta.numerator, beta.denominator),
        s["eta"]: sympy.Rational(eta.numerator, eta.denominator),
    }
    states = [
        {x: sympy.expand(sympy.sympify(val).xreplace(fixed)) for x, val in st.items()}
        for st in step_map.unroll({s["theta"]: theta0, s["m"]: m0}, gs)
    ]

    def build(e: int, e2: int, box: int) -> MixedState | None:
        prev, theta, m = states[e - 1][s["theta"]], states[e][s["theta"]], states[e2][s["m"]]
        invariant = sympy.Eq(theta - prev, -fixed[s["eta"]] * m)
        unknowns = (theta0, m0, *gs[: max(e, e2)])
        values = _solve(sympy.Ne(theta - prev, -fixed[s["eta"]] * m), unknowns, box)
        if values is None:
            return None
        at = {u: sympy.Rational(v.numerator, v.denominator) for u, v in values.items()}
        restored = {
            "theta_prev": prev.xreplace(at),
            "theta": theta.xreplace(at),
            "m": m.xreplace(at),
        }
        return MixedState(
            "momentum",
            "theta_t - theta_(t-1) == -eta m_t",
            (("theta_prev", e - 1), ("theta", e), ("m", e2)),
            _pairs({"beta": beta, "eta": eta}),
            _pairs(values),
            _pairs(restored),
            invariant,
            _pairs(values),
        )

    return _search(build, horizon, box)


# ---------------------------------------------------------------- Adam
def adam_violation(
    horizon: int = 3,
    beta1: Fraction = Fraction(9, 10),
    beta2: Fraction = Fraction(999, 1000),
    box: int = 10,
) -> MixedState | None:
    """m and the step counter from epoch e, v from e': break m^2 <= K_e v (m_0 = v_0 = 0)."""
    s = opt.symbols()
    gs = tuple(sympy.Symbol(f"g{k}", real=True) for k in range(1, horizon + 1))
    fixed = {
        s["beta1"]: sympy.Rational(beta1.numerator, beta1.denominator),
        s["beta2"]: sympy.Rational(beta2.numerator, beta2.denominator),
    }
    moments = opt.StepMap("adam moments", (s["m"], s["v"]), s["g"], opt.adam().update[1:3])
    states = [
        {x: sympy.expand(sympy.sympify(val).xreplace(fixed)) for x, val in st.items()}
        for st in moments.unroll({s["m"]: 0, s["v"]: 0}, gs)
    ]

    def build(e: int, e2: int, box: int) -> MixedState | None:
        m, v = states[e][s["m"]], states[e2][s["v"]]
        K = opt.adam_K(e).xreplace(fixed)
        unknowns = gs[: max(e, e2)]
        values = _solve(m**2 > K * v, unknowns, box)
        if values is None:
            return None
        at = {u: sympy.Rational(x.numerator, x.denominator) for u, x in values.items()}
        restored = {"m": m.xreplace(at), "v": v.xreplace(at), "t": e, "K_t": K}
        return MixedState(
            "adam",
            "m_t^2 <= K_t v_t",
            (("m", e), ("t", e), ("v", e2)),
            _pairs({"beta1": beta1, "beta2": beta2}),
            _pairs(values),
            _pairs(restored),
            m**2 <= K * v,
            _pairs(values),
        )

    return _search(build, horizon, box)


# ---------------------------------------------------------------- gradient descent
def gd_violation(
    horizon: int = 3,
    a: Sequence[Fraction] = (Fraction(1), Fraction(2)),
    b: Sequence[Fraction] = (Fraction(0), Fraction(1)),
    eta: Fraction = Fraction(1, 10),
    box: int = 10,
) -> MixedState | None:
    """Two shards on a known quadratic loss; shard 0 and the counter from e, shard 1 from e'."""
    s = opt.symbols()
    starts = tuple(sympy.Symbol(f"theta0_{c}", real=True) for c in range(len(a)))
    step_map = opt.gradient_descent()
    traj = []
    for c, start in enumerate(starts):
        fixed = {s["a"]: _rat(a[c]), s["b"]: _rat(b[c]), s["eta"]: _rat(eta)}
        # g is unused: the known loss gives the gradient
        states = step_map.unroll({s["theta"]: start}, [0] * horizon)
        traj.append([sympy.expand(st[s["theta"]].xreplace(fixed)) for st in states])

    def build(e: int, e2: int, box: int) -> MixedState | None:
        restored_exprs = [traj[0][e]] + [traj[c][e2] for c in range(1, len(a))]
        on_trajectory = sympy.And(*(sympy.Eq(r, traj[c][e]) for c, r in enumerate(restored_exprs)))
        values = (
            _solve(
                sympy.Or(*(sympy.Ne(r, traj[c][e]) for c, r in enumerate(restored_exprs))),
                starts,
                box,
            )
            if len(a) > 1
            else None
        )
        if values is None:
            return None
        at = {u: _rat(v) for u, v in values.items()}
        restored = {f"theta_{c}": r.xreplace(at) for c, r in enumerate(restored_exprs)}
        parts = (("theta_0", e), *((f"theta_{c}", e2) for c in range(1, len(a))), ("t", e))
        return MixedState(
            "gradient descent",
            "theta == theta_t (the trajectory of the known loss)",
            parts,
            _pairs(
                {
                    "eta": eta,
                    **{f"a_{c}": x for c, x in enumerate(a)},
                    **{f"b_{c}": x for c, x in enumerate(b)},
                }
            ),
            _pairs(values),
            _pairs(restored),
            on_trajectory,
            _pairs(values),
        )

    return _search(build, horizon, box)


def _rat(x: Fraction | int) -> Any:
    x = Fraction(x)
    return sympy.Rational(x.numerator, x.denominator)
