"""Paper A, claim 4: no deterministic rule switches two nodes together over a lossy link.

Halpern and Moses' coordinated attack on a message chain (docs/coordination.md). Node A, the
coordinator, is told whether a fleet update is ordered (its input, 0 or 1); node B is the
node to update. A chain of r messages m_1..m_r crosses the link, odd ones A -> B, even ones
B -> A; m_1 is A's order, m_(i+1) is sent by the receiver of m_i once it has it (an
acknowledgement of the acknowledgement ...). Two patterns for an update that is not ordered:

- `silent`: A sends nothing (the chain is the update order itself), the pattern of
  Halpern and Moses' general who sends a messenger only when he wants to attack;
- `chatty`: the chain runs anyway and every message carries the order bit (the
  full-information protocol on the chain: any message content is a function of this).

The link may lose any set of messages. A node's *view* is what it knows at the end: its input
(A), which messages it received, and what they said. A *rule* gives each node a decision,
switch (1) or stay (0), per view. The requirements:

- agreement: in every run, both nodes decide alike;
- validity: when the update is ordered and every message arrives, both switch;
- integrity: when no update is ordered, neither switches.

`census(r, pattern)` enumerates every rule over the views that occur in some run and counts
the rules meeting each set of requirements. Runs come from simulating every input and every
one of the 2^r loss sets; they are the prefixes of the chain (the first loss stops it), so
the views are few and r = 8 is exhaustive in milliseconds (2^19 rules for `chatty`).
`predicted(r, pattern)` gives the same counts in closed form from the argument of the
docs; the tests and proofs/paper_a.py compare the two.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

PATTERNS = ("silent", "chatty")
REQUIREMENTS = ("agreement", "validity", "integrity")
MAX_CHAIN = 10  # 2^23 rules for `chatty`: still seconds, past that the arrays grow large


@dataclass(frozen=True, slots=True)
class View:
    """What a node knows at the end of a run: its name, the order (None: unknown), receipts."""

    node: str  # "A" or "B"
    ordered: int | None  # A: its input; B: the order bit it was told, if any
    received: tuple[int, ...]  # the indices of the messages it received, ascending

    def key(self) -> tuple[str, int, tuple[int, ...]]:
        """Sort key: node, order (unknown first), receipts."""
        return (self.node, -1 if self.ordered is None else self.ordered, self.received)


@dataclass(frozen=True, slots=True)
class Run:
    """One run of the chain: the input and the messages delivered, with each node's view."""

    ordered: int
    delivered: tuple[int, ...]
    view_a: View
    view_b: View


def _check(r: int, pattern: str) -> None:
    if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= MAX_CHAIN:
        raise ValueError(f"the chain length must be an integer in 1..{MAX_CHAIN}, not {r!r}")
    if pattern not in PATTERNS:
        raise ValueError(f"the pattern must be one of {', '.join(PATTERNS)}, not {pattern!r}")


def receiver(i: int) -> str:
    """Odd messages go A -> B, even ones B -> A."""
    return "B" if i % 2 else "A"


def simulate(r: int, pattern: str, ordered: int, lost: frozenset[int]) -> Run:
    """Play the chain with the given input and losses: which messages get through, who sees what."""
    delivered: list[int] = []
    for i in range(1, r + 1):
        sent = (ordered == 1 or pattern == "chatty") if i == 1 else delivered[-1:] == [i - 1]
        if sent and i not in lost:
            delivered.append(i)
    got_a = tuple(i for i in delivered if receiver(i) == "A")
    got_b = tuple(i for i in delivered if receiver(i) == "B")
    # every message carries the order bit (silent: a message at all means "ordered")
    told = ordered if got_b else None
    return Run(ordered, tuple(delivered), View("A", ordered, got_a), View("B", told, got_b))


def runs(r: int, pattern: str) -> tuple[Run, ...]:
    """Every distinct run, from every input and every one of the 2^r sets of lost messages."""
    _check(r, pattern)
    found = {
        simulate(r, pattern, ordered, frozenset(lost))
        for ordered in (0, 1)
        for n in range(r + 1)
        for lost in itertools.combinations(range(1, r + 1), n)
    }
    return tuple(sorted(found, key=lambda run: (run.ordered, run.delivered)))


def is_prefix_run(run: Run) -> bool:
    """The delivered messages are m_1..m_j: the first loss ends the chain."""
    return run.delivered == tuple(range(1, len(run.delivered) + 1))


