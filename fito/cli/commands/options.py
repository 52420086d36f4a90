"""Argument types shared by the subcommands (one home for their messages)."""

from __future__ import annotations

import argparse
import math
import os
from typing import TYPE_CHECKING

from fito.budget import Budget, default_max_bytes, parse_size, show_bytes

if TYPE_CHECKING:
    from fito.budget import Budget


def positive_int(text: str) -> int:
    """An integer > 0, else a usage error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def job_count(text: str) -> int:
    """A positive number of processes, or `auto`: the cores this process may run on."""
    if text.strip().lower() == "auto":
        cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        return max(1, len(cores) if cores else os.cpu_count() or 1)
    return positive_int(text)


def positive_seconds(text: str) -> float:
    """A finite number of seconds > 0, else a usage error."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def memory_size(text: str) -> int:
    """A memory size such as 512M, 4G or 1000000 (bytes), else a usage error."""
    try:
        return parse_size(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a memory size such as 512M or 4G, got {text!r}"
        ) from None


def add_budget_arguments(p: argparse.ArgumentParser) -> None:
    """`--max-memory` for every command, and `--timeout` (the whole command) where the command
    does not define a `--timeout` of its own (`fito check`: per assertion)."""
    p.add_argument(
        "--max-memory",
        type=memory_size,
        default=None,
        metavar="SIZE",
        help="give up (unknown, exit 3) when the process uses more than SIZE of memory "
        f"(e.g. 512M, 4G; default {show_bytes(default_max_bytes())}: the smaller "
        "of 75%% of physical memory and 8 GiB)",
    )
    try:
        p.add_argument(
            "--timeout",
            type=positive_seconds,
            default=None,
            metavar="SECONDS",
            help="give up (unknown, exit 3) after this many seconds",
        )
    except argparse.ArgumentError:  # the command's own --timeout
        return
    p.set_defaults(_whole_command_timeout=True)


def budget_of(args: argparse.Namespace) -> Budget:
    """The budget of a command from its parsed arguments."""
    max_bytes = getattr(args, "max_memory", None) or default_max_bytes()
    timeout = (
        getattr(args, "timeout", None) if getattr(args, "_whole_command_timeout", False) else None
    )
    return Budget.of(timeout, max_bytes)
