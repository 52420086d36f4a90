"""Paper A, claim 2: P(atomic), the probability that a crash finds every domain at the newest
epoch, under the three probability models the paper names, and the measure zero of an exact
coincidence of completion instants.

The model's side comes from `fito.models.epochs.atomicity`: the joint law of independent domains
(sympy.stats marginals multiplied outcome by outcome), integrals of the exponential density
over boxes and cells, integration by parts over the crash time. The paper's formulas are
typed here in fresh symbols (PAPER_*). The kernel differentiates antiderivatives itself
(`integral` obligations); what it cannot do (a derivative of a power with a symbolic
exponent, limits, Gamma functions) is a visible `trusted: sympy` obligation.
"""

from __future__ import annotations

import sympy as sp

from fito.models.epochs import atomicity as at
from fito.proof import (
    claim,
    identity,
    instance,
    integral,
    proved,
    recurrence,
    sum_of_squares,
    to_expr,
    trusted,
    unknown,
)

K_MAX = 6  # joint laws and boxes enumerated for k = 1..K_MAX
K_BOX = 3  # the fixed-delay box integrated with k distinct rates, k = 1..K_BOX
K_PRODUCT = 8  # the random-crash product against the expanded integral, k = 1..K_PRODUCT

# PAPERS.md, claim 2, in fresh symbols
PAPER_INDEPENDENT = ["^", "p", "k"]  # p^k
PAPER_ALL_OLD = ["^", ["-", 1, "p"], "k"]  # (1-p)^k
PAPER_MIXED = ["-", ["-", 1, ["^", "p", "k"]], ["^", ["-", 1, "p"], "k"]]  # 1 - p^k - (1-p)^k
PAPER_FIXED_DELAY = ["prod", "d", 1, "k", ["-", 1, ["exp", ["-", ["*", ["fn", "mu", "d"], "tau"]]]]]
# j mu/(j mu + lambda)
PAPER_RANDOM_FACTOR = ["/", ["*", "j", "mu"], ["+", ["*", "j", "mu"], "lambda"]]


def _exp_rate(rate: sp.Expr, var: sp.Expr) -> list:
    return ["exp", ["-", ["*", to_expr(rate), to_expr(var)]]]


# ---------------------------------------------------------------- independent domains
@claim(
    id="atomicity.independent",
    title="independent domains: P(atomic) = p^k, ratio p",
    method="sympy+induction",
    model="k independent domains, each durable at the newest epoch w.p. p",
)
def independent():
    """With independent Bernoulli(p) domains: P(atomic) = p^k and P(all old) = (1-p)^k for
    every k (the joint law of k + 1 domains is that of k times the marginal of the new one,
    P(X = 1) and P(X = 0) from the Bernoulli distribution), so P(atomic)(k+1)/P(atomic)(k)
    = p < 1: exponential decay in k; and for k = 1..6, summing the joint law over its 2^k
    outcomes gives the paper's p^k, (1-p)^k and 1 - p^k - (1-p)^k."""
    new, old = at.bernoulli_marginals()
    obligations = [
        recurrence("k", 0, initial=1, step=["*", "prev", to_expr(new)], closed=PAPER_INDEPENDENT),
        recurrence("k", 0, initial=1, step=["*", "prev", to_expr(old)], closed=PAPER_ALL_OLD),
        identity(
            ["/", instance(PAPER_INDEPENDENT, {"k": ["+", "k", 1]}), PAPER_INDEPENDENT],
            to_expr(at.derive_independent().ratio),
            nonzero=["p"],
            note="the paper's P(k+1)/P(k) against the engine's ratio",
        ),
    ]
    for k in range(1, K_MAX + 1):
        law = at.joint_law(k)
        parts = {
            "atomic": [pr for bits, pr in law if all(bits)],
            "all old": [pr for bits, pr in law if not any(bits)],
            "mixed": [pr for bits, pr in law if 0 < sum(bits) < k],
        }
        papers = {"atomic": PAPER_INDEPENDENT, "all old": PAPER_ALL_OLD, "mixed": PAPER_MIXED}
        for name, terms in parts.items():
            if not terms:  # k = 1: no mixed outcome; the paper's formula gives 0
                terms = [sp.Integer(0)]
            total = ["+", 0, *(to_expr(t) for t in terms)]
            obligations.append(
                identity(
                    total,
                    instance(papers[name], {"k": k}),
                    note=f"k = {k}: P({name}) summed over the joint law",
                )
            )
    return proved(*obligations)


