"""Theorem 8's branch for a symbolic number of jobs N: the gap map from the event equations.

`fito.models.fleet.returnmap` steps the events of one N at a time. Here N, the index m of a gap
and the throughput f are symbols, and the overlapping branch is described by its event
pattern: jobs 1..N fire in order (t_1 < ... < t_N, gaps a_j = t_(j+1) - t_j) while job 1
still writes, then the writes end in the firing order, and each job computes W again. The
engine derives from the rate law (a writer drains at f(n)/n with n writers; uncapped, a
computing job runs at g(n)/n = n/n = 1):

- the number of writers in each interval, by counting the events before it (SymPy sums):
  j writers during the gap a_j, N - m after the m-th write ends;
- what writer i has drained at t_N: D_i = sum_(j=i..N-1) a_j f(n_j)/n_j, so writers m and
  m+1 differ by the first term, a_m f(m)/m, and drain alike from t_(m+1) on (S below);
- the time from the end of write m to the end of write m+1 (the difference at the rate
  after the m-th end), and the next firings t'_i = e_i + W / 1: the new gap a'_m.

The result is JSON for the proof kit (the kernel does the algebra), with f(m) written as the
function application ["fn", "f", m] so that f(N - (N - m)) and f(m) are the same atom.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fito.proof import instance, to_expr

Json = Any


@dataclass(frozen=True)
class SymbolicOverlap:
    """The engine's result: a'_m as an unsimplified expression and the multiplier it gives."""

    throughput: str  # "general" (f a function) or "constant" (f = B)
    writers_in_gap: Json  # n_w during a_j, as an expression in j (derived: j)
    writers_after_end: Json  # n_w after the m-th end, in m and N (derived: N - m)
    drained_difference: Json  # D_m - D_(m+1): the first term of D_m
    next_gap: Json  # a'_m, built from the event times (contains the atoms S, e, W, V)
    multiplier: Json  # lambda_m = a'_m / a_m as derived (an expression in m, N, f)
    nonzero: tuple[Json, ...]  # m, N - m and the throughputs that are divided by
    functions: tuple[str, ...]  # positive-valued functions (f), for the kernel


def _counts() -> tuple[Any, Any]:
    """Writers during gap j (j fired, none ended) and after the m-th end (N fired, m ended)."""
    import sympy  # lazy-import: sympy is slow to load

    i, j, m, N = sympy.symbols("i j m N", integer=True, positive=True)
    during = sympy.Sum(1, (i, 1, j)).doit() - sympy.Sum(0, (i, 1, j)).doit()
    after = sympy.Sum(1, (i, 1, N)).doit() - sympy.Sum(1, (i, 1, m)).doit()
    return during, after


def _to_json(e: Any) -> Json:
    return to_expr(e)


def _throughput(throughput: str, n: Json) -> Json:
    """f(n) for the kind of throughput: an unknown positive function, or a constant B."""
    if throughput == "general":
        return ["fn", "f", n]
    if throughput == "constant":
        return "B"
    raise ValueError(f"unknown throughput kind {throughput!r}")


def write_rate(throughput: str, n: Json) -> Json:
    """The per-writer drain rate with n writers: f(n)/n (anonymous sharing)."""
    return ["/", _throughput(throughput, n), n]


def compute_rate() -> Json:
    """The per-job compute rate, uncapped: min(1, C/n_c) = 1 for C >= N."""
    return 1


def overlapping_symbolic(throughput: str = "general") -> SymbolicOverlap:
    """Derive a'_m for the fully overlapping branch with symbolic N and m (1 <= m <= N-1)."""
    during, after = _counts()
    n_gap, n_tail = _to_json(during), _to_json(after)
    rate_gap = write_rate(throughput, instance(n_gap, {"j": "m"}))  # writers during a_m
    first = ["*", "a_m", rate_gap]  # D_m - D_(m+1)
    remaining_m = ["-", "V", ["+", first, "S"]]  # writer m at t_N: V - D_m, D_m = first + S
    remaining_next = ["-", "V", "S"]  # writer m+1 at t_N: V - D_(m+1) = V - S
    # both drain alike after t_N: at writer m's end, writer m+1 has the difference left,
    # drained by the N - m writers that remain at write_rate(N - m)
    tail = ["/", ["-", remaining_next, remaining_m], write_rate(throughput, n_tail)]
    compute = ["/", "W", compute_rate()]  # recompute W at the uncapped rate
    fire_m = ["+", "e", compute]  # t'_m = e_m + W
    fire_next = ["+", ["+", "e", tail], compute]  # t'_(m+1) = e_(m+1) + W
    next_gap = ["-", fire_next, fire_m]
    multiplier = ["/", rate_gap, write_rate(throughput, n_tail)]
    nonzero: list[Json] = ["m", n_tail]
    funcs: tuple[str, ...] = ()
    if throughput == "general":
        nonzero += [["fn", "f", "m"], ["fn", "f", n_tail]]
        funcs = ("f",)
    else:
        nonzero.append("B")
    return SymbolicOverlap(
        throughput, n_gap, n_tail, first, next_gap, multiplier, tuple(nonzero), funcs
    )
