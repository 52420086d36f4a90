"""`fito inspect DIR`: the epochs of an epoch-aware checkpoint directory, what a restore takes."""

from __future__ import annotations

import argparse
import json
import sys

from fito.errorcodes import lookup

HELP = "show the epochs a fito.runtime checkpoint directory holds and which one a restore takes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir",
        metavar="DIR",
        help="a checkpoint directory (fito.runtime, plain DCP, Hugging Face Trainer, "
        "DeepSpeed, Megatron, torch.save files) or a Lightning .ckpt file",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "prometheus"),
        default="text",
        help="text (default), json, or Prometheus text exposition metrics",
    )


def run(args: argparse.Namespace) -> int:
    """0: the newest epoch is consistent (or there is none); 1: it is mixed, torn or
    uncommitted; 2: DIR cannot be read or is not a checkpoint directory."""
    from fito.runtime import (  # lazy-import: start-up of every command
        CheckpointError,
        NotACheckpointDir,
        prometheus_text,
        report,
        scan,
    )

    try:
        result = scan(args.dir)
    except NotACheckpointDir:
        return _foreign(args)
    except CheckpointError as exc:
        if args.dir.endswith(".ckpt"):
            return _foreign(args)
        return _fail(args, str(exc), "C002")
    except OSError as exc:
        return _fail(args, f"{args.dir}: {exc.strerror or exc}", "C002")
    if args.format == "json":
        print(json.dumps(report.to_json(result), indent=1))
    elif args.format == "prometheus":
        sys.stdout.write(prometheus_text(result))
    else:
        print(report.to_text(result))
    return 0 if report.newest_is_consistent(result) else 1


def _foreign(args: argparse.Namespace) -> int:
    """A checkpoint of another format (plain DCP, Hugging Face, DeepSpeed, Megatron,
    Lightning, torch.save files): 0 when a resume takes a consistent one, else 1."""
    from fito.runtime import formats  # lazy-import: start-up of every command
    from fito.runtime.layout import NotACheckpointDir  # lazy-import: start-up

    try:
        found = formats.inspect_checkpoint(args.dir)
    except NotACheckpointDir as exc:
        return _fail(args, str(exc), "C201")
    except OSError as exc:
        return _fail(args, f"{args.dir}: {exc.strerror or exc}", "C002")
    if args.format == "json":
        print(json.dumps(formats.to_json(found), indent=1))
    elif args.format == "prometheus":
        sys.stdout.write(formats.to_prometheus(found))
    else:
        print(formats.to_text(found))
    return 0 if found.ok else 1


def _fail(args: argparse.Namespace, message: str, code: str) -> int:
    name = lookup(code).name
    if args.format == "json":
        print(
            json.dumps({"dir": args.dir, "error": {"code": code, "name": name, "message": message}})
        )
    print(f"fito: error: {message} [{code} {name}]", file=sys.stderr)
    return 2
