"""`fito check`: parse, type-check and model-check specs."""

from __future__ import annotations

import argparse
import sys
import time

from fito.cli.commands.options import job_count, positive_int, positive_seconds
from fito.diagnostics import Diagnostic, UsageError, render_text

HELP = "parse, type-check and model-check .fito specs"
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command that Ctrl-C ended


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help=".fito spec files")
    p.add_argument(
        "--format",
        choices=("text", "json", "sarif", "html"),
        default="text",
        help="text (default), json, sarif, or html (a standalone page with the "
        "counterexamples as message-sequence charts)",
    )
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write the report to FILE instead of standard output"
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show every internal step of a counterexample (they are collapsed)",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="show each counterexample as a timeline: one row per step, one column "
        "per persistence domain",
    )
    p.add_argument(
        "--max-states",
        type=positive_int,
        default=None,
        metavar="N",
        help="give up (verdict unknown, exit 3) on finding more than N states in one "
        "search (default: no bound but --max-memory, as SPIN and TLC)",
    )
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=None,
        metavar="SECONDS",
        help="give up (verdict unknown, exit 3) after this many seconds per search (the "
        "safety assertions about one process share one search)",
    )
    p.add_argument(
        "--max-bytes",
        type=positive_int,
        default=None,
        metavar="N",
        help="refuse files larger than N bytes (default 8 MiB)",
    )
    p.add_argument(
        "--expect",
        action="store_true",
        help="compare the results with the `-- expect:` comments of each file; "
        "exit 0 when all match",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    p.add_argument(
        "--engine",
        choices=("auto", "frontier", "scalar", "symbolic"),
        default="auto",
        help="search engine: state by state (scalar), whole levels of packed states "
        "(frontier), or scalar first and frontier once the search grows (auto); "
        "symbolic: Z3, BMC for shortest runs and k-induction or Spacer for proofs over "
        "unbounded runs and integers (docs/symbolic.md)",
    )
    p.add_argument(
        "--jobs",
        type=job_count,
        default=1,
        metavar="N",
        help="processes of the frontier engine, or `auto` for every core (same "
        "verdicts, counts and traces for every N)",
    )
    p.add_argument(
        "--no-reduce",
        action="store_true",
        help="no symmetry reduction (docs/reductions.md): every state of the graph is stored",
    )
    p.add_argument(
        "--certificates",
        metavar="DIR",
        default=None,
        help="write the certificate of each invariant the symbolic engine proves to "
        "DIR/<spec>.line<N>.json, for `fito recheck` (docs/symbolic.md)",
    )
    p.add_argument(
        "--distributed",
        action="store_true",
        help="search across the ranks of an MPI run (`mpiexec -n R fito check --distributed`): "
        "each rank owns a hash shard of the states; rank 0 prints (docs/distributed.md)",
    )
    p.add_argument(
        "--checkpoint-dir",
        metavar="DIR",
        default=None,
        help="with --distributed: write checkpoints of the search to DIR (every level, "
        "unless --checkpoint-every or --checkpoint-minutes says otherwise)",
    )
    p.add_argument(
        "--checkpoint-every",
        type=positive_int,
        default=None,
        metavar="N",
        help="with --distributed: a checkpoint every N levels",
    )
    p.add_argument(
        "--checkpoint-minutes",
        type=positive_seconds,
        default=None,
        metavar="T",
        help="with --distributed: a checkpoint at the end of the first level after T minutes",
    )
    p.add_argument(
        "--resume",
        metavar="DIR",
        default=None,
        help="with --distributed: continue from the last committed level of the checkpoints "
        "in DIR (refused for another spec, number of ranks or partition); goes on writing there",
    )


def run(args: argparse.Namespace) -> int:
    from fito.check.options import CheckOptions  # lazy-import: start-up of every command
    from fito.deep import run_deep  # lazy-import: start-up of every command
    from fito.outcome import exit_status  # lazy-import: start-up of every command
    from fito.pipeline import check_file  # lazy-import: start-up of every command
    from fito.render.report import render_report  # lazy-import: start-up of every command
    from fito.source import DEFAULT_MAX_BYTES  # lazy-import: start-up of every command

    checkpoints = (args.checkpoint_dir, args.checkpoint_every, args.checkpoint_minutes)
    if not args.distributed and (
        args.resume is not None or any(a is not None for a in checkpoints)
    ):
        raise UsageError(
            "--checkpoint-dir, --checkpoint-every, --checkpoint-minutes and "
            "--resume need --distributed"
        )
    if args.distributed:
        status = _distributed_refusal(args)
        if status is not None:
            return status
    options = CheckOptions(
        max_states=args.max_states,
        timeout=args.timeout,
        max_bytes=args.max_bytes or DEFAULT_MAX_BYTES,
        progress=not args.no_progress and sys.stderr.isatty(),
        engine=args.engine,
        jobs=args.jobs,
        reduce=not args.no_reduce,
        distributed=args.distributed,
        checkpoint_dir=args.checkpoint_dir,
        checkpoint_every=args.checkpoint_every,
        checkpoint_minutes=args.checkpoint_minutes,
        resume=args.resume,
        before_search=_say_warnings if args.format == "text" and not args.expect else None,
    )
    from fito.check.explore import Progress  # lazy-import: start-up of every command

    refused: tuple[type[Exception], ...] = ()
    if args.distributed:
        from fito.check.distributed.checkpoint import (  # lazy-import: MPI runs only
            CheckpointRefused,
        )

        refused = (CheckpointRefused,)

    Progress.latest = None
    start = time.monotonic()
    try:
        reports = [run_deep(check_file, path, options) for path in args.files]
    except refused as exc:  # a --resume directory refused: every rank alike
        return _refuse("C304", str(exc), everyone=False)
    except KeyboardInterrupt:
        print(interrupted(time.monotonic() - start), file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.certificates is not None and not _write_certificates(args.certificates, reports):
        return 2
    if args.expect:
        from fito.expect import compare  # lazy-import: start-up of every command

        problems = [compare(r) for r in reports]
        status = 1 if any(problems) else 0
        if args.format == "text":
            return _emit(args, _expect_text(reports, problems), status, reports)
        return _emit(
            args, render_report(reports, args.format, expectations=problems), status, reports
        )
    text = render_report(reports, args.format, args.verbose, args.explain)
    return _emit(args, text, exit_status(reports), reports)


def _say_warnings(path: str, text: str, warnings: tuple[Diagnostic, ...]) -> None:
    """The front end's warnings on standard error before the search starts (the report on
    standard output repeats them with the verdicts)."""
    for d in warnings:
        print(render_text(d, path, text), file=sys.stderr, flush=True)


def _distributed_refusal(args: argparse.Namespace) -> int | None:
    """Exit status 2 and a diagnostic when --distributed cannot run: no mpi4py, or --jobs."""
    from fito.check.distributed.comm import available  # lazy-import: mpi4py starts MPI

    if not available():
        return _refuse(
            "C302",
            "--distributed needs mpi4py and an MPI library: pip install 'fito[mpi]'",
        )
    if args.jobs > 1:
        return _refuse(
            "C303",
            "--jobs with --distributed: each rank expands in one process; start more ranks "
            "(mpiexec -n R) instead",
        )
    return None


def _refuse(code: str, message: str, everyone: bool = True) -> int:
    """Exit status 2 and the diagnostic on standard error (once, from rank 0, when every
    rank of an MPI run meets it alike)."""
    from fito.errorcodes import lookup  # lazy-import: start-up of every command

    if not everyone and _rank() != 0:
        return 2
    print(f"fito: error: {message} [{code} {lookup(code).name}]", file=sys.stderr)
    return 2


def _rank() -> int:
    from fito.check.distributed.comm import world  # lazy-import: mpi4py starts MPI

    return int(world().Get_rank())


def interrupted(seconds: float) -> str:
    """What Ctrl-C prints, on a line of its own: the figures the search had reached (as
    SPIN prints its statistics when interrupted)."""
    from fito.check.explore import Progress  # lazy-import: start-up of every command

    head = "\n" if Progress.on_screen else ""  # below the progress line, not over it
    Progress.on_screen = False
    figures = ""
    if Progress.latest is not None:
        states, depth = Progress.latest
        figures = f": {states:,} states, depth {depth} so far"
    return f"{head}fito: interrupted after {seconds:.1f} s{figures}"


def _write_certificates(folder: str, reports: list) -> bool:
    """Each proved verdict's certificate as a file of its own (False: a write error, said)."""
    import json  # lazy-import: --certificates only
    from pathlib import Path  # lazy-import: --certificates only

    out = Path(folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for r in reports:
            for v in r.verdicts:
                if v.certificate is not None:
                    name = f"{Path(r.path).stem}.line{v.line}.json"
                    (out / name).write_text(json.dumps(v.certificate, indent=1) + "\n")
    except OSError as exc:
        sys.stderr.write(f"fito check: error: cannot write certificates to {folder}: {exc}\n")
        return False
    return True


def _emit(args: argparse.Namespace, text: str, status: int, reports: list | None = None) -> int:
    """Print the report, or write it to --output (a write error is a usage error) and say
    so on standard error, with the verdicts it holds (as pytest names its --junitxml)."""
    if getattr(args, "distributed", False) and _rank() != 0:  # the same report: rank 0 prints
        return status
    if args.output is None:
        if text:
            print(text)
        return status
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n" if text else "")
    except OSError as exc:
        raise UsageError(f"cannot write {args.output!r}: {exc.strerror or exc}") from None
    verdicts = [v.verdict for r in reports or () for v in r.verdicts]
    counts = ", ".join(f"{verdicts.count(k)} {k}" for k in ("holds", "fails", "unknown"))
    print(f"wrote {args.output} ({len(verdicts)} assertions: {counts})", file=sys.stderr)
    return status


def _expect_text(reports: list, problems: list) -> str:
    lines = []
    failed = 0
    for r, found in zip(reports, problems):
        for p in found:
            where = f"{r.path}:{p.line}" if p.line else r.path
            lines.append(f"{where}: {p.message}")
        if found:
            failed += 1
        else:
            lines.append(
                f"{r.path}: ok ({len(r.verdicts)} assertion(s), "
                f"{len(r.diagnostics)} diagnostic(s) as expected)"
            )
    lines.append(f"{len(reports) - failed} passed, {failed} failed")
    return "\n".join(lines)
