"""`fito lts`: export the state graph of a small model (Graphviz DOT or JSON)."""

from __future__ import annotations

import argparse
import json
import sys

from fito.budget import BudgetExceeded
from fito.diagnostics import error, render_text

HELP = "export the labelled transition system of a small process (DOT or JSON)"
DEFAULT_LIMIT = 5000


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE")
    p.add_argument("--process", metavar="NAME", help="the process to export (default: the system)")
    p.add_argument("--format", choices=("dot", "json"), default="dot")
    p.add_argument(
        "--max-states",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"refuse graphs with more than N states (default {DEFAULT_LIMIT})",
    )


def run(args: argparse.Namespace) -> int:
    """Every stage on a deep stack, as `fito check` runs them (long prefix chains and deep
    `if`s recurse in the compiler)."""
    from fito.deep import run_deep  # lazy-import: start-up of every command

    return run_deep(_run, args)


def _run(args: argparse.Namespace) -> int:
    from fito.check.lts import (  # lazy-import: start-up of every command
        TooLarge,
        build_lts,
        to_dot,
        to_json,
    )
    from fito.lang import nodes as A  # lazy-import: start-up of every command
    from fito.pipeline import load_path  # lazy-import: start-up of every command
    from fito.semantics.compiled import compile_model  # lazy-import: start-up of every command
    from fito.semantics.ir import Fault  # lazy-import: start-up of every command
    from fito.semantics.network import StructureGrows  # lazy-import: start-up of every command
    from fito.semantics.rules.refusal import NotSupported  # lazy-import: start-up of every command

    loaded = load_path(args.file)
    text = loaded.source.text if loaded.source is not None else None
    model = loaded.model
    if model is None:
        for d in loaded.diagnostics:
            print(render_text(d, args.file, text), file=sys.stderr)
        return loaded.status
    if args.process:
        if args.process not in model.processes or model.processes[args.process].params:
            print(
                f"fito: error: no process '{args.process}' without parameters [C001 bad-usage]",
                file=sys.stderr,
            )
            return 2
        proc: A.Proc = A.ProcRef(args.process, ())
        name = args.process
    elif model.system is not None:
        proc, name = model.system, "system"
    else:
        print(
            "fito: error: the spec has no `system`; name one with --process [C001 bad-usage]",
            file=sys.stderr,
        )
        return 2
    c = compile_model(model)
    try:
        lts = build_lts(c, c.initial(proc), args.max_states)
    except NotSupported as refusal:  # too large an expansion, or variables it cannot keep
        print(render_text(refusal.diagnostic, args.file, text), file=sys.stderr)
        return 1
    except TooLarge:
        d = error(
            "M004",
            f"the state graph has more than {args.max_states:,} states; refusing to export it",
            hint="raise --max-states, or export a smaller process",
        )
        print(render_text(d, args.file, None), file=sys.stderr)
        return 3
    except (BudgetExceeded, StructureGrows, RecursionError) as exc:
        reason = (
            exc.message
            if isinstance(exc, (BudgetExceeded, StructureGrows))
            else "the process term grew too deep (recursion through an operator)"
        )
        print(
            render_text(
                error(
                    "M003",
                    f"{reason}; no graph exported",
                    hint="raise --timeout or --max-memory, or export a smaller process",
                ),
                args.file,
                None,
            ),
            file=sys.stderr,
        )
        return 3
    except Fault as fault:  # in the initial state: a call's argument
        code, message, span = c.error_site(fault)
        print(
            render_text(
                error(code, f"model error in the initial state: {message}", span=span),
                args.file,
                text,
            ),
            file=sys.stderr,
        )
        return 1
    print(to_dot(c, lts, name) if args.format == "dot" else json.dumps(to_json(c, lts), indent=2))
    return 0
