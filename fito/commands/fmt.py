"""`fito fmt`: print .fito specs in canonical form, keeping their comments."""
from __future__ import annotations

import argparse
import sys

HELP = "print .fito specs in canonical form (--check: exit 1 if a file is not canonical)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help=".fito spec files")
    p.add_argument("--check", action="store_true",
                   help="print nothing but the files that are not canonical; exit 1 if any")


def run(args: argparse.Namespace) -> int:
    from fito.deep import run_deep
    from fito.diagnostics import render_text
    from fito.lang.format import format_text
    from fito.source import read_source

    status = 0
    for path in args.files:
        src = read_source(path)
        if not hasattr(src, "text"):
            print(render_text(src, path, None), file=sys.stderr)  # type: ignore[arg-type]
            status = 2
            continue
        result = run_deep(format_text, src.text)  # type: ignore[union-attr]
        if result.text is None:
            for d in result.diagnostics:
                print(render_text(d, path, src.text), file=sys.stderr)  # type: ignore[union-attr]
            status = 2
            continue
        if args.check:
            if result.text != src.text:  # type: ignore[union-attr]
                print(f"{path}: not in canonical form (run `fito fmt {path}`)")
                status = max(status, 1)
        else:
            sys.stdout.write(result.text)
    return status
