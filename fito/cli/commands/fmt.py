"""`fito fmt`: print .fito specs in canonical form, keeping their comments."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from fito.diagnostics import Diagnostic, render_text

HELP = (
    "print .fito specs in canonical form (--write: rewrite them in place; --check: exit 1 "
    "if a file is not canonical)"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help=".fito spec files")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="print nothing but the files that are not canonical; exit 1 if any",
    )
    mode.add_argument(
        "-w",
        "--write",
        action="store_true",
        help="rewrite each file that is not canonical in place, and name it",
    )


def run(args: argparse.Namespace) -> int:
    from fito.deep import run_deep  # lazy-import: start-up of every command
    from fito.lang.printer.fmt import format_text  # lazy-import: start-up of every command
    from fito.source import read_source  # lazy-import: start-up of every command

    status = 0
    for path in args.files:
        src = read_source(path)
        if isinstance(src, Diagnostic):
            print(render_text(src, path, None), file=sys.stderr)
            status = 2
            continue
        text = src.text
        result = run_deep(format_text, text)
        if result.text is None:
            for d in result.diagnostics:
                print(render_text(d, path, text), file=sys.stderr)
            status = 2
            continue
        if args.check:
            if result.text != text:
                print(f"{path}: not in canonical form (run `fito fmt --write {path}`)")
                status = max(status, 1)
        elif args.write:
            if result.text != text:
                status = max(status, _write(path, result.text))
        else:
            sys.stdout.write(result.text)
    return status


def _write(path: str, text: str) -> int:
    """Replace the file's content (through a temporary file, so a failure leaves it whole)."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".fito-fmt-", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        print(
            f"{path}:1:1: error: cannot rewrite the file: {exc.strerror or exc} "
            "[C002 unreadable-input]",
            file=sys.stderr,
        )
        return 2
    print(f"reformatted {path}")
    return 0
