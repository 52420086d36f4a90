"""SARIF 2.1.0 results for verdicts: a failing assertion with its counterexample as a
`codeFlows` thread flow (one location per step, the cells in `state`), and unmet
`-- expect:` comments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fito.check.result import FAILS, HOLDS, Verdict
from fito.check.traces.records import LOOP, Trace, TraceStep
from fito.render.runs import assignments

if TYPE_CHECKING:
    from fito.expect import Mismatch

EXPECTATION_CODE = "C301"


def verdict_result(path: str, v: Verdict) -> dict[str, object] | None:
    """The result of a verdict that does not hold (None when it holds)."""
    if v.verdict == HOLDS:
        return None
    text = f"{v.text}: {v.verdict}"
    if v.reason:
        text += f" ({v.reason})"
    result: dict[str, object] = {
        "ruleId": "M005" if v.verdict == FAILS else "M006",
        "level": "error" if v.verdict == FAILS else "warning",
        "message": {"text": text},
        "locations": [_location(path, v.line, None)],
    }
    if v.run is not None and v.run.steps:
        result["codeFlows"] = [code_flow(path, v.line, v.run)]
    elif v.trace:
        result["message"] = {
            "text": text + "\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(v.trace, 1))
        }
    return result


def code_flow(path: str, line: int, trace: Trace) -> dict[str, object]:
    """One thread flow: a location per step, at the prefix that made it when known."""
    locations = [_flow_location(path, line, s) for s in trace.steps]
    if trace.final.kind == LOOP and trace.final.loop_start:  # a lasso: mark its cycle
        for loc in locations[trace.final.loop_start - 1 :]:
            loc["kinds"] = [*loc["kinds"], "loop"]  # type: ignore[misc]
        first = locations[trace.final.loop_start - 1]["location"]
        message = first.setdefault("message", {"text": ""})  # type: ignore[attr-defined]
        message["text"] += " (the loop: from here the steps repeat forever)"
    return {"message": {"text": trace.final.message}, "threadFlows": [{"locations": locations}]}


def _flow_location(path: str, line: int, s: TraceStep) -> dict[str, object]:
    who = ", ".join(s.movers)
    changed = ", ".join(f"{n} = {v}" for n, v in assignments(s))
    text = f"{s.index}. {s.label}" + (f" by {who}" if who else "")
    if s.crash_reset:
        text += "; crash resets " + ", ".join(s.crash_reset)
    if changed:
        text += f"; {changed}"
    out: dict[str, object] = {
        "location": _location(path, s.line or line, text),
        "state": {name: {"text": value} for name, value in s.state},
        "executionOrder": s.index,
        "kinds": [s.kind] + (["crash"] if s.crash else []),
    }
    return out


def _location(path: str, line: int, message: str | None) -> dict[str, object]:
    out: dict[str, object] = {
        "physicalLocation": {
            "artifactLocation": {"uri": path},
            "region": {"startLine": max(line, 1), "startColumn": 1},
        }
    }
    if message is not None:
        out["message"] = {"text": message}
    return out


def expectation_results(path: str, problems: Sequence[Mismatch]) -> list[dict[str, object]]:
    """One error result per unmet `-- expect:` comment."""
    return [
        {
            "ruleId": EXPECTATION_CODE,
            "level": "error",
            "message": {"text": p.message},
            "locations": [_location(path, p.line or 1, None)],
        }
        for p in problems
    ]
