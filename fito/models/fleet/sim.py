"""The exact event-driven fleet simulator: O(log N) work per event, Fraction or float.

Rates are piecewise constant between events: every computing job progresses at
g(n_c)/n_c = min(1, C/n_c), every writer drains at f(n_w)/n_w. Since all jobs of a group
share one rate, each group keeps one cumulative progress counter (its "virtual time"): a
job entering the group at counter value P is keyed by P + (its remaining amount), and the
next event of the group is the smallest key in a heap. A rate change then touches no job.

Tie rule (simultaneous events, exact in Fraction mode): at one instant, every write
completion is processed before any firing, and within a kind jobs go by ascending key,
then ascending job index. (Rates are multiplied by their exact inverses, so Fraction mode
is exact; float mode uses the same code and compares rounded values.) Since W_i, V_i > 0
no event can cascade at the same instant,
and the state after the instant does not depend on the order; only the log order does.
The recorded number of writers is the value after all events of an instant.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from fito import budget
from fito.models.fleet.expr import Number
from fito.models.fleet.oscillators import Fleet


@dataclass(frozen=True, slots=True)
class Run:
    """What a simulation recorded: firing times per job and the writer count over time."""

    exact: bool
    cycles: int
    firings: tuple[tuple[Number, ...], ...]
    writers: tuple[tuple[Number, int], ...]
    sections: tuple[tuple[Number, tuple[Number, ...]], ...]
    end_time: Number
    events: int
    complete: bool
    stopped: str = ""  # why the run ended early: a bound of the command's budget (fito.budget)

    def firing_order(self, cycle: int) -> tuple[int, ...]:
        """The jobs sorted by their firing time in cycle `cycle` (0-based; ties by index)."""
        return tuple(sorted(range(len(self.firings)), key=lambda i: (self.firings[i][cycle], i)))


@dataclass(frozen=True, slots=True)
class Rates:
    """Per-job rates by group size: write[n] = f(n)/n, compute[n] = g(n)/n (index 0 unused)."""

    write: tuple[Number, ...]
    compute: tuple[Number, ...]


def rates(fleet: Fleet, exact: bool) -> Rates:
    """The rate tables of `fleet`, exact or in floating point."""
    convert = _exact_value if exact else float
    f = fleet.throughputs()
    check = budget.current().check  # the command's deadline and memory, on each job
    write: list[Number] = [0]
    compute: list[Number] = [0]
    for n in range(1, fleet.jobs + 1):
        check()
        write.append(convert(f[n - 1]) / n)
        compute.append(convert(fleet.compute_throughput(n)) / n)
    return Rates(tuple(write), tuple(compute))


def _exact_value(value: Number) -> Fraction:
    if isinstance(value, float):
        raise ValueError(
            f"f(n) takes the irrational or floating value {value!r}; "
            "exact mode needs rational throughputs"
        )
    return value


@dataclass(frozen=True, slots=True)
class Options:
    """What to record, and the optional extras of the numerics (jitter, early stop)."""

    record_writers: bool = False
    record_sections: bool = False
    work_sampler: Callable[[int], Number] | None = None  # W of job i's next compute phase
    stop_writers: int | None = None  # stop as soon as this many jobs write at once


def simulate(
    fleet: Fleet,
    cycles: int | None = None,
    exact: bool = False,
    *,
    record_writers: bool = False,
    record_sections: bool = False,
    max_events: int | None = None,
    work_sampler: Callable[[int], Number] | None = None,
    stop_writers: int | None = None,
) -> Run:
    """Run until every job has fired `cycles` times (or `max_events` events, or until
    `stop_writers` jobs write at once). `work_sampler(i)` draws the work of each new compute
    phase of job i (per-cycle jitter); without it every phase has the model's W_i."""
    cycles = fleet.cycles if cycles is None else cycles
    table = rates(fleet, exact)
    num = Fraction if exact else float
    state = _State.start(
        [num(w) for w in fleet.work],
        [num(v) for v in fleet.volume],
        [num(p) for p in fleet.phases],
        num(0),
    )
    limit = max_events if max_events is not None else 1 << 62  # every job progresses: it ends
    options = Options(record_writers, record_sections, work_sampler, stop_writers)
    return _loop(state, table, cycles, limit, options, exact)


@dataclass(slots=True)
class _State:
    """The mutable simulation state (a named builder; never escapes this module).

    Each group's heap holds bare keys (cheap comparisons); `owner` maps a key to its job, or
    to the sorted list of jobs sharing that key (exact ties: the lowest index goes first)."""

    work: list
    volume: list
    key: list
    writing: list
    computing_heap: list
    writing_heap: list
    computing_owner: dict
    writing_owner: dict
    zero: Number

    @staticmethod
    def start(
        work: Sequence[Number], volume: Sequence[Number], phases: Sequence[Number], zero: Number
    ) -> _State:
        key: list = []
        writing: list = []
        ch: list = []
        wh: list = []
        co: dict = {}
        wo: dict = {}
        check = budget.current().check
        for i, (w, v, p) in enumerate(zip(work, volume, phases)):
            check()
            is_writing = p >= w
            k = (w + v - p) if is_writing else (w - p)
            key.append(k)
            writing.append(is_writing)
            (wh if is_writing else ch).append(k)
            _own(wo if is_writing else co, k, i)
        heapq.heapify(ch)
        heapq.heapify(wh)
        return _State(list(work), list(volume), key, writing, ch, wh, co, wo, zero)


