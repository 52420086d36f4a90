"""Paper A, claim 1: no instant is an atomicity boundary.

- `claim1.mixed-count`: 2^k - 2 of the crash window {e-1, e}^k are mixed, for every k (a
  recurrence whose step follows the window's definition) and counted by the kernel.
- `claim1.model-check.k<k>`: the model of `fito.models.epochs.boundaries` (k domains persist epochs
  in any interleaving, a crash possible in every state) as a transition system the kernel
  walks itself: the durable vectors a crash finds while epoch e is written are exactly
  {e-1, e}^k (the paper's set, written here), 2^k - 2 of them mixed. `fito check` on the
  generated .fito spec must agree, else the claim is unknown.
- `claim1.every-instant.k<k>`: with unbounded write delays, at every instant t after the
  write of e starts there are schedules whose durable state at t is mixed (k >= 2),
  all-old and all-new: explicit delays as functions of s and t, and a linear proof.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

from fito.models.epochs import boundaries as c1
from fito.models.epochs import lattice as lat
from fito.proof import (
    Claim,
    claim,
    enumeration,
    instance,
    prove_linear,
    proved,
    reachability,
    recurrence,
    register,
    unknown,
)

K_MAX = 6
EPOCHS, EPOCH = 2, 1
PAPER_WINDOW_MIXED = ["-", ["^", 2, "k"], 2]  # PAPERS.md: 2^k - 2 of {e-1, e}^k are mixed
Json = Any


def paper_window(k: int, e: int) -> list[tuple[int, ...]]:
    """{e-1, e}^k as the paper writes it."""
    return list(itertools.product((e - 1, e), repeat=k))


def _not_all_equal(xs: list[str]) -> Json:
    return ["not", ["and", *(["=", x, xs[0]] for x in xs[1:])]]


@claim(
    id="claim1.mixed-count",
    title="2^k - 2 of {e-1, e}^k are mixed",
    method="sympy+induction+enumeration",
    model="the crash window {e-1, e}^k, k >= 1",
)
def window_mixed_count():
    """2^k - 2 vectors of {e-1, e}^k are mixed for every k >= 1: W(1) = 0, and a vector of
    {e-1, e}^(k+1) is mixed iff its first k coordinates are (2 ways to append) or they are
    consistent (2 vectors) and the appended epoch differs (1 way): W(k+1) = 2 W(k) + 2 * 1,
    the counts taken from the window's definition (fito.models.epochs.lattice.steps). Counted by
    the kernel for k = 2..6."""
    st = lat.steps()
    step = [
        "+",
        ["*", "prev", st.window_extensions],
        ["*", st.window_consistent, st.window_breaking],
    ]
    counts = []
    for k in range(2, K_MAX + 1):
        box = [(f"x{i}", 0, 1) for i in range(1, k + 1)]
        counts.append(
            enumeration(
                box,
                "count",
                instance(PAPER_WINDOW_MIXED, {"k": k}),
                where=_not_all_equal([x for x, _, _ in box]),
                note=f"k = {k}",
            )
        )
    return proved(recurrence("k", 1, initial=0, step=step, closed=PAPER_WINDOW_MIXED), *counts)


# ---------------------------------------------------------------- by model checking
def model_check(domains: int, epochs: int = EPOCHS, epoch: int = EPOCH):
    """The kernel walks the model's reachable states; fito check must agree."""
    system = c1.transition_system(domains, epochs)
    saved = [f"saved{i}" for i in range(1, domains + 1)]
    base = epochs + 1
    at_crash = ["and", ["=", "crashed", 1], ["=", "writing", epoch]]
    window = sorted(sum(x * base**i for i, x in enumerate(v)) for v in paper_window(domains, epoch))
    obligations = [
        reachability(
            system,
            "set",
            window,
            expr=c1.vector_code(saved, base),
            where=at_crash,
            note=f"the durable vectors at a crash while e = {epoch} is "
            f"written, as codes in base {base}: exactly {{e-1, e}}^k",
        )
    ]
    if domains >= 2:
        obligations.append(
            reachability(
                system,
                "count",
                instance(PAPER_WINDOW_MIXED, {"k": domains}),
                where=["and", at_crash, _not_all_equal(saved)],
                note="the mixed ones: 2^k - 2 "
                "(states counted: the writing and crash flags are fixed)",
            )
        )
    try:
        derived = c1.model_check(domains, epochs, epoch)
    except c1.CheckFailure as exc:
        return unknown(f"fito check could not cross-check: {exc}")
    if not derived.decided or set(derived.reachable) != set(paper_window(domains, epoch)):
        return unknown(
            f"fito check disagrees with the kernel's walk: reachable "
            f"{derived.reachable}, {'; '.join(derived.unknown)}"
        )
    return proved(*obligations)


for _k in range(1, K_MAX + 1):
    register(
        Claim(
            f"claim1.model-check.k{_k}",
            f"crash window of {_k} domains by model checking",
            f"While epoch e = {EPOCH} is written by {_k} domains that persist it in any "
            f"interleaving, with a crash possible in any state, the durable vectors a crash can "
            f"find are exactly {{e-1, e}}^{_k}"
            + (f", of which 2^{_k} - 2 = {2**_k - 2} are mixed" if _k >= 2 else "")
            + f" (the kernel walks the reachable states of the model's transition system, "
            f"n = {EPOCHS}; fito check on the generated spec agrees).",
            f"fito.models.epochs.boundaries.transition_system({_k}, {EPOCHS}) "
            f"and spec({_k}, {EPOCHS}, {EPOCH})",
            "model-checking",
            functools.partial(model_check, _k),
            timeout=600,
        )
    )


# ---------------------------------------------------------------- at every instant
def every_instant(domains: int):
    """Schedules (delays X_d > 0, functions of s and t) for each kind of durable state."""
    holds = c1.durable_at(domains)  # domain d holds e at t iff s + X_d <= t
    gap = ["-", "t", "s"]
    fast, slow = ["/", gap, 2], ["*", 2, gap]  # durable before t, durable after t
    schedules = {"all-new": [fast] * domains, "all-old": [slow] * domains}
    if domains >= 2:
        schedules["mixed"] = [fast] + [slow] * (domains - 1)
    states = {
        "all-new": ["and", *holds],
        "all-old": ["and", *(["not", h] for h in holds)],
        "mixed": ["and", ["or", *holds], ["or", *(["not", h] for h in holds)]],
    }
    parts = []
    for name, delays in schedules.items():
        values = {f"X{d}": x for d, x in enumerate(delays, start=1)}
        positive = ["and", *([">", x, 0] for x in delays)]
        parts.append(instance(["and", positive, states[name]], values))
    formula = ["implies", ["<", "s", "t"], ["and", *parts]]
    return prove_linear(
        formula,
        note=f"schedules for {', '.join(schedules)}: X_d = (t - s)/2 "
        f"(durable by t) or 2 (t - s) (not yet)",
    )


for _k in range(1, K_MAX + 1):
    register(
        Claim(
            f"claim1.every-instant.k{_k}",
            f"every instant is mixed, all-old or all-new ({_k} domains)",
            f"The write of epoch e starts at s and domain d makes it durable at s + X_d, with any "
            f"delay X_d > 0 (unbounded); at instant t domain d holds e iff s + X_d <= t. For all "
            f"s < t there are delays making the durable state of the {_k} domains at t "
            + ("mixed, " if _k >= 2 else "")
            + "all-old, and all-new: no instant is an "
            "atomicity boundary.",
            f"{_k} domains, timed persist events with unbounded delays",
            "farkas",
            functools.partial(every_instant, _k),
        )
    )
