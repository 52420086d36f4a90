"""Benchmark: fito's O(log N) fleet simulator against a straightforward SimPy implementation.

    python bench/fleet.py [--jobs 10000] [--cycles 1000] [--simpy-seconds 60] [--quick]

Both run the same model (models/large_fleet.toml, overridable) with the same semantics:
compute at g(n_c)/n_c = min(1, C/n_c), write at f(n_w)/n_w. The SimPy peer is what a SimPy
user would write: one process per job, a timeout per phase, and an interrupt to every job
of a group whose shared rate changed (so O(N) work per event where a rate changes). First
both run a small case and their firing times are compared; then fito runs N jobs for the
full number of cycles, SimPy runs the same N for as many events as fit in its budget,
and the events/s and their ratio are printed. Run twice: with the model's cap and uncapped.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fito.models.fleet.oscillators import load_fleet  # noqa: E402
from fito.models.fleet.sim import rates, simulate  # noqa: E402


def simpy_fleet(fleet, cycles: int, budget_s: float | None = None):
    """The peer: returns (firing times per job, events processed, complete); it stops early
    when its wall-clock budget is spent (checked at every phase completion)."""
    import simpy

    table = rates(fleet, exact=False)
    env = simpy.Environment()
    n = fleet.jobs
    work, volume = [float(w) for w in fleet.work], [float(v) for v in fleet.volume]
    writing = [float(p) >= w for p, w in zip(fleet.phases, work)]
    left = [
        w + v - float(p) if wr else w - float(p)
        for p, w, v, wr in zip(fleet.phases, work, volume, writing)
    ]
    shared = {"nw": sum(writing), "events": 0, "done": 0}
    fires: list[list[float]] = [[] for _ in range(n)]
    stop = env.event()
    deadline = None if budget_s is None else time.perf_counter() + budget_s
    procs: list = []
    members = {
        True: {i for i in range(n) if writing[i]},
        False: {i for i in range(n) if not writing[i]},
    }

    def rate(i: int) -> float:
        return table.write[shared["nw"]] if writing[i] else table.compute[n - shared["nw"]]

    def job(i: int):
        while True:
            while left[i] > 1e-12 * (work[i] + volume[i]):
                r, start = rate(i), env.now
                try:
                    yield env.timeout(left[i] / r)
                    left[i] = 0.0
                except simpy.Interrupt:
                    left[i] -= (env.now - start) * r
            before = (table.write[shared["nw"]], table.compute[n - shared["nw"]])
            writing[i] = not writing[i]
            shared["nw"] += 1 if writing[i] else -1
            left[i] = volume[i] if writing[i] else work[i]
            if writing[i]:
                fires[i].append(env.now)
                if len(fires[i]) == cycles:
                    shared["done"] += 1
            shared["events"] += 1
            after = (table.write[shared["nw"]], table.compute[n - shared["nw"]])
            members[not writing[i]].discard(i)
            members[writing[i]].add(i)
            for group in (True, False):  # every job of a group whose rate changed recomputes
                if before[not group] != after[not group]:
                    for j in members[group]:
                        if j != i:
                            procs[j].interrupt()
            if shared["done"] == n or (deadline and time.perf_counter() > deadline):
                if not stop.triggered:
                    stop.succeed()

    procs.extend(env.process(job(i)) for i in range(n))
    env.run(until=stop)
    return fires, shared["events"], shared["done"] == n


def compare_small(fleet) -> float:
    """Run both on a small case and return the largest relative difference of firing times."""
    small = load_fleet(
        (ROOT / "models" / "overlap.toml").read_text(),
        overrides={"jobs": "7", "phases": "random:3", "capacity": "11/2"},
    )
    ours = simulate(small, cycles=6).firings
    theirs, _, _ = simpy_fleet(small, cycles=6)
    worst = 0.0
    for a, b in zip(ours, theirs):
        assert len(b) >= len(a), "SimPy recorded fewer firings"
        for x, y in zip(a, b):
            worst = max(worst, abs(x - y) / max(1.0, abs(x)))
    return worst


def measure(fleet, cycles: int, budget: float, label: str) -> None:
    t0 = time.perf_counter()
    run = simulate(fleet, cycles=cycles)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    _, events, _ = simpy_fleet(fleet, cycles=cycles, budget_s=budget)
    theirs = time.perf_counter() - t0
    a, b = run.events / ours, events / theirs
    print(f"{label}: N = {fleet.jobs}, C = {fleet.capacity or 'inf'}")
    print(
        f"  fito    {run.events:>10,} events ({cycles} cycles) in {ours:8.2f} s: "
        f"{a:12,.0f} events/s"
    )
    print(f"  simpy   {events:>10,} events            in {theirs:8.2f} s: {b:12,.0f} events/s")
    print(f"  ratio   {a / b:,.1f}x  (events/s at the same N)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=str(ROOT / "models" / "large_fleet.toml"))
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--cycles", type=int, default=1_000)
    parser.add_argument(
        "--simpy-seconds",
        type=float,
        default=60.0,
        help="wall-clock budget of each SimPy run (it stops early)",
    )
    parser.add_argument("--quick", action="store_true", help="N = 1000, 50 cycles, 10 s")
    args = parser.parse_args()
    if args.quick:
        args.jobs, args.cycles, args.simpy_seconds = 1000, 50, 10.0
    fleet = load_fleet(Path(args.model).read_text(), overrides={"jobs": str(args.jobs)})
    worst = compare_small(fleet)
    print(
        f"same firing times on a small case (7 jobs, 6 cycles, capped): "
        f"max relative difference {worst:.1e}"
    )
    if worst > 1e-9:
        print("MISMATCH between fito and SimPy", file=sys.stderr)
        return 1
    measure(fleet, args.cycles, args.simpy_seconds, "model as given")
    if fleet.capacity is not None:
        measure(replace(fleet, capacity=None), args.cycles, args.simpy_seconds, "uncapped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
