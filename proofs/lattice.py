"""Paper A, claims 1 and 2: the epoch lattice E^k, the crash window {e-1, e}^k, and P(atomic).

Every closed form, ratio and probability below comes out of `fito.models.lattice` or
`fito.models.atomicity` (SymPy derivations from the definitions); the certificates make the
kernel re-check them: recurrences (induction over k or n), identities, sums of squares,
Farkas refutations of the lattice laws on a chain, and enumerations for k <= 6. What the
kernel cannot re-check (integrals, derivatives, limits, Gamma functions) is a visible
`trusted: sympy` obligation.
"""
from __future__ import annotations

import functools
import itertools

import sympy as sp

from fito.models import atomicity as at
from fito.models import lattice as lat
from fito.proof import (claim, conjunction, enumeration, identity, prove_linear, proved,
                        recurrence, refuted, register, sum_of_squares, to_expr, trusted,
                        unknown, Claim)

K_MAX, N_MAX = 6, 3
prev = sp.Symbol("prev")


@functools.cache
def forms() -> lat.ClosedForms:
    """The closed forms, derived once per process."""
    return lat.closed_forms()


def _box(k: int, n: int, name: str = "x") -> list[tuple[sp.Symbol, int, int]]:
    return [(sp.Symbol(f"{name}{i}"), 0, n) for i in range(1, k + 1)]


def _all_equal(xs: list[sp.Symbol]) -> sp.Basic:
    return sp.And(*(sp.Eq(x, xs[0]) for x in xs[1:])) if len(xs) > 1 else sp.true


def _counted(closed: sp.Expr, where_of, k_range=range(1, K_MAX + 1), n_range=range(0, N_MAX + 1)):
    """One enumeration obligation per (k, n): the kernel counts the box and compares with closed."""
    f = forms()
    out = []
    for k, n in itertools.product(k_range, n_range):
        box = _box(k, n)
        value = closed.subs({f.k: k, f.n: n})
        where = where_of([x for x, _, _ in box])
        out.append(enumeration(box, "count", value, where=None if where is sp.true else where,
                               note=f"k = {k}, n = {n}"))
    return out


# ---------------------------------------------------------------- sizes
@claim(id="lattice.epoch-count", title="|E| = n + 1", method="sympy+induction",
       model="E = {0, ..., n}, n a natural number")
def epoch_count():
    """|{0..n}| = n + 1 for every natural n: |{0}| = 1 and E(n+1) = E(n) plus the one epoch n+1."""
    f = forms()
    return proved(recurrence(f.n, 0, initial=1, step=prev + 1, closed=f.epoch_count, prev=prev))


@claim(id="lattice.size", title="|L| = (n+1)^k", method="sympy+induction+enumeration",
       model="L = E^k with E = {0..n}, k domains")
def lattice_size():
    """|E^k| = (n+1)^k for all natural k, n: E^0 has one element and E^(k+1) = E^k x E.
    Checked by counting E^k for k = 1..6, n = 0..3."""
    f = forms()
    step = prev * f.epoch_count  # |E^(k+1)| = |E^k| * |E|
    return proved(recurrence(f.k, 0, initial=1, step=step, closed=f.size, prev=prev),
                  *_counted(f.size, lambda xs: sp.true))


@claim(id="lattice.diagonal", title="|diagonal| = n + 1", method="sympy+induction+enumeration",
       model="consistent durable vectors (e, ..., e) of E^k, k >= 1")
def diagonal_size():
    """The consistent vectors of E^k number n + 1 for every k >= 1: each consistent vector of
    length k extends in exactly one way to a consistent vector of length k + 1. Checked by
    counting for k = 1..6, n = 0..3."""
    f = forms()
    base = f.epoch_count  # k = 1: every epoch is a consistent vector of length 1
    return proved(recurrence(f.k, 1, initial=base, step=prev, closed=f.consistent, prev=prev),
                  *_counted(f.consistent, _all_equal))


@claim(id="lattice.mixed-fraction", title="mixed fraction 1 - (n+1)^(1-k)",
       method="sympy+induction+enumeration", model="mixed (non-diagonal) vectors of E^k, k >= 1")
