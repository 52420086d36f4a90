"""Optimizer algebra (paper A, claim 3): step maps s' = U(s, g), what a restored state satisfies.

Every map is elementwise, so one coordinate (a scalar SymPy symbol per state variable) is the
whole story; a vector state satisfies an invariant when each coordinate does. Derived here:
the gradient-descent trajectory on a known quadratic loss, the momentum two-state identity,
Adam's bound m_t^2 <= K_t v_t with K_t found by maximizing m_t^2 / v_t over the gradients,
the rescaling caused by restoring Adam's step counter from another epoch, and which states
plain SGD and momentum reach with unrestricted gradients. The Z3 searches for mixed-epoch
restored states that break each invariant are in `fito.models.epochs.optimizer_search`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy


@functools.cache
def symbols() -> dict[str, Any]:
    """The shared symbols: theta, m, v, g, eta, beta, beta1, beta2, eps, a, b, t, i."""
    real = {name: sympy.Symbol(name, real=True) for name in ("theta", "m", "g", "b")}
    pos = {
        name: sympy.Symbol(name, positive=True)
        for name in ("v", "eta", "beta", "beta1", "beta2", "eps", "a")
    }
    ints = {name: sympy.Symbol(name, integer=True, positive=True) for name in ("t", "i")}
    return {**real, **pos, **ints}


@dataclass(frozen=True, slots=True)
class StepMap:
    """s' = U(s, g): the new value of each state variable as an expression in the old ones and g."""

    name: str
    state: tuple[sympy.Symbol, ...]
    gradient: sympy.Symbol
    update: tuple[sympy.Expr, ...]

    def step(self, values: Mapping[Any, Any], g: Any) -> dict[Any, Any]:
        """The state after one step from `values` (a map state symbol -> value) with gradient g."""
        subs = {**{s: values[s] for s in self.state}, self.gradient: g}
        return {s: sympy.expand(u.xreplace(subs)) for s, u in zip(self.state, self.update)}

    def unroll(self, start: Mapping[Any, Any], gradients: Sequence[Any]) -> list[dict[Any, Any]]:
        """States s_0, s_1, ..., s_T for the gradients g_1..g_T."""
        states = [dict(start)]
        for g in gradients:
            states.append(self.step(states[-1], g))
        return states


def quadratic_loss() -> sympy.Expr:
    """The known loss of the gradient-descent model: L(theta) = a theta^2 / 2 - b theta, a > 0."""
    s = symbols()
    return s["a"] * s["theta"] ** 2 / 2 - s["b"] * s["theta"]


def gradient_descent() -> StepMap:
    """theta' = theta - eta dL/dtheta on the quadratic loss: the gradient is derived, not given."""
    s = symbols()
    grad = sympy.diff(quadratic_loss(), s["theta"])
    return StepMap("gradient descent", (s["theta"],), s["g"], (s["theta"] - s["eta"] * grad,))


def sgd() -> StepMap:
    """Plain SGD with an unrestricted gradient g: theta' = theta - eta g."""
    s = symbols()
    return StepMap("sgd", (s["theta"],), s["g"], (s["theta"] - s["eta"] * s["g"],))


def momentum() -> StepMap:
    """SGD with momentum: m' = beta m + g, theta' = theta - eta m'."""
    s = symbols()
    m_new = s["beta"] * s["m"] + s["g"]
    return StepMap("momentum", (s["theta"], s["m"]), s["g"], (s["theta"] - s["eta"] * m_new, m_new))


def adam(step_counter: sympy.Symbol | None = None) -> StepMap:
    """Adam: m' = b1 m + (1-b1) g, v' = b2 v + (1-b2) g^2, bias-corrected update, t' = t + 1."""
    s = symbols()
    b1, b2, t = s["beta1"], s["beta2"], step_counter if step_counter is not None else s["t"]
    m_new = b1 * s["m"] + (1 - b1) * s["g"]
    v_new = b2 * s["v"] + (1 - b2) * s["g"] ** 2
    m_hat, v_hat = m_new / (1 - b1 ** (t + 1)), v_new / (1 - b2 ** (t + 1))
    theta_new = s["theta"] - s["eta"] * m_hat / (sympy.sqrt(v_hat) + s["eps"])
    return StepMap(
        "adam", (s["theta"], s["m"], s["v"], t), s["g"], (theta_new, m_new, v_new, t + 1)
    )


