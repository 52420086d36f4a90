"""Command-line plumbing shared by `fito simulate` and `fito returnmap`: flags, diagnostics."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from fito.diagnostics import Span, UsageError, error, render_text, to_json
from fito.errors import FitoError
from fito.models.fleet.oscillators import Fleet, ModelError, load_fleet, parse_toml

MAX_BYTES = 1 << 20
OVERRIDES = ("jobs", "work", "volume", "throughput", "capacity", "phases", "cycles")


class InputFailure(FitoError):
    """The model could not be loaded; the diagnostic has been printed; carries the status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """MODEL plus the flags that override its values."""
    parser.add_argument("model", metavar="MODEL", help="a fleet model file (models/*.toml)")
    parser.add_argument("--jobs", help="number of jobs N")
    parser.add_argument("--work", help="work W: one value or a comma-separated list")
    parser.add_argument("--volume", help="volume V: one value or a comma-separated list")
    parser.add_argument(
        "--throughput", metavar="EXPR", help="aggregate throughput f(n), e.g. 'B' or 'n*b'"
    )
    parser.add_argument("--capacity", metavar="C", help="compute capacity C, or 'inf'")
    parser.add_argument(
        "--phases",
        help="positions '0,3,7/2' or even | together[:P] | ramp:STEP[:START] | random:SEED",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a parameter of [params] (repeatable)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")


def overrides(args: argparse.Namespace, raw_params: dict[str, Any]) -> dict[str, Any]:
    """The raw-table values given on the command line."""
    out: dict[str, Any] = {}
    for key in OVERRIDES:
        value = getattr(args, key, None)
        if value is None:
            continue
        if key in ("work", "volume") and "," in value:
            value = [v.strip() for v in value.split(",")]
        out[key] = value
    if args.param:
        params = dict(raw_params)
        for item in args.param:
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise UsageError(f"--param expects NAME=VALUE, got {item!r}")
            params[name.strip()] = value.strip()
        out["params"] = params
    return out


def load_model(args: argparse.Namespace, uses_phases: bool = True) -> tuple[Fleet, str, str]:
    """Read MODEL, apply the flags, resolve; print a diagnostic and raise InputFailure if bad.

    A command that ignores the initial phases (`returnmap`) replaces them by `even`, so that
    overriding --jobs or --work never trips over the file's explicit positions."""
    path = args.model
    text = _read(path, args.format)

    try:
        raw = parse_toml(text)
        params = raw.get("params")
        flags = overrides(args, params if isinstance(params, dict) else {})
        if not uses_phases and "phases" not in flags:
            flags["phases"] = "even"
        fleet = load_fleet(text, Path(path).stem, flags)
    except ModelError as exc:
        from_flag = exc.key is not None and exc.key.split(".")[0] in _flag_keys(args)
        report(path, text, exc, args.format, from_flag)
        raise InputFailure(exc.status) from None
    return fleet, path, text


def _flag_keys(args: argparse.Namespace) -> set[str]:
    keys = {k for k in OVERRIDES if getattr(args, k, None) is not None}
    return keys | ({"params"} if args.param else set())


def _read(path: str, fmt: str) -> str:
    try:
        return _read_regular(Path(path), path, fmt)
    except OSError as exc:  # a name too long, a loop of links, no permission
        message = f"cannot read {path}: {exc.strerror or exc}"
    report(path, None, ModelError("C002", message, status=2), fmt, False)
    raise InputFailure(2)


def _read_regular(p: Path, path: str, fmt: str) -> str:
    code, message = None, ""
    if not p.is_file():
        code, message = (
            "C002",
            f"cannot read {path}: "
            + (
                "it is a directory"
                if p.is_dir()
                else "not a regular file"
                if p.exists()
                else "no such file"
            ),
        )
    elif p.stat().st_size > MAX_BYTES:
        code, message = "C005", f"{path} is larger than {MAX_BYTES} bytes"
    else:
        data = p.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            code, message = "C003", f"{path} is not valid UTF-8"
        else:
            if "\x00" in text:
                code, message = "C004", f"{path} holds binary bytes"
            else:
                return text
    report(path, None, ModelError(code, message, status=2), fmt, False)
    raise InputFailure(2)


def report(path: str, text: str | None, exc: ModelError, fmt: str, from_flag: bool) -> None:
    """Print one diagnostic for `exc` (text on stderr, or a JSON object on stdout)."""
    span = _key_span(text, exc.key) if text is not None and not from_flag else Span(1, 1, 1, 1)
    line_col = re.search(r"at line (\d+), column (\d+)", str(exc))
    if line_col:
        line, col = int(line_col.group(1)), int(line_col.group(2))
        span = Span.point(line, col)
    notes = ("the value comes from a command-line flag",) if from_flag else ()
    diag = error(exc.code, str(exc), span, notes=notes, hint=exc.hint)
    if fmt == "json":
        print(json.dumps({"path": path, "diagnostics": [to_json(diag)]}, indent=2))
    else:
        print(render_text(diag, path, text if not from_flag else None), file=sys.stderr)


def _key_span(text: str, key: str | None) -> Span:
    if not key:
        return Span(1, 1, 1, 1)
    head = key.split(".")[-1]
    for number, line in enumerate(text.split("\n"), start=1):
        m = re.match(rf"\s*(\[?{re.escape(head)}\]?)\s*(=|$)", line)
        if m:
            return Span(number, m.start(1) + 1, number, m.end(1) + 1)
    return Span(1, 1, 1, 1)