def mixed_fraction():
    """M(k) = (n+1)^k - (n+1) vectors of E^k are mixed (M(1) = 0; a mixed vector stays mixed
    whatever epoch is appended, a consistent one becomes mixed with the n other epochs), so
    the mixed fraction is M(k)/(n+1)^k = 1 - (n+1)^(1-k). Checked by counting for k <= 6."""
    f = forms()
    mixed = f.size - f.consistent
    step = prev * f.epoch_count + f.consistent * (f.epoch_count - 1)
    # The kernel takes exponents a*k + c with a >= 1: write (n+1)^(1-k) as (n+1) / (n+1)^k.
    power = sp.Symbol("POWER")
    fraction = _replace_json(to_expr(f.mixed_fraction.subs((f.n + 1) ** (1 - f.k), power)),
                             "POWER", to_expr(["/", to_expr(f.n + 1), ["^", to_expr(f.n + 1), "k"]]))
    return proved(
        recurrence(f.k, 1, initial=0, step=step, closed=mixed, prev=prev),
        identity(["/", to_expr(mixed), to_expr(f.size)], fraction, nonzero=[f.n + 1],
                 note="(n+1)^(1-k) is written (n+1)/(n+1)^k"),
        *_counted(mixed, lambda xs: sp.Not(_all_equal(xs))))


def _replace_json(expr, name: str, by):
    """The JSON expression with the symbol `name` replaced by `by`."""
    if expr == name:
        return by
    if isinstance(expr, list):
        return [_replace_json(e, name, by) for e in expr]
    return expr


# ---------------------------------------------------------------- order and laws
def _flatten(term, defs: list) -> sp.Symbol:
    """A min/max term as a fresh variable, its definition appended to defs (linear, with cases)."""
    if isinstance(term, sp.Symbol):
        return term
    op, left, right = term
    a, b = _flatten(left, defs), _flatten(right, defs)
    z = sp.Symbol(f"z{len(defs)}")
    bound = (sp.And(z <= a, z <= b) if op == "min" else sp.And(z >= a, z >= b))
    defs.append(sp.And(bound, sp.Or(sp.Eq(z, a), sp.Eq(z, b))))
    return z


def _chain_law(lhs, rhs) -> sp.Basic:
    """'lhs = rhs for all reals' with min/max replaced by defined variables: a linear formula."""
    defs: list = []
    left, right = _flatten(lhs, defs), _flatten(rhs, defs)
    return sp.Implies(sp.And(*defs), sp.Eq(left, right))


def _evaluate(term, env):
    if isinstance(term, sp.Symbol):
        return env[term]
    op, left, right = term
    return (sp.Min if op == "min" else sp.Max)(_evaluate(left, env), _evaluate(right, env))


def _law_on_lattice(lhs, rhs, names, k: int, n: int):
    """Enumeration: the law holds componentwise for every tuple of vectors of E^k."""
    coords = {v: [sp.Symbol(f"{v.name}{i}") for i in range(1, k + 1)] for v in names}
    box = [(c, 0, n) for v in names for c in coords[v]]
    expr = sp.And(*(sp.Eq(_evaluate(lhs, {v: coords[v][i] for v in names}),
                          _evaluate(rhs, {v: coords[v][i] for v in names})) for i in range(k)))
    return enumeration(box, "all", True, expr=expr, note=f"E^{k}, n = {n}")


a, b, c = sp.symbols("a b c")
LAWS = {
    "meet-commutative": (("min", a, b), ("min", b, a)),
    "join-commutative": (("max", a, b), ("max", b, a)),
    "meet-associative": (("min", a, ("min", b, c)), ("min", ("min", a, b), c)),
    "join-associative": (("max", a, ("max", b, c)), ("max", ("max", a, b), c)),
    "meet-idempotent": (("min", a, a), a),
    "join-idempotent": (("max", a, a), a),
    "absorption-meet": (("min", a, ("max", a, b)), a),
    "absorption-join": (("max", a, ("min", a, b)), a),
    "distributive-meet": (("min", a, ("max", b, c)), ("max", ("min", a, b), ("min", a, c))),
    "distributive-join": (("max", a, ("min", b, c)), ("min", ("max", a, b), ("max", a, c))),
}