# ---------------------------------------------------------------- fixed delay
@claim(
    id="atomicity.fixed-delay",
    title="fixed delay: P(atomic) = prod (1 - exp(-mu_d tau))",
    method="calculus+induction",
    model="lags X_d ~ Exp(mu_d) independent (any rates), crash at fixed delay tau",
)
def fixed_delay():
    """P(X_d <= tau) = integral_0^tau mu_d exp(-mu_d x) dx = 1 - exp(-mu_d tau) (the kernel
    differentiates the antiderivative); independence appends one factor per domain, so for
    every k and every rates P(atomic) = prod_(d=1..k) (1 - exp(-mu_d tau)); for k = 1..3
    distinct symbolic rates, the integral of the joint density over [0, tau]^k (SymPy,
    variable by variable, assuming nothing about a product) is the paper's product; with
    equal rates P(k+1)/P(k) = 1 - exp(-mu tau) < 1: exponential decay."""
    x, tau = sp.symbols("x tau", positive=True)
    rate = sp.Function("mu")(sp.Symbol("d"))
    density = rate * sp.exp(-rate * x)
    F = sp.integrate(density, x)  # SymPy's antiderivative; the kernel differentiates it
    cdf = sp.integrate(density, (x, 0, tau))
    step = ["*", "prev", instance(to_expr(cdf), {"d": ["+", "k", 1]})]
    obligations = [
        integral(x, 0, tau, density, F, cdf, note="the CDF of Exp(mu_d) at tau"),
        recurrence(
            "k",
            0,
            initial=1,
            step=step,
            closed=PAPER_FIXED_DELAY,
            note="one more independent domain multiplies by its CDF at tau",
        ),
    ]
    for k in range(1, K_BOX + 1):
        rates = sp.symbols(f"mu1:{k + 1}", positive=True)
        box = at.box_probability(rates, tau)
        obligations += [
            integral(
                st.var,
                0,
                tau,
                st.integrand,
                st.antiderivative,
                st.value,
                note=f"k = {k}: the joint density, integrated in {st.var}",
            )
            for st in box
        ]
        paper = ["*", 1, *(["-", 1, _exp_rate(r, tau)] for r in rates)]
        obligations.append(
            identity(
                to_expr(box[-1].value),
                paper,
                note=f"k = {k}: the box [0, tau]^k against the paper's product",
            )
        )
    s_ = at.symbols()
    equal = at.derive_fixed_delay(True).atomic
    obligations.append(
        identity(
            ["/", to_expr(equal.subs(s_["k"], s_["k"] + 1)), to_expr(equal)],
            ["-", 1, _exp_rate(s_["mu"], s_["tau"])],
            nonzero=[["-", 1, _exp_rate(s_["mu"], s_["tau"])]],
            note="equal rates: P(k+1)/P(k) = 1 - exp(-mu tau) < 1",
        )
    )
    return proved(*obligations)


# ---------------------------------------------------------------- random crash
def _atoms(expr: sp.Expr) -> sp.Expr:
    """exp(-lambda t) -> E and exp(-mu t) -> W: opaque atoms for the by-parts identities."""
    s = at.symbols()
    return expr.xreplace(
        {sp.exp(-s["lam"] * s["t"]): sp.Symbol("E"), sp.exp(-s["mu"] * s["t"]): sp.Symbol("W")}
    )


@claim(
    id="atomicity.random-crash.by-parts",
    title="random crash: I_k = k mu/(k mu + lambda) I_(k-1)",
    method="sympy+identity",
    model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda) independent",
)
def random_crash_by_parts():
    """I_k = E[(1 - exp(-mu T))^k] = integral_0^oo lambda e^(-lambda t) F^k dt, F = 1 - e^(-mu t).
    With G = -e^(-lambda t) F^k: the integrand is G' + (k mu/lambda)(lambda e^(-lambda t) F^(k-1)
    - lambda e^(-lambda t) F^k), G(0) = G(oo) = 0 (k >= 1), so I_k = (k mu/lambda)(I_(k-1) - I_k),
    whose solution, the engine's ratio I_k/I_(k-1), is the paper's factor k mu/(k mu + lambda).
    The derivative of a power with a symbolic exponent and the limits: trusted SymPy."""
    s, parts = at.symbols(), at.random_crash_by_parts()
    k, mu, lam, t = s["k"], s["mu"], s["lam"], s["t"]
    E, W = sp.Symbol("E"), sp.Symbol("W")
    dG = sp.diff(parts.antiderivative, t)
    rest = k * mu / lam * (lam * E * (1 - W) ** (k - 1) - lam * E * (1 - W) ** k)
    i_prev = sp.Symbol("I_prev")
    i_k = parts.ratio * i_prev
    return proved(
        trusted(
            "sympy",
            f"d/dt {parts.antiderivative} = {dG}; G(0) = {parts.boundary[0]}, "
            f"lim G = {parts.boundary[1]} (k >= 1)",
        ),
        identity(
            _atoms(parts.integrand),
            _atoms(dG) + rest,
            nonzero=[W, 1 - W, lam],
            note="E = exp(-lambda t), W = exp(-mu t)",
        ),
        identity(i_k, k * mu / lam * (i_prev - i_k), nonzero=[lam, mu, k * mu + lam]),
        identity(
            to_expr(parts.ratio),
            instance(PAPER_RANDOM_FACTOR, {"j": "k"}),
            nonzero=[k * mu + lam],
            note="the engine's ratio against the paper's factor",
        ),
    )