# ---------------------------------------------------------------- gradient descent
def gd_trajectory() -> sympy.Expr:
    """theta_t in closed form: rsolve of theta_(t+1) = U(theta_t), theta_0 = theta0."""
    s = symbols()
    n = sympy.Symbol("n", integer=True, nonnegative=True)
    theta0 = sympy.Symbol("theta0", real=True)
    f = sympy.Function("f")
    update = gradient_descent().update[0].subs(s["theta"], f(n))
    closed = sympy.rsolve(f(n + 1) - update, f(n), {f(0): theta0})
    return closed.subs(n, s["t"])


# ---------------------------------------------------------------- momentum
def momentum_two_state_residual() -> sympy.Expr:
    """(theta_(t+1) - theta_t) + eta m_(t+1) after one momentum step (zero: the identity)."""
    s = symbols()
    theta_new, m_new = momentum().update
    return sympy.expand(theta_new - s["theta"] + s["eta"] * m_new)


# ---------------------------------------------------------------- Adam's bound
@dataclass(frozen=True, slots=True)
class AdamBound:
    """m_t = sum_i a_i g_i and v_t = sum_i d_i g_i^2 (m_0 = v_0 = 0); K_t = max m_t^2 / v_t."""

    a: sympy.Expr  # coefficient of g_i in m_t, in t and i
    d: sympy.Expr  # coefficient of g_i^2 in v_t
    maximizer: sympy.Expr  # g_i = a_i / d_i, the stationary direction of m^2 / v
    K_sum: sympy.Expr  # sum_(i=1..t) a_i^2 / d_i, unevaluated
    K_geometric: sympy.Expr  # (1-b1)^2/(1-b2) * sum_(j=0..t-1) (b1^2/b2)^j, re-indexed
    c: sympy.Expr  # K_t = c + q K_(t-1), K_0 = 0
    q: sympy.Expr


def _coefficient(decay: sympy.Expr, gain: sympy.Expr) -> sympy.Expr:
    """c(n) solving c(n+1) = decay c(n), c(0) = gain: the weight of a gradient n steps back."""
    n = sympy.Symbol("n", integer=True, nonnegative=True)
    c = sympy.Function("c")
    return sympy.rsolve(c(n + 1) - decay * c(n), c(n), {c(0): gain}), n


class NotMomentShaped(ValueError):
    """The optimizer's update is not m' = decay m + gain g, v' = decay v + gain g^2."""


def moment_coefficients(step_map: StepMap) -> tuple[sympy.Expr, ...]:
    """(decay, gain) of m' = decay m + gain g and of v' = decay v + gain g^2, read off the
    step map's update rule by differentiation (NotMomentShaped if it has another shape)."""
    s = symbols()
    updates = dict(zip(step_map.state, step_map.update))
    g = step_map.gradient
    out = []
    for var, power in ((s["m"], 1), (s["v"], 2)):
        new = sympy.expand(updates[var])
        decay = sympy.diff(new, var)
        gain = sympy.simplify((new - decay * var) / g**power)
        if {var, g} & (decay.free_symbols | gain.free_symbols) or sympy.expand(
            decay * var + gain * g**power - new
        ):
            raise NotMomentShaped(
                f"{step_map.name}: {var}' = {new} is not decay * {var} + gain * {g}^{power}"
            )
        out += [decay, gain]
    return tuple(out)