def _law_claim(name: str, lhs, rhs) -> None:
    names = sorted({s for s in (a, b, c) if s in _symbols_of(lhs) | _symbols_of(rhs)}, key=str)

    def run():
        sizes = [(2, 2), (3, 1)] if len(names) == 3 else [(2, 3), (3, 2)]
        return conjunction(prove_linear(_chain_law(lhs, rhs)),
                           proved(*(_law_on_lattice(lhs, rhs, names, k, n) for k, n in sizes)))
    register(Claim(f"lattice.law.{name}", f"lattice law: {name}",
                   f"{_show(lhs)} = {_show(rhs)} in E^k, componentwise: it holds on every chain "
                   "of reals (each min/max is a defined variable; Farkas refutation of every "
                   "case of the negation), hence in every product of chains; also enumerated on "
                   "small E^k.", "L = E^k with meet = componentwise min, join = componentwise max",
                   "farkas+enumeration", run))


def _symbols_of(term) -> set:
    return {term} if isinstance(term, sp.Symbol) else _symbols_of(term[1]) | _symbols_of(term[2])


def _show(term) -> str:
    if isinstance(term, sp.Symbol):
        return term.name
    op, left, right = term
    return f"{'meet' if op == 'min' else 'join'}({_show(left)}, {_show(right)})"


for _name, (_lhs, _rhs) in LAWS.items():
    _law_claim(_name, _lhs, _rhs)


@claim(id="lattice.meet-is-glb", title="meet = componentwise min is the greatest lower bound",
       method="farkas+enumeration", model="L = E^k with the product order")
def meet_is_glb():
    """For all x, y, z of E^k: z <= x and z <= y iff z <= meet(x, y), with meet the
    componentwise min; and join = componentwise max is the least upper bound (dually).
    Per coordinate on every chain of reals by Farkas cases; enumerated on E^2 (n = 3), E^3 (n = 2)."""
    z, m = sp.symbols("z m")
    is_min = sp.And(m <= a, m <= b, sp.Or(sp.Eq(m, a), sp.Eq(m, b)))
    is_max = sp.And(m >= a, m >= b, sp.Or(sp.Eq(m, a), sp.Eq(m, b)))
    glb = sp.Implies(is_min, sp.And(sp.Implies(sp.And(z <= a, z <= b), z <= m),
                                    sp.Implies(z <= m, sp.And(z <= a, z <= b))))
    lub = sp.Implies(is_max, sp.And(sp.Implies(sp.And(z >= a, z >= b), z >= m),
                                    sp.Implies(z >= m, sp.And(z >= a, z >= b))))
    return conjunction(prove_linear(glb), prove_linear(lub),
                       proved(*(_order_enumeration(k, n) for k, n in ((2, 3), (3, 2)))))


def _order_enumeration(k: int, n: int):
    xs, ys, zs = (_box(k, n, v) for v in "xyz")
    le = lambda u, w: sp.And(*(p[0] <= q[0] for p, q in zip(u, w)))  # noqa: E731
    meet = [(sp.Min(p[0], q[0]),) for p, q in zip(xs, ys)]
    join = [(sp.Max(p[0], q[0]),) for p, q in zip(xs, ys)]
    glb = sp.Equivalent(sp.And(le(zs, xs), le(zs, ys)), le(zs, meet))
    lub = sp.Equivalent(sp.And(le(xs, zs), le(ys, zs)), le(join, zs))
    expr = sp.And(glb, lub)
    expr = expr.replace(lambda e: isinstance(e, sp.Equivalent),
                        lambda e: sp.And(sp.Implies(*e.args), sp.Implies(*reversed(e.args))))
    return enumeration(xs + ys + zs, "all", True, expr=expr, note=f"E^{k}, n = {n}")


@claim(id="lattice.best-recovery-point", title="best recovery point = (min x, ..., min x)",
       method="farkas+enumeration", model="durable vectors x of E^k; consistent elements (c, ..., c)")
