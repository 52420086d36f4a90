"""Definite integrals by the fundamental theorem of calculus: the certificate gives an
antiderivative F, the kernel differentiates it (polynomials in x times exponentials
exp(u), u polynomial, the only functions of x allowed), compares F' with the integrand as
rational functions, and evaluates F at the bounds; an upper bound "oo" keeps the terms free
of x and drops those multiplied by exp(c x + ...) with c < 0 for every value of the
positive symbols (they tend to 0), refusing anything else. Standard library only."""

from __future__ import annotations

from typing import Any

from fito.proof.kernel import poly as P
from fito.proof.kernel import props
from fito.proof.kernel.checks import (
    assert_same_rf,
    expr_list,
    fields,
    normalizer,
    not_same,
    symbol_list,
)
from fito.proof.kernel.expr import KernelError, is_symbol, parse, substitute, symbols, to_json
from fito.proof.kernel.linear import rf_sign
from fito.proof.kernel.normal import DEPENDS, EXP_ARGS, Normalizer

Json = Any
INFINITY = "oo"


def _d_poly(p: P.Poly, x: str) -> P.Poly:
    """d/dx of a polynomial whose atoms are x-free or exponentials exp(u(x))."""
    out: P.Poly = {}
    for mono, c in p.items():
        for i, (v, e) in enumerate(mono):
            rest = mono[:i] + ((v, e - 1),) + mono[i + 1 :] if e > 1 else mono[:i] + mono[i + 1 :]
            if v == x:
                out = P.add(out, {rest: c * e})
            elif v in EXP_ARGS and x in _deps(v):
                inner = _d_poly(EXP_ARGS[v], x)  # d exp(u)^e = e exp(u)^(e-1) exp(u) u'
                out = P.add(out, P.mul({rest: c * e}, P.mul(P.var(v), inner)))
            elif x in _deps(v):
                raise KernelError(f"cannot differentiate {v} in {x}")
    return out


def _deps(v: str) -> frozenset[str]:
    return DEPENDS.get(v, frozenset())


def derivative(rf: P.RF, x: str, norm: Normalizer) -> P.RF:
    """(N/D)' = (N' D - N D') / D^2."""
    num, den = rf
    d_num, d_den = _d_poly(num, x), _d_poly(den, x)
    top = P.sub(P.mul(d_num, den), P.mul(num, d_den))
    return norm.canonical(top), norm.canonical(P.mul(den, den))


def _free_of(p: P.Poly, x: str) -> bool:
    return all(v != x and x not in _deps(v) for m in p for v, _ in m)


def _at_infinity(rf: P.RF, x: str, positive: set[str], nonneg: set[str]) -> P.RF:
    """lim F as x -> oo: x-free terms stay, polynomial times decaying exponential vanish."""
    num, den = rf
    if not _free_of(den, x):
        raise KernelError("the antiderivative's denominator depends on the variable")
    kept: P.Poly = {}
    for mono, c in num.items():
        if all(v != x and x not in _deps(v) for v, _ in mono):
            kept[mono] = c
            continue
        exps = [v for v, _ in mono if v in EXP_ARGS and x in _deps(v)]
        others = [v for v, _ in mono if v != x and v not in exps and x in _deps(v)]
        if len(exps) != 1 or others:
            raise KernelError("a term of the antiderivative has no limit the kernel can see")
        u = EXP_ARGS[exps[0]]
        if P.degree(u) > 1 and any(sum(e for w, e in m if w == x) > 1 for m in u):
            raise KernelError("an exponent is not linear in the variable")
        slope = {tuple(t for t in m if t != (x, 1)): c2 for m, c2 in u.items() if (x, 1) in m}
        if not _free_of(slope, x) or rf_sign((slope, P.const(1)), positive, nonneg) != "neg":
            raise KernelError(f"exp({P.poly_str(u)}) is not shown to decay as {x} -> oo")
    return kept, den


def check_integral(ob: dict) -> Json:
    """integral_lo^hi integrand dx = value, by F' = integrand and F(hi) - F(lo)."""
    fields(
        ob,
        ("var", "lo", "hi", "integrand", "antiderivative", "value"),
        ("nonzero", "positive", "nonneg"),
    )
    x = ob["var"]
    if not is_symbol(x):
        raise KernelError("var must be a symbol")
    positive = set(symbol_list(ob.get("positive", []), "positive"))
    nonneg = set(symbol_list(ob.get("nonneg", []), "nonneg"))
    f, big_f, value = parse(ob["integrand"]), parse(ob["antiderivative"]), parse(ob["value"])
    lo = parse(ob["lo"])
    hi = None if ob["hi"] == INFINITY else parse(ob["hi"])
    if x in symbols(value) | symbols(lo) | (symbols(hi) if hi is not None else set()):
        raise KernelError(f"{x} occurs in a bound or in the value")
    if x not in symbols(f):
        raise KernelError(f"trivial: the integrand does not depend on {x}")
    not_same(f, big_f, "the integrand and the antiderivative")
    norm = normalizer(ob, positive)
    if not _free_of(norm.rf(big_f)[1], x):
        raise KernelError(
            f"the antiderivative divides by an expression in {x}: it could have "
            "a pole between the bounds"
        )
    assert_same_rf(norm, derivative(norm.rf(big_f), x, norm), norm.rf(f), "F' != integrand")
    upper = (
        _at_infinity(norm.rf(big_f), x, positive, nonneg)
        if hi is None
        else norm.rf(substitute(big_f, {x: hi}))
    )
    lower = norm.rf(substitute(big_f, {x: lo}))
    difference = P.rf_add(upper, P.rf_neg(lower))
    assert_same_rf(norm, difference, norm.rf(value), "F(hi) - F(lo) != value")
    conds = expr_list(ob.get("nonzero", []), "nonzero")
    bounds = [lo] + ([hi] if hi is not None else [])
    bound = props.binders([f, value, *bounds, *conds], positive=positive, nonneg=nonneg)
    bound = [b for b in bound if b[0] != x]
    integral = ["integral", x, to_json(lo), INFINITY if hi is None else to_json(hi), to_json(f)]
    return props.forall(
        bound, props.implies(props.nonzero_hypotheses(conds), ["=", integral, to_json(value)])
    )
