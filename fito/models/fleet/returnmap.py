"""The symbolic return-map engine of paper B: derive a branch's map from the event equations.

A branch fixes the order of events over one cycle, from a firing of job 0 (the Poincare
section) to its next firing. The state on the section is x_j = the remaining amount of job
j (work if it computes, volume if it writes), j = 1..N-1. Stepping the events with exact
symbolic rates (write g(n)... see below) gives every later quantity as an affine form in x:
the firing times t_j, the next state x' = F x + e, and the region (one inequality per
"this event comes no later than that one"). The gaps a = (t_s1, t_s2 - t_s1, ...) are
affine in x, a = T x + c; the gap map is a' = M a + d with M = T F T^-1.

Rates: a writer drains at f(n_w)/n_w, a computing job runs at g(n_c)/n_c with
g(n) = min(n, C). Both groups keep one virtual-progress counter, as in the simulator, so
each event costs O(1) form operations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fito.models.fleet.linear import (
    CONST,
    Constraint,
    Form,
    f_add,
    f_const,
    f_row,
    f_scale,
    f_sub,
    f_var,
)

COMPUTE, WRITE = "compute", "write"
FIRE, END = "fire", "end"


@dataclass(frozen=True, slots=True)
class Event:
    """Job `job` completes its current phase: `fire` ends a compute, `end` ends a write."""

    job: int
    kind: str

    def __str__(self) -> str:
        return f"{self.kind}{self.job}"


@dataclass(frozen=True, slots=True)
class Branch:
    """A fixed order of events over one cycle; `modes[j]` is job j's phase on the section."""

    name: str
    modes: tuple[str, ...]
    events: tuple[Event, ...]


@dataclass(frozen=True)
class Setting:
    """Exact parameters: per-job W, V, f(1..N), g(1..N) as SymPy expressions."""

    work: tuple
    volume: tuple
    f: tuple
    g: tuple
    symbols: tuple = ()
    assumptions: tuple = ()
    label: str = ""

    @property
    def jobs(self) -> int:
        return len(self.work)

    def domain(self):
        """QQ, or the field of rational functions in the setting's symbols."""
        from sympy import QQ  # lazy-import: sympy is slow to load

        return QQ.frac_field(*self.symbols) if self.symbols else QQ


@dataclass(frozen=True)
class Derivation:
    """A branch's derived map: everything affine in the section state x."""

    branch: Branch
    setting: Setting
    K: Any
    constraints: tuple[Constraint, ...]
    fire_times: tuple[tuple[int, Form], ...]
    next_state: tuple[Form, ...]
    end_modes: tuple[str, ...]
    period: Form
    # x'_j = key_j - progress_j unreduced: job j's virtual-counter target and its group's
    # counter at the end (the certificates let the kernel do the subtraction)
    next_state_parts: tuple[tuple[Form, Form], ...] = ()

    @property
    def m(self) -> int:
        return self.setting.jobs - 1

    @property
    def is_return_map(self) -> bool:
        """True when the section modes come back (the map is a self-map of the chart)."""
        return self.end_modes == self.branch.modes

    def firing_order(self) -> tuple[int, ...]:
        return tuple(job for job, _ in self.fire_times)

    def state_matrix(self) -> tuple[list[list], list]:
        """(F, e) with x' = F x + e."""
        rows = [f_row(form, self.m, self.K) for form in self.next_state]
        return [r for r, _ in rows], [c for _, c in rows]

    def gap_forms(self) -> tuple[Form, ...] | None:
        """a_i as forms in x when every job 1..N-1 fires exactly once, else None."""
        order = self.firing_order()
        if sorted(order) != list(range(1, self.setting.jobs)):
            return None
        times = [t for _, t in self.fire_times]
        return tuple([times[0]] + [f_sub(b, a, self.K) for a, b in zip(times, times[1:])])


# ---------------------------------------------------------------------------- settings
def setting_from_fleet(fleet: Any) -> Setting:
    """The exact numeric setting of a fleet model (rational f(n) required)."""
    import sympy  # lazy-import: sympy is slow to load

    f = fleet.throughputs()
    if any(not hasattr(v, "denominator") for v in f):
        raise ValueError("return maps need rational f(n) values")

    def rat(v: Any) -> Any:
        return sympy.Rational(v.numerator, v.denominator)

    return Setting(
        work=tuple(rat(w) for w in fleet.work),
        volume=tuple(rat(v) for v in fleet.volume),
        f=tuple(rat(v) for v in f),
        g=tuple(rat(fleet.compute_throughput(n)) for n in range(1, fleet.jobs + 1)),
        label=fleet.name,
    )