def best_recovery_point():
    """For every x in E^k, (c, ..., c) <= x iff c <= min(x_1..x_k), so the greatest consistent
    element below x is (min x, ..., min x). Induction on k: c <= min(m, y) iff c <= m and
    c <= y (Farkas cases over the reals); enumerated for k = 1..4, n = 0..3."""
    m, y, z = sp.symbols("m y z")
    step = sp.Implies(sp.And(z <= m, z <= y, sp.Or(sp.Eq(z, m), sp.Eq(z, y))),
                      sp.And(sp.Implies(c <= z, sp.And(c <= m, c <= y)),
                             sp.Implies(sp.And(c <= m, c <= y), c <= z)))
    obligations = []
    for k, n in itertools.product(range(1, 5), range(0, N_MAX + 1)):
        xs = [x for x, _, _ in _box(k, n)]
        below = sp.And(*(c <= x for x in xs))
        expr = sp.And(sp.Implies(below, c <= sp.Min(*xs)), sp.Implies(c <= sp.Min(*xs), below))
        obligations.append(enumeration([*_box(k, n), (c, 0, n)], "all", True, expr=expr,
                                       note=f"k = {k}, n = {n}"))
    return conjunction(prove_linear(step), proved(*obligations))


# ---------------------------------------------------------------- claim 1: the crash window
@claim(id="claim1.mixed-count", title="2^k - 2 of {e-1, e}^k are mixed",
       method="sympy+induction+enumeration", model="the crash window {e-1, e}^k, k >= 1")
def window_mixed_count():
    """sum_(j=1..k-1) C(k, j) = 2^k - 2 vectors of {e-1, e}^k are mixed: W(1) = 0, and
    W(k+1) = 2 W(k) + 2 (a mixed vector stays mixed, each of the 2 consistent ones becomes
    mixed with the other epoch). Counted for k = 1..6."""
    f = forms()
    counts = [enumeration(_box(k, 1), "count", f.mixed_in_window.subs(f.k, k),
                          where=sp.Not(_all_equal([x for x, _, _ in _box(k, 1)])), note=f"k = {k}")
              for k in range(1, K_MAX + 1)]
    return proved(recurrence(f.k, 1, initial=0, step=2 * prev + 2, closed=f.mixed_in_window,
                             prev=prev), *counts)


# ---------------------------------------------------------------- P(atomic)
def _atoms(expr: sp.Expr) -> sp.Expr:
    """exp(-lambda t) -> E and exp(-mu t) -> W: opaque atoms the kernel can treat as symbols."""
    s = at.symbols()
    return expr.xreplace({sp.exp(-s["lam"] * s["t"]): sp.Symbol("E"),
                          sp.exp(-s["mu"] * s["t"]): sp.Symbol("W")})


@claim(id="atomicity.independent", title="independent domains: P(atomic) = p^k, ratio p",
       method="sympy+induction", model="k independent domains, each durable at the newest epoch w.p. p")
def independent():
    """With independent Bernoulli(p) domains, P(atomic) = p^k and P(all old) = (1-p)^k for all
    k (induction: one more domain multiplies by its probability), P(atomic)(k+1)/P(atomic)(k)
    = p < 1, so P(atomic) decays exponentially in k; and P(mixed) = 1 - p^k - (1-p)^k, which
    for k = 1..6 equals the sum of the joint law over the 2^k - 2 mixed outcomes."""
    d, s = at.derive_independent(), at.symbols()
    k, p = s["k"], s["p"]
    new = d.atomic.subs(k, 1)  # P(X_d = 1), as derived
    old = d.all_old.subs(k, 1)
    mixed_sums = []
    for size in range(1, K_MAX + 1):
        joint = sum(sp.Mul(*(p if bit else 1 - p for bit in bits))
                    for bits in itertools.product((0, 1), repeat=size) if 0 < sum(bits) < size)
        # the derived P(mixed) at k = size, substituted by the kernel (SymPy would fold k = 1 to 0)
        mixed_sums.append(identity(joint, _replace_json(to_expr(d.mixed), str(k), size),
                                   note=f"k = {size}"))
    return proved(recurrence(k, 0, initial=1, step=prev * new, closed=d.atomic, prev=prev),
                  recurrence(k, 0, initial=1, step=prev * old, closed=d.all_old, prev=prev),
                  identity(d.atomic.subs(k, k + 1), d.ratio * d.atomic, note="ratio = p"),
                  *mixed_sums)


