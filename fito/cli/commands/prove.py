"""`fito prove PATH...`: run the claims of proofs/*.py, re-check and write their certificates."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from fito.diagnostics import Span, UsageError, error, render_text

HELP = "discharge the claims in proofs/*.py and write re-checkable certificates"
DEFAULT_DIR = "certificates"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        default=["proofs"],
        help="claims files or directories of them (default: proofs)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="GLOB",
        help="run only claims whose id matches the glob (repeatable)",
    )
    parser.add_argument(
        "--certificates",
        default=DEFAULT_DIR,
        metavar="DIR",
        help=f"where certificates are written (default: {DEFAULT_DIR})",
    )
    parser.add_argument("--no-certificates", action="store_true", help="write no certificate files")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="per-claim time limit (default: the claim's own, else 60)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="claims run in parallel (default: every CPU); the certificates "
        "are the same byte for byte whatever N is",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress line on standard error (shown only on a terminal)",
    )


def run(args: argparse.Namespace) -> int:
    from fito.proof import runner  # lazy-import: start-up of every command

    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    start = time.perf_counter()
    try:
        claims = runner.collect(args.paths, args.only)
    except runner.CollectError as exc:
        print(
            render_text(error("K003", exc.message, _span(exc.line)), exc.path, None),
            file=sys.stderr,
        )
        return 2
    if not claims:
        what = f"matching {' '.join(args.only)} " if args.only else ""
        print(
            f"fito: error: no claims {what}in {' '.join(args.paths)} [K003 claims-file-error]",
            file=sys.stderr,
        )
        return 2
    show_progress = not args.no_progress and sys.stderr.isatty()
    progress = Progress(start) if show_progress else None
    results = runner.run_claims(claims, timeout=args.timeout, jobs=args.jobs, progress=progress)
    if progress:
        progress.clear()
    try:
        paths = [None if args.no_certificates else _write(args.certificates, r) for r in results]
    except OSError as exc:
        print(
            f"fito: error: cannot write certificates to {args.certificates}: {exc.strerror or exc} "
            f"[C002 unreadable-input]",
            file=sys.stderr,
        )
        return 2
    show = _json if args.format == "json" else _text
    show(results, paths, args, time.perf_counter() - start)
    verdicts = {r.verdict for r in results}
    return 1 if "refuted" in verdicts else 3 if "unknown" in verdicts else 0


class Progress:
    """One line on standard error, rewritten as each claim finishes: claim n of m, its id,
    its verdict and time, and the time so far."""

    def __init__(self, start: float) -> None:
        self.start, self.width = start, 0

    def __call__(self, done: int, total: int, r) -> None:
        elapsed = time.perf_counter() - self.start
        text = (
            f"claim {done} of {total}: {r.claim.id} {r.verdict} in {r.seconds:.2f} s "
            f"({elapsed:.0f} s so far)"
        )
        self._write(text)

    def _write(self, text: str) -> None:
        pad = max(0, self.width - len(text))
        sys.stderr.write("\r" + text + " " * pad)
        sys.stderr.flush()
        self.width = len(text)

    def clear(self) -> None:
        sys.stderr.write("\r" + " " * self.width + "\r")
        sys.stderr.flush()


def _span(line: int):
    return Span.point(line, 1)


def _write(directory: str, r) -> str | None:
    from fito.proof import runner  # lazy-import: start-up of every command

    return runner.write_certificate(directory, r)


def _text(results, paths, args, seconds: float) -> None:
    rows = [
        (
            r.claim.id,
            r.claim.method,
            r.verdict,
            f"{r.seconds:.2f}",
            ", ".join(r.trusted) if r.trusted else ("kernel" if r.certificate else "-"),
        )
        for r in results
    ]
    head = ("claim", "method", "verdict", "seconds", "checked by")
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    fmt = "  ".join(f"{{:{'>' if i == 3 else '<'}{w}}}" for i, w in enumerate(widths))
    print(fmt.format(*head).rstrip())
    for r, row in zip(results, rows):
        print(fmt.format(*row).rstrip())
        if r.reason and r.verdict != "proved":
            print(f"  {r.verdict}: {r.reason}")
    counts = {v: sum(r.verdict == v for r in results) for v in ("proved", "refuted", "unknown")}
    where = "not written" if args.no_certificates else f"in {args.certificates}/"
    trusted = sum(1 for r in results if r.trusted)
    print(
        f"{len(results)} claims: {counts['proved']} proved, {counts['refuted']} refuted, "
        f"{counts['unknown']} unknown, {trusted} with a trust tag; certificates {where} "
        f"({seconds:.2f} s)"
    )


def _json(results, paths, args, seconds: float) -> None:
    claims = [
        {
            "id": r.claim.id,
            "title": r.claim.title,
            "verdict": r.verdict,
            "method": r.claim.method,
            "seconds": round(r.seconds, 4),
            "certificate": p,
            "reason": r.reason or None,
            "trusted": list(r.trusted),
        }
        for r, p in zip(results, paths)
    ]
    print(json.dumps({"claims": claims}, indent=2))