@dataclass(frozen=True, slots=True)
class Census:
    """Every rule over the occurring views, and how many meet each set of requirements."""

    r: int
    pattern: str
    runs: tuple[Run, ...]
    views: tuple[View, ...]  # bit i of a rule decides on views[i]
    counts: dict[frozenset[str], int]  # requirement set -> rules meeting all of it
    witnesses: dict[frozenset[str], int | None]  # requirement set -> the first such rule

    @property
    def rules(self) -> int:
        """The number of rules examined: 2^(number of views)."""
        return 1 << len(self.views)

    def count(self, *requirements: str) -> int:
        """Rules meeting every one of the named requirements."""
        return self.counts[frozenset(requirements)]

    def witness(self, *requirements: str) -> dict[View, int] | None:
        """The first rule (in enumeration order) meeting the requirements, as view -> decision."""
        x = self.witnesses[frozenset(requirements)]
        return None if x is None else {v: (x >> i) & 1 for i, v in enumerate(self.views)}


def views_of(found: tuple[Run, ...]) -> tuple[View, ...]:
    """The distinct views of A, then of B, each sorted."""
    a = sorted({run.view_a for run in found}, key=View.key)
    b = sorted({run.view_b for run in found}, key=View.key)
    return tuple(a + b)


def census(r: int, pattern: str = "silent") -> Census:
    """Exhaustive: every rule over the occurring views, judged on every run."""
    found = runs(r, pattern)
    views = views_of(found)
    index = {v: i for i, v in enumerate(views)}
    rules = np.arange(1 << len(views), dtype=np.int64)
    met = {name: np.ones(rules.shape, dtype=bool) for name in REQUIREMENTS}
    everything = tuple(range(1, r + 1))
    for run in found:
        a = (rules >> index[run.view_a]) & 1
        b = (rules >> index[run.view_b]) & 1
        met["agreement"] &= a == b
        if run.ordered == 1 and run.delivered == everything:
            met["validity"] &= (a == 1) & (b == 1)
        if run.ordered == 0:
            met["integrity"] &= (a == 0) & (b == 0)
    counts, witnesses = {}, {}
    for n in range(len(REQUIREMENTS) + 1):
        for subset in itertools.combinations(REQUIREMENTS, n):
            mask = np.ones(rules.shape, dtype=bool)
            for name in subset:
                mask &= met[name]
            hits = np.flatnonzero(mask)
            counts[frozenset(subset)] = int(hits.size)
            witnesses[frozenset(subset)] = int(hits[0]) if hits.size else None
    return Census(r, pattern, found, views, counts, witnesses)


def predicted(r: int, pattern: str = "silent") -> dict[frozenset[str], int]:
    """The counts in closed form (docs/coordination.md).

    Views: A has (order, number received) for both orders it may be given that occur; B has
    "nothing received" and (order, number received). Every run links A's view to B's, and
    these links connect all views (through B's empty view, shared by the run without an order
    and the ordered run whose first message is lost): agreement leaves the 2 constant rules.
    Validity fixes 2 decisions (the views of the complete run), integrity fixes the views of
    the runs without an order: 2 of them when silent, r + 2 when chatty.
    """
    _check(r, pattern)
    a_counts = r // 2 + 1  # how many of its messages A may have got
    b_counts = (r + 1) // 2  # ... and B, at least one
    if pattern == "silent":
        views, integrity_fixed = (1 + a_counts) + (1 + b_counts), 2
    else:
        views, integrity_fixed = 2 * a_counts + (1 + 2 * b_counts), 1 + a_counts + b_counts
    out = {
        frozenset(): 1 << views,
        frozenset({"agreement"}): 2,
        frozenset({"validity"}): 1 << (views - 2),
        frozenset({"integrity"}): 1 << (views - integrity_fixed),
        frozenset({"agreement", "validity"}): 1,
        frozenset({"agreement", "integrity"}): 1,
        frozenset({"validity", "integrity"}): 1 << (views - 2 - integrity_fixed),
        frozenset(REQUIREMENTS): 0,
    }
    return out


def conceivable_views(r: int, pattern: str = "silent") -> int:
    """Views over arbitrary receipt sets: every subset of a node's incoming messages."""
    _check(r, pattern)
    a_in, b_in = r // 2, (r + 1) // 2
    b_views = (1 << b_in) if pattern == "silent" else 1 + 2 * ((1 << b_in) - 1)
    return 2 * (1 << a_in) + b_views


def rules_covered(r: int, pattern: str = "silent") -> int:
    """All rules over conceivable views: each agrees with exactly one examined rule on every run."""
    return 1 << conceivable_views(r, pattern)
