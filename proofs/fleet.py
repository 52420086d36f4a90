"""Paper B: phase-blind fleets. Theorems 4 and 8, Propositions 14 and 16, discharged.

Every map below is derived by the return-map engine (`fito.models.fleet.returnmap`) from the
event equations of a branch, never from the paper's formula. The paper's formula is built
here, as an expression in fresh symbols (`paper_*`, never simplified and never from the
engine's output), and each obligation puts the engine's quantity on one side and the
paper's on the other, converted separately, so that the kernel does the algebra:
- gap maps as identities in the section state x: the engine's gaps (differences of its
  firing times) at its next state (the difference of its two virtual counters) against the
  paper's multiplier times the gaps at x; the engine's inverse chart as a right inverse;
- the engine's gap matrix M entry by entry against diag(lambda_j) of the paper, det M and
  (small N) the spectrum recomputed by the kernel; the engine's eigenvalues against
  lambda_j, their reciprocal pairs and product; the engine's expanding multipliers counted
  by the kernel against ceil(N/2) - 1;
- regions as witness points (every branch occurs), linear_valid for linear lemmas;
- branch enumerations (Theorem 4) as one identity and one witness per two-cycle branch,
  with the pruning of empty prefixes (nonlinear in the parameters) as Z3's trusted word.
The claims for symbolic N (no engine: it works for one N at a time) check the paper's
algebra from the model's rates; the reindexing of a product with N - 1 factors, which the
kernel cannot express, is SymPy's trusted word there.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import sympy as sp

from fito.models.fleet.branches import enumerate_branches, firing_orders
from fito.models.fleet.maps import eigenvalues, gap_chart, gap_map
from fito.models.fleet.proofs import (
    assumptions_json,
    chart_sides,
    diagonal,
    diagonal_chain,
    empty_region,
    form_json,
    gap_map_sides,
    image_constraints,
    instance_witness,
    matrix_json,
    names,
    next_state_json,
    numeric_empty_region,
    region_formula,
    witness_assignment,
)
from fito.models.fleet.returnmap import (
    derive,
    overlapping,
    setting_from_fleet,
    staggered,
    symbolic_setting,
)
from fito.models.fleet.symbolic import overlapping_symbolic
from fito.proof import (
    Claim,
    Outcome,
    claim,
    conjunction,
    enumeration,
    identity,
    instance,
    interval_count,
    matrix_facts,
    product_one,
    prove_identity,
    prove_linear,
    proved,
    range_sign,
    register,
    to_expr,
    unknown,
    witness,
)

N_MAX = 32  # Theorem 8 by the engine for N = 2..N_MAX
N_STAGGER = 12  # Proposition 16 by the engine for N = 2..N_STAGGER (symbolic f and C)
SPECTRUM_DIM = 12  # rational spectra re-checked as matrix facts up to this size (the kernel's
# Faddeev-LeVerrier costs ~n^4; beyond it the diagonal entries are counted)
SYMBOLIC_SPECTRUM_DIM = 6  # symbolic spectra: the kernel expands prod (t - lambda_j), 2^n terms
Json = Any


def claim_id(id: str, title: str, model: str, method: str = "sympy"):
    """@claim with the statement taken from the docstring."""
    return claim(id=id, title=title, model=model, method=method)


# ---------------------------------------------------------------- the paper's formulas
def paper_lambda(N: Json, j: Json, fj: Json, fnj: Json) -> Json:
    """Theorem 8 as PAPERS.md states it: lambda_j = (N - j) f(j) / (j f(N - j)), with
    fj = f(j) and fnj = f(N - j); N and j numbers or symbols. An expression, not simplified."""
    return ["/", ["*", ["-", N, j], fj], ["*", j, fnj]]


def paper_lambda_constant(N: int, j: int) -> Json:
    """Theorem 8 for constant f: lambda_j = (N - j) / j."""
    return ["/", ["-", N, j], j]


def f_name(n: int) -> str:
    return f"f{n}"


def _identities(pairs, nonzero, note: str) -> list:
    return [
        identity(lhs, rhs, nonzero=nonzero, note=note.format(i=i))
        for i, (lhs, rhs) in enumerate(pairs, start=1)
    ]


# ---------------------------------------------------------------- Theorem 8, N = 2..32
def _theorem8_map(N: int, lam: list[Json], nz: list, gm, **spectrum) -> list:
    """The engine's gap map against diag(lam): in x, entry by entry, det M = 1 (and the
    spectrum facts given, recomputed from the same matrix)."""
    der, K = gm.derivation, gm.K
    obligations = _identities(
        gap_map_sides(der, lam),
        nz,
        "a'_{i} = lambda_{i} a_{i}: the engine's gap at its next state "
        "vs the paper's multiplier times the gap",
    )
    obligations += _identities(
        chart_sides(der, gm.x_of_a),
        nz,
        "chart row {i}: the engine's gaps at its inverse chart x(a) give a",
    )
    words = "; its spectrum recomputed (det(t I - M))" if spectrum else ""
    obligations.append(
        matrix_facts(
            matrix_json(gm.M, K),
            equals=diagonal(lam),
            det=1,
            nonzero=nz,
            **spectrum,
            note=f"the engine's gap matrix M = diag(lambda_j) entry by "
            f"entry; det M recomputed by the kernel = 1{words}",
        )
    )
    return obligations


def _theorem8_general(N: int):
    """Obligations for general f: the engine's gap map is diag(lambda_j) with det 1."""
    setting = symbolic_setting(N, "general")
    der = derive(setting, overlapping(N))
    gm = gap_map(der)
    if gm is None:
        return None, "the overlapping branch has no gap chart"
    lam = [paper_lambda(N, j, f_name(j), f_name(N - j)) for j in range(1, N)]
    nz = list(setting.symbols)
    # the kernel expands prod (t - lambda_j): 2^(N-1) terms, so the spectrum for small N only
    spectrum = {"eigenvalues": lam} if N - 1 <= SYMBOLIC_SPECTRUM_DIM else {}
    obligations = _theorem8_map(N, lam, nz, gm, **spectrum)
    eig = [to_expr(e) for e in eigenvalues(gm)]
    obligations += [
        identity(e, lam[j], nonzero=nz, note=f"the engine's eigenvalue {j + 1} = lambda_{j + 1}")
        for j, e in enumerate(eig)
    ]
    obligations += [
        identity(
            ["*", eig[j - 1], eig[N - j - 1]],
            1,
            nonzero=nz,
            note=f"reciprocal pair of the engine's eigenvalues {j}, {N - j}",
        )
        for j in range(1, (N + 1) // 2)
    ]
    if N > 3:  # N = 3: the one reciprocal pair above is the whole product
        obligations.append(
            identity(
                ["*", *eig], 1, nonzero=nz, note="the product of the engine's eigenvalues is 1"
            )
        )
    values = {"W": Fraction(100), "V": Fraction(10)}
    values.update({f"f{n}": 1 + Fraction(1, n) for n in range(1, N + 1)})
    wit = instance_witness(der, values, "the branch occurs")
    if wit is None:
        return None, "no witness of the overlapping region"
    return obligations + [wit], ""


def _theorem8_constant(N: int):
    """Constant f = B, derived again by the engine: its multipliers are (N-j)/j; the kernel
    counts ceil(N/2) - 1 of modulus > 1 among them, the largest N - 1."""
    setting = symbolic_setting(N, "constant")
    gm = gap_map(derive(setting, overlapping(N)))
    if gm is None:
        return None
    lam = [paper_lambda_constant(N, j) for j in range(1, N)]
    expanding = math.ceil(N / 2) - 1  # the paper's count
    spectrum = {}
    if N - 1 <= SPECTRUM_DIM:  # the engine's eigenvalues, and how many have modulus > 1
        x = sp.Symbol("x")
        spectrum = {
            "eigenvalues": [to_expr(e) for e in eigenvalues(gm)],
            "count": (x, sp.Abs(x) > 1, expanding),
        }
    obligations = _theorem8_map(N, lam, list(setting.symbols), gm, **spectrum)
    diag = diagonal_chain([row[i] for i, row in enumerate(matrix_json(gm.M, gm.K))], "j")
    obligations.append(
        enumeration(
            [("j", 1, N - 1)],
            "count",
            expanding,
            where=[">", ["abs", diag], 1],
            note="f = B: entries of the engine's diagonal M of modulus "
            "> 1 (expanding directions) = ceil(N/2) - 1",
        )
    )
    obligations.append(
        enumeration(
            [("j", 1, N - 1)],
            "max",
            N - 1,
            expr=diag,
            note="f = B: the largest entry of the engine's M is N - 1",
        )
    )
    return obligations


def theorem8(N: int):
    general, reason = _theorem8_general(N)
    if general is None:
        return unknown(reason)
    constant = _theorem8_constant(N)
    if constant is None:
        return unknown("the overlapping branch has no gap chart for constant f")
    return proved(*general, *constant)


for _N in range(2, N_MAX + 1):
    register(
        Claim(
            f"fleet.theorem8.N{_N}",
            f"Theorem 8 for N = {_N}",
            f"N = {_N} identical jobs, uncapped, fully overlapping (job 1 still writes when job N "
            f"fires and every write ends before job 1 fires again). For every f: the return map of "
            f"the gaps a_j = t_(j+1) - t_j derived from the event equations is a'_j = lambda_j a_j "
            f"with lambda_j = (N-j) f(j) / (j f(N-j)); its determinant is 1 (reciprocal pairs "
            f"lambda_j lambda_(N-j) = 1); the branch occurs. For constant f the multipliers are "
            f"(N-j)/j: ceil(N/2) - 1 = {math.ceil(_N / 2) - 1} expanding directions, the largest "
            f"N - 1 = {_N - 1}.",
            f"fleet of {_N} jobs, overlapping branch, symbols W, V, f1..f{_N} (and B)",
            "sympy",
            functools.partial(theorem8, _N),
            timeout=120,
        )
    )


# ---------------------------------------------------------------- Theorem 8, symbolic N
# The engine for symbolic N (fito.models.fleet.symbolic) derives the new gap a'_m from the
# event equations: writer counts by counting events, drained volumes, the tail of the
# writes, the next firings. The paper's lambda is built here from fresh symbols.
def paper_lambda_f(N: Json, j: Json) -> Json:
    """Theorem 8 with f an unknown function: lambda_j = (N - j) f(j) / (j f(N - j))."""
    return paper_lambda(N, j, ["fn", "f", j], ["fn", "f", ["-", N, j]])


def _engine_lambda(throughput: str, m: Json = "m", N: Json = "N") -> tuple[Json, Any]:
    """The engine's multiplier lambda_m = a'_m / a_m at (m, N), and the derivation."""
    der = overlapping_symbolic(throughput)
    return instance(der.multiplier, {"m": m, "N": N}), der


@claim_id(
    "fleet.theorem8.symbolic-N.step",
    "Theorem 8 for every N: the gap map is diagonal",
    "N jobs (N symbolic), uncapped, fully overlapping branch; f an unknown positive function",
)
def theorem8_step():
    """For all integers N >= 2 and 1 <= m <= N-1 and every positive f: the new gap a'_m
    derived from the event equations (writers counted from the events: m during a_m, N - m
    after the m-th write ends; writer m has drained a_m f(m)/m more than writer m+1, whose
    drain after t_(m+1) is S; the next firings come W after the ends) is lambda_m a_m with
    lambda_m = (N-m) f(m)/(m f(N-m)): it depends on a_m alone (S, V, W and the end time e
    cancel), so the gap map is diagonal with the paper's multipliers."""
    der = overlapping_symbolic("general")
    rhs = ["*", paper_lambda_f("N", "m"), "a_m"]
    return prove_identity(
        der.next_gap,
        rhs,
        nonzero=list(der.nonzero),
        positive_functions=der.functions,
        domain=THEOREM8_DOMAIN,
        note="a'_m from the engine's event times vs lambda_m a_m of the paper",
    )


# Where Theorem 8's gap map is meant: N >= 2 jobs, gap 1 <= m <= N-1, positive gaps and
# work, B > 0 (counterexamples are sought there; the identities hold for all reals).
THEOREM8_DOMAIN = (
    [">=", "N", 2],
    [">=", "m", 1],
    ["<=", "m", ["-", "N", 1]],
    [">", "a_m", 0],
    [">", "W", 0],
    [">", "V", 0],
)


def _tied(throughput: str) -> Outcome:
    """The engine's multiplier is its gap map: a'_m (from the event times) = lambda_m a_m.
    Every claim about lambda_m carries this obligation, so a multiplier that is not the
    derived map's (or a gap map changed under it) refutes the claim with a counterexample."""
    lam, der = _engine_lambda(throughput)
    return prove_identity(
        der.next_gap,
        ["*", lam, "a_m"],
        nonzero=list(der.nonzero),
        positive_functions=der.functions,
        domain=THEOREM8_DOMAIN,
        note="the engine's a'_m (event times) = its multiplier lambda_m times a_m",
    )


@claim_id(
    "fleet.theorem8.symbolic-N.reciprocal",
    "Theorem 8 for every N: reciprocal pairs",
    "the engine's multipliers lambda_m, N and m symbolic, f an unknown positive function",
)
def theorem8_reciprocal():
    """For all integers N >= 2 and 1 <= m <= N-1 and every positive f: the engine's
    multipliers pair up, lambda_m lambda_(N-m) = 1 (lambda_(N-m) has f(N-m) where lambda_m
    has f(m): anonymity, not fairness); for N = 2k the middle multiplier lambda_k is 1; and
    m -> N - m maps 1..N-1 onto itself."""
    lam, der = _engine_lambda("general")
    mirror, _ = _engine_lambda("general", m=["-", "N", "m"])
    middle, _ = _engine_lambda("general", m="k", N=["*", 2, "k"])
    nz = list(der.nonzero)
    return conjunction(
        _tied("general"),
        prove_identity(
            ["*", lam, mirror],
            1,
            nonzero=nz,
            positive_functions=der.functions,
            domain=THEOREM8_DOMAIN,
            note="the engine's lambda_m lambda_(N-m) = 1",
        ),
        prove_identity(
            middle,
            1,
            nonzero=["k", ["fn", "f", "k"]],
            positive_functions=der.functions,
            domain=[[">=", "k", 1]],
            note="N = 2k: the engine's lambda_k = 1",
        ),
        _involution(),
    )


def _involution():
    """m -> N - m maps 1..N-1 into (hence onto) itself: linear_valid."""
    N, m = sp.symbols("N m")
    return prove_linear(sp.Implies(sp.And(m >= 1, m <= N - 1), sp.And(N - m >= 1, N - m <= N - 1)))


@claim_id(
    "fleet.theorem8.symbolic-N.det-one",
    "Theorem 8 for every N: determinant 1",
    "the engine's diagonal gap map, N symbolic, f an unknown positive function",
)
def theorem8_det():
    """For every integer N and every positive f: det = prod_(m=1..N-1) lambda_m = 1 for the
    engine's multipliers (the gap map is diagonal). The kernel pairs the factors m and
    N - m: lambda_m lambda_(N-m) = 1 for 1 <= m <= N-1, and each lambda_m > 0 there (m,
    N - m >= 1, f > 0), so the product squared is 1 and the product is positive."""
    lam, der = _engine_lambda("general")
    return conjunction(
        _tied("general"),
        _product_one(lam, der),
    )


def _product_one(lam: Json, der: Any) -> Outcome:
    """prod_(m=1..N-1) lambda_m = 1 by pairing; if the engine's multipliers do not pair, the
    product at the first N = 2..8 where it is not 1, refuted at a point."""
    for n in range(2, 9):
        factors = [instance(lam, {"m": j, "N": n}) for j in range(1, n)]
        at_n = prove_identity(
            ["*", 1, *factors],
            1,
            nonzero=[["fn", "f", j] for j in range(1, n)] if der.functions else ["B"],
            positive_functions=der.functions,
            note=f"N = {n}: the product of the engine's multipliers",
        )
        if at_n.verdict == "refuted":
            return at_n
    return proved(
        product_one(
            "m",
            1,
            ["-", "N", 1],
            lam,
            integers=["N"],
            positive_functions=der.functions,
            note="det of the engine's diagonal gap map",
        )
    )


@claim_id(
    "fleet.theorem8.symbolic-N.expanding",
    "Theorem 8 for every N: expanding directions",
    "the engine's multipliers for constant f = B, N symbolic",
)
def theorem8_expanding():
    """For constant f = B and every integer N >= 2: exactly ceil(N/2) - 1 of the engine's
    multipliers lambda_m (1 <= m <= N-1) exceed 1, and the largest is lambda_1 = N - 1
    (lambda_1 - lambda_m = N (m - 1)/m >= 0)."""
    lam, der = _engine_lambda("constant")
    first, _ = _engine_lambda("constant", m=1)
    paper_count = ["-", ["-", ["floor", ["-", ["/", "N", 2]]]], 1]  # ceil(N/2) - 1
    return conjunction(
        _tied("constant"),
        prove_identity(
            first,
            ["-", "N", 1],
            nonzero=["B", ["-", "N", 1]],
            domain=[[">=", "N", 2], [">", "B", 0]],
            note="the engine's lambda_1 = N - 1 (the paper's largest multiplier)",
        ),
        _expanding(lam, first, paper_count),
    )


def _expanding(lam: Json, first: Json, paper_count: Json) -> Outcome:
    return proved(
        interval_count(
            "m",
            1,
            ["-", "N", 1],
            "N",
            2,
            [">", lam, 1],
            linear=["-", "N", ["*", 2, "m"]],
            factor=["/", 1, "m"],
            value=paper_count,
            positive=["B"],
            note="lambda_m - 1 = (N - 2m)/m: expanding iff 2m < N",
        ),
        range_sign(
            "m",
            1,
            ["-", "N", 1],
            ["-", first, lam],
            ["/", ["*", "N", ["-", "m", 1]], "m"],
            integers=["N"],
            positive=["B"],
            note="lambda_1 - lambda_m >= 0 for 1 <= m <= N-1: N - 1 is the largest",
        ),
    )


# ---------------------------------------------------------------- Theorem 4
THEOREM4 = {  # id suffix -> (throughput, cap floor, words)
    "storage": ("general", None, "storage contention, any f(1), f(2), uncapped"),
    "cap": ("linear", 1, "no contention (f(n) = n b), binding cap 1 <= C < 2"),
    "cap-below-one": ("linear", 0, "no contention (f(n) = n b), cap 0 < C < 1"),
    "both": ("general", 1, "any f(1), f(2) and a binding cap 1 <= C < 2"),
    "both-below-one": ("general", 0, "any f(1), f(2) and a cap 0 < C < 1"),
}


def _pairwise_identity(leaf, K, nz: list, region: Json, point: Any, note: str) -> Outcome:
    """delta_(k+1) = 1 * delta_k: the engine's firing time of job 1 in the second cycle minus
    its end of the first cycle (job 0 fires), against the paper's identity map applied to
    the engine's first gap (job 1's firing time in the first cycle; job 0 fired at 0).
    Refuted by a point of the branch's region where they differ; unknown, with the reason,
    when job 1 does not fire once in each cycle (the gap is then not a return map)."""
    xs = names("x", 1)
    cycles = leaf.cycles()
    if len(cycles) < 2:
        return unknown(f"{note}: the branch has {len(cycles)} cycle(s), not 2")
    first, second = cycles[:2]
    fired = [[t for j, t in c if j == 1] for c in (first, second)]
    if any(len(f) != 1 for f in fired):
        return unknown(
            f"{note}: job 1 fires {len(fired[0])} and {len(fired[1])} times in the two "
            "cycles, not once each: the firing order is not kept, no gap return map"
        )
    (gap1,), (gap2,) = fired
    lhs = ["-", form_json(gap2, K, xs), form_json(first[-1][1], K, xs)]
    return prove_identity(
        lhs,
        ["*", 1, form_json(gap1, K, xs)],
        nonzero=nz,
        domain=[region],
        candidates=[point],
        note=note,
    )


def theorem4(kind: str):
    throughput, cap, _ = THEOREM4[kind]
    setting = symbolic_setting(2, throughput, cap_floor=cap)
    result = enumerate_branches(setting, cycles=2)
    if not result.complete:
        return unknown(f"{result.unknown} event prefixes undecided")
    K, nz = setting.domain(), list(setting.symbols)
    obligations = []
    for i, leaf in enumerate(result.leaves, start=1):
        words = " ".join(str(e) for e in leaf.events)
        formula = region_formula(leaf.constraints, K, 1, assumptions_json(setting))
        point = witness_assignment(leaf.verdict, 1)
        neutral = _pairwise_identity(
            leaf, K, nz, formula, point, f"branch {i} ({words}): delta_(k+1) = delta_k"
        )
        if neutral.verdict != "proved":
            return neutral
        obligations += neutral.obligations
        obligations.append(
            witness(formula, witness_assignment(leaf.verdict, 1), note=f"branch {i} occurs")
        )
    for i, pruned in enumerate(result.pruned, start=1):
        words = " ".join(str(e) for e in pruned.events)
        ob = empty_region(
            pruned.constraints,
            K,
            1,
            setting,
            note=f"pruned prefix {i} ({words}) is empty in the whole regime",
        )
        if ob is None:
            return unknown(f"no Farkas certificate for the pruned prefix {words}")
        obligations.append(ob)
    return proved(*obligations)


for _kind, (_thr, _cap, _words) in THEOREM4.items():
    register(
        Claim(
            f"fleet.theorem4.{_kind}",
            f"Theorem 4 (pairwise neutrality): {_kind}",
            f"Two identical jobs, {_words}, W and V symbolic: in every branch of two cycles from a "
            f"firing of job 0 (job 1 computing or writing), the gap to job 1's firing is the same "
            f"in both cycles: the return map of the phase gap is the identity.",
            f"2 jobs, symbols W, V, {'f1, f2' if _thr == 'general' else 'b'}"
            f"{', C' if _cap is not None else ''}",
            "enumeration+sympy",
            functools.partial(theorem4, _kind),
            timeout=120,
        )
    )


# ---------------------------------------------------------------- Proposition 14
@claim_id(
    "fleet.prop14.no-meeting",
    "Proposition 14: two jobs never meet",
    "two identical jobs of any fleet (any N, f, C); positions p, q on the cycle [0, W+V)",
    method="z3+farkas",
)
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
            cases.append(
                sp.Implies(sp.And(*hyp, *phase, *bound), sp.Ne(moved(p, cp), moved(q, cq)))
            )
    return prove_linear(sp.And(*cases))


def prop14_branches(capacity):
    """Engine evidence for N = 3: every two-cycle event order keeps the firing order."""
    from pathlib import Path

    from fito.models.fleet.oscillators import load_fleet

    text = (Path(__file__).resolve().parents[1] / "models" / "overlap.toml").read_text()
    overrides = {"jobs": "3"} | ({"capacity": capacity} if capacity else {})
    setting = setting_from_fleet(load_fleet(text, "overlap", overrides))
    result = enumerate_branches(setting, cycles=2, certify=True)
    if not result.complete:
        return unknown(f"{result.unknown} event prefixes undecided")
    K = setting.domain()
    obligations = []
    for i, leaf in enumerate(result.leaves, start=1):
        first, second = firing_orders(leaf)[:2]
        if first != second:
            return unknown(f"branch {i} changes the firing order: {first} then {second}")
        obligations.append(
            witness(
                region_formula(leaf.constraints, K, 2),
                witness_assignment(leaf.verdict, 2),
                note=f"branch {i} ({' '.join(map(str, leaf.events))}) occurs; "
                f"firing order {first} in both cycles",
            )
        )
    for i, pruned in enumerate(result.pruned, start=1):
        if pruned.verdict.farkas is None:
            return unknown(f"no Farkas multipliers for the pruned prefix {i}")
        words = " ".join(str(e) for e in pruned.events)
        obligations.append(
            numeric_empty_region(
                pruned.constraints,
                K,
                2,
                pruned.verdict.farkas,
                note=f"pruned prefix {i} ({words}) is empty",
            )
        )
    return proved(*obligations)


# A cap that binds at N = 3: two computing jobs share C = 3/2 (each at 3/4). C = 5/2 or
# C = N - 1 = 2 would bind only when all three compute, which no branch from a firing
# reaches, so those "capped" claims were their uncapped twins (tests/proof/test_binding.py).
CAP_BINDING_N3 = "3/2"
for _capacity, _label in ((None, "uncapped"), (CAP_BINDING_N3, "capped")):
    register(
        Claim(
            f"fleet.prop14.branches.N3.{_label}",
            f"Proposition 14 by enumeration (N = 3, {_label})",
            "Three identical jobs (models/overlap.toml: W = 20, V = 4, f = B = 1"
            f"{', C = 3/2: two computing jobs share it' if _capacity else ''}): every two-cycle "
            "event order from a firing of "
            "job 0 that occurs fires jobs 1 and 2 in the same order in both cycles.",
            f"3 jobs, numeric, {_label}",
            "enumeration",
            functools.partial(prop14_branches, _capacity),
            timeout=180,
        )
    )


# ---------------------------------------------------------------- Proposition 16
STAGGER_CAPS = ("uncapped", "cap-N-1", "cap-1")


def stagger_floor(N: int, cap_key: str) -> int | None:
    """The cap regime floor(C) of a Proposition 16 claim (None: uncapped)."""
    return {"uncapped": None, "cap-N-1": N - 1, "cap-1": 1}[cap_key]


def prop16(N: int, cap_key: str):
    floor = stagger_floor(N, cap_key)
    if floor is not None and floor >= N:
        return unknown("no such regime")
    setting = symbolic_setting(N, "general", cap_floor=floor)
    der = derive(setting, staggered(N))
    chart = gap_chart(der)
    if chart is None or not der.is_return_map:
        return unknown("the staggered branch has no gap chart")
    nz, m = list(setting.symbols), N - 1
    obligations = _identities(
        zip(next_state_json(der), names("x", m)),
        nz,
        "x'_{i} = x_{i}: job {i}'s counter target minus its group's counter "
        "at the end (engine) is its remaining amount at the start",
    )
    obligations += _identities(
        gap_map_sides(der, [1] * m), nz, "a'_{i} = 1 * a_{i}: the engine's gap at its next state"
    )
    obligations += _identities(
        chart_sides(der, chart[1]),
        nz,
        "chart row {i}: the engine's gaps at its inverse chart x(a) give a",
    )
    values = {
        "W": Fraction(10 * N),
        "V": Fraction(1),
        "C": Fraction(floor if floor else 1) + Fraction(1, 2),
    }
    values.update({f"f{n}": Fraction(1) for n in range(1, N + 1)})
    wit = instance_witness(
        der, {str(s): values[str(s)] for s in setting.symbols}, "the staggered branch occurs"
    )
    if wit is None:
        return unknown("no witness of the staggered region")
    return proved(*obligations, wit)


for _N in range(2, N_STAGGER + 1):
    for _key in STAGGER_CAPS:
        _floor = stagger_floor(_N, _key)
        if _key == "cap-1" and _N == 2:
            continue  # the same regime as cap-N-1
        regime = (
            "uncapped"
            if _floor is None
            else f"a power cap {_floor} <= C < {_floor + 1} (computing jobs share C)"
        )
        register(
            Claim(
                f"fleet.prop16.N{_N}.{_key}",
                f"Proposition 16 for N = {_N}, {_key}",
                f"{_N} identical jobs, any f, {regime}, W and V symbolic: in the staggered branch "
                f"(every write ends before the next job fires) the state on the section comes back "
                f"unchanged after a cycle, so every gap is preserved and the collision-free set is "
                f"invariant; the branch occurs.",
                f"{_N} jobs, staggered branch, symbols W, V, f1..f{_N}"
                f"{', C' if _floor is not None else ''}",
                "sympy",
                functools.partial(prop16, _N, _key),
                timeout=120,
            )
        )


# ---------------------------------------------------------------- Proposition 16: from outside
def _staggered_fleet(N: int, capacity: str | None):
    from pathlib import Path

    from fito.models.fleet.oscillators import load_fleet

    name = "staggered_capped" if capacity else "staggered"
    text = (Path(__file__).resolve().parents[1] / "models" / f"{name}.toml").read_text()
    overrides = {"jobs": str(N)} | ({"capacity": capacity} if capacity else {})
    return setting_from_fleet(load_fleet(text, name, overrides))


def prop16_unreachable(setting):
    """Every one-cycle branch other than the staggered one that ends in the staggered chart
    maps its region outside the staggered region (Farkas), and the staggered one maps it
    onto itself (Proposition 16's invariance claims): no state outside reaches it."""
    N, K = setting.jobs, setting.domain()
    m, target = N - 1, derive(setting, staggered(N))
    result = enumerate_branches(setting, cycles=1, certify=False)
    if not result.complete:
        return unknown(f"{result.unknown} event prefixes undecided")
    obligations, others = [], 0
    for leaf in result.leaves:
        if leaf.end_modes != target.branch.modes:
            continue  # ends in another chart (another job writing at the section): outside
        if leaf.modes == target.branch.modes and leaf.events == target.branch.events:
            extra = () if K.is_Numerical else assumptions_json(setting)
            obligations.append(
                witness(
                    region_formula(leaf.constraints, K, m, extra),
                    witness_assignment(leaf.verdict, m),
                    note="the staggered branch itself occurs",
                )
            )
            continue
        others += 1
        words = " ".join(str(e) for e in leaf.events)
        cons = image_constraints(leaf.constraints, leaf.end_state, target.constraints, K)
        note = f"branch {words}: no state of its region lands in the staggered region"
        if K.is_Numerical:
            from fito.models.fleet.linear import farkas as engine_farkas

            y = engine_farkas(cons, m, K)
            ob = None if y is None else numeric_empty_region(cons, K, m, y, note)
        else:
            ob = empty_region(cons, K, m, setting, note)
        if ob is None:
            return unknown(f"no Farkas certificate for the branch {words}")
        obligations.append(ob)
    if not others:
        return unknown("no other branch ends in the staggered chart")
    return proved(*obligations)


UNREACHABLE = {  # id suffix -> (setting, words)
    "N2.uncapped": (
        lambda: symbolic_setting(2, "general"),
        "2 identical jobs, any f, uncapped, W and V symbolic",
    ),
    "N2.capped": (
        lambda: symbolic_setting(2, "general", cap_floor=1),
        "2 identical jobs, any f, a power cap 1 <= C < 2, W and V symbolic",
    ),
    "N3.uncapped": (
        lambda: _staggered_fleet(3, None),
        "3 jobs of models/staggered.toml (W = 10, V = 2, f = B = 1), uncapped",
    ),
    "N3.capped": (
        lambda: _staggered_fleet(3, CAP_BINDING_N3),
        "3 jobs of models/staggered_capped.toml (W = 10, V = 2, f = B = 1), C = 3/2 (binding "
        "whenever two jobs compute: each computes at 3/4)",
    ),
}
for _key, (_make, _words) in UNREACHABLE.items():
    register(
        Claim(
            f"fleet.prop16.unreachable.{_key}",
            f"Proposition 16: not reachable from outside ({_key})",
            f"{_words}: from a firing of job 0, every branch of one cycle other than the staggered "
            f"one that ends with the same jobs computing maps its region outside the staggered "
            f"(collision-free) region; the staggered branch itself occurs. With the invariance of "
            f"fleet.prop16.*, the collision-free set is invariant and no state outside it ever "
            f"enters it (up to ties, which have measure zero).",
            f"staggered chart, one-cycle branches, {_key}",
            "enumeration+farkas",
            functools.partial(lambda make: prop16_unreachable(make()), _make),
            timeout=180,
        )
    )


# ---------------------------------------------------------------- section 8.1
@claim_id(
    "fleet.section8.unequal-volumes",
    "Unequal volumes drift the pairwise gap",
    "2 jobs with their own W0, W1, V0, V1, any f, uncapped, overlapping branch",
)
def unequal_volumes():
    """Two jobs A (job 0) and B (job 1) with their own work and volume, uncapped, whose writes
    overlap (B fires while A writes, A's write ends first): the gap map derived from the event
    equations is delta' = delta + (V_B - V_A)/f(1) + (W_B - W_A), so the pairwise identity of
    Theorem 4 holds only for V_B = V_A and W_B = W_A; the branch occurs."""
    setting = symbolic_setting(2, "general", volumes="per-job")
    der = derive(setting, overlapping(2))
    drift = ["+", ["/", ["-", "V1", "V0"], "f1"], ["-", "W1", "W0"]]  # the paper's, fresh
    obligations = _identities(
        gap_map_sides(der, [1], [drift]),
        list(setting.symbols),
        "delta' = 1 * delta + d, d = (V_B - V_A)/f(1) + (W_B - W_A): the "
        "engine's gap at its next state",
    )
    values = {
        "W0": Fraction(10),
        "W1": Fraction(10),
        "V0": Fraction(8),
        "V1": Fraction(9),
        "f1": Fraction(2),
        "f2": Fraction(2),
    }
    wit = instance_witness(der, values, "the branch occurs")
    return proved(*obligations, wit) if wit else unknown("no witness")
