"""`fito types`: FITO type checking of pipelines only (no model checking)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from fito import budget
from fito.cli.commands.options import positive_int, positive_seconds

if TYPE_CHECKING:
    from fito.pipeline import TypeReport
    from fito.types.oracle import EpochOracle

HELP = "type-check the pipelines of .fito specs (Snap vs Conv, epochs decided by Z3)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help=".fito spec files")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=None,
        metavar="SECONDS",
        help="time limit of each file (M003, exit 3, when reached) and of each Z3 "
        "epoch question in it (default: none per file, 10 per question); an "
        "undecided question is reported as FITO007, never accepted",
    )
    p.add_argument(
        "--max-bytes",
        type=positive_int,
        default=None,
        metavar="N",
        help="refuse files larger than N bytes (default 8 MiB)",
    )
    p.add_argument(
        "--reveal",
        action="store_true",
        help="also show the type of every epoch and let name (text format)",
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="print the Z3 question, check and cache counts on stderr",
    )


def run(args: argparse.Namespace) -> int:
    from fito.render.report import render_report  # lazy-import: start-up of every command
    from fito.source import DEFAULT_MAX_BYTES  # lazy-import: start-up of every command
    from fito.types.oracle import (  # lazy-import: start-up of every command
        DEFAULT_TIMEOUT_MS,
        EpochOracle,
    )
    from fito.types.run import (  # lazy-import: start-up of every command
        exit_status,
        render_revealed,
        summary,
    )

    timeout_ms = DEFAULT_TIMEOUT_MS if args.timeout is None else max(1, int(args.timeout * 1000))
    oracle = EpochOracle(timeout_ms=timeout_ms)
    max_bytes = args.max_bytes or DEFAULT_MAX_BYTES
    results = [_one(path, oracle, max_bytes, args) for path in args.files]
    reports = [r.report for r in results]
    text = render_report(reports, args.format)
    if text:
        print(text)
    if args.format == "text":
        if args.reveal and any(r.revealed for r in results):
            print(render_revealed(results))
        print(summary(results))
    if args.stats:
        s = oracle.stats
        print(
            f"fito types: {s.questions} epoch questions, {s.checks} Z3 checks, "
            f"{s.witness_searches} witness searches, {s.cache_hits} cache hits, "
            f"{s.trivial} decided without Z3",
            file=sys.stderr,
        )
    return exit_status(results)


def _one(path: str, oracle: EpochOracle, max_bytes: int, args: argparse.Namespace) -> TypeReport:
    """One file under the command's budget, with the deadline of --timeout from now."""
    from fito.deep import run_deep  # lazy-import: start-up of every command
    from fito.lang.syntax.parser import machinery  # lazy-import: start-up of every command
    from fito.pipeline import type_check_path  # lazy-import: start-up of every command

    machinery()  # built (or loaded) once per process: not part of any file's time
    # the same for Z3: imported once, before any file's clock starts
    import z3  # noqa: F401  # lazy-import: start-up of every command

    with budget.active(budget.current().within(args.timeout)):
        return run_deep(type_check_path, path, oracle, max_bytes, args.reveal)