@functools.cache
def adam_bound() -> AdamBound:
    """Derive K_t: read the moment recurrences off Adam's update rule (`adam()`), unroll
    them, maximize (a.g)^2 / (g.Dg) (Lagrange), sum up."""
    s = symbols()
    t, i = s["t"], s["i"]
    decay1, gain1, decay2, gain2 = moment_coefficients(adam())
    a_n, n = _coefficient(decay1, gain1)
    d_n, _ = _coefficient(decay2, gain2)
    a, d = a_n.subs(n, t - i), d_n.subs(n, t - i)
    # Stationarity of (a.g)^2 - K (g.Dg) in g: a (a.g) = K D g, so g is parallel to D^-1 a.
    g_star = sympy.simplify(a / d)
    term = sympy.powsimp(sympy.simplify(a * g_star), force=True)
    K_sum = sympy.Sum(term, (i, 1, t))
    j = sympy.Symbol("j", integer=True, nonnegative=True)
    back = sympy.powsimp(sympy.simplify(term.subs(i, t - j)), force=True)  # j steps back
    geometric = sympy.Sum(back, (j, 0, t - 1))
    c = sympy.simplify(term.subs(i, t))  # the newest gradient's term
    q = sympy.simplify(term.subs(i, t - 1) / c)  # each older term is q times
    return AdamBound(a, d, g_star, K_sum, geometric, c, q)


def adam_K_closed() -> sympy.Expr:
    """K_t in closed form: SymPy's evaluation of the geometric sum (a Piecewise on q = 1)."""
    return sympy.simplify(adam_bound().K_geometric.doit())


def adam_K(t_value: int) -> sympy.Expr:
    """K_t at a concrete step t, summed exactly from the derived terms."""
    bound = adam_bound()
    s = symbols()
    return sympy.factor(
        sum(bound.K_sum.function.subs({s["t"]: t_value, s["i"]: k}) for k in range(1, t_value + 1))
    )


def adam_moments(t_value: int) -> tuple[sympy.Expr, sympy.Expr, tuple[sympy.Symbol, ...]]:
    """(m_t, v_t, (g_1..g_t)) by unrolling Adam's step map from m_0 = v_0 = 0."""
    s = symbols()
    gs = tuple(sympy.Symbol(f"g{k}", real=True) for k in range(1, t_value + 1))
    last = adam().unroll({s["theta"]: 0, s["m"]: 0, s["v"]: 0, s["t"]: 0}, gs)[-1]
    return last[s["m"]], last[s["v"]], gs


def adam_lagrange_gap(t_value: int) -> tuple[sympy.Expr, list[tuple[sympy.Expr, sympy.Expr]]]:
    """K_t v_t - m_t^2 and its Lagrange-identity terms [(weight, form)]: sum weight * form^2."""
    m, v, gs = adam_moments(t_value)
    s = symbols()
    bound = adam_bound()
    # d_i = (1 - b2) e_i: the common factor cancels from each weight * base^2.
    coef = [
        (
            bound.a.subs({s["t"]: t_value, s["i"]: k}),
            sympy.simplify(bound.d.subs({s["t"]: t_value, s["i"]: k}) / (1 - s["beta2"])),
        )
        for k in range(1, t_value + 1)
    ]
    terms = []
    for x in range(t_value):
        for y in range(x + 1, t_value):
            (ax, ex), (ay, ey) = coef[x], coef[y]
            terms.append((1 / (ex * ey), ax * ey * gs[y] - ay * ex * gs[x]))
    return adam_K(t_value) * v - m**2, terms


@dataclass(frozen=True, slots=True)
class InductionStep:
    """K * (K' v' - m'^2) = square^2 / s + weight * (K v - m^2), every term >= 0."""

    lhs: sympy.Expr  # K_new * v_new - m_new^2, with K_new = c + q K
    square: sympy.Expr  # the linear form whose square appears
    scale: sympy.Expr  # s = b2 / (1 - b2) > 0
    weight: sympy.Expr  # multiplier of the hypothesis K v - m^2 >= 0
    residual: sympy.Expr  # K*lhs - square^2/s - weight*(K v - m^2): zero


def adam_induction_step() -> InductionStep:
    """From m^2 <= K v (K > 0) one Adam step gives m'^2 <= K' v': the certificate, SymPy-checked."""
    s = symbols()
    b1, b2, m, v, g = s["beta1"], s["beta2"], s["m"], s["v"], s["g"]
    K = sympy.Symbol("K", positive=True)
    bound = adam_bound()
    _, m_new, v_new, _ = adam().update
    lhs = (bound.c + bound.q * K) * v_new - m_new**2
    scale = b2 / (1 - b2)
    square = (1 - b1) * scale * m - b1 * K * g
    weight = (1 - b1) ** 2 * scale + b1**2 * K
    residual = sympy.simplify(K * lhs - square**2 / scale - weight * (K * v - m**2))
    return InductionStep(sympy.expand(lhs), square, scale, weight, residual)


