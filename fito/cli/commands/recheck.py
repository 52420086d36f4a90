"""`fito recheck PATH...`: re-check certificates in the standard-library kernel (no solver)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

HELP = "re-check proof certificates in the small kernel (no SymPy, no Z3)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        default=["certificates"],
        help="certificate files or directories of *.json (default: certificates)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="reject certificates with trusted obligations (tool's word only) or of an "
        "unregistered claim",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--show",
        action="store_true",
        help="print the statement of each accepted certificate, as the kernel reads it",
    )


def certificate_files(paths: list[str]) -> tuple[list[str], list[str]]:
    """The certificate files named by paths (directories: every *.json below, sorted), and
    the missing paths."""
    files: list[str] = []
    missing: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs.sort()
                files.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".json"))
        elif os.path.exists(p):
            files.append(p)
        else:
            missing.append(p)
    return files, missing


def run(args: argparse.Namespace) -> int:
    from fito.proof import kernel  # lazy-import: start-up of every command

    files, missing = certificate_files(args.paths)
    rows: list[dict[str, Any]] = [
        {
            "path": p,
            "status": "unreadable",
            "claim": None,
            "reason": "no such file or directory",
            "trusted": [],
        }
        for p in missing
    ]
    if not files and not missing:
        rows.append(
            {
                "path": " ".join(args.paths),
                "status": "unreadable",
                "claim": None,
                "reason": "no certificate files (*.json) found",
                "trusted": [],
            }
        )
    for path in files:
        rows.append(_check(kernel, path, args.strict))
    if args.format == "json":
        _json(rows)
    else:
        _text(rows, getattr(args, "show", False))
    statuses = {r["status"] for r in rows}
    return 2 if "unreadable" in statuses else 1 if "rejected" in statuses else 0


def _check(kernel, path: str, strict: bool) -> dict:
    if not os.path.isfile(path):  # a FIFO or a device would block the kernel's read
        return {
            "path": path,
            "status": "unreadable",
            "claim": None,
            "reason": "not a regular file",
            "trusted": [],
        }
    try:
        cert = kernel.load(path)
    except kernel.Unreadable as exc:
        return {
            "path": path,
            "status": "unreadable",
            "claim": None,
            "reason": str(exc),
            "trusted": [],
        }
    r = kernel.check(cert, strict=strict)
    return {
        "path": path,
        "status": "accepted" if r.accepted else "rejected",
        "claim": r.claim,
        "reason": r.reason or None,
        "trusted": list(r.trusted),
        "obligations": r.obligations,
        "verdict": r.verdict if r.accepted else None,
        "registered": r.bound,
        "statement": list(r.statement),
    }


def _text(rows: list[dict], show: bool = False) -> None:
    from fito.proof.kernel.props import render  # lazy-import: start-up of every command

    for r in rows:
        if r["status"] == "accepted":
            trust = f"; {', '.join(r['trusted'])}" if r["trusted"] else ""
            bound = "" if r["registered"] else "; unregistered claim"
            print(
                f"{r['path']}: accepted ({r['claim']}: {r['verdict']}, "
                f"{r['obligations']} obligations{trust}{bound})"
            )
            if show:
                word = "refutes" if r["verdict"] == "refuted" else "proves"
                for i, p in enumerate(r["statement"], 1):
                    print(f"  {word} {i}: {render(p)}")
        elif r["status"] == "rejected":
            print(f"{r['path']}: rejected: {r['reason']} [K001 certificate-rejected]")
        else:
            print(f"{r['path']}: unreadable: {r['reason']} [K002 certificate-unreadable]")
    counts = {
        s: sum(r["status"] == s for r in rows) for s in ("accepted", "rejected", "unreadable")
    }
    verdicts = [r.get("verdict") for r in rows if r["status"] == "accepted"]
    print(
        f"{len(rows)} certificates: {counts['accepted']} accepted "
        f"({verdicts.count('proved')} proved, {verdicts.count('refuted')} refuted), "
        f"{counts['rejected']} rejected, {counts['unreadable']} unreadable"
    )


def _json(rows: list[dict]) -> None:
    print(json.dumps({"certificates": rows}, indent=2))
