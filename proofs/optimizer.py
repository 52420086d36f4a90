"""Paper A, claim 3: mixed-epoch recovery is not an optimizer step.

The step maps, the trajectory, the invariants, K_t and the reachability results come out of
`fito.models.epochs.optimizer`; the mixed-epoch violations out of the Z3 searches of
`fito.models.epochs.optimizer_search`. The kernel re-checks every certificate: recurrences for
symbolic t, identities, sums of squares (Cauchy-Schwarz and the induction step of Adam's
bound), and the counterexamples, evaluated exactly at the values Z3 found.
"""

from __future__ import annotations

import sympy as sp

from fito.models.epochs import optimizer as opt
from fito.models.epochs import optimizer_search as search
from fito.proof import (
    claim,
    identity,
    instance,
    prove_identity,
    proved,
    recurrence,
    sum_of_squares,
    to_expr,
    unknown,
    witness,
)

prev = sp.Symbol("prev")
S = sp.Symbol("s", positive=True)  # s = beta2 / (1 - beta2) > 0, i.e. beta2 = s / (1 + s)


def _beta2_as_s(expr):
    """Reparametrize beta2 = s/(1+s): 0 < beta2 < 1 becomes s > 0, so weights are visibly >= 0."""
    return expr.subs(opt.symbols()["beta2"], S / (1 + S))


def _substitute(expr, values: dict):
    """A kernel expression with some symbols replaced by kernel expressions (no simplifying):
    the kernel, not SymPy, then does the algebra that makes both sides equal."""
    if isinstance(expr, str):
        return values.get(expr, expr)
    if isinstance(expr, list):
        return [expr[0]] + [_substitute(x, values) for x in expr[1:]]
    return expr


def _unsimplified(update, gradients: dict):
    """The step map's result with opaque gradient symbols, then the derived gradients put in."""
    return _substitute(to_expr(update), {str(g): to_expr(v) for g, v in gradients.items()})


def _mixed(found: search.MixedState | None, what: str):
    """A witness that the invariant is false at Z3's values (a counterexample to it), or unknown."""
    if found is None:
        return unknown(f"Z3 found no mixed-epoch state violating {what} within the search box")
    if found.holds():
        return unknown(f"Z3's values do not violate {what} when re-checked exactly")
    parts = ", ".join(f"{name} from epoch {e}" for name, e in found.epochs)
    restored = ", ".join(f"{name} = {v}" for name, v in found.restored)
    used = {str(x) for x in found.formula.free_symbols}  # Z3 also chose values it did not need
    return proved(
        witness(
            sp.Not(found.formula),
            {n: v for n, v in found.assignment if n in used},
            note=f"restored {parts}: {restored}",
        )
    )


# ---------------------------------------------------------------- gradient descent
@claim(
    id="optimizer.gd.trajectory",
    title="gradient descent on a known quadratic: theta_t",
    method="sympy+induction",
    model="L(theta) = a theta^2/2 - b theta, a > 0; theta' = theta - eta L'(theta)",
)
def gd_trajectory():
    """theta_t = b/a + (1 - a eta)^t (theta_0 - b/a) for every t >= 0: the trajectory is
    determined by theta_0 and the loss, so Reach_t is the single point theta_t."""
    s = opt.symbols()
    theta0 = sp.Symbol("theta0", real=True)
    step = opt.gradient_descent().update[0].subs(s["theta"], prev)
    return proved(
        recurrence(
            s["t"],
            0,
            initial=theta0,
            step=step,
            closed=opt.gd_trajectory(),
            prev=prev,
            nonzero=[s["a"]],
        )
    )


@claim(
    id="optimizer.gd.mixed-off-trajectory",
    title="a mixed-shard restore leaves the GD trajectory",
    method="z3+evaluation",
    model="two shards, loss a = (1, 2), b = (0, 1), eta = 1/10, 3 steps",
)
def gd_mixed():
    """Some restored state with shard 0 and the step counter from epoch e and shard 1 from
    epoch e' != e is not the point theta_e of the trajectory (Z3 finds it; the kernel
    evaluates the invariant 'theta == theta_t' there and finds it false)."""
    return _mixed(search.gd_violation(), "theta == theta_t")


