"""`fito check`: parse, type-check and model-check specs."""
from __future__ import annotations

import argparse
import sys

from fito.commands.options import positive_int, positive_seconds

HELP = "parse, type-check and model-check .fito specs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help=".fito spec files")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument("--max-states", type=positive_int, default=None, metavar="N",
                   help="give up (verdict unknown, exit 3) after N states per assertion")
    p.add_argument("--timeout", type=positive_seconds, default=None, metavar="SECONDS",
                   help="give up (verdict unknown, exit 3) after this many seconds per assertion")
    p.add_argument("--max-bytes", type=positive_int, default=None, metavar="N",
                   help="refuse files larger than N bytes (default 8 MiB)")
    p.add_argument("--expect", action="store_true",
                   help="compare the results with the `-- expect:` comments of each file; "
                        "exit 0 when all match")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    p.add_argument("--engine", choices=("auto", "frontier", "scalar"), default="auto",
                   help="search engine: state by state (scalar), whole levels of packed states "
                        "(frontier), or scalar first and frontier once the search grows (auto)")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                   help="threads of the frontier engine (same verdicts, counts and traces for "
                        "every N; `--jobs 2` uses both cores of a 2-core machine)")


def run(args: argparse.Namespace) -> int:
    from fito.deep import run_deep
    from fito.driver import CheckOptions, check_path, exit_status
    from fito.source import DEFAULT_MAX_BYTES

    options = CheckOptions(max_states=args.max_states, timeout=args.timeout,
                           max_bytes=args.max_bytes or DEFAULT_MAX_BYTES,
                           progress=not args.no_progress and sys.stderr.isatty(),
                           engine=args.engine, jobs=args.jobs)
    reports = [run_deep(check_path, path, options) for path in args.files]
    if args.expect:
        return _expect(reports)
    from fito.report import render_report

    text = render_report(reports, args.format)
    if text:
        print(text)
    return exit_status(reports)


def _expect(reports: list) -> int:
    from fito.expect import compare

    failed = 0
    for r in reports:
        problems = compare(r)
        for p in problems:
            where = f"{r.path}:{p.line}" if p.line else r.path
            print(f"{where}: {p.message}")
        if problems:
            failed += 1
        else:
            print(f"{r.path}: ok ({len(r.verdicts)} assertion(s), {len(r.diagnostics)} diagnostic(s) as expected)")
    print(f"{len(reports) - failed} passed, {failed} failed")
    return 1 if failed else 0