def adam_counter_rescale() -> sympy.Expr:
    """Factor by which restoring the step counter t2 instead of t scales m_hat / sqrt(v_hat)."""
    s = symbols()
    b1, b2, t = s["beta1"], s["beta2"], s["t"]
    t2 = sympy.Symbol("t2", integer=True, positive=True)
    direction = (s["m"] / (1 - b1**t)) / sympy.sqrt(s["v"] / (1 - b2**t))
    return sympy.simplify(direction.subs(t, t2) / direction)


# ---------------------------------------------------------------- reachability
@dataclass(frozen=True, slots=True)
class Reach:
    """Which states `steps` steps reach from a symbolic start with unrestricted gradients."""

    optimizer: str
    steps: int
    everything: bool
    gradients: tuple[sympy.Expr, ...]  # the gradients that reach the target (when everything)
    constraint: sympy.Expr | None  # the equation every reached state satisfies (otherwise)


def reach(step_map: StepMap, steps: int) -> Reach:
    """Solve U^steps(start, g_1..g_steps) = target for the gradients, start and target symbolic."""
    start = {x: sympy.Symbol(f"{x.name}_0", real=True) for x in step_map.state}
    target = {x: sympy.Symbol(f"{x.name}_target", real=True) for x in step_map.state}
    gs = tuple(sympy.Symbol(f"g{k}", real=True) for k in range(1, steps + 1))
    final = step_map.unroll(start, gs)[-1]
    equations = [sympy.Eq(final[x], target[x]) for x in step_map.state]
    solutions = sympy.solve(equations, gs, dict=True)
    if solutions:  # gradients the solution leaves free are set to 0
        free = {g: 0 for g in gs if g not in solutions[0]}
        chosen = tuple(
            sympy.simplify(sympy.sympify(solutions[0].get(g, g)).xreplace(free)) for g in gs
        )
        return Reach(step_map.name, steps, True, chosen, None)
    # Fewer gradients than state variables: eliminate them; what is left constrains the state.
    solved = sympy.solve(equations[-len(gs) :], gs, dict=True) if gs else [{}]
    rest = [
        sympy.simplify((e.lhs - e.rhs).xreplace(solved[0]))
        for e in equations[: len(equations) - len(gs)]
    ]
    return Reach(step_map.name, steps, False, (), rest[0] if rest else None)


@dataclass(frozen=True, slots=True)
class Advice:
    """Which check on a restored state is sound for one optimizer, and why."""

    optimizer: str
    invariant: str
    reliable: bool
    reason: str


def invariant_advice() -> tuple[Advice, ...]:
    """What a guardrail may rely on, derived from reachability and the proved invariants."""
    sgd_reach, mom1, mom2 = reach(sgd(), 1), reach(momentum(), 1), reach(momentum(), 2)
    adam_gap = adam_induction_step().residual
    return (
        Advice(
            "sgd",
            "theta alone",
            not sgd_reach.everything,
            "every theta is reached in one step with some gradient"
            if sgd_reach.everything
            else "not every theta is reachable",
        ),
        Advice(
            "gradient descent (known loss)",
            "theta == theta_t (the trajectory)",
            True,
            "the trajectory is determined by theta_0 and the loss",
        ),
        Advice(
            "momentum",
            "(theta, m) alone",
            not mom2.everything,
            f"one step reaches the line {mom1.constraint} = 0, two steps reach every state",
        ),
        Advice(
            "momentum",
            "theta_t - theta_(t-1) == -eta m_t (two states)",
            momentum_two_state_residual() == 0,
            "holds after every step, whatever the gradient",
        ),
        Advice(
            "adam",
            "m_t^2 <= K_t v_t (per coordinate)",
            adam_gap == 0,
            "holds for every gradient sequence (Cauchy-Schwarz, by induction on t)",
        ),
    )