@claim(
    id="atomicity.random-crash.product",
    title="random crash: prod_j j mu/(j mu + lambda) = the integral",
    method="calculus+identity",
    model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda)",
)
def random_crash_product():
    """E[exp(-j mu T)] = integral_0^oo lambda e^(-lambda t) e^(-j mu t) dt = lambda/(lambda +
    j mu) for every j >= 0 (the kernel differentiates the antiderivative and takes the limit);
    expanding (1 - e^(-mu T))^k binomially and taking expectations term by term gives, for
    k = 1..8, the paper's prod_(j=1..k) j mu/(j mu + lambda), and so does the product of the
    engine's by-parts ratios."""
    s, parts = at.symbols(), at.random_crash_by_parts()
    j, mu, lam, t, k = s["j"], s["mu"], s["lam"], s["t"], s["k"]
    density = lam * sp.exp(-lam * t) * sp.exp(-j * mu * t)
    F = sp.powsimp(sp.simplify(sp.integrate(density, t)))
    value = at.random_crash_term_rate(j)
    obligations = [
        integral(
            t,
            0,
            "oo",
            density,
            F,
            value,
            positive=[lam, mu],
            nonneg=[j],
            nonzero=[lam + j * mu],
            note="E[exp(-j mu T)], T ~ Exp(lambda)",
        )
    ]
    T = sp.Symbol("T", positive=True)
    for size in range(1, K_PRODUCT + 1):
        binom = [(int(sp.binomial(size, i)), (-1) ** i, i) for i in range(size + 1)]
        w = ["exp", ["-", ["*", "mu", "T"]]]
        expanded = ["+", 0, *(["*", b, sgn, ["^", w, i]] for b, sgn, i in binom)]
        obligations.append(
            identity(
                ["^", ["-", 1, w], size], expanded, note=f"k = {size}: (1 - e^(-mu T))^k expanded"
            )
        )
        expectation = [
            "+",
            0,
            *(["*", b, sgn, instance(to_expr(value), {"j": i})] for b, sgn, i in binom),
        ]
        paper = ["*", 1, *(instance(PAPER_RANDOM_FACTOR, {"j": i}) for i in range(1, size + 1))]
        by_parts = ["*", 1, *(instance(to_expr(parts.ratio), {"k": i}) for i in range(1, size + 1))]
        nz = [lam + i * mu for i in range(size + 1)]
        obligations.append(
            identity(
                expectation,
                paper,
                nonzero=nz,
                note=f"k = {size}: sum_i C(k,i) (-1)^i E[e^(-i mu T)] = the paper's product",
            )
        )
        obligations.append(
            identity(
                by_parts,
                paper,
                nonzero=nz,
                note=f"k = {size}: the engine's by-parts ratios multiplied out",
            )
        )
    del T, k
    return proved(*obligations)