# ---------------------------------------------------------------- momentum
PAPER_TWO_STATE = ["=", ["-", "theta_next", "theta_now"], ["*", -1, "eta", "m_next"]]
UNROLL = 4  # the momentum optimizer unrolled this many steps from a symbolic state


@claim(
    id="optimizer.momentum.two-state",
    title="momentum: theta_(t+1) - theta_t = -eta m_(t+1)",
    method="sympy",
    model="m' = beta m + g, theta' = theta - eta m'; any gradients, any start",
)
def momentum_two_state():
    """Along every trajectory of the momentum optimizer, from any (theta_0, m_0) with any
    gradients g_1, g_2, ...: theta_(t+1) - theta_t = -eta m_(t+1) (the paper's two-state
    invariant). The engine unrolls the step map t = 1..4 steps (theta_t and m_t as
    polynomials in the start, the gradients and the hyperparameters); the kernel expands the
    invariant at each step. For every t it follows from one step from an arbitrary state."""
    s = opt.symbols()
    start = {s["theta"]: sp.Symbol("theta_0", real=True), s["m"]: sp.Symbol("m_0", real=True)}
    gs = [sp.Symbol(f"g_{i}", real=True) for i in range(1, UNROLL + 1)]
    states = opt.momentum().unroll(start, gs)
    obligations = []
    for t in range(1, UNROLL + 1):
        values = {
            "theta_next": states[t][s["theta"]],
            "theta_now": states[t - 1][s["theta"]],
            "m_next": states[t][s["m"]],
        }
        lhs, rhs = instance(PAPER_TWO_STATE, values)[1:]
        obligations.append(identity(lhs, rhs, note=f"step {t} of the engine's unrolled trajectory"))
    theta_new, m_new = opt.momentum().update
    one = instance(
        PAPER_TWO_STATE, {"theta_next": theta_new, "theta_now": "theta", "m_next": m_new}
    )
    obligations.append(identity(one[1], one[2], note="one step from an arbitrary state (theta, m)"))
    return proved(*obligations)


@claim(
    id="optimizer.momentum.mixed",
    title="a mixed (theta, m) restore breaks the two-state identity",
    method="z3+evaluation",
    model="momentum, beta = 9/10, eta = 1/10, 3 steps",
)
def momentum_mixed():
    """Some restored (theta_(e-1), theta_e) from epoch e with m from epoch e' != e violates
    theta_e - theta_(e-1) = -eta m (values found by Z3, evaluated by the kernel)."""
    return _mixed(search.momentum_violation(), "the two-state identity")


@claim(
    id="optimizer.sgd.reach-all",
    title="plain SGD reaches every theta",
    method="sympy",
    model="theta' = theta - eta g, g unrestricted, eta != 0",
)
def sgd_reach_all():
    """From any theta_0, one step (hence any t >= 1 steps) reaches any theta with
    g = (theta_0 - theta)/eta: no check on theta alone can reject a restored SGD state."""
    s = opt.symbols()
    found = opt.reach(opt.sgd(), 1)
    theta0, target = sp.Symbol("theta_0", real=True), sp.Symbol("theta_target", real=True)
    g = sp.Symbol("g_opaque", real=True)
    final = opt.sgd().step({s["theta"]: theta0}, g)[s["theta"]]
    lhs = _unsimplified(final, {g: found.gradients[0]})
    return proved(
        identity(lhs, to_expr(target), nonzero=[s["eta"]], note=f"g = {found.gradients[0]}")
    )