@claim(id="atomicity.fixed-delay", title="fixed delay: P(atomic) = prod (1 - exp(-mu_d tau))",
       method="sympy+induction", model="lags X_d ~ Exp(mu_d) independent, crash at fixed delay tau")
def fixed_delay():
    """P(X_d <= tau) = 1 - exp(-mu_d tau) (the integral of the Exp density, trusted SymPy), so
    P(atomic) = prod_d (1 - exp(-mu_d tau)); with equal rates (1 - w)^k, w = exp(-mu tau),
    by induction on k, and the ratio P(k+1)/P(k) = 1 - w < 1: exponential decay again."""
    d, s = at.derive_fixed_delay(True), at.symbols()
    k, w = s["k"], sp.Symbol("w")
    cdf = at.exp_cdf(s["mu"], s["tau"])
    closed = d.atomic.xreplace({sp.exp(-s["mu"] * s["tau"]): w})
    factor = cdf.xreplace({sp.exp(-s["mu"] * s["tau"]): w})
    return proved(trusted("sympy", f"integral_0^tau mu exp(-mu x) dx = {cdf}"),
                  recurrence(k, 0, initial=1, step=prev * factor, closed=closed, prev=prev,
                             note="w = exp(-mu tau)"),
                  identity(closed.subs(k, k + 1), d.ratio.xreplace({sp.exp(-s["mu"] * s["tau"]): w})
                           * closed, note="ratio = 1 - w"))


@claim(id="atomicity.random-crash.by-parts", title="random crash: I_k = k mu/(k mu + lambda) I_(k-1)",
       method="sympy+identity", model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda) independent")
def random_crash_by_parts():
    """I_k = E[(1 - exp(-mu T))^k] = integral_0^oo lambda e^(-lambda t) F^k dt, F = 1 - e^(-mu t).
    With G = -e^(-lambda t) F^k: the integrand is G' + (k mu/lambda)(lambda e^(-lambda t) F^(k-1)
    - lambda e^(-lambda t) F^k), G(0) = G(oo) = 0 (k >= 1), so I_k = (k mu/lambda)(I_(k-1) - I_k),
    whose solution is I_k = k mu/(k mu + lambda) I_(k-1). Derivative and limits: trusted SymPy;
    the integrand identities and the solution: kernel."""
    s, parts = at.symbols(), at.random_crash_by_parts()
    k, mu, lam, t = s["k"], s["mu"], s["lam"], s["t"]
    E, W = sp.Symbol("E"), sp.Symbol("W")
    dG = sp.diff(parts.antiderivative, t)
    rest = k * mu / lam * (lam * E * (1 - W) ** (k - 1) - lam * E * (1 - W) ** k)
    i_prev = sp.Symbol("I_prev")
    i_k = parts.ratio * i_prev
    return proved(
        trusted("sympy", f"d/dt {parts.antiderivative} = {dG}; G(0) = {parts.boundary[0]}, "
                         f"lim G = {parts.boundary[1]} (k >= 1)"),
        identity(_atoms(parts.integrand), _atoms(dG) + rest, nonzero=[W, 1 - W, lam],
                 note="E = exp(-lambda t), W = exp(-mu t)"),
        identity(i_k, k * mu / lam * (i_prev - i_k), nonzero=[lam, mu, k * mu + lam]))


@claim(id="atomicity.random-crash.product", title="random crash: prod_j j/(j + r) = the integral",
       method="sympy+identity", model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda), r = lambda/mu")
