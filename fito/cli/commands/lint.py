"""`fito lint`: checkpoint mistakes (paper A's FITO error) in PyTorch training scripts."""

from __future__ import annotations

import argparse

from fito.cli.commands.options import positive_int
from fito.diagnostics import UsageError

HELP = "find torn, mixed-epoch and unawaited checkpoints in Python training scripts"


def _codes(text: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in text.split(",") if c.strip())


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        metavar="FILE_OR_DIR",
        help="Python files, or directories searched for *.py",
    )
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument(
        "--select",
        type=_codes,
        default=(),
        metavar="CODES",
        help="report only these codes or code prefixes (comma-separated)",
    )
    p.add_argument(
        "--ignore",
        type=_codes,
        default=(),
        metavar="CODES",
        help="never report these codes or code prefixes (comma-separated)",
    )
    p.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when warnings are reported"
    )
    p.add_argument(
        "--model",
        action="store_true",
        help="write a .fito spec of each simple checkpoint protocol and model-check "
        "it: warnings come with the shortest crash that breaks them",
    )
    p.add_argument(
        "--model-dir",
        default=None,
        metavar="DIR",
        help="also write the specs that --model checks into DIR (implies --model; "
        "by default they are checked in memory and nothing is written)",
    )
    p.add_argument(
        "--max-bytes",
        type=positive_int,
        default=None,
        metavar="N",
        help="refuse files larger than N bytes (default 8 MiB)",
    )

    p.add_argument(
        "--config",
        default=None,
        metavar="PYPROJECT",
        help="read [tool.fito.lint] from this pyproject.toml (default: the nearest one at "
        "or above the first path)",
    )
    p.add_argument("--isolated", action="store_true", help="read no pyproject.toml configuration")


def run(args: argparse.Namespace) -> int:
    from fito.lint import config as lint_config  # lazy-import: start-up of every command
    from fito.lint.run import (  # lazy-import: start-up of every command
        LintOptions,
        exit_status,
        lint_paths,
        summary,
    )
    from fito.render.report import render_report  # lazy-import: start-up of every command
    from fito.source import DEFAULT_MAX_BYTES  # lazy-import: start-up of every command

    try:
        lint_config.codes(list(args.select), "--select")
        lint_config.codes(list(args.ignore), "--ignore")
        found = None if args.isolated else (args.config or lint_config.find(args.paths))
        cfg = lint_config.load(found) if found else lint_config.LintConfig()
    except lint_config.ConfigError as exc:
        raise UsageError(str(exc)) from None
    options = LintOptions(
        select=args.select or _configured_select(cfg.select, cfg.extend_select),
        ignore=cfg.ignore + args.ignore,
        max_bytes=args.max_bytes or DEFAULT_MAX_BYTES,
        model_dir=args.model_dir,
        model=args.model or args.model_dir is not None,
        config=cfg,
    )
    from fito.deep import run_deep  # lazy-import: start-up of every command

    try:
        results = run_deep(lint_paths, args.paths, options)
    except OSError as exc:
        raise UsageError(f"cannot write the model specs: {exc.strerror or exc}") from None
    reports = [r.report for r in results] + [s for r in results for s in r.specs]
    text = render_report(reports, args.format)
    if text:
        print(text)
    if args.format == "text":
        print(summary(results))
    return exit_status(results, args.exit_zero)


def _configured_select(select: tuple[str, ...], extend: tuple[str, ...]) -> tuple[str, ...]:
    """`select` plus `extend-select` (with no `select`, every default code plus those)."""
    if not extend:
        return select
    return (select or ("FITOL",)) + extend
