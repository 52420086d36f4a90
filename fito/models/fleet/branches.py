"""Enumerating every branch of a small fleet: a depth-first search over event orders.

From each combination of section modes (job 0 has just fired; jobs 1..N-1 compute or
write), the search tries every job as the next to complete its phase. A child's region
adds "no job has overshot" (every remaining amount >= 0 after the step); it is kept when
its interior is non-empty (a witness) and pruned otherwise (a Farkas certificate for
numeric settings, Z3's unsat for symbolic ones). A leaf is reached when job 0 has fired
`cycles` more times. Ties (regions without interior) have measure zero and are skipped:
the closures of the full-dimensional leaves cover the section.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from fractions import Fraction

from fito import budget
from fito.models.fleet.linear import Constraint, Form, f_sub
from fito.models.fleet.returnmap import COMPUTE, END, FIRE, WRITE, Branch, Event, Setting, Stepper
from fito.models.fleet.solve import SAT, UNSAT, RegionSolver, Session, Verdict


@dataclass(frozen=True)
class Leaf:
    """A feasible event sequence with its region, its firing times and a witness."""

    modes: tuple[str, ...]
    events: tuple[Event, ...]
    constraints: tuple[Constraint, ...]
    fires: tuple[tuple[int, Form], ...]
    end_modes: tuple[str, ...]
    end_state: tuple[Form, ...]
    verdict: Verdict

    def branch(self, name: str = "enumerated") -> Branch:
        return Branch(name, self.modes, self.events)

    def cycles(self) -> list[list[tuple[int, Form]]]:
        """The firings split at each firing of job 0 (the last cycle ends with it)."""
        out: list[list[tuple[int, Form]]] = [[]]
        for job, t in self.fires:
            out[-1].append((job, t))
            if job == 0:
                out.append([])
        return out[:-1]


@dataclass(frozen=True)
class Pruned:
    """An event prefix whose region has no interior, with the evidence."""

    modes: tuple[str, ...]
    events: tuple[Event, ...]
    constraints: tuple[Constraint, ...]
    verdict: Verdict


@dataclass(frozen=True)
class Enumeration:
    setting: Setting
    cycles: int
    leaves: tuple[Leaf, ...]
    pruned: tuple[Pruned, ...]
    unknown: int
    nodes: int

    @property
    def complete(self) -> bool:
        return self.unknown == 0


def enumerate_branches(
    setting: Setting,
    cycles: int = 1,
    max_events: int | None = None,
    timeout_ms: int = 30000,
    certify: bool = True,
) -> Enumeration:
    """Every full-dimensional event order over `cycles` cycles of job 0.

    certify=True attaches a Farkas certificate to every pruned prefix (numeric settings)."""
    n = setting.jobs
    limit = max_events if max_events is not None else 3 * n * cycles + 2
    session = Session(RegionSolver(setting, n - 1, timeout_ms), cores=certify)
    search = _Search(session, cycles, limit, certify)
    for rest in itertools.product((COMPUTE, WRITE), repeat=n - 1):
        modes = (WRITE,) + rest
        st = Stepper(setting, modes)
        session.push(st.constraints)
        search.run(st, modes, (), 0)
        session.pop()
    return Enumeration(
        setting, cycles, tuple(search.leaves), tuple(search.pruned), search.unknown, search.nodes
    )


class _Search:
    """The depth-first search (a mutable builder): one Z3 scope per prefix."""

    def __init__(self, session: Session, cycles: int, limit: int, certify: bool) -> None:
        self.session, self.cycles, self.limit, self.certify = session, cycles, limit, certify
        self.leaves: list[Leaf] = []
        self.pruned: list[Pruned] = []
        self.unknown = self.nodes = 0

    def run(
        self, st: Stepper, modes: tuple[str, ...], events: tuple[Event, ...], fired: int
    ) -> None:
        if len(events) >= self.limit:
            self.unknown += 1
            return
        for k in range(st.setting.jobs):
            budget.check()  # the command's deadline and memory (fito.budget)
            child = _child(st, k)
            event = Event(k, FIRE if st.mode[k] == COMPUTE else END)
            seq = events + (event,)
            self.nodes += 1
            self.session.push(child.constraints[len(st.constraints) :])
            verdict = self.session.check(child.constraints, self.certify)
            if verdict.status == SAT:
                self._accept(child, modes, seq, fired + (event == Event(0, FIRE)), verdict)
            elif verdict.status == UNSAT:
                self.pruned.append(Pruned(modes, seq, tuple(child.constraints), verdict))
            else:
                self.unknown += 1
            self.session.pop()

    def _accept(
        self,
        child: Stepper,
        modes: tuple[str, ...],
        seq: tuple[Event, ...],
        done: int,
        verdict: Verdict,
    ) -> None:
        if done < self.cycles:
            self.run(child, modes, seq, done)
            return
        n = child.setting.jobs
        self.leaves.append(
            Leaf(
                modes,
                seq,
                tuple(child.constraints),
                tuple(child.fires),
                tuple(child.mode),
                tuple(child.remaining(j) for j in range(1, n)),
                verdict,
            )
        )


def _child(st: Stepper, k: int) -> Stepper:
    child = copy.copy(st)
    child.mode, child.key = list(st.mode), list(st.key)
    child.progress, child.count = dict(st.progress), dict(st.count)
    child.fires, child.constraints = list(st.fires), list(st.constraints)
    child.step(k)
    for j in range(st.setting.jobs):
        if j != k:
            child.require(
                j,
                f"after {'fire' if child.mode[k] == WRITE else 'end'}{k}: job {j} has not overshot",
            )
    return child


# ---------------------------------------------------------------------------- properties
def firing_orders(leaf: Leaf) -> list[tuple[int, ...]]:
    """The order in which jobs 1..N-1 fire in each cycle of the leaf."""
    return [tuple(j for j, _ in cyc if j != 0) for cyc in leaf.cycles()]


def gap_differences(leaf: Leaf, K) -> list[Form]:
    """For a two-cycle leaf: (t_j in cycle 2 - T_1) - (t_j in cycle 1), per job j >= 1."""
    first, second = leaf.cycles()[:2]
    section = first[-1][1]
    t1 = {j: t for j, t in first if j != 0}
    t2 = {j: f_sub(t, section, K) for j, t in second if j != 0}
    return [f_sub(t2[j], t1[j], K) for j in sorted(t1) if j in t2]


def witness_fraction(verdict: Verdict) -> tuple[Fraction, ...]:
    return verdict.point or ()


__all__ = [
    "Enumeration",
    "Leaf",
    "Pruned",
    "enumerate_branches",
    "firing_orders",
    "gap_differences",
]
