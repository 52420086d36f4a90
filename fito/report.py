"""Rendering check reports: text (diagnostics with carets, one line per assertion), JSON, SARIF."""
from __future__ import annotations

import json
from collections.abc import Sequence

from fito.check.result import FAILS, HOLDS, Verdict
from fito.diagnostics import Diagnostic, render_text, to_json, to_sarif
from fito.driver import FileReport


def render_text_report(reports: Sequence[FileReport]) -> str:
    out: list[str] = []
    for r in reports:
        for d in r.diagnostics:
            out.append(render_text(d, r.path, r.text))
        for v in r.verdicts:
            out.append(render_verdict(r.path, v))
    return "\n".join(out)


def render_verdict(path: str, v: Verdict) -> str:
    """`file:line: assertion: verdict (stats)` and, for a failure, the numbered trace."""
    stats = f"{v.states:,} states, {v.transitions:,} transitions, {v.seconds:.2f} s"
    head = f"{path}:{v.line}: {v.text}: {v.verdict}"
    if v.verdict == FAILS:
        head += f" in {len(v.trace)} ({stats})"
    elif v.verdict == HOLDS:
        head += f" ({stats})"
    else:
        head += f" ({v.reason or 'no verdict'}; {stats})"
    lines = [head]
    if v.verdict == FAILS and v.reason:
        lines.append(f"  {v.reason}")
    if v.error is not None:
        lines.append(f"  model error at line {v.error.span.line}, column {v.error.span.column}: "
                     f"{v.error.message}")
    if v.trace and (v.verdict == FAILS or v.verdict == HOLDS):
        label = "counterexample" if v.verdict == FAILS else "witness"
        lines.append(f"  {label}:" if v.trace else "")
        width = len(str(len(v.trace)))
        lines.extend(f"    {i:>{width}}. {step}" for i, step in enumerate(v.trace, 1))
    return "\n".join(lines)


def render_json_report(reports: Sequence[FileReport]) -> str:
    files = []
    for r in reports:
        files.append({
            "path": r.path,
            "diagnostics": [to_json(d) for d in r.diagnostics],
            "assertions": [v.to_json() for v in r.verdicts],
        })
    return json.dumps({"files": files}, indent=2)


def render_sarif_report(reports: Sequence[FileReport]) -> str:
    extra = []
    for r in reports:
        for v in r.verdicts:
            if v.verdict == HOLDS:
                continue
            code = "M005" if v.verdict == FAILS else "M006"
            text = f"{v.text}: {v.verdict}"
            if v.reason:
                text += f" ({v.reason})"
            if v.trace:
                text += "\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(v.trace, 1))
            extra.append({
                "ruleId": code,
                "level": "error" if v.verdict == FAILS else "warning",
                "message": {"text": text},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": r.path},
                    "region": {"startLine": v.line, "startColumn": 1},
                }}],
            })
    per_file: list[tuple[str, Sequence[Diagnostic]]] = [(r.path, r.diagnostics) for r in reports]
    return json.dumps(to_sarif(per_file, extra), indent=2)


def render_report(reports: Sequence[FileReport], fmt: str) -> str:
    """The reports in the format asked for on the command line: text, json or sarif."""
    if fmt == "json":
        return render_json_report(reports)
    if fmt == "sarif":
        return render_sarif_report(reports)
    return render_text_report(reports)