@claim(
    id="optimizer.momentum.reach-all",
    title="momentum reaches every (theta, m) in two steps",
    method="sympy",
    model="m' = beta m + g, theta' = theta - eta m', g unrestricted, eta != 0",
)
def momentum_reach_all():
    """From any (theta_0, m_0), two steps reach any (theta, m) (so do t >= 2 steps: the first
    t - 2 are arbitrary), but one step reaches only the line theta + eta m = theta_0: the
    single-state (theta, m) admits no invariant; the two-state identity is what to check."""
    s = opt.symbols()
    two, one = opt.reach(opt.momentum(), 2), opt.reach(opt.momentum(), 1)
    start = {s["theta"]: sp.Symbol("theta_0", real=True), s["m"]: sp.Symbol("m_0", real=True)}
    target = {x: sp.Symbol(f"{x.name}_target", real=True) for x in (s["theta"], s["m"])}
    opaque = [sp.Symbol(f"g_opaque_{i}", real=True) for i in range(len(two.gradients))]
    final_open = opt.momentum().unroll(start, opaque)[-1]
    derived = dict(zip(opaque, two.gradients))
    final = {x: _unsimplified(final_open[x], derived) for x in (s["theta"], s["m"])}
    if two.everything is False or one.everything or one.constraint is None:
        return unknown("reachability did not come out as two steps / one line")
    off_line = {**{v: 0 for v in one.constraint.free_symbols}, s["eta"]: 1, start[s["theta"]]: 1}
    g = sp.Symbol("g", real=True)
    after_one = opt.momentum().step(start, g)
    return proved(
        identity(final[s["theta"]], to_expr(target[s["theta"]]), nonzero=[s["eta"]]),
        identity(final[s["m"]], to_expr(target[s["m"]]), nonzero=[s["eta"]]),
        identity(
            one.constraint.xreplace({target[x]: after_one[x] for x in target}),
            0,
            note="every one-step state lies on the line",
        ),
        witness(
            sp.Ne(one.constraint, 0),
            {str(k): v for k, v in off_line.items()},
            note="a state off the line: not reachable in one step",
        ),
    )


# ---------------------------------------------------------------- Adam
# PAPERS.md: K_t = (1-b1)^2/(1-b2) * sum_(i=0..t-1) (b1^2/b2)^i
PAPER_K = [
    "*",
    ["/", ["^", ["-", 1, "beta1"], 2], ["-", 1, "beta2"]],
    ["sum", "i", 0, ["-", "t", 1], ["^", ["/", ["^", "beta1", 2], "beta2"], "i"]],
]


def _k_closed():
    """K_t = sum_(j<t) c q^j in closed form (generic branch q != 1), from SymPy's summation."""
    bound = opt.adam_bound()
    j, Q = sp.Symbol("j", integer=True, nonnegative=True), sp.Symbol("Q", positive=True)
    term = bound.K_geometric.function.subs(bound.q, Q)  # c Q^j
    total = sp.summation(term, (j, 0, opt.symbols()["t"] - 1))
    total = sp.piecewise_fold(total)
    pieces = total.args if isinstance(total, sp.Piecewise) else ((total, sp.true),)
    generic = next(e for e, cond in pieces if cond == sp.true)
    return generic.subs(Q, bound.q), bound


