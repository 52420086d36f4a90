"""`fito returnmap MODEL --branch B`: derive a fleet branch's return map symbolically (paper B)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from fito.diagnostics import UsageError, error, render_text

HELP = "derive the return map of a fleet branch: matrix, eigenvalues, determinant, region"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from fito.cli.fleet_args import add_model_arguments  # lazy-import: start-up of every command

    add_model_arguments(parser)
    parser.add_argument(
        "--branch",
        required=True,
        metavar="BRANCH",
        help="pairwise | overlapping | staggered | all | "
        "'MODES: EVENTS' (e.g. 'c: fire1 end0 end1 fire0')",
    )
    parser.add_argument(
        "--symbolic",
        action="store_true",
        help="keep W, V, f(1..N) and C as symbols (same cap regime)",
    )
    parser.add_argument(
        "--no-check", action="store_true", help="skip the cross-check against the exact simulator"
    )


def run(args: argparse.Namespace) -> int:
    from fito.cli.fleet_args import (  # lazy-import: start-up of every command
        InputFailure,
        load_model,
    )

    try:
        fleet, path, _ = load_model(args, uses_phases=False)
    except InputFailure as failure:
        return failure.status
    _check_usage(args, fleet, UsageError)
    try:
        reports = _reports(args, fleet)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    summary = _pairwise_summary(fleet, args) if args.branch == "pairwise" else None
    doc = _document(fleet, path, args, reports, summary)
    print(json.dumps(doc, indent=1) if args.format == "json" else _text(doc))
    empty = [r["branch"] for r in reports if r["region"].get("nonempty") is False]
    if empty:
        _empty_note(path, empty, fleet)
        return 1
    if any(r["region"].get("nonempty") is None for r in reports):
        return 3
    if any(not r.get("simulator_check", {"agrees": True})["agrees"] for r in reports):
        return 1
    return 0 if summary is None or summary["holds"] else 1


def _check_usage(args: argparse.Namespace, fleet: Any, UsageError: type) -> None:
    if args.branch == "pairwise" and fleet.jobs != 2:
        raise UsageError(
            f"--branch pairwise needs 2 jobs, the model has {fleet.jobs} (use --jobs 2)"
        )
    if args.branch == "all" and fleet.jobs > 4:
        raise UsageError("--branch all enumerates every event order: at most 4 jobs")
    if fleet.jobs > 64 or fleet.jobs < 2:
        raise UsageError(f"return maps need 2..64 jobs, the model has {fleet.jobs}")
    if args.symbolic and fleet.jobs > 8 and args.branch in ("pairwise", "all"):
        raise UsageError("--symbolic enumeration is limited to small fleets")


def _reports(args: argparse.Namespace, fleet: Any) -> list[dict[str, Any]]:
    from fito.models.fleet.branch_report import (  # lazy-import: start-up of every command
        branches_for,
        describe,
        enumerate_report,
        setting_for,
    )
    from fito.models.fleet.returnmap import derive  # lazy-import: start-up of every command

    branches = branches_for(args.branch, fleet)
    if branches is None:
        return enumerate_report(fleet, args.symbolic, not args.no_check)
    setting = setting_for(fleet, args.symbolic)
    return [describe(derive(setting, b), fleet, not args.no_check) for b in branches]


def _pairwise_summary(fleet: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Theorem 4 on this model: over every two-cycle branch, the gap is unchanged."""
    from fito.models.fleet.branch_report import (  # lazy-import: start-up of every command
        setting_for,
    )
    from fito.models.fleet.branches import (  # lazy-import: start-up of every command
        enumerate_branches,
        gap_differences,
    )

    setting = setting_for(fleet, args.symbolic)
    result = enumerate_branches(setting, cycles=2)
    K = setting.domain()
    moved = [
        " ".join(str(e) for e in leaf.events)
        for leaf in result.leaves
        if any(d for d in gap_differences(leaf, K))
    ]
    return {
        "two_cycle_branches": len(result.leaves),
        "pruned": len(result.pruned),
        "complete": result.complete,
        "gap_changes_on": moved,
        "holds": result.complete and not moved,
    }


def _document(
    fleet: Any, path: str, args: argparse.Namespace, reports: list, summary: dict | None
) -> dict[str, Any]:
    cap = "inf" if fleet.capacity is None else str(fleet.capacity)
    doc = {
        "model": fleet.name,
        "path": path,
        "jobs": fleet.jobs,
        "setting": "symbolic" if args.symbolic else "numeric",
        "parameters": {
            "work": [str(w) for w in fleet.work],
            "volume": [str(v) for v in fleet.volume],
            "throughput": fleet.throughput.text,
            "capacity": cap,
            "params": {k: str(v) for k, v in fleet.params},
        },
        "branches": reports,
    }
    if summary is not None:
        doc["pairwise_identity"] = summary
    return doc


def _text(doc: dict[str, Any]) -> str:
    p = doc["parameters"]
    lines = [
        f"{doc['path']}: {doc['model']}: {doc['jobs']} jobs, f(n) = {p['throughput']}, "
        f"C = {p['capacity']} ({doc['setting']})"
    ]
    for r in doc["branches"]:
        lines += _branch_text(r)
    s = doc.get("pairwise_identity")
    if s is not None:
        verdict = "holds" if s["holds"] else "FAILS"
        lines.append(
            f"pairwise identity (Theorem 4) {verdict}: {s['two_cycle_branches']} "
            f"two-cycle branches, {s['pruned']} empty prefixes pruned"
        )
    return "\n".join(lines)


def _branch_text(r: dict[str, Any]) -> list[str]:
    lines = [f"branch {r['branch']}: " + " ".join(r["events"])]
    if r.get("gap_map"):
        g = r["gap_map"]
        lines.append("  gaps: " + "; ".join(r["gaps"]))
        lines.append("  gap map a' = M a" + ("" if g["linear"] else " + d") + ", M =")
        lines += ["    [" + ", ".join(row) + "]" for row in g["matrix"]]
        if not g["linear"]:
            lines.append("  d = [" + ", ".join(g["offset"]) + "]")
        lines.append("  eigenvalues: " + ", ".join(r["eigenvalues"]))
        expanding = r["expanding_directions"]
        lines.append(
            f"  determinant: {r['determinant']}; expanding directions: "
            f"{'depends on the parameters' if expanding is None else expanding}"
        )
    else:
        lines.append(
            "  (no gap chart: "
            + (
                "the section modes change"
                if not r["return_map"]
                else "the gaps do not determine the state"
            )
            + ")"
        )
    reg = r["region"]
    state = {True: "non-empty", False: "EMPTY", None: "unknown"}[reg.get("nonempty")]
    lines.append(f"  region ({state}):")
    lines += [f"    {text}" for text in reg["inequalities"]]
    if "witness" in reg:
        lines.append("  witness: " + ", ".join(f"{k} = {v}" for k, v in reg["witness"].items()))
    if "witness_parameters" in reg:
        lines.append(
            "  at parameters: "
            + ", ".join(f"{k} = {v}" for k, v in reg["witness_parameters"].items())
        )
    if "simulator_check" in r:
        lines.append(f"  check: {r['simulator_check']['detail']}")
    return lines


def _empty_note(path: str, names: list[str], fleet: Any) -> None:
    diag = error(
        "S102",
        f"the region of branch {', '.join(names)} is empty for this model",
        hint="the branch never occurs with these parameters; change --work/--volume "
        "or the throughput",
    )
    print(render_text(diag, path, None), file=sys.stderr)
