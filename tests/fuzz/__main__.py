"""`python -m tests.fuzz --budget N --seed S`: run N cases, report, minimise and save failures.

Exit status 1 when a failure was found, 0 otherwise (`--known engine,fmt` excuses failures
inside the model checker's engine or `fito fmt`, for a campaign aimed elsewhere).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from .cases import Case
from .minimise import known_signatures, minimise, save
from .outcome import Outcome
from .pool import Bounds, Pool, warm_up
from .seeds import CORPUS, load


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    p.add_argument("--budget", type=int, default=1000, help="cases to run (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="the stream of cases (default 0)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="workers (default: CPUs)")
    p.add_argument("--seconds", type=float, default=10.0, help="wall clock per case (default 10)")
    p.add_argument(
        "--memory-mb", type=int, default=2048, help="resident memory per case, MiB (default 2048)"
    )
    p.add_argument(
        "--minimise-seconds",
        type=float,
        default=60.0,
        help="time to shrink each new failure (default 60; 0: do not shrink)",
    )
    p.add_argument("--corpus", type=Path, default=CORPUS, help="where failures are saved")
    p.add_argument("--no-save", action="store_true", help="report failures, save nothing")
    p.add_argument(
        "--shrink",
        type=Path,
        nargs="+",
        metavar="CASE",
        help="minimise these saved cases again (in place) instead of fuzzing",
    )
    p.add_argument(
        "--known",
        default="",
        metavar="OWNERS",
        help="owners whose failures do not fail the run (comma-separated: engine, "
        "fmt; default none)",
    )
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    bounds = Bounds(seconds=args.seconds, memory=args.memory_mb << 20)
    warm_up()
    if args.shrink:
        return _shrink(args.shrink, bounds, args.minimise_seconds)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fito-fuzz-seeds-") as work:
        seeds = load(Path(work))
        from .inputs import cases

        stream = (c for _, c in zip(range(args.budget), cases(args.seed, seeds)))
        failures: dict[str, tuple[Case, Outcome]] = {}
        counts: Counter[str] = Counter()
        cpu: Counter[str] = Counter()
        with Pool(args.jobs, bounds) as pool:
            for n, (case, outcome) in enumerate(pool.run(stream), 1):
                counts[f"{case.command or '-'} {outcome.kind}"] += 1
                cpu[case.command or "-"] += outcome.seconds
                if outcome.failed and outcome.signature not in failures:
                    failures[outcome.signature] = (case, outcome)
                    print(
                        f"[{n}] {outcome.signature} ({outcome.owner or 'ours'}): "
                        f"{' '.join(case.argv)[:200]}",
                        flush=True,
                    )
                if n % 1000 == 0:
                    print(f"{n} cases, {time.monotonic() - start:.0f} s", flush=True)
        ran = time.monotonic() - start
        _report(counts, failures, ran, cpu, args.jobs)
        if failures and not args.no_save:
            _keep(failures, bounds, args)
    print(f"the harness itself used {time.process_time():.0f} s of CPU")
    known = set(args.known.split(",")) - {""}
    ours = [s for s, (_, o) in failures.items() if o.owner not in known]
    print(
        f"{len(ours)} failure class(es) to fix, {len(failures) - len(ours)} known to belong "
        f"to {', '.join(sorted(known)) or 'nobody'}"
    )
    return 1 if ours else 0


def _report(
    counts: Counter[str],
    failures: dict[str, tuple[Case, Outcome]],
    ran: float,
    cpu: Counter[str],
    jobs: int,
) -> None:
    total, seconds = sum(counts.values()), sum(cpu.values())
    print(
        f"ran {total:,} cases in {ran:.0f} s ({total / max(ran, 1e-9):.0f}/s); "
        f"{seconds:.0f} s of CPU in the cases, {seconds / max(total, 1) * 1000:.0f} ms each "
        f"({jobs} workers on an idle machine: about {seconds / jobs:.0f} s)"
    )
    by_command: Counter[str] = Counter()
    for key, n in counts.items():
        by_command[key.split()[0]] += n
    for command, n in sorted(by_command.items()):
        kinds = ", ".join(
            f"{k.split()[1]} {m}" for k, m in sorted(counts.items()) if k.split()[0] == command
        )
        print(f"  {command:10} {n:6,}  {cpu[command] / n * 1000:6.0f} ms  {kinds}")
    for signature, (case, outcome) in sorted(failures.items()):
        print(f"  FAIL {signature} [{outcome.owner or 'ours'}] from {case.origin}")


def _keep(
    failures: dict[str, tuple[Case, Outcome]], bounds: Bounds, args: argparse.Namespace
) -> None:
    """Minimise and save the failures whose signature the corpus does not hold yet."""
    known = known_signatures(args.corpus)
    with Pool(1, bounds) as pool:

        def run(c: Case) -> Outcome:
            return next(o for _, o in pool.run([c]))

        for signature, (case, outcome) in sorted(failures.items()):
            if signature in known:
                continue
            small = (
                minimise(case, outcome, run, args.minimise_seconds)
                if args.minimise_seconds > 0
                else case
            )
            final = run(small)
            path = save(small, final if final.failed else outcome, args.corpus)
            shown = path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path
            print(f"saved {shown} ({case.size()} -> {small.size()} bytes)", flush=True)


def _shrink(paths: list[Path], bounds: Bounds, seconds: float) -> int:
    """Minimise saved cases again; each is replaced by its smaller form (if still failing)."""
    import json

    with Pool(1, bounds) as pool:

        def run(c: Case) -> Outcome:
            return next(o for _, o in pool.run([c]))

        for path in paths:
            case = Case.from_json(json.loads(path.read_text("utf-8")))
            outcome = run(case)
            if not outcome.failed:
                print(f"{path}: no longer fails")
                continue
            small = minimise(case, outcome, run, seconds)
            final = run(small)
            path.unlink()
            new = save(small, final if final.failed else outcome, path.parent.parent)
            print(f"{path} -> {new} ({case.size()} -> {small.size()} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
