"""The rules, one module each; each reads traces and returns findings."""

from __future__ import annotations

from fito.lint.events import Save, Trace, Wait
from fito.lint.index import ModuleIndex
from fito.lint.rules import (
    async_save,
    atomic,
    latest_resume,
    pointer,
    rank_commit,
    restore,
    split_save,
)
from fito.lint.rules.common import Finding, Protocol

TRACE_RULES = (
    split_save.check,
    latest_resume.check,
    atomic.check,
    rank_commit.check,
    restore.check_mixed,
    restore.check_skipped,
    pointer.check_before,
)


def findings(traces: list[Trace], index: ModuleIndex) -> list[Finding]:
    """Every rule over every trace, each finding once (a helper inlined twice reports once)."""
    out: dict[tuple[str, tuple[int, ...]], Finding] = {}
    for k, trace in enumerate(traces):
        others = frozenset(
            h for t in traces[:k] + traces[k + 1 :] for _, w in t.of(Wait) for h in w.handles
        )
        for f in async_save.check(trace, others) + async_save.check_live(trace):
            out.setdefault((f.code, f.site), f)
        for rule in TRACE_RULES:
            for f in rule(trace):
                out.setdefault((f.code, f.site), f)
    saves = [e for t in traces for e in t.events if isinstance(e, Save)]
    latest = set()
    for k, trace in enumerate(traces):
        for f in restore.check_whole_as_weights(trace, saves):
            out.setdefault((f.code, f.site), f)
        if any(f.code == latest_resume.CODE for f in latest_resume.check(trace)):
            latest.add(k)
    for f in restore.check_partial(traces, index) + pointer.check_uncommitted(traces, latest):
        out.setdefault((f.code, f.site), f)
    return list(out.values())


def protocols(traces: list[Trace]) -> list[tuple[Finding | None, Protocol, int]]:
    """The commit protocols simple enough to model, with their finding if they are wrong."""
    out: dict[int, tuple[Finding | None, Protocol, int]] = {}
    for trace in traces:
        for item in split_save.analyse(trace) + rank_commit.analyse(trace):
            out.setdefault(item[2], item)
    return [out[k] for k in sorted(out)]


__all__ = ["Finding", "Protocol", "findings", "protocols"]