@claim(
    id="optimizer.adam.K",
    title="Adam: K_t = (1-b1)^2/(1-b2) sum_(i<t) (b1^2/b2)^i",
    method="sympy+induction",
    model="Adam moments from m_0 = v_0 = 0, 0 < b1, b2 < 1",
)
def adam_K():
    """K_t, found by maximizing m_t^2/v_t over the gradients (stationary direction g_i = a_i/d_i),
    is sum_(i=1..t) a_i^2/d_i = c sum_(j<t) q^j with c = (1-b1)^2/(1-b2) and q = b1^2/b2, which
    is c (1 - q^t)/(1 - q) for q != 1 and c t for q = 1 (induction on t); K_(t+1) = c + q K_t.
    The engine's increments c q^t (the newest gradient's term, derived) sum to the paper's
    (1-b1)^2/(1-b2) sum_(i=0..t-1) (b1^2/b2)^i for every t."""
    s = opt.symbols()
    t = s["t"]
    closed, bound = _k_closed()
    c, q = bound.c, bound.q
    b1, b2 = s["beta1"], s["beta2"]
    for step in (1, 2, 3):  # a K_t other than the paper's is refuted at a point
        engine = sum(c * q**j for j in range(step))
        at_t = prove_identity(
            engine,
            instance(PAPER_K, {"t": step}),
            nonzero=[b2, 1 - b2],
            note=f"t = {step}: the engine's K_t (from the update rule) against the paper's",
        )
        if at_t.verdict == "refuted":
            return at_t
    return proved(
        recurrence(
            t,
            0,
            initial=0,
            step=prev + c * q**t,
            closed=closed,
            prev=prev,
            nonzero=[b2, 1 - b2, b1**2 - b2],
        ),
        recurrence(
            t,
            0,
            initial=0,
            step=prev + c,
            closed=c * t,
            prev=prev,
            nonzero=[1 - b2],
            note="the case q = 1 (b1^2 = b2)",
        ),
        identity(
            closed.subs(t, t + 1),
            c + q * closed,
            nonzero=[b2, 1 - b2, b1**2 - b2],
            note="K_(t+1) = c + q K_t",
        ),
        recurrence(
            t,
            0,
            initial=0,
            step=prev + c * q**t,
            closed=PAPER_K,
            prev=prev,
            nonzero=[b2, 1 - b2],
            note="the engine's increments against the paper's sum",
        ),
    )


@claim(
    id="optimizer.adam.bound",
    title="Adam: m_t^2 <= K_t v_t for every gradient sequence",
    method="sympy+induction+sos",
    model="Adam moments from m_0 = v_0 = 0, 0 < b1 < 1, 0 < b2 < 1",
)
def adam_bound():
    """Induction on t. Base t = 1: K_1 v_1 = m_1^2. Step: if K > 0 and H = K v - m^2 >= 0, one
    Adam step with any g gives K (K' v' - m'^2) = (1/s)((1-b1) s m - b1 K g)^2 + s H (1-b1)^2
    + K H b1^2 >= 0, with K' = c + q K and s = b2/(1-b2) (so b2 = s/(1+s)): m'^2 <= K' v'.
    Also c = (1-b1)^2 (1+s) > 0, so K_t > 0 for t >= 1."""
    s = opt.symbols()
    b1, m, v = s["beta1"], s["m"], s["v"]
    K, H = sp.Symbol("K", positive=True), sp.Symbol("H", positive=True)
    step = opt.adam_induction_step()
    m1, v1, _ = opt.adam_moments(1)
    target = _beta2_as_s(K * step.lhs).subs(v, (H + m**2) / K)
    square = sp.expand(_beta2_as_s(step.square))
    return proved(
        identity(opt.adam_K(1) * v1, m1**2, nonzero=[1 - s["beta2"]], note="base case t = 1"),
        sum_of_squares(
            target,
            [(1 / S, square), (S * H, 1 - b1), (K * H, b1)],
            positive=[S, H, K],
            nonzero=[S, K, 1 + S],
            note="v = (H + m^2)/K",
        ),
        sum_of_squares(
            _beta2_as_s(opt.adam_bound().c),
            [(1 + S, 1 - b1)],
            positive=[S],
            nonzero=[1 + S],
            note="c >= 0",
        ),
    )


