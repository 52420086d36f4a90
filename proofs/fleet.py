"""Paper B: phase-blind fleets. Theorems 4 and 8, Propositions 14 and 16, discharged.

Every map below is derived by the return-map engine (`fito.models.returnmap`) from the
event equations of a branch, never from the paper's formula; the paper's formula is
written here, independently, and the kernel checks that the two agree:
- gap maps as identities in the section state x (a'_i = lambda_i a_i), with the engine's
  inverse chart checked as a right inverse (so the gaps chart the section);
- determinants and spectra as identities and matrix facts (spectra re-checked as matrix
  facts for small sizes; larger N rely on the identities, which make the map diagonal, and
  on an enumeration count of the expanding multipliers);
- regions as witness points (every branch occurs), Farkas/linear_valid for linear lemmas;
- branch enumerations (Theorem 4) as one identity and one witness per two-cycle branch,
  with the pruning of empty prefixes (nonlinear in the parameters) as Z3's trusted word.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import sympy as sp

from fito.models.fleet_branches import enumerate_branches, firing_orders
from fito.models.fleet_linear import f_sub
from fito.models.fleet_maps import gap_chart
from fito.models.fleet_proofs import (
    assumptions_json,
    chart_identities,
    next_gap_identities,
    region_formula,
    state_symbols,
    to_sympy,
    witness_assignment,
)
from fito.models.fleet_solve import SAT, instantiate
from fito.models.returnmap import (
    derive,
    overlapping,
    setting_from_fleet,
    staggered,
    symbolic_setting,
)
from fito.proof import (
    Claim,
    claim,
    conjunction,
    enumeration,
    identity,
    matrix_facts,
    prove_linear,
    proved,
    recurrence,
    register,
    trusted,
    unknown,
    witness,
)

N_MAX = 32          # Theorem 8 by the engine for N = 2..N_MAX
N_STAGGER = 12      # Proposition 16 by the engine for N = 2..N_STAGGER (symbolic f and C)
SPECTRUM_DIM = 12   # rational spectra re-checked as matrix facts up to this size (the kernel's
                    # Faddeev-LeVerrier costs ~n^4; beyond it identities and counts suffice)
SYMBOLIC_SPECTRUM_DIM = 6  # symbolic spectra: the kernel expands prod (t - lambda_j), 2^n terms


def claim_id(id: str, title: str, model: str, method: str = "sympy"):
    """@claim with the statement taken from the docstring."""
    return claim(id=id, title=title, model=model, method=method)


def paper_lambda(N: int, j: int, f) -> sp.Expr:
    """Theorem 8 as the paper states it: lambda_j = (N - j) f(j) / (j f(N - j))."""
    return sp.Integer(N - j) * f(j) / (j * f(N - j))


def f_symbol(n: int) -> sp.Symbol:
    return sp.Symbol(f"f{n}", positive=True)


def _params_nonzero(setting) -> list:
    return list(setting.symbols)


def _identities(pairs, nonzero, note: str) -> list:
    return [identity(lhs, rhs, nonzero=nonzero, note=f"{note} {i}")
            for i, (lhs, rhs) in enumerate(pairs, start=1)]


def _instance_witness(der, values: dict[str, Fraction], note: str):
    """A witness of the branch region with the parameters fixed at rational values: the
    formula is the region with those values substituted (an LRA problem for the state)."""
    from sympy import QQ

    from fito.models.fleet_linear import Constraint
    from fito.models.fleet_linear import witness as lra

    ordered = [values[str(s)] for s in der.setting.symbols]
    numeric = [Constraint(instantiate(c.form, der.K, ordered), c.why) for c in der.constraints]
    status, point = lra(numeric, der.m, QQ)
    if status != SAT:
        return None
    assignment = {f"x{j}": v for j, v in enumerate(point, start=1)}
    shown = ", ".join(f"{k} = {v}" for k, v in values.items())
    return witness(region_formula(numeric, QQ, der.m), assignment, note=f"{note} ({shown})")


# ---------------------------------------------------------------- Theorem 8, N = 2..32
@functools.cache
def _overlapping(N: int):
    """The engine's derivation of the overlapping branch with general f, and its chart."""
    der = derive(symbolic_setting(N, "general"), overlapping(N))
    return der, gap_chart(der)


