"""`fito simulate MODEL`: the exact event-driven fleet simulator (paper B)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

from fito import budget
from fito.diagnostics import UsageError, error, render_text

HELP = "simulate a fleet of checkpointing jobs event by event (exact or floating point)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from fito.cli.fleet_args import add_model_arguments  # lazy-import: start-up of every command

    add_model_arguments(parser)
    parser.add_argument("--cycles", help="firings per job to simulate (default: the model's)")
    parser.add_argument(
        "--exact",
        action="store_true",
        help="rational arithmetic (Fraction); times printed as '27/2'",
    )
    parser.add_argument(
        "--writers",
        action="store_true",
        help="also print the number of concurrent writers over time",
    )
    parser.add_argument(
        "--sections",
        action="store_true",
        help="also print every job's phase (position) at each firing of job 0",
    )
    parser.add_argument(
        "--max-events",
        type=int,
        default=None,
        metavar="K",
        help="stop after K events (exit 3 if the cycles are not reached)",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write the whole result to FILE and print a summary"
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help=f"print every firing even past {SUMMARY_LIMIT:,} of them",
    )


# Past this many firing times (a 10,000-job fleet has ten million) the terminal gets a
# summary: the first and last jobs, each with its first and last firings.
SUMMARY_LIMIT = 20_000


def run(args: argparse.Namespace) -> int:
    from fito.cli.fleet_args import (  # lazy-import: start-up of every command
        InputFailure,
        load_model,
    )
    from fito.models.fleet.sim import simulate  # lazy-import: start-up of every command

    if args.max_events is not None and args.max_events < 1:
        raise UsageError("--max-events must be positive")
    try:
        fleet, path, _ = load_model(args)
    except InputFailure as failure:
        return failure.status
    try:
        result = simulate(
            fleet,
            exact=args.exact,
            record_writers=args.writers,
            record_sections=args.sections,
            max_events=args.max_events,
        )
    except ValueError as exc:
        raise UsageError(f"{exc} (drop --exact)") from None
    firings = sum(len(times) for times in result.firings)
    if args.output is not None:
        _write(args.output, _render(args, fleet, path, result))
        print(_summary(args, fleet, path, result, f"written to {args.output}"))
    elif firings > SUMMARY_LIMIT and not args.full:
        print(
            _summary(args, fleet, path, result, "--output FILE writes them all, --full prints them")
        )
    else:
        print(_render(args, fleet, path, result))
    if not result.complete:
        _limit_note(path, result, args.format)
        return 3
    return 0


def _render(args: argparse.Namespace, fleet, path: str, result) -> str:
    if args.format == "json":
        return json.dumps(_json(fleet, path, result, args.writers, args.sections), indent=1)
    return _text(fleet, path, result, args.writers, args.sections)


def _write(target: str, text: str) -> None:
    try:
        with open(target, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    except OSError as exc:
        raise UsageError(f"cannot write {target!r}: {exc.strerror or exc}") from None


def _summary(args: argparse.Namespace, fleet, path: str, result, where: str) -> str:
    """The header and a sample of the firings: a few jobs, each with its first and last."""
    from fito.models.fleet.sim import format_number as fmt  # lazy-import: start-up of every command

    jobs = len(result.firings)
    shown = sorted({0, 1, 2, jobs - 1} & set(range(jobs)))
    total = sum(len(times) for times in result.firings)
    if args.format == "json":
        doc = _json(fleet, path, result, False, False)
        doc["firings"] = {str(i): _sample(result.firings[i], fmt) for i in shown}
        doc["summary"] = f"{total:,} firing times of {jobs:,} jobs, a sample shown; {where}"
        return json.dumps(doc, indent=1)
    lines = _text(fleet, path, result, False, False).split("\n", 1)[:1]
    lines.append(
        f"{total:,} firing times of {jobs:,} jobs; jobs {', '.join(map(str, shown))} "
        f"shown, their first and last firings ({where})"
    )
    width = len(str(jobs - 1))
    lines.extend(f"job {i:>{width}}: " + " ".join(_sample(result.firings[i], fmt)) for i in shown)
    return "\n".join(lines)


def _sample(times: list, fmt) -> list[str]:
    if len(times) <= 6:
        return [str(fmt(t)) for t in times]
    return [str(fmt(t)) for t in times[:3]] + ["..."] + [str(fmt(t)) for t in times[-2:]]


def _json(fleet, path: str, result, writers: bool, sections: bool) -> dict:
    from fito.models.fleet.sim import format_number as fmt  # lazy-import: start-up of every command

    out = {
        "model": fleet.name,
        "path": path,
        "jobs": fleet.jobs,
        "cycles": result.cycles,
        "exact": result.exact,
        "complete": result.complete,
        "events": result.events,
        "end_time": fmt(result.end_time),
        "parameters": _parameters(fleet),
        "tie_rule": "write completions before firings; then ascending key, then job index",
        "firings": [[fmt(t) for t in times] for times in _polled(result.firings)],
    }
    if writers:
        out["writers"] = [[fmt(t), n] for t, n in result.writers]
    if sections:
        out["sections"] = [
            {"time": fmt(t), "phases": [fmt(p) for p in ps]} for t, ps in result.sections
        ]
    return out


def _parameters(fleet) -> dict:
    return {
        "work": [str(w) for w in fleet.work],
        "volume": [str(v) for v in fleet.volume],
        "throughput": fleet.throughput.text,
        "capacity": "inf" if fleet.capacity is None else str(fleet.capacity),
        "params": {k: str(v) for k, v in fleet.params},
        "phases": [str(p) for p in fleet.phases],
    }


def _text(fleet, path: str, result, writers: bool, sections: bool) -> str:
    from fito.models.fleet.sim import format_number as fmt  # lazy-import: start-up of every command

    cap = "inf" if fleet.capacity is None else str(fleet.capacity)
    lines = [
        f"{path}: {fleet.name}: {fleet.jobs} jobs, f(n) = {fleet.throughput.text}, C = {cap}, "
        f"{'exact' if result.exact else 'float'}, {result.events} events, "
        f"end time {fmt(result.end_time)}"
    ]
    width = len(str(fleet.jobs - 1))
    check = budget.current().check  # the command's deadline: a fleet may have 10^6 jobs
    for i, times in enumerate(result.firings):
        check()
        lines.append(f"job {i:>{width}}: " + " ".join(str(fmt(t)) for t in times))
    if writers:
        lines.append("writers: " + " ".join(f"{fmt(t)}:{n}" for t, n in result.writers))
    for t, ps in result.sections if sections else ():
        lines.append(f"phases at {fmt(t)}: " + " ".join(str(fmt(p)) for p in ps))
    return "\n".join(lines)


def _limit_note(path: str, result, fmt: str) -> None:
    if result.stopped:  # a bound of fito.budget: --timeout or --max-memory
        diag = error(
            "M003",
            f"{result.stopped}: stopped after {result.events:,} events before "
            f"every job fired {result.cycles} times",
            hint="raise --timeout or --max-memory, or lower --cycles",
        )
    else:
        diag = error(
            "M101",
            f"stopped after {result.events} events before every job fired {result.cycles} times",
            hint="raise --max-events",
        )
    print(render_text(diag, path, None), file=sys.stderr)


def _polled(items: list) -> Iterator:
    """items, with the command's deadline and memory (fito.budget) looked at on each."""
    check = budget.current().check
    for item in items:
        check()
        yield item
