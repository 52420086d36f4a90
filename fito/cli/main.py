"""The `fito` command line: argument parsing and dispatch only.

Each subcommand lives in a module of `fito/cli/commands/` (named in `MODULES` where the command's
name would shadow a standard-library module) and defines `HELP` (one line),
`add_arguments(parser)` and `run(args) -> int`. Command modules import their heavy
dependencies (z3, sympy, numpy) inside `run`, so that parsing arguments stays cheap and
`fito recheck` never loads a solver.

Exit statuses (LANGUAGE.md): 0 success, 1 a property fails or the input has errors,
2 the input could not be read or parsed or the usage is bad, 3 a limit was hit.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from fito import __version__, methodcache
from fito.budget import BudgetExceeded, active
from fito.cli.commands.options import add_budget_arguments, budget_of
from fito.diagnostics import UsageError

COMMANDS: tuple[str, ...] = (
    "check",  # parse, type-check and model-check specs
    "types",  # FITO type checking of pipelines only
    "lts",  # export the state graph of a small model
    "fmt",  # canonical printer
    "prove",  # discharge claims in proofs/*.py
    "recheck",  # re-check certificates in the small kernel
    "lattice",  # epoch lattice figures
    "simulate",  # fleet simulator
    "returnmap",  # symbolic return maps of fleets
    "inspect",  # epoch-aware checkpoint directories
    "lint",  # checkpoint mistakes in PyTorch training scripts
    "replay",  # re-run a saved counterexample on a spec
    "lsp",  # the language server (stdio)
)

# commands whose module is not named after them (no module shadows the standard library)
MODULES: dict[str, str] = {"types": "typecheck", "inspect": "inspect_dir"}

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_LIMIT = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump, exit 2
        raise UsageError(message)


class _CommandParser(_Parser):
    """A command's parser, given its arguments only when argparse first uses it: a run builds
    the parser of the command it runs, not those of the twelve others (`fito simulate`'s
    arguments alone import the fleet models)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._module: Any = None

    def _arguments(self) -> None:
        module, self._module = self._module, None
        if module is not None:
            module.add_arguments(self)
            add_budget_arguments(self)
            self.set_defaults(_run=module.run)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._arguments()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._arguments()
        return super().format_usage()

    def format_help(self) -> str:
        self._arguments()
        return super().format_help()


def _command_module(name: str):
    return importlib.import_module(f"fito.cli.commands.{MODULES.get(name, name)}")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, one subparser per available command (each filled in when
    first used: see `_CommandParser`)."""
    parser = _Parser(prog="fito", description="Checkpoint, crash and recovery protocols, checked.")
    parser.add_argument("--version", action="version", version=f"fito {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    for name in COMMANDS:
        try:
            module = _command_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == f"fito.cli.commands.{MODULES.get(name, name)}":
                continue  # not built yet
            raise
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        p._module = module
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    if argv is None:  # a process of its own: keep dataclasses' compiled methods between runs
        methodcache.install()
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(args_list)
    except UsageError as exc:
        print(f"fito: error: {exc} [C001 bad-usage]", file=sys.stderr)
        return EXIT_USAGE
    if getattr(args, "_run", None) is None:
        print(
            "fito: error: a command is required (try `fito --help`) [C001 bad-usage]",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        with active(budget_of(args)):
            return int(args._run(args))
    except SystemExit as exc:  # raised by code fito ran (a claims file): its status clamped
        if exc.code is None:
            return EXIT_OK
        if type(exc.code) is int and exc.code in (EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_LIMIT):
            return exc.code
        print(f"fito: error: exit status {exc.code!r} requested [C001 bad-usage]", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"fito: error: {exc} [C001 bad-usage]", file=sys.stderr)
        return EXIT_USAGE
    except BudgetExceeded as exc:  # a stage that keeps no figures of its own
        print(f"fito: unknown: {exc.message} [M003 limit-reached]", file=sys.stderr)
        return EXIT_LIMIT
    except MemoryError:  # the memory backstop (fito.budget) refused an allocation
        print(
            "fito: unknown: out of memory (raise --max-memory) [M003 limit-reached]",
            file=sys.stderr,
        )
        return EXIT_LIMIT
    except KeyboardInterrupt:
        print("fito: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
