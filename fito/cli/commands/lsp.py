"""`fito lsp`: the language server, over standard input and output."""

from __future__ import annotations

import argparse

from fito.diagnostics import UsageError

HELP = "run the fito language server on stdio (needs the `lsp` extra: pip install 'fito[lsp]')"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdio", action="store_true", help="talk over stdio (the default)")


def run(args: argparse.Namespace) -> int:
    try:
        from fito.editors.lsp.server import main  # lazy-import: start-up of every command
    except ImportError as exc:
        raise UsageError(
            f"the language server needs pygls ({exc}); install it with pip install 'fito[lsp]'"
        ) from None
    main()
    return 0
