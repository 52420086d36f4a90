#!/usr/bin/env python3
"""The frontier search on one core and on several: speed-up of `fito check --jobs N`.

Each model of bench/models (at its bench size, or its small size with --quick) and the
oracles' 2pc family are checked twice by the whole `python -m fito check` command: once
with `--jobs 1` and once with `--jobs N` (default: every core). The run checks that both
give the same verdict, state count and counterexample length for every assertion, and
prints the wall times, their ratio (the speed-up) and the cores the N-job run kept busy (CPU
seconds of the command and its worker processes over its wall time). A second peer gives
the speed-up to expect: N independent plain-Python processes against one (`capacity`). The
peer is fito itself on one core, measured in the same run, so a loaded machine slows both
sides. fito is byte-compiled and run once before timing, as an installed fito is
(bench/models/harness.py, `prepare_fito`).

Usage: python bench/jobs.py [--quick] [--jobs N] [--models NAME ...] [--k 8] [--e 5]
                            [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "oracles"))
sys.path.insert(0, str(ROOT / "bench" / "models"))
import harness  # noqa: E402
from family import spec  # noqa: E402

SPIN_LOOP = "x = 0\nfor i in range(6_000_000):\n    x += i\n"


def capacity(jobs: int) -> float:
    """The speed-up this machine gives `jobs` independent CPU-bound processes (plain-Python
    loops, nothing shared): `jobs` x the time of one alone over the time of `jobs` at once.
    A virtual machine's cores may share one physical core; fito cannot beat this figure."""

    def run(n: int) -> float:
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", SPIN_LOOP]) for _ in range(n)]
        for p in procs:
            p.wait()
        return time.perf_counter() - start

    alone = min(run(1) for _ in range(3))
    together = min(run(jobs) for _ in range(3))
    return jobs * alone / together


def files(args: argparse.Namespace, work: Path) -> list[tuple[str, Path]]:
    """(label, spec file) for every instance the options select."""
    out = []
    for name in args.models or harness.names():
        model = harness.load(name)
        params = dict(model.SMALL if args.quick else model.BENCH)
        path, _ = harness.write(model, params, "", work / name)
        out.append((f"{name} " + ",".join(f"{k}={v}" for k, v in params.items()), path))
    for k in args.k or ([4] if args.quick else [8]):
        path = work / f"2pc-{k}-{args.e}.fito"
        path.write_text(spec(k, args.e, "2pc").replace("assert always true\n", ""))
        out.append((f"2pc K={k},E={args.e}", path))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small instances (the tests' sizes)")
    ap.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 2,
        help="processes of the second run (default: every core)",
    )
    ap.add_argument("--models", nargs="+", metavar="NAME", help="only these models")
    ap.add_argument("--k", type=int, nargs="+", help="2pc family sizes (default 8; quick 4)")
    ap.add_argument("--e", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each side; the fastest counts")
    args = ap.parse_args()
    print(f"fito check --jobs 1 against --jobs {args.jobs} ({os.cpu_count()} cores)")
    print(harness.prepare_fito())
    print(
        f"this machine's capacity for {args.jobs} independent processes: "
        f"{capacity(args.jobs):.2f}x (the speed-up of plain-Python loops sharing nothing)"
    )
    print(
        f"{'model':<34} {'states':>10} {'1 job s':>8} {f'{args.jobs} jobs s':>9} "
        f"{'speed-up':>8} {'cores':>6}  check"
    )
    same = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, path in files(args, Path(tmp)):
            ones, manys = [], []
            for _ in range(args.repeat):  # alternating, so a load change hits both sides
                ones.append(harness.run_fito(path, jobs=1))
                manys.append(harness.run_fito(path, jobs=args.jobs))
            one = min(ones, key=lambda r: r.run.seconds)
            many = min(manys, key=lambda r: r.run.seconds)
            agree = all(
                bool(one.assertions) and r.assertions == one.assertions for r in ones + manys
            )
            same.append(agree)
            cores = many.run.cpu / many.run.seconds  # CPU of the command and its workers
            print(
                f"{label:<34} {one.states:>10,} {one.run.seconds:>8.2f} "
                f"{many.run.seconds:>9.2f} {one.run.seconds / many.run.seconds:>8.2f} "
                f"{cores:>6.2f}  {'same answers' if agree else 'ANSWERS DIFFER'}",
                flush=True,
            )
    print(f"{sum(same)} of {len(same)} instances give the same answers")
    return 0 if all(same) else 1


if __name__ == "__main__":
    sys.exit(main())