def symbolic_setting(
    jobs: int, throughput: str = "general", cap_floor: int | None = None, volumes: str = "identical"
) -> Setting:
    """Symbols W, V, f(n) ('general': f1..fN; 'constant': B; 'linear': n*b), C.

    cap_floor=None: uncapped, g(n) = n. cap_floor=k (0 <= k < N): k <= C < k+1, so
    g(n) = n for n <= k and C beyond (k = 0 means 0 < C < 1: g(n) = C for all n).
    volumes='per-job': V0..V(N-1) and W0..W(N-1) instead of one W and one V.
    """
    import sympy  # lazy-import: sympy is slow to load

    pos = dict(positive=True)
    if volumes == "per-job":
        works = tuple(sympy.Symbol(f"W{i}", **pos) for i in range(jobs))
        vols = tuple(sympy.Symbol(f"V{i}", **pos) for i in range(jobs))
        symbols: list = list(works) + list(vols)
    else:
        W, V = sympy.Symbol("W", **pos), sympy.Symbol("V", **pos)
        works, vols, symbols = (W,) * jobs, (V,) * jobs, [W, V]
    f, fsyms = _throughput(jobs, throughput)
    symbols += fsyms
    g, assumptions = tuple(sympy.Integer(n) for n in range(1, jobs + 1)), []
    if cap_floor is not None:
        C = sympy.Symbol("C", **pos)
        symbols.append(C)
        g = tuple(sympy.Integer(n) if n <= cap_floor else C for n in range(1, jobs + 1))
        assumptions += [
            sympy.GreaterThan(C, cap_floor, evaluate=False),
            sympy.StrictLessThan(C, cap_floor + 1, evaluate=False),
        ]
    assumptions += [sympy.StrictGreaterThan(s, 0, evaluate=False) for s in symbols]
    label = f"{throughput} f, " + (
        "uncapped" if cap_floor is None else f"cap {cap_floor} <= C < {cap_floor + 1}"
    )
    return Setting(works, vols, f, g, tuple(symbols), tuple(assumptions), label)


def _throughput(jobs: int, kind: str) -> tuple[tuple, list]:
    import sympy  # lazy-import: sympy is slow to load

    if kind == "general":
        fs = tuple(sympy.Symbol(f"f{n}", positive=True) for n in range(1, jobs + 1))
        return fs, list(fs)
    if kind == "constant":
        B = sympy.Symbol("B", positive=True)
        return (B,) * jobs, [B]
    if kind == "linear":
        b = sympy.Symbol("b", positive=True)
        return tuple(n * b for n in range(1, jobs + 1)), [b]
    raise ValueError(f"unknown throughput kind {kind!r}")


# ---------------------------------------------------------------------------- branches
def overlapping(jobs: int) -> Branch:
    """Theorem 8's branch: fire 1..N-1 while job 0 writes, then the writes end in order."""
    events = (
        [Event(j, FIRE) for j in range(1, jobs)]
        + [Event(j, END) for j in range(jobs)]
        + [Event(0, FIRE)]
    )
    return Branch("overlapping", (WRITE,) + (COMPUTE,) * (jobs - 1), tuple(events))


def staggered(jobs: int) -> Branch:
    """Proposition 16's branch: every write ends before the next job fires."""
    events: list[Event] = [Event(0, END)]
    for j in range(1, jobs):
        events += [Event(j, FIRE), Event(j, END)]
    return Branch("staggered", (WRITE,) + (COMPUTE,) * (jobs - 1), tuple(events + [Event(0, FIRE)]))


def parse_branch(text: str, jobs: int) -> Branch:
    """A custom branch: section modes then events, e.g. "c,w: end1 fire1 end0 fire0"."""
    head, sep, tail = text.partition(":")
    if not sep:
        raise ValueError("expected MODES: EVENTS, e.g. 'c: fire1 end0 end1 fire0'")
    letters = [m.strip() for m in head.split(",") if m.strip()]
    table = {"c": COMPUTE, "w": WRITE}
    if len(letters) != jobs - 1 or any(m not in table for m in letters):
        raise ValueError(f"give {jobs - 1} section modes (c or w) for jobs 1..{jobs - 1}")
    events = []
    for word in tail.split():
        kind = FIRE if word.startswith(FIRE) else END if word.startswith(END) else None
        digits = word[len(kind) :] if kind else ""
        if kind is None or not digits.isdigit() or int(digits) >= jobs:
            raise ValueError(f"bad event {word!r} (fireJ or endJ with J < {jobs})")
        events.append(Event(int(digits), kind))
    if not events or events[-1] != Event(0, FIRE):
        raise ValueError("a branch ends with fire0 (the next firing of job 0)")
    return Branch("custom", (WRITE,) + tuple(table[m] for m in letters), tuple(events))


