"""`fito replay TRACE.json SPEC`: re-run a saved counterexample (or witness) on a spec."""

from __future__ import annotations

import argparse
import json
from typing import Any

from fito.cli.commands.options import positive_int
from fito.diagnostics import Diagnostic, UsageError, render_text

HELP = (
    "re-run a trace saved by `fito check --format json` on a spec: exit 1 if it still "
    "ends in the failure, 0 if the spec and the trace part ways (and where)"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "trace",
        metavar="TRACE.json",
        help="a `fito check --format json` report, one of its assertions, or a run",
    )
    p.add_argument("spec", metavar="SPEC", help="the .fito spec to replay it on")
    p.add_argument(
        "--line",
        type=positive_int,
        metavar="N",
        help="the assertion on line N (default: the first failing one in TRACE.json)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="show every internal step")


def run(args: argparse.Namespace) -> int:
    from fito.check.traces.replay import replay  # lazy-import: start-up of every command
    from fito.deep import run_deep  # lazy-import: start-up of every command
    from fito.pipeline import front_end  # lazy-import: start-up of every command
    from fito.render.text import render_run  # lazy-import: start-up of every command
    from fito.source import read_source  # lazy-import: start-up of every command

    saved, line, text = _load(args.trace, args.line)
    src = read_source(args.spec)
    if isinstance(src, Diagnostic):
        print(render_text(src, args.spec, None))
        return 2
    front = run_deep(front_end, src.text)
    model, errors = front.model, front.errors
    if model is None or errors:
        for d in errors or front.parsed.diagnostics:
            print(render_text(d, args.spec, src.text))
        return 2
    assertion = _find(model, line, text)
    result = run_deep(replay, model, assertion, saved)
    print(f"{args.spec}:{assertion.span.line}: replaying {len(saved.steps)} step(s) of {text}")
    if result.run is not None and result.run.steps:
        print("\n".join(render_run(result.run, "the spec's run", args.verbose)))
    print(f"  {result.message}")
    return 1 if result.reproduced and _fails(saved) else 0


def _fails(saved: object) -> bool:
    from fito.check.traces.records import WITNESS  # lazy-import: start-up of every command

    return saved.final.kind != WITNESS  # type: ignore[attr-defined]


def _load(path: str, line: int | None) -> tuple:
    """The saved trace, its assertion's line and text (a usage error when unusable)."""
    from fito.check.traces.records import Trace  # lazy-import: start-up of every command
    from fito.source import read_source  # lazy-import: start-up of every command

    src = read_source(path)  # bounded: a FIFO, a device or a huge file is refused
    if isinstance(src, Diagnostic):
        raise UsageError(f"cannot read the trace {path!r}: {src.message}")
    try:
        data = json.loads(src.text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply
        raise UsageError(f"cannot read the trace {path!r}: {_first_line(exc)}") from None
    candidates = _assertions(data)
    if line is not None:
        candidates = [a for a in candidates if a.get("line") == line]
    chosen = next((a for a in candidates if a.get("verdict") == "fails"), None) or next(
        iter(candidates), None
    )
    if chosen is None:
        raise UsageError(f"{path!r} holds no trace" + (f" for line {line}" if line else ""))
    try:
        return Trace.from_json(chosen["run"]), chosen.get("line"), chosen.get("text", "")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UsageError(f"{path!r} is not a trace fito wrote: {exc}") from None


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _list(value: object) -> list:
    return value if isinstance(value, list) else []


def _assertions(data: object) -> list[dict]:
    """Every assertion with a run: from a report, an assertion, or a bare run."""
    if isinstance(data, dict) and isinstance(data.get("files"), list):
        return [
            a
            for f in data["files"]
            if isinstance(f, dict)
            for a in _list(f.get("assertions"))
            if isinstance(a, dict) and a.get("run")
        ]
    if isinstance(data, dict) and isinstance(data.get("run"), dict):
        return [data]
    if isinstance(data, dict) and "steps" in data:
        return [{"run": data}]
    return []


def _find(model: Any, line: int | None, text: str) -> Any:
    """The assertion of the spec on that line, or else the one with the same text."""
    from fito.lang.printer.canonical import (  # lazy-import: start-up of every command
        print_assertion,
    )

    assertions = model.assertions
    for a in assertions:
        if line is not None and a.span.line == line:
            return a

    def bare(t: str) -> str:  # the text as written or printed: spaces and parentheses aside
        return "".join(ch for ch in t if ch not in " \t\n()")

    for a in assertions:
        if bare(print_assertion(a)) == bare(text):
            return a
    raise UsageError(f"the spec has no assertion on line {line} or written as {text!r}")
