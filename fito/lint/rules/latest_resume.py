"""FITOL002 latest-per-component: each component resumed from the latest file found for it
(by glob, sort or modification time), with no check that they carry the same step.

After a crash between two saves, "the latest model file" and "the latest optimizer file"
are of different steps; picking each separately restores a mixed state without a word.
"""

from __future__ import annotations

from fito.lint.events import Compare, Load, Restore, Trace
from fito.lint.rules.common import Finding, line
from fito.lint.values import Site

CODE = "FITOL002"
HINT = (
    "choose one step (the newest one a commit marker names, or the newest step every "
    "component has) and load every component of that step; fito.runtime.restore(dir) "
    "returns all domains of the newest epoch whose shards all verify"
)


def check(trace: Trace) -> list[Finding]:
    loads = {e.ident: e for _, e in trace.of(Load)}
    chosen: dict[str, tuple[frozenset[Site], Restore]] = {}
    for _, r in trace.of(Restore):
        assert isinstance(r, Restore)
        if r.kind in ("*", "unknown"):
            continue
        sels = r.source.selections.union(
            *(loads[x].path.selections for x in r.source.loads if x in loads)
        )
        if sels and r.kind not in chosen:
            chosen[r.kind] = (sels, r)
    kinds = list(chosen)
    compares = [e.selections for _, e in trace.of(Compare)]
    for a in range(len(kinds)):
        for b in range(a + 1, len(kinds)):
            (sa, ra), (sb, rb) = chosen[kinds[a]], chosen[kinds[b]]
            if sa & sb or not ra.ctx.compatible(rb.ctx):
                continue
            if any(c & sa and c & sb for c in compares):
                continue
            notes = (
                f"line {line(ra.site)} restores the {ra.kind} from the latest file found "
                f"for it; line {line(rb.site)} restores the {rb.kind} from the latest file "
                f"found for it",
                "after a crash between two saves these are files of different steps",
            )
            return [
                Finding(
                    CODE,
                    rb.site,
                    f"the {ra.kind} and the {rb.kind} are each resumed "
                    "from their own latest file, with no check that their steps agree",
                    notes,
                    HINT,
                )
            ]
    return []