# ---------------------------------------------------------------------------- stepping
class Stepper:
    """Symbolic event stepping (a mutable builder): virtual counters per group."""

    def __init__(self, setting: Setting, modes: Sequence[str]) -> None:
        K = setting.domain()
        self.K, self.setting = K, setting
        conv = K.from_sympy
        self.work = [conv(w) for w in setting.work]
        self.volume = [conv(v) for v in setting.volume]
        n = setting.jobs
        self.rate = {
            WRITE: [None] + [conv(setting.f[i - 1]) / i for i in range(1, n + 1)],
            COMPUTE: [None] + [conv(setting.g[i - 1]) / i for i in range(1, n + 1)],
        }
        self.inverse = {grp: [None] + [K.one / r for r in rs[1:]] for grp, rs in self.rate.items()}
        self.mode = list(modes)
        self.key: list[Form] = [f_const(self.volume[0])] + [f_var(j - 1, K) for j in range(1, n)]
        self.progress: dict[str, Form] = {COMPUTE: {}, WRITE: {}}
        self.count = {grp: sum(1 for m in modes if m == grp) for grp in (COMPUTE, WRITE)}
        self.t: Form = {}
        self.fires: list[tuple[int, Form]] = []
        self.constraints: list[Constraint] = [
            c for j in range(1, n) for c in _domain_constraints(j, modes[j], self, K)
        ]

    def require(self, j: int, why: str) -> None:
        """Constrain job j's remaining amount (now) to be >= 0: it has not overshot."""
        self.constraints.append(Constraint(self.remaining(j), why))

    def step(self, k: int) -> None:
        """Job k completes its phase now (its remaining amount reaches 0)."""
        K = self.K
        grp = self.mode[k]
        other = WRITE if grp == COMPUTE else COMPUTE
        dt = f_scale(self.remaining(k), self.inverse[grp][self.count[grp]], K)
        self.progress[grp] = self.key[k]
        if self.count[other]:
            self.progress[other] = f_add(
                self.progress[other], f_scale(dt, self.rate[other][self.count[other]], K), K
            )
        self.t = f_add(self.t, dt, K)
        self.count[grp] -= 1
        self.count[other] += 1
        self.mode[k] = other
        amount = self.volume[k] if other == WRITE else self.work[k]
        self.key[k] = f_add(self.progress[other], f_const(amount), K)
        if other == WRITE:
            self.fires.append((k, self.t))

    def remaining(self, j: int) -> Form:
        return f_sub(self.key[j], self.progress[self.mode[j]], self.K)


def _kind(mode: str) -> str:
    return FIRE if mode == COMPUTE else END


def _domain_constraints(j: int, mode: str, st: Stepper, K: Any) -> list[Constraint]:
    cap = st.work[j] if mode == COMPUTE else st.volume[j]
    x = f_var(j - 1, K)
    return [
        Constraint(x, f"x{j} > 0"),
        Constraint(f_sub(f_const(cap), x, K), f"x{j} <= {'W' if mode == COMPUTE else 'V'}{j}"),
    ]


def derive(setting: Setting, branch: Branch) -> Derivation:
    """Step the branch's events symbolically and collect the map and its region.

    The events happen in the branch's order iff every inter-event time is >= 0 (the job of
    each event has a remaining amount >= 0 just before it) and no job has overshot at the
    end: a remaining amount only decreases while a job waits, so its value just before the
    job's own event (or at the end) bounds all earlier ones.
    """
    n = setting.jobs
    _validate(branch, n)
    st = Stepper(setting, branch.modes)
    for s, event in enumerate(branch.events):
        if _kind(st.mode[event.job]) != event.kind:
            raise ValueError(
                f"event {event} at step {s}: job {event.job} is in its {st.mode[event.job]} phase"
            )
        if s:
            st.require(event.job, f"step {s}: {event} comes no earlier than step {s - 1}")
        st.step(event.job)
    for j in range(1, n):
        st.require(j, f"end: job {j} has not completed its {st.mode[j]} phase before fire0")
    next_state = tuple(st.remaining(j) for j in range(1, n))
    parts = tuple((st.key[j], st.progress[st.mode[j]]) for j in range(1, n))
    fires = tuple(st.fires[:-1])
    return Derivation(
        branch,
        setting,
        st.K,
        tuple(_dedupe(st.constraints, st.K)),
        fires,
        next_state,
        tuple(st.mode),
        st.t,
        parts,
    )


def _validate(branch: Branch, n: int) -> None:
    if len(branch.modes) != n or branch.modes[0] != WRITE:
        raise ValueError(f"a branch of {n} jobs gives {n} section modes, job 0 writing")
    if not branch.events or branch.events[-1] != Event(0, FIRE):
        raise ValueError("a branch ends with the next firing of job 0")
    if any(not 0 <= e.job < n for e in branch.events):
        raise ValueError("an event names a job outside 0..N-1")
    if Event(0, FIRE) in branch.events[:-1]:
        raise ValueError("job 0 fires only at the end of the branch")


def _dedupe(constraints: list[Constraint], K: Any) -> list[Constraint]:
    """Drop repeated constraints and constants that hold trivially (0 or positive rationals)."""
    seen, out = set(), []
    for c in constraints:
        key = tuple(sorted(c.form.items(), key=lambda kv: kv[0]))
        trivial = set(c.form) <= {CONST} and (not c.form or (K.is_Numerical and c.form[CONST] > 0))
        if key not in seen and not trivial:
            seen.add(key)
            out.append(c)
    return out