def _theorem8_general(N: int):
    """Obligations for general f: the engine's gap map is diag(lambda_j) with det 1."""
    der, chart = _overlapping(N)
    if chart is None or not der.is_return_map:
        return None, "the overlapping branch has no gap chart"
    gaps, inverse = chart
    lam = [paper_lambda(N, j, f_symbol) for j in range(1, N)]
    nz = list(der.setting.symbols)
    obligations = _identities(next_gap_identities(der, gaps, lam), nz, "a'_j = lambda_j a_j, j =")
    obligations += _identities(chart_identities(gaps, inverse, der.K), nz,
                               "chart: T x(a) + c = a, row")
    obligations.append(identity(sp.Mul(*lam), 1, nonzero=nz, note="det = prod lambda_j = 1"))
    obligations += [identity(lam[j - 1] * lam[N - j - 1], 1, nonzero=nz,
                             note=f"reciprocal pair lambda_{j} lambda_{N - j} = 1")
                    for j in range(1, N // 2 + 1)]
    if N - 1 <= SYMBOLIC_SPECTRUM_DIM:  # the kernel expands prod (t - lambda_j): 2^(N-1) terms
        obligations.append(matrix_facts(sp.diag(*lam), det=1, eigenvalues=lam, nonzero=nz,
                                        note="diag(lambda): det and spectrum recomputed"))
    else:
        obligations.append(matrix_facts(sp.diag(*lam), det=1, nonzero=nz,
                                        note="diag(lambda): det recomputed"))
    values = {"W": Fraction(100), "V": Fraction(10)}
    values.update({f"f{n}": 1 + Fraction(1, n) for n in range(1, N + 1)})
    wit = _instance_witness(der, values, "the branch occurs")
    if wit is None:
        return None, "no witness of the overlapping region"
    return obligations + [wit], ""


def _theorem8_constant(N: int):
    """Constant f = B: the identities above hold for all f, so at f(n) = B the multipliers are
    lambda_j(B) = (N-j)/j; ceil(N/2) - 1 of them exceed 1, the largest is N - 1."""
    B = sp.Symbol("B", positive=True)
    lam_b = [paper_lambda(N, j, lambda n: B) for j in range(1, N)]
    lam = [sp.Rational(N - j, j) for j in range(1, N)]
    obligations = [identity(a, b, nonzero=[B], note=f"f = B: lambda_{j} = (N - j)/j")
                   for j, (a, b) in enumerate(zip(lam_b, lam), start=1)]
    expanding = math.ceil(N / 2) - 1
    j = sp.Symbol("j")
    if N - 1 <= SPECTRUM_DIM:
        x = sp.Symbol("x")
        obligations.append(matrix_facts(sp.diag(*lam), det=1, eigenvalues=lam,
                                        count=(x, sp.Abs(x) > 1, expanding),
                                        note=f"{expanding} expanding directions"))
    obligations.append(enumeration([(j, 1, N - 1)], "count", expanding, where=(N - j) / j > 1,
                                   note="expanding directions: (N - j)/j > 1"))
    obligations.append(enumeration([(j, 1, N - 1)], "max", N - 1, expr=(N - j) / j,
                                   note="the largest multiplier"))
    return obligations


def theorem8(N: int):
    general, reason = _theorem8_general(N)
    if general is None:
        return unknown(reason)
    return proved(*general, *_theorem8_constant(N))


for _N in range(2, N_MAX + 1):
    register(Claim(
        f"fleet.theorem8.N{_N}", f"Theorem 8 for N = {_N}",
        f"N = {_N} identical jobs, uncapped, fully overlapping (job 1 still writes when job N "
        f"fires and every write ends before job 1 fires again). For every f: the return map of "
        f"the gaps a_j = t_(j+1) - t_j derived from the event equations is a'_j = lambda_j a_j "
        f"with lambda_j = (N-j) f(j) / (j f(N-j)); its determinant is 1 (reciprocal pairs "
        f"lambda_j lambda_(N-j) = 1); the branch occurs. For constant f the multipliers are "
        f"(N-j)/j: ceil(N/2) - 1 = {math.ceil(_N / 2) - 1} expanding directions, the largest "
        f"N - 1 = {_N - 1}.",
        f"fleet of {_N} jobs, overlapping branch, symbols W, V, f1..f{_N} (and B)", "sympy",
        functools.partial(theorem8, _N), timeout=120))


# ---------------------------------------------------------------- Theorem 8, symbolic N
_NS, _j, _m, _k = sp.symbols("N j m k")  # _NS: the symbolic N (loops bind _NS to integers)
_F, _G, _a, _prev = sp.symbols("F G a prev")  # F = f(j), G = f(N - j): free atoms


def _lam(j, F, G):
    """lambda_j with F = f(j) and G = f(N - j)."""
    return (_NS - j) * F / (j * G)


@claim_id("fleet.theorem8.symbolic-N.step", "Theorem 8 for every N: the tail step",
          "the write tail of the overlapping branch, symbolic N, m, a_m, f(m), f(N-m)")
def theorem8_step():
    """For every N >= 2 and 1 <= m <= N-1: when writer m finishes, writer m+1 has a_m f(m)/m
    left (both drained at the same rate since t_(m+1)), and N - m writers remain, each at
    f(N-m)/(N-m); so the next finish comes b_m = lambda_m a_m later, and (uncapped, every
    job recomputes W at rate 1) the new gap is a'_m = b_m = (N-m) f(m)/(m f(N-m)) a_m."""
    left = _a * _F / _m
    b = left / (_G / (_NS - _m))
    return proved(identity(b, _lam(_m, _F, _G) * _a, nonzero=[_m, _NS - _m, _F, _G],
                           note="b_m = (a_m f(m)/m) / (f(N-m)/(N-m)) = lambda_m a_m"))


@claim_id("fleet.theorem8.symbolic-N.reciprocal", "Theorem 8 for every N: reciprocal pairs",
          "lambda_j = (N-j) f(j) / (j f(N-j)), symbolic N, j, f")
def theorem8_reciprocal():
    """For every N, every 1 <= j <= N-1 and every positive f: lambda_j lambda_(N-j) = 1
    (lambda_(N-j) has f(N-j) where lambda_j has f(j): anonymity, not fairness); the middle
    multiplier lambda_(N/2) of an even N is 1; and j -> N - j maps 1..N-1 onto itself."""
    pair = _lam(_j, _F, _G) * _lam(_NS - _j, _G, _F)
    middle = _lam(_k, _F, _F).subs(_NS, 2 * _k)
    involution = prove_linear(sp.Implies(sp.And(_j >= 1, _j <= _NS - 1),
                                         sp.And(_NS - _j >= 1, _NS - _j <= _NS - 1)))
    return conjunction(
        proved(identity(pair, 1, nonzero=[_j, _NS - _j, _F, _G], note="lambda_j lambda_(N-j) = 1"),
               identity(middle, 1, nonzero=[_k, _F], note="N = 2k: lambda_k = 1")),
        involution)


@claim_id("fleet.theorem8.symbolic-N.det-one", "Theorem 8 for every N: determinant 1",
          "prod_(j=1..N-1) lambda_j, symbolic N, paired as (j, N - j)")
def theorem8_det():
    """For every N >= 2 and every positive f, det = prod_(j=1..N-1) lambda_j = 1: the
    involution j -> N-j splits 1..N-1 into floor((N-1)/2) pairs (j, N-j) and, for even N,
    the fixed point N/2; by induction over the pairs, P(0) = 1 and P(k+1) = P(k)
    lambda_(k+1) lambda_(N-k-1) = P(k), and the fixed point contributes lambda_(N/2) = 1."""
    step = _prev * _lam(_k + 1, _F, _G) * _lam(_NS - _k - 1, _G, _F)
    return proved(recurrence(_k, 0, initial=1, step=step, closed=1, prev=_prev,
                             nonzero=[_k + 1, _NS - _k - 1, _F, _G],
                             note="P(k) = product over the first k pairs"),
                  identity(_lam(_k, _F, _F).subs(_NS, 2 * _k), 1, nonzero=[_k, _F],
                           note="fixed point of an even N"))


@claim_id("fleet.theorem8.symbolic-N.expanding", "Theorem 8 for every N: expanding directions",
          "lambda_j = (N-j)/j for constant f, symbolic N")
def theorem8_expanding():
    """For constant f, lambda_j = (N-j)/j exceeds 1 exactly when 2j < N (for j >= 1), so the
    expanding directions are the integers 1 <= j < N/2: ceil(N/2) - 1 of them (checked by
    enumeration for every N up to 400), and lambda_1 = N - 1 is the largest."""
    lin = prove_linear(sp.Implies(sp.And(_j >= 1, _NS - _j > _j), 2 * _j < _NS))
    lin2 = prove_linear(sp.Implies(sp.And(_j >= 1, 2 * _j < _NS), _NS - _j > _j))
    counts = [enumeration([(_j, 1, n - 1)], "count", math.ceil(n / 2) - 1, where=2 * _j < n,
                          note=f"N = {n}") for n in range(2, 401)]
    return conjunction(lin, lin2, proved(*counts))


# ---------------------------------------------------------------- Theorem 4
THEOREM4 = {  # id suffix -> (throughput, cap floor, words)
    "storage": ("general", None, "storage contention, any f(1), f(2), uncapped"),
    "cap": ("linear", 1, "no contention (f(n) = n b), binding cap 1 <= C < 2"),
    "cap-below-one": ("linear", 0, "no contention (f(n) = n b), cap 0 < C < 1"),
    "both": ("general", 1, "any f(1), f(2) and a binding cap 1 <= C < 2"),
    "both-below-one": ("general", 0, "any f(1), f(2) and a cap 0 < C < 1"),
}


def theorem4(kind: str):
    throughput, cap, _ = THEOREM4[kind]
    setting = symbolic_setting(2, throughput, cap_floor=cap)
    result = enumerate_branches(setting, cycles=2)
    if not result.complete:
        return unknown(f"{result.unknown} event prefixes undecided")
    K, nz = setting.domain(), list(setting.symbols)
    x = state_symbols(1)
    obligations = []
    for i, leaf in enumerate(result.leaves, start=1):
        words = " ".join(str(e) for e in leaf.events)
        first, second = leaf.cycles()[:2]
        gap1 = next(t for j, t in first if j == 1)
        gap2 = f_sub(next(t for j, t in second if j == 1), first[-1][1], K)
        obligations.append(identity(to_sympy(gap2, K, x), to_sympy(gap1, K, x), nonzero=nz,
                                    note=f"branch {i} ({words}): delta_(k+1) = delta_k"))
        formula = region_formula(leaf.constraints, K, 1, assumptions_json(setting))
        obligations.append(witness(formula, witness_assignment(leaf.verdict, 1),
                                   note=f"branch {i} occurs"))
    obligations.append(trusted("z3", f"the {len(result.pruned)} other event prefixes from the "
                               f"section (job 0 fires; job 1 computes or writes) have no "
                               f"interior point for any parameters of the regime (nlsat); so "
                               f"the {len(result.leaves)} branches above are every two-cycle "
                               f"event order, up to ties"))
    return proved(*obligations)


for _kind, (_thr, _cap, _words) in THEOREM4.items():
    register(Claim(
        f"fleet.theorem4.{_kind}", f"Theorem 4 (pairwise neutrality): {_kind}",
        f"Two identical jobs, {_words}, W and V symbolic: in every branch of two cycles from a "
        f"firing of job 0 (job 1 computing or writing), the gap to job 1's firing is the same in "
        f"both cycles: the return map of the phase gap is the identity.",
        f"2 jobs, symbols W, V, {'f1, f2' if _thr == 'general' else 'b'}"
        f"{', C' if _cap is not None else ''}", "enumeration+sympy",
        functools.partial(theorem4, _kind), timeout=120))


# ---------------------------------------------------------------- Proposition 14
@claim_id("fleet.prop14.no-meeting", "Proposition 14: two jobs never meet",
          "two identical jobs of any fleet (any N, f, C); positions p, q on the cycle [0, W+V)",
          method="z3+farkas")
def prop14_step():
    """Between two events every computing job advances by the same dc > 0 and every writer by
    the same dw > 0 (anonymous sharing: the rate depends on the phase and the counts only),
    and no job crosses a phase boundary (W, or W + V) inside the step. Then two jobs at
    different positions are at different positions after the step; at an event positions do
    not move (W is both the end of compute and the start of the write, W + V is 0). So no two
    jobs ever meet, and since positions move continuously on the circle, the cyclic order of
    the jobs, hence their cyclic firing order, never changes."""
    p, q, W, V, dc, dw = sp.symbols("p q W V dc dw")
    L = W + V

    def moved(x, compute: bool):
        return x + (dc if compute else dw)

    hyp = [W > 0, V > 0, dc > 0, dw > 0, p >= 0, p < L, q >= 0, q < L, sp.Ne(p, q)]
    cases = []
    for cp in (True, False):
        for cq in (True, False):
            phase = [p < W if cp else p >= W, q < W if cq else q >= W]
            bound = [moved(p, cp) <= (W if cp else L), moved(q, cq) <= (W if cq else L)]
            cases.append(sp.Implies(sp.And(*hyp, *phase, *bound),
                                    sp.Ne(moved(p, cp), moved(q, cq))))
    return prove_linear(sp.And(*cases))


def prop14_branches(capacity):
    """Engine evidence for N = 3: every two-cycle event order keeps the firing order."""
    from pathlib import Path

    from fito.models.fleet import load_fleet

    text = (Path(__file__).resolve().parents[1] / "models" / "overlap.toml").read_text()
    overrides = {"jobs": "3"} | ({"capacity": capacity} if capacity else {})
    setting = setting_from_fleet(load_fleet(text, "overlap", overrides))
    result = enumerate_branches(setting, cycles=2, certify=False)
    if not result.complete:
        return unknown(f"{result.unknown} event prefixes undecided")
    K = setting.domain()
    obligations = []
    for i, leaf in enumerate(result.leaves, start=1):
        first, second = firing_orders(leaf)[:2]
        if first != second:
            return unknown(f"branch {i} changes the firing order: {first} then {second}")
        obligations.append(witness(region_formula(leaf.constraints, K, 2),
                                   witness_assignment(leaf.verdict, 2),
                                   note=f"branch {i} ({' '.join(map(str, leaf.events))}) occurs; "
                                        f"firing order {first} in both cycles"))
    obligations.append(trusted("z3", f"the {len(result.pruned)} other event prefixes have no "
                               f"interior point (LRA); with the {len(result.leaves)} branches "
                               f"above they exhaust the two-cycle event orders, up to ties"))
    return proved(*obligations)


for _cap, _label in ((None, "uncapped"), ("5/2", "capped")):
    register(Claim(
        f"fleet.prop14.branches.N3.{_label}", f"Proposition 14 by enumeration (N = 3, {_label})",
        "Three identical jobs (models/overlap.toml: W = 20, V = 4, f = B = 1"
        f"{', C = 5/2' if _cap else ''}): every two-cycle event order from a firing of job 0 "
        "that occurs fires jobs 1 and 2 in the same order in both cycles.",
        f"3 jobs, numeric, {_label}", "enumeration", functools.partial(prop14_branches, _cap),
        timeout=180))


# ---------------------------------------------------------------- Proposition 16
STAGGER_CAPS = {"uncapped": None, "cap-N-1": "N-1", "cap-1": 1}


def prop16(N: int, cap_key: str):
    cap = STAGGER_CAPS[cap_key]
    floor = N - 1 if cap == "N-1" else cap
    if floor is not None and floor >= N:
        return unknown("no such regime")
    setting = symbolic_setting(N, "general", cap_floor=floor)
    der = derive(setting, staggered(N))
    chart = gap_chart(der)
    if chart is None or not der.is_return_map:
        return unknown("the staggered branch has no gap chart")
    gaps, inverse = chart
    nz, K = list(setting.symbols), der.K
    xs = state_symbols(N - 1)
    obligations = [identity(to_sympy(form, K, xs), xs[j], nonzero=nz,
                            note=f"x'_{j + 1} = x_{j + 1}: the section state returns")
                   for j, form in enumerate(der.next_state)]
    obligations += _identities(next_gap_identities(der, gaps, [1] * (N - 1)), nz,
                               "a'_j = a_j, j =")
    obligations += _identities(chart_identities(gaps, inverse, K), nz, "chart row")
    values = {"W": Fraction(10 * N), "V": Fraction(1),
              "C": Fraction(floor if floor else 1) + Fraction(1, 2)}
    values.update({f"f{n}": Fraction(1) for n in range(1, N + 1)})
    wit = _instance_witness(der, {str(s): values[str(s)] for s in setting.symbols},
                            "the staggered branch occurs")
    if wit is None:
        return unknown("no witness of the staggered region")
    return proved(*obligations, wit)


for _N in range(2, N_STAGGER + 1):
    for _key in STAGGER_CAPS:
        _floor = {"uncapped": None, "cap-N-1": _N - 1, "cap-1": 1}[_key]
        if _key == "cap-1" and _N == 2:
            continue  # the same regime as cap-N-1
        regime = ("uncapped" if _floor is None else
                  f"a power cap {_floor} <= C < {_floor + 1} (computing jobs share C)")
        register(Claim(
            f"fleet.prop16.N{_N}.{_key}", f"Proposition 16 for N = {_N}, {_key}",
            f"{_N} identical jobs, any f, {regime}, W and V symbolic: in the staggered branch "
            f"(every write ends before the next job fires) the state on the section comes back "
            f"unchanged after a cycle, so every gap is preserved and the collision-free set is "
            f"invariant; the branch occurs.",
            f"{_N} jobs, staggered branch, symbols W, V, f1..f{_N}"
            f"{', C' if _floor is not None else ''}", "sympy",
            functools.partial(prop16, _N, _key), timeout=120))


# ---------------------------------------------------------------- section 8.1
@claim_id("fleet.section8.unequal-volumes", "Unequal volumes drift the pairwise gap",
          "2 jobs with their own W0, W1, V0, V1, any f, uncapped, overlapping branch")
def unequal_volumes():
    """Two jobs A (job 0) and B (job 1) with their own work and volume, uncapped, whose writes
    overlap (B fires while A writes, A's write ends first): the gap map derived from the event
    equations is delta' = delta + (V_B - V_A)/f(1) + (W_B - W_A), so the pairwise identity of
    Theorem 4 holds only for V_B = V_A and W_B = W_A; the branch occurs."""
    setting = symbolic_setting(2, "general", volumes="per-job")
    der = derive(setting, overlapping(2))
    chart = gap_chart(der)
    W0, W1, V0, V1, f1 = sp.symbols("W0 W1 V0 V1 f1", positive=True)
    drift = (V1 - V0) / f1 + (W1 - W0)
    nz = list(setting.symbols)
    obligations = _identities(next_gap_identities(der, chart[0], [1], [drift]), nz,
                              "delta' = delta + d, d = (V_B - V_A)/f(1) + (W_B - W_A):")
    values = {"W0": Fraction(10), "W1": Fraction(10), "V0": Fraction(8), "V1": Fraction(9),
              "f1": Fraction(2), "f2": Fraction(2)}
    wit = _instance_witness(der, values, "the branch occurs")
    return proved(*obligations, wit) if wit else unknown("no witness")
