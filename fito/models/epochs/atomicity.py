"""P(atomic): the probability that a crash finds every domain at the newest epoch (paper A).

Three probability models, each stated as a definition and derived with SymPy from it:

- `independent`: domain d is durable at the newest epoch with probability p, independently;
- `fixed-delay`: domain d's write lags by X_d ~ Exp(mu_d), the crash comes at a fixed delay tau;
- `random-crash`: equal rates mu, the crash comes at T ~ Exp(lambda); r = lambda / mu.

Each derivation returns P(all new) (= P(atomic)), P(all old) and P(mixed) as expressions in
the number of domains k. `monte_carlo` samples the same models with numpy.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

MODELS: tuple[str, ...] = ("independent", "fixed-delay", "random-crash")

ASSUMPTIONS: dict[str, str] = {
    "independent": "each domain is durable at the newest epoch with probability p, independently",
    "fixed-delay": "domain d's write lags by X_d ~ Exp(mu_d); the crash comes at a fixed delay tau",
    "random-crash": "every lag X_d ~ Exp(mu); the crash comes at T ~ Exp(lambda), r = lambda/mu",
}


@dataclass(frozen=True, slots=True)
class Derivation:
    """What SymPy derived for one model: probabilities as expressions in k and the parameters."""

    model: str
    atomic: sympy.Expr  # P(every domain at the newest epoch)
    all_old: sympy.Expr  # P(no domain at the newest epoch)
    mixed: sympy.Expr  # 1 - atomic - all_old
    ratio: sympy.Expr  # atomic(k + 1) / atomic(k), simplified
    steps: tuple[str, ...]  # the derivation, one line per step, for reports


@functools.cache
def symbols() -> dict[str, Any]:
    """The symbols every derivation shares (k, d, j, p, mu, tau, lam, r, t, x, u, and mu[d])."""
    pos = dict(positive=True)
    out: dict[str, Any] = {
        name: sympy.Symbol(name, integer=True, positive=True) for name in ("k", "d", "j")
    }
    out.update({name: sympy.Symbol(name, **pos) for name in ("p", "mu", "tau", "r", "t", "x", "u")})
    out["lam"] = sympy.Symbol("lambda", **pos)
    out["mu_d"] = sympy.IndexedBase("mu", positive=True)
    return out


def _ratio(atomic: sympy.Expr) -> sympy.Expr:
    k = symbols()["k"]
    return sympy.simplify(sympy.powsimp(atomic.subs(k, k + 1) / atomic, force=True))


@functools.cache
def bernoulli_marginals() -> tuple[sympy.Expr, sympy.Expr]:
    """(P(X_d = 1), P(X_d = 0)) of one domain, from the Bernoulli(p) distribution."""
    from sympy.stats import Bernoulli, P  # lazy-import: sympy.stats is slow to load

    p = symbols()["p"]
    return P(sympy.Eq(Bernoulli("X", p), 1)), P(sympy.Eq(Bernoulli("X", p), 0))


def joint_law(k: int) -> list[tuple[tuple[int, ...], sympy.Expr]]:
    """The joint law of k independent domains: each outcome (bits: 1 = newest epoch) with
    its probability, the product of the marginals (sympy.Mul, kept as a product)."""
    new, old = bernoulli_marginals()
    return [
        (bits, sympy.Mul(*(new if b else old for b in bits), evaluate=False))
        for bits in itertools.product((0, 1), repeat=k)
    ]


@functools.cache
def derive_independent() -> Derivation:
    """P = prod_d P(X_d = 1) for independent Bernoulli(p) domains: p^k, exponential decay."""
    from sympy.stats import Bernoulli, P  # lazy-import: sympy.stats is slow to load

    s = symbols()
    k, d, p = s["k"], s["d"], s["p"]
    new = P(sympy.Eq(Bernoulli("X", p), 1))  # one domain, from its distribution
    old = P(sympy.Eq(Bernoulli("X", p), 0))
    atomic = sympy.Product(new, (d, 1, k)).doit()  # independence: the joint law is a product
    all_old = sympy.Product(old, (d, 1, k)).doit()
    steps = (
        f"P(X_d = 1) = {new}, P(X_d = 0) = {old} (Bernoulli law)",
        f"P(atomic) = prod_(d=1..k) P(X_d = 1) = {atomic} (independence)",
        f"P(all old) = {all_old}",
    )
    return Derivation(
        "independent", atomic, all_old, sympy.expand(1 - atomic - all_old), _ratio(atomic), steps
    )


@dataclass(frozen=True, slots=True)
class Step:
    """One variable integrated out: integral_0^tau integrand d(var) = value (antiderivative)."""

    var: sympy.Symbol
    integrand: sympy.Expr
    antiderivative: sympy.Expr
    value: sympy.Expr


def box_probability(rates: Sequence[sympy.Expr], tau: sympy.Expr) -> list[Step]:
    """P(X_d <= tau for every d) for independent X_d ~ Exp(rates[d]): the joint density (the
    product of the densities) integrated over the box [0, tau]^k one variable at a time by
    SymPy; each step's value is the next step's integrand, the last value the probability."""
    xs = sympy.symbols(f"x1:{len(rates) + 1}", positive=True)
    current = sympy.Mul(*(r * sympy.exp(-r * x) for r, x in zip(rates, xs)))
    out = []
    for x in xs:
        anti = sympy.integrate(current, x)
        value = sympy.expand(anti.subs(x, tau) - anti.subs(x, 0))
        out.append(Step(x, current, anti, value))
        current = value
    return out


def exp_cdf(rate: sympy.Expr, at: sympy.Expr) -> sympy.Expr:
    """P(X <= at) for X ~ Exp(rate), by integrating the density rate * exp(-rate x) over [0, at]."""
    x = symbols()["x"]
    return sympy.integrate(rate * sympy.exp(-rate * x), (x, 0, at))


@functools.cache
def derive_fixed_delay(equal_rates: bool = False) -> Derivation:
    """P = prod_d P(X_d <= tau), X_d ~ Exp(mu_d): the product of the CDFs at tau."""
    s = symbols()
    k, d, tau = s["k"], s["d"], s["tau"]
    m = sympy.Symbol("m", positive=True)
    cdf = exp_cdf(m, tau)  # 1 - exp(-m tau)
    rate = s["mu"] if equal_rates else s["mu_d"][d]
    atomic = sympy.Product(cdf.subs(m, rate), (d, 1, k)).doit()
    all_old = sympy.Product(sympy.simplify(1 - cdf).subs(m, rate), (d, 1, k)).doit()
    steps = (
        f"P(X <= tau) = integral_0^tau m exp(-m x) dx = {cdf}",
        f"P(atomic) = prod_(d=1..k) P(X_d <= tau) = {atomic} (independent lags)",
        f"P(all old) = prod_(d=1..k) P(X_d > tau) = {all_old}",
    )
    # prod_(d=1..k+1) f(d) = prod_(d=1..k) f(d) * f(k+1): the ratio is the new domain's factor.
    ratio = cdf.subs(m, rate).subs(d, k + 1)
    return Derivation("fixed-delay", atomic, all_old, 1 - atomic - all_old, ratio, steps)


@dataclass(frozen=True, slots=True)
class ByParts:
    """Integration by parts of I_k = E[(1 - exp(-mu T))^k], T ~ Exp(lambda)."""

    integrand: sympy.Expr  # lambda exp(-lambda t) F(t)^k, F = the CDF of one lag at t
    antiderivative: sympy.Expr  # G(t) = -exp(-lambda t) F(t)^k
    boundary: tuple[sympy.Expr, sympy.Expr]  # G(0), lim G(t) as t -> oo
    residual: sympy.Expr  # integrand - G'(t) - k mu exp(-lambda t) F^(k-1) (1 - F): zero
    ratio: sympy.Expr  # I_k / I_(k-1), solved from the by-parts equation


@functools.cache
def random_crash_by_parts() -> ByParts:
    """Derive I_k = k mu / (k mu + lambda) I_(k-1) by integrating by parts over the crash time."""
    s = symbols()
    k, t, mu, lam = s["k"], s["t"], s["mu"], s["lam"]
    cdf = exp_cdf(mu, t)
    integrand = lam * sympy.exp(-lam * t) * cdf**k
    g = -sympy.exp(-lam * t) * cdf**k
    # integrand = G' + k mu e^{-lam t} F^(k-1) e^{-mu t}, and e^{-mu t} = 1 - F.
    residual = sympy.simplify(
        integrand - sympy.diff(g, t) - k * mu * sympy.exp(-lam * t) * cdf ** (k - 1) * (1 - cdf)
    )
    boundary = (sympy.simplify(g.subs(t, 0)), sympy.limit(g, t, sympy.oo))
    # integral of e^{-lam t} F^j dt = I_j / lam, so I_k = [G] + (k mu / lam)(I_(k-1) - I_k).
    i_k, i_prev = sympy.symbols("I_k I_prev")
    equation = sympy.Eq(i_k, boundary[1] - boundary[0] + k * mu / lam * (i_prev - i_k))
    ratio = sympy.simplify(sympy.solve(equation, i_k)[0] / i_prev)
    return ByParts(integrand, g, boundary, residual, ratio)


@functools.cache
def derive_random_crash() -> Derivation:
    """P(atomic) = E[(1 - exp(-mu T))^k] as the product of the by-parts ratios, I_0 = 1."""
    s = symbols()
    k, j, mu, lam, r = s["k"], s["j"], s["mu"], s["lam"], s["r"]
    parts = random_crash_by_parts()
    step = parts.ratio.subs(k, j)
    atomic = sympy.Product(sympy.simplify(step.subs(lam, r * mu)), (j, 1, k))
    t = s["t"]
    # all old: no lag finished by T: E[exp(-k mu T)], by integrating over the crash time.
    all_old = sympy.simplify(
        sympy.integrate(lam * sympy.exp(-lam * t) * sympy.exp(-k * mu * t), (t, 0, sympy.oo)).subs(
            lam, r * mu
        )
    )
    closed = sympy.gammasimp(atomic.doit().rewrite(sympy.gamma))
    steps = (
        "given T = t: P(atomic | t) = (1 - exp(-mu t))^k (fixed-delay model at tau = t)",
        f"by parts: I_k / I_(k-1) = {parts.ratio}, I_0 = 1",
        f"P(atomic) = {atomic} = {closed}",
        f"P(all old) = E[exp(-k mu T)] = {all_old}",
    )
    return Derivation(
        "random-crash",
        closed,
        all_old,
        1 - closed - all_old,
        sympy.simplify(sympy.gammasimp(closed.subs(k, k + 1) / closed)),
        steps,
    )


def random_crash_beta() -> sympy.Expr:
    """P(atomic) via u = exp(-mu t): r * integral_0^1 u^(r-1) (1-u)^k du (slow: seconds)."""
    s = symbols()
    k, t, u, mu, lam, r = s["k"], s["t"], s["u"], s["mu"], s["lam"], s["r"]
    integral = sympy.Integral(lam * sympy.exp(-lam * t) * exp_cdf(mu, t) ** k, (t, 0, sympy.oo))
    in_u = integral.transform(sympy.exp(-mu * t), u).subs(lam, r * mu)
    integrand = sympy.powsimp(
        sympy.expand_log(sympy.simplify(in_u.function), force=True), force=True
    )
    value = sympy.integrate(integrand, (u, *in_u.limits[0][1:]))
    return sympy.gammasimp(sympy.hyperexpand(value))


def random_crash_term(j_value: sympy.Expr) -> sympy.Expr:
    """E[exp(-j mu T)] for T ~ Exp(lambda), in r = lambda/mu: one term of the binomial expansion."""
    s = symbols()
    t, mu, lam, r = s["t"], s["mu"], s["lam"], s["r"]
    density = lam * sympy.exp(-lam * t)
    term = sympy.integrate(density * sympy.exp(-j_value * mu * t), (t, 0, sympy.oo))
    return sympy.simplify(term.subs(lam, r * mu))


def random_crash_term_rate(j_value: sympy.Expr) -> sympy.Expr:
    """E[exp(-j mu T)] for T ~ Exp(lambda), in lambda and mu (SymPy's integral over t)."""
    s = symbols()
    t, mu, lam = s["t"], s["mu"], s["lam"]
    term = sympy.integrate(
        lam * sympy.exp(-lam * t) * sympy.exp(-j_value * mu * t), (t, 0, sympy.oo), conds="none"
    )
    return sympy.simplify(term)


def random_crash_expanded(k: int) -> sympy.Expr:
    """P(atomic) for a concrete k: expand (1 - exp(-mu T))^k binomially and integrate each term."""
    j = symbols()["j"]
    term = random_crash_term(j)
    return sympy.together(
        sum(sympy.binomial(k, i) * (-1) ** i * term.subs(j, i) for i in range(k + 1))
    )


def leading_term() -> sympy.Expr:
    """The claimed leading term of the random-crash P(atomic): Gamma(1+r) k^(-r)."""
    s = symbols()
    return sympy.gamma(1 + s["r"]) * s["k"] ** (-s["r"])


def asymptotic_random_crash() -> tuple[sympy.Expr, sympy.Expr]:
    """(Gamma(1+r) k^(-r), lim_(k->oo) P(atomic) k^r) by SymPy's limit (trusted; seconds)."""
    s = symbols()
    k, r = s["k"], s["r"]
    atomic = derive_random_crash().atomic
    return leading_term(), sympy.limit(atomic * k**r, k, sympy.oo)


def leading_term_value(k: int, r: Fraction) -> float:
    """Gamma(1+r) k^(-r) at k and r, as a float, computed in logs (inf or 0.0 beyond the
    float range: no overflow, and no time spent on huge r)."""
    log = math.lgamma(1 + float(r)) - float(r) * math.log(k)
    if log > 709.0:
        return math.inf
    return math.exp(log)


@functools.cache
def random_crash_step() -> Any:
    """I_k / I_(k-1) as a function of (k, r): the derived by-parts ratio with lambda = r mu."""
    s = symbols()
    step = sympy.simplify(random_crash_by_parts().ratio.subs(s["lam"], s["r"] * s["mu"]))
    if s["mu"] in step.free_symbols:
        raise AssertionError(f"the ratio {step} should depend on k and r only")
    return sympy.lambdify((s["k"], s["r"]), step, modules="math")


def random_crash_log(k: int, r: float) -> float:
    """log P(atomic) of the random-crash model: the sum of the logs of the by-parts ratios."""
    ratio = random_crash_step()
    return math.fsum(math.log(ratio(j, r)) for j in range(1, k + 1))


def random_crash_float(k: int, r: float) -> float:
    """P(atomic) of the random-crash model as a float."""
    return math.exp(random_crash_log(k, r))


# ---------------------------------------------------------------- exact numbers
def independent_values(k: int, p: Fraction) -> dict[str, Fraction]:
    """P(atomic), P(all old), P(mixed) of the independent model at k and p, exactly."""
    d = derive_independent()
    return {
        name: _exact(getattr(d, name), {"k": k, "p": p}) for name in ("atomic", "all_old", "mixed")
    }


def random_crash_values(k: int, r: Fraction) -> dict[str, Fraction]:
    """P(atomic), P(all old), P(mixed) of the random-crash model at k and rational r, exactly."""
    ratio = random_crash_step()  # a rational function: exact on Fractions
    atomic = Fraction(1)
    for i in range(1, k + 1):
        atomic *= ratio(Fraction(i), r)
    all_old = _exact(derive_random_crash().all_old, {"k": k, "r": r})
    return {"atomic": atomic, "all_old": all_old, "mixed": 1 - atomic - all_old}


def fixed_delay_values(mu_tau: Sequence[Fraction]) -> dict[str, float]:
    """P(atomic), P(all old), P(mixed) for lags with mu_d * tau = mu_tau[d], as floats: the
    derived products over domains of P(X_d <= tau) and P(X_d > tau) (tau = 1, rates mu_d tau)."""
    s = symbols()
    m = sympy.Symbol("m", positive=True)
    cdf = exp_cdf(m, s["tau"]).subs(s["tau"], 1)
    factors = [sympy.lambdify(m, f, modules="math") for f in (cdf, sympy.simplify(1 - cdf))]
    new, old = (_product([f(float(x)) for x in mu_tau]) for f in factors)
    return {"atomic": new, "all_old": old, "mixed": 1.0 - new - old}


def _product(values: Sequence[float]) -> float:
    """A product of probabilities, summed in logs (no premature underflow)."""
    if any(v <= 0 for v in values):
        return 0.0
    return math.exp(math.fsum(math.log(v) for v in values))


def _exact(expr: sympy.Expr, values: dict[str, Any]) -> Fraction:
    s = symbols()
    subs = {
        s[n]: sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v
        for n, v in values.items()
    }
    q = sympy.simplify(expr.subs(subs))
    if not q.is_Rational:  # nsimplify only when needed: it can turn an exact rational
        q = sympy.nsimplify(q)  # such as 10000/10003 into a product of radicals
    if not q.is_Rational:
        raise ValueError(f"{expr} at {values} is not rational")
    return Fraction(int(q.p), int(q.q))


# ---------------------------------------------------------------- Monte Carlo
@dataclass(frozen=True, slots=True)
class Estimate:
    """A Monte Carlo estimate of a probability: mean, standard error, number of trials."""

    mean: float
    stderr: float
    trials: int


def _estimate(hits: Any) -> Estimate:
    n = int(hits.size)
    mean = float(hits.mean())
    return Estimate(mean, math.sqrt(max(mean * (1 - mean), 0.0) / n), n)


def monte_carlo(
    model: str,
    k: int,
    trials: int,
    seed: int,
    *,
    p: float = 0.5,
    mu: Sequence[float] = (),
    tau: float = 1.0,
    r: float = 1.0,
) -> Estimate:
    """Sample the model `trials` times (numpy, seeded) and estimate P(atomic)."""
    import numpy as np  # lazy-import: numpy is slow to load

    rng = np.random.default_rng(seed)
    if model == "independent":
        hits = (rng.random((trials, k)) < p).all(axis=1)
    elif model == "fixed-delay":
        rates = np.asarray(mu if mu else [1.0] * k, dtype=float)
        lags = rng.exponential(1.0 / rates, size=(trials, len(rates)))
        hits = (lags <= tau).all(axis=1)
    elif model == "random-crash":
        crash = rng.exponential(1.0 / r, size=trials)  # lambda = r, mu = 1
        lags = rng.exponential(1.0, size=(trials, k))
        hits = (lags <= crash[:, None]).all(axis=1)
    else:
        raise ValueError(f"unknown model {model!r}; expected one of {', '.join(MODELS)}")
    return _estimate(hits)