@claim(
    id="atomicity.random-crash.gamma",
    title="prod j/(j+r) = Gamma(k+1)Gamma(1+r)/Gamma(k+1+r)",
    method="sympy",
    timeout=240,
    model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda), r = lambda/mu",
)
def random_crash_gamma():
    """For every k: prod_(j=1..k) j/(j + r) = Gamma(k+1) Gamma(1+r)/Gamma(k+1+r), and the same
    value comes out of the Beta integral r * integral_0^1 u^(r-1) (1-u)^k du (substitution
    u = e^(-mu t)). Both by SymPy (trusted: Gamma functions); the ratio of consecutive Gamma
    forms is re-checked against the engine's by-parts ratio at k + 1."""
    s = at.symbols()
    k, r = s["k"], s["r"]
    closed = at.derive_random_crash().atomic
    beta = at.random_crash_beta()
    if sp.simplify(sp.gammasimp(beta / closed)) != 1:
        return unknown(f"the Beta route gives {beta}, the product route {closed}")
    ratio = sp.gammasimp(closed.subs(k, k + 1) / closed)
    parts = at.random_crash_by_parts()
    by_parts = instance(to_expr(parts.ratio), {"k": ["+", "k", 1], "lambda": ["*", "r", "mu"]})
    return proved(
        trusted("sympy", f"gammasimp(prod_(j=1..k) j/(j+r)) = {closed}"),
        trusted(
            "sympy",
            f"r * integral_0^1 u^(r-1) (1-u)^k du = {beta}; gammasimp(P(k+1)/P(k)) = {ratio}",
        ),
        identity(
            to_expr(ratio),
            by_parts,
            nonzero=[k + 1 + r, s["mu"], (k + 1 + r) * s["mu"]],
            note="the Gamma form's consecutive ratio against the by-parts ratio at k + 1",
        ),
    )


@claim(
    id="atomicity.random-crash.ratio-to-one",
    title="random crash: P(k+1)/P(k) -> 1",
    method="sympy+sos",
    model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda), r = lambda/mu > 0",
)
def random_crash_ratio_to_one():
    """P(k+1)/P(k) = (k+1)/(k+1+r) and 0 <= 1 - P(k+1)/P(k) <= eps for every eps > 0 and every
    k with k + 1 >= r/eps (written k + 1 = (r + s)/eps, s > 0): the ratio tends to 1, so the
    decay is not exponential."""
    s = at.symbols()
    k, r = s["k"], s["r"]
    eps, slack = sp.symbols("epsilon s", positive=True)
    ratio = at.derive_random_crash().ratio
    by_parts = at.random_crash_by_parts().ratio.subs(s["lam"], r * s["mu"]).subs(k, k + 1)
    gap = 1 - ratio
    at_n = eps - gap.subs(k, (r + slack) / eps - 1)  # unsimplified: the kernel simplifies
    return proved(
        identity(
            ratio,
            by_parts,
            nonzero=[k + 1 + r, s["mu"], s["mu"] * (k + 1 + r)],
            note="the Gamma-form ratio equals the by-parts ratio at k + 1",
        ),
        sum_of_squares(gap, [(sp.factor(gap), 1)], positive=[k, r], nonzero=[k + 1 + r]),
        sum_of_squares(
            at_n,
            [(sp.factor(at_n), 1)],
            positive=[eps, r, slack],
            nonzero=[eps, r + slack + eps * r],
            note="k + 1 = (r + s)/eps",
        ),
    )


@claim(
    id="atomicity.random-crash.asymptotic",
    title="random crash: P(k) ~ Gamma(1+r) k^(-r)",
    method="sympy-limit",
    timeout=240,
    model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda), r = lambda/mu",
)
def random_crash_asymptotic():
    """lim_(k -> oo) P(atomic)(k) k^r = Gamma(1 + r): P decays polynomially like Gamma(1+r) k^(-r),
    not exponentially (SymPy's limit, trusted)."""
    approx, limit = at.asymptotic_random_crash()
    s = at.symbols()
    target = sp.gamma(1 + s["r"])
    if sp.simplify(limit - target) != 0:
        return unknown(f"SymPy's limit is {limit}, not {target}")
    return proved(trusted("sympy", f"limit(P(k) * k**r, k, oo) = {limit}; P ~ {approx}"))


@claim(
    id="atomicity.decay-contrast",
    title="random crash outlasts independent domains",
    method="sympy+sos",
    model="independent domains (p < 1) against random crash (r > 0)",
)
def decay_contrast():
    """Once k + 1 >= p r/(1 - p), the random-crash ratio P(k+1)/P(k) = (k+1)/(k+1+r) is at least
    the independent model's p: P_random(k)/P_independent(k) grows from there on. Written with
    q = 1 - p > 0 and k + 1 = (p r + s)/q, s > 0."""
    s = at.symbols()
    k, r, p = s["k"], s["r"], s["p"]
    q, slack = sp.symbols("q s", positive=True)
    indep = at.derive_independent().ratio
    diff = (
        (at.derive_random_crash().ratio - indep)
        .subs(k, (p * r + slack) / (1 - p) - 1)
        .subs(p, 1 - q)
    )  # the kernel simplifies
    return proved(
        sum_of_squares(
            diff,
            [(sp.factor(sp.simplify(diff)), 1)],
            positive=[q, r, slack],
            nonzero=[q, slack + r],
            note="q = 1 - p, k + 1 = (p r + s)/q",
        )
    )