@claim(
    id="optimizer.adam.K-is-max",
    title="Adam: K_t is the maximum of m_t^2/v_t (tight)",
    method="sympy+sos",
    model="Adam moments from m_0 = v_0 = 0, t = 1..4, symbolic b1, b2",
)
def adam_K_is_max():
    """For t = 1..4, K_t v_t - m_t^2 is a sum of squares (Lagrange's identity: Cauchy-Schwarz),
    and the gradients g_i = a_i/d_i make it zero: the bound is attained, K_t cannot be lowered.
    For every t the same holds termwise: a_i (a_i/d_i) = d_i (a_i/d_i)^2 = a_i^2/d_i."""
    s = opt.symbols()
    bound = opt.adam_bound()
    obligations = []
    for t in range(1, 5):
        gap, terms = opt.adam_lagrange_gap(t)
        if terms:  # t = 1: the gap is 0 for every g (the tightness identity below says so)
            obligations.append(
                sum_of_squares(
                    gap,
                    terms,
                    positive=[s["beta2"]],
                    nonzero=[s["beta2"], 1 - s["beta2"]],
                    note=f"t = {t}",
                )
            )
        m, v, gs = opt.adam_moments(t)
        star = {gs[i - 1]: bound.maximizer.subs({s["t"]: t, s["i"]: i}) for i in range(1, t + 1)}
        obligations.append(
            identity(
                opt.adam_K(t) * v.xreplace(star),
                m.xreplace(star) ** 2,
                nonzero=[1 - s["beta2"], s["beta2"]],
                note=f"tight at t = {t}",
            )
        )
    # Termwise, for every t: with j = t - i steps back, b1^j and b2^j are atoms A and B > 0.
    j = sp.Symbol("j", integer=True, nonnegative=True)
    A, B = sp.symbols("A B", positive=True)
    atoms = lambda e: sp.expand_power_base(  # noqa: E731
        e.subs(s["i"], s["t"] - j), force=True
    ).replace(
        lambda x: x.is_Pow and x.base in (s["beta1"], s["beta2"]) and x.exp in (j, -j),
        lambda x: (A if x.base == s["beta1"] else B) ** (1 if x.exp == j else -1),
    )
    a_j, d_j, star_j = atoms(bound.a), atoms(bound.d), atoms(bound.maximizer)
    nz = [B, 1 - s["beta2"]]
    obligations += [
        identity(a_j * star_j, a_j**2 / d_j, nonzero=nz, note="A = b1^j, B = b2^j"),
        identity(d_j * star_j**2, a_j**2 / d_j, nonzero=nz, note="A = b1^j, B = b2^j"),
    ]
    return proved(*obligations)


@claim(
    id="optimizer.adam.mixed",
    title="a mixed (m, v) restore breaks m^2 <= K_t v",
    method="z3+evaluation",
    model="Adam, b1 = 9/10, b2 = 999/1000, 3 steps from m_0 = v_0 = 0",
)
def adam_mixed():
    """Some restored state with m and the step counter from epoch e and v from epoch e' != e
    violates m^2 <= K_e v: no gradient sequence reaches it (values found by Z3, evaluated by
    the kernel)."""
    return _mixed(search.adam_violation(), "m^2 <= K_t v")


@claim(
    id="optimizer.adam.counter-rescale",
    title="restoring Adam's counter from another epoch",
    method="sympy+evaluation",
    model="Adam bias correction m/(1-b1^t), v/(1-b2^t), b1 = 9/10, b2 = 999/1000",
)
def adam_counter_rescale():
    """Restoring the step counter t2 instead of t multiplies m_hat/sqrt(v_hat) by
    (1 - b1^t)/(1 - b1^t2) sqrt((1 - b2^t2)/(1 - b2^t)); at t = 10, t2 = 1 its square is not 1."""
    s = opt.symbols()
    factor = opt.adam_counter_rescale()
    squared = sp.simplify(factor**2)
    t2 = sp.Symbol("t2", integer=True, positive=True)
    values = {s["beta1"]: sp.Rational(9, 10), s["beta2"]: sp.Rational(999, 1000), s["t"]: 10, t2: 1}
    return proved(
        witness(
            sp.Ne(squared, 1),
            {str(k): v for k, v in values.items()},
            note=f"rescale factor {factor}",
        )
    )