def _own(owner: dict, k: Number, i: int) -> None:
    """Record that job i holds key k (a tie makes a sorted list)."""
    j = owner.get(k)
    if j is None:
        owner[k] = i
    elif type(j) is int:
        owner[k] = [j, i] if j < i else [i, j]
    else:
        bisect.insort(j, i)


def _untie(owner: dict, k: Number, tied: list) -> int:
    """The lowest index among the jobs tied at key k (popped); the others keep the key."""
    i = tied.pop(0)
    owner[k] = tied[0] if len(tied) == 1 else tied
    return i


def _loop(
    st: _State, table: Rates, cycles: int, max_events: int, options: Options, exact: bool
) -> Run:
    """The hot loop: one heap pop and one push per event.

    Deliberately one long function: locals are the fastest names in CPython, and a call per
    event would cost as much as the heap operations (see bench/fleet.py)."""
    rec_w, rec_s = options.record_writers, options.record_sections
    sampler = options.work_sampler
    stop_at = options.stop_writers if options.stop_writers is not None else len(st.work) + 1
    heappop, heappush = heapq.heappop, heapq.heappush
    ch, wh, key, writing, W, V = (
        st.computing_heap,
        st.writing_heap,
        st.key,
        st.writing,
        st.work,
        st.volume,
    )
    cown, wown = st.computing_owner, st.writing_owner
    wrate, crate, zero = table.write, table.compute, st.zero
    winv = [zero] + [1 / r for r in wrate[1:]]
    cinv = [zero] + [1 / r for r in crate[1:]]
    jobs = len(W)
    fires: list[list] = [[] for _ in range(jobs)]
    writers: list[tuple[Number, int]] = [(zero, len(wh))] if rec_w else []
    sections: list = []
    Pc = Pw = t = zero
    nc, nw, done, events = len(ch), len(wh), 0, 0
    poll, stopped = budget.current().poll, ""
    while done < jobs and events < max_events:
        if wh and (not ch or (wh[0] - Pw) * winv[nw] <= (ch[0] - Pc) * cinv[nc]):
            k = heappop(wh)
            i = wown.pop(k)
            if type(i) is not int:
                i = _untie(wown, k, i)
            dt = (k - Pw) * winv[nw]
            if dt < zero:
                dt = zero
            Pw = k
            if nc:
                Pc += crate[nc] * dt
            nw -= 1
            nc += 1
            if sampler is not None:
                W[i] = sampler(i)
            k = Pc + W[i]
            if rec_s:
                writing[i] = False
                key[i] = k
            heappush(ch, k)
            if k in cown:
                _own(cown, k, i)
            else:
                cown[k] = i
            t += dt
        else:
            k = heappop(ch)
            i = cown.pop(k)
            if type(i) is not int:
                i = _untie(cown, k, i)
            dt = (k - Pc) * cinv[nc]
            if dt < zero:
                dt = zero
            Pc = k
            if nw:
                Pw += wrate[nw] * dt
            nc -= 1
            nw += 1
            k = Pw + V[i]
            if rec_s:
                writing[i] = True
                key[i] = k
            heappush(wh, k)
            if k in wown:
                _own(wown, k, i)
            else:
                wown[k] = i
            t += dt
            record = fires[i]
            record.append(t)
            if len(record) == cycles:
                done += 1
            if rec_s and i == 0:
                sections.append((t, _positions(W, V, key, writing, Pc, Pw)))
        events += 1
        if not events & 4095:  # the command's deadline and memory (fito.budget), now
            try:
                poll()
            except budget.BudgetExceeded as exc:
                stopped = exc.message
                break
        if rec_w:
            if writers[-1][0] == t:
                writers[-1] = (t, nw)
            else:
                writers.append((t, nw))
        if nw >= stop_at:
            break
    return Run(
        exact,
        cycles,
        tuple(tuple(f[:cycles]) for f in fires),
        tuple(writers),
        tuple(sections),
        t,
        events,
        done == jobs,
        stopped,
    )


def _positions(
    W: list, V: list, key: list, writing: list, Pc: Number, Pw: Number
) -> tuple[Number, ...]:
    return tuple(
        W[i] + V[i] - (key[i] - Pw) if writing[i] else W[i] - (key[i] - Pc) for i in range(len(W))
    )


def writer_histogram(run: Run) -> dict[int, Number]:
    """Total time spent with n_w = k writers, for each k, over the recorded run."""
    out: dict[int, Number] = {}
    steps = run.writers
    for (t0, n), (t1, _) in zip(steps, steps[1:]):
        out[n] = out.get(n, 0) + (t1 - t0)
    return dict(sorted(out.items()))


# An exact value whose numerator or denominator has more bits than this (about 3,000 digits)
# is shown rounded: converting a larger integer to decimal costs time quadratic in its length
# (which is why Python refuses past 4,300 digits).
MAX_EXACT_BITS = 10_000


def format_number(value: Number) -> str | float:
    """Exact values as strings ("27/2"), rounded ("~1.5e+3") past MAX_EXACT_BITS; floats as
    they are."""
    if isinstance(value, Fraction):
        if max(value.numerator.bit_length(), value.denominator.bit_length()) <= MAX_EXACT_BITS:
            return str(value)
        try:
            return f"~{float(value):.17g}"
        except OverflowError:
            return "~-inf" if value < 0 else "~inf"
    return value