# ---------------------------------------------------------------- exact coincidence
@claim(
    id="atomicity.coincidence-measure-zero",
    title="exact coincidence has measure zero",
    method="calculus+induction+sos",
    model="completion instants X_1, X_2 independent, X_i ~ Exp(mu_i)",
)
def coincidence():
    """Two domains complete at the same instant with probability 0. For every cell width
    h > 0, X_1 = X_2 puts both in the same cell [n h, (n+1) h); P(X_i in cell n) =
    integral_(nh)^((n+1)h) mu_i e^(-mu_i x) dx = a_i^n (1 - a_i), a_i = e^(-mu_i h) (the kernel
    differentiates); by independence the partial sums over n < M of P(both in cell n) are
    (1 - a)(1 - b)(1 - (ab)^M)/(1 - ab) (induction on M), which is at most 1 - a for all
    a, b in (0, 1) and every M (a sum of squares with a = 1/(1+alpha), b = 1/(1+beta),
    Q = (ab)^M > 0). So P(X_1 = X_2) <= P(X_1 <= h) = 1 - e^(-mu_1 h) <= mu_1 h for every
    h > 0 (the last inequality, 1 - e^(-u) <= u, is SymPy's), hence 0; with k domains the
    union over the pairs is still 0."""
    x, h, M = sp.symbols("x h M", positive=True)
    n = sp.Symbol("n", integer=True, nonnegative=True)
    mu1, mu2 = sp.symbols("mu1 mu2", positive=True)
    obligations, cells = [], []
    for mu in (mu1, mu2):
        density = mu * sp.exp(-mu * x)
        cell = sp.integrate(density, (x, n * h, (n + 1) * h), conds="none")
        obligations.append(
            integral(
                x,
                n * h,
                (n + 1) * h,
                density,
                sp.integrate(density, x),
                cell,
                note=f"P(X in cell n) for rate {mu}",
            )
        )
        cells.append(cell)
    a, b = sp.exp(-mu1 * h), sp.exp(-mu2 * h)
    partial = sp.piecewise_fold(sp.summation(cells[0] * cells[1], (n, 0, M - 1)))
    closed = (
        next((e for e, c in partial.args if c == sp.true), partial)
        if isinstance(partial, sp.Piecewise)
        else partial
    )  # the generic branch, ab != 1
    obligations.append(
        recurrence(
            "M",
            0,
            initial=0,
            step=["+", "prev", instance(to_expr(cells[0] * cells[1]), {"n": "M"})],
            closed=to_expr(closed),
            nonzero=[1 - a * b],
            note="partial sums over the cells n < M",
        )
    )
    alpha, beta, Q = sp.symbols("alpha beta Q", positive=True)

    def generic(e: sp.Expr) -> sp.Expr:  # exp(-i mu1 h - j mu2 h - ... M) -> A^i B^j or Q
        arg = sp.expand(e.args[0])
        if M in arg.free_symbols:
            return Q
        i, j = -arg.coeff(mu1 * h), -arg.coeff(mu2 * h)
        return (1 / (1 + alpha)) ** i * (1 / (1 + beta)) ** j

    gap = (1 - 1 / (1 + alpha)) - closed.replace(lambda e: isinstance(e, sp.exp), generic)
    if gap.free_symbols - {alpha, beta, Q}:
        return unknown(f"the partial sum did not come out in a, b and (ab)^M: {closed}")
    obligations.append(
        sum_of_squares(
            gap,
            [(sp.factor(sp.cancel(gap)), 1)],
            positive=[alpha, beta, Q],
            nonzero=[1 + alpha, 1 + beta, alpha + beta + alpha * beta],
            note="a = 1/(1+alpha), b = 1/(1+beta), Q = (ab)^M",
        )
    )
    obligations.append(
        trusted(
            "sympy",
            "1 - exp(-u) <= u for every u >= 0 (equality at 0, "
            "derivative exp(-u) <= 1): P(X_1 <= h) <= mu_1 h -> 0 as h -> 0",
        )
    )
    return proved(*obligations)