def random_crash_product():
    """P(atomic) = prod_(j=1..k) j mu/(j mu + lambda) = prod j/(j + r) (the by-parts ratios from
    I_0 = 1), and for k = 1..8 this equals the integral computed the other way: expand
    (1 - e^(-mu T))^k binomially and integrate each term, E[e^(-j mu T)] = r/(r + j)."""
    s, parts = at.symbols(), at.random_crash_by_parts()
    r, j = s["r"], s["j"]
    ratio = sp.simplify(parts.ratio.subs(s["lam"], r * s["mu"]))
    term = at.random_crash_term(j)
    checks = []
    ratio_json, term_json = to_expr(ratio), to_expr(term)
    for size in range(1, 9):
        # both sides built as kernel expressions, so the kernel (not SymPy) multiplies out
        # the by-parts ratios and sums the binomial expansion of the integral
        product = ["*", 1] + [_replace_json(ratio_json, str(s["k"]), i) for i in range(1, size + 1)]
        expanded = ["+", 0] + [["*", int(sp.binomial(size, i)), (-1) ** i, _replace_json(term_json, str(j), i)]
                               for i in range(size + 1)]
        checks.append(identity(product, expanded, nonzero=[r + i for i in range(size + 1)],
                               note=f"k = {size}"))
    return proved(trusted("sympy", f"E[exp(-j mu T)] = integral_0^oo lambda e^(-lambda t) "
                                   f"e^(-j mu t) dt = {term}"), *checks)


@claim(id="atomicity.random-crash.gamma", title="prod j/(j+r) = Gamma(k+1)Gamma(1+r)/Gamma(k+1+r)",
       method="sympy", timeout=240, model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda), r = lambda/mu")
def random_crash_gamma():
    """For every k: prod_(j=1..k) j/(j + r) = Gamma(k+1) Gamma(1+r)/Gamma(k+1+r), and the same
    value comes out of the Beta integral r * integral_0^1 u^(r-1) (1-u)^k du (substitution
    u = e^(-mu t)). Both by SymPy (trusted); the ratio of consecutive Gamma forms is re-checked."""
    s = at.symbols()
    k, r = s["k"], s["r"]
    closed = at.derive_random_crash().atomic
    beta = at.random_crash_beta()
    if sp.simplify(sp.gammasimp(beta / closed)) != 1:
        return unknown(f"the Beta route gives {beta}, the product route {closed}")
    ratio = sp.gammasimp(closed.subs(k, k + 1) / closed)
    parts = at.random_crash_by_parts()
    # the by-parts ratio I_(k+1)/I_k as derived (k mu/(k mu + lambda)), at k + 1 with
    # lambda = r mu, substituted by the kernel: it cancels mu itself
    by_parts = _replace_json(_replace_json(to_expr(parts.ratio), str(k), ["+", str(k), 1]),
                             str(s["lam"]), ["*", str(r), str(s["mu"])])
    return proved(trusted("sympy", f"gammasimp(prod_(j=1..k) j/(j+r)) = {closed}"),
                  trusted("sympy", f"r * integral_0^1 u^(r-1) (1-u)^k du = {beta}; "
                                   f"gammasimp(P(k+1)/P(k)) = {ratio}"),
                  identity(to_expr(ratio), by_parts, nonzero=[k + 1 + r, s["mu"], (k + 1 + r) * s["mu"]],
                           note="the Gamma form's consecutive ratio against the by-parts ratio at k + 1"))


@claim(id="atomicity.random-crash.ratio-to-one", title="random crash: P(k+1)/P(k) -> 1",
       method="sympy+sos", model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda), r = lambda/mu > 0")
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
    at_n = eps - gap.subs(k, (r + slack) / eps - 1)   # unsimplified: the kernel simplifies
    return proved(
        identity(ratio, by_parts, nonzero=[k + 1 + r, s["mu"], s["mu"] * (k + 1 + r)],
                 note="the Gamma-form ratio equals the by-parts ratio at k + 1"),
        sum_of_squares(gap, [(sp.factor(gap), 1)], positive=[k, r], nonzero=[k + 1 + r]),
        sum_of_squares(at_n, [(sp.factor(at_n), 1)], positive=[eps, r, slack],
                       nonzero=[eps, r + slack + eps * r], note="k + 1 = (r + s)/eps"))


@claim(id="atomicity.random-crash.asymptotic", title="random crash: P(k) ~ Gamma(1+r) k^(-r)",
       method="sympy-limit", timeout=240, model="lags X_d ~ Exp(mu) iid, crash at T ~ Exp(lambda), r = lambda/mu")
def random_crash_asymptotic():
    """lim_(k -> oo) P(atomic)(k) k^r = Gamma(1 + r): P decays polynomially like Gamma(1+r) k^(-r),
    not exponentially (SymPy's limit, trusted)."""
    approx, limit = at.asymptotic_random_crash()
    s = at.symbols()
    target = sp.gamma(1 + s["r"])
    if sp.simplify(limit - target) != 0:
        return unknown(f"SymPy's limit is {limit}, not {target}")
    return proved(trusted("sympy", f"limit(P(k) * k**r, k, oo) = {limit}; P ~ {approx}"))


@claim(id="atomicity.decay-contrast", title="random crash outlasts independent domains",
       method="sympy+sos", model="independent domains (p < 1) against random crash (r > 0)")
def decay_contrast():
    """Once k + 1 >= p r/(1 - p), the random-crash ratio P(k+1)/P(k) = (k+1)/(k+1+r) is at least
    the independent model's p: P_random(k)/P_independent(k) grows from there on. Written with
    q = 1 - p > 0 and k + 1 = (p r + s)/q, s > 0."""
    s = at.symbols()
    k, r, p = s["k"], s["r"], s["p"]
    q, slack = sp.symbols("q s", positive=True)
    indep = at.derive_independent().ratio
    diff = ((at.derive_random_crash().ratio - indep)
            .subs(k, (p * r + slack) / (1 - p) - 1).subs(p, 1 - q))  # the kernel simplifies
    return proved(sum_of_squares(diff, [(sp.factor(sp.simplify(diff)), 1)], positive=[q, r, slack],
                                 nonzero=[q, slack + r], note="q = 1 - p, k + 1 = (p r + s)/q"))


# ---------------------------------------------------------------- claim 1 by model checking
def _code(vector, base: int) -> int:
    return sum(x * base ** i for i, x in enumerate(vector))


def _model_check_claim(domains: int, epochs: int = 2, epoch: int = 1):
    from fito.models import claim1

    try:
        derived = claim1.model_check(domains, epochs, epoch)
    except claim1.CheckFailure as exc:
        return unknown(str(exc))
    if not derived.decided:
        return unknown("; ".join(derived.unknown) or "the candidate vectors are not shown complete")
    f = forms()
    base = epochs + 1
    codes = sorted(_code(v, base) for v in derived.reachable)
    verdicts = trusted("fito", f"fito check (k = {domains}, n = {epochs}, e = {epoch}): the crash-time "
                               f"vectors stay in W^k (holds) and exactly these are reachable: "
                               f"{[list(v) for v in derived.reachable]}; {{e-1, e}}^k invariant: "
                               f"{derived.paper_invariant}; {derived.states} states")
    expected_mixed = int(f.mixed_in_window.subs(f.k, domains))
    if set(derived.reachable) != set(lat.crash_window(lat.EpochLattice(domains, epochs), epoch)) \
            or derived.mixed != expected_mixed:
        return refuted(verdicts, reason=f"reachable {derived.reachable}, {derived.mixed} mixed")
    box = [(sp.Symbol(f"x{i}"), epoch - 1, epoch) for i in range(1, domains + 1)]
    xs = [x for x, _, _ in box]
    code = sum(x * base ** i for i, x in enumerate(xs))
    return proved(verdicts,
                  enumeration(box, "set", codes, expr=code,
                              note=f"the derived set is {{e-1, e}}^k (vector codes in base {base})"),
                  enumeration(box, "count", derived.mixed, where=sp.Not(_all_equal(xs)),
                              note="its mixed vectors: 2^k - 2"))


for _k in range(1, K_MAX + 1):
    register(Claim(
        f"claim1.model-check.k{_k}", f"crash window of {_k} domains by model checking",
        f"While epoch e is written by {_k} domains that persist it in any interleaving, with a "
        f"crash possible in any state, the durable vectors a crash can find are exactly "
        f"{{e-1, e}}^{_k}, of which 2^{_k} - 2 = {2 ** _k - 2} are mixed (fito check on a spec "
        f"generated by fito.models.claim1, n = 2, e = 1; the checker's verdicts are trusted, "
        f"the set and the count are re-checked by the kernel).",
        f"fito.models.claim1.spec({_k}, 2, 1)", "model-checking",
        functools.partial(_model_check_claim, _k), timeout=600))
