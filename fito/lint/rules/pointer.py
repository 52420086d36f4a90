"""FITOL052 pointer-before-save and FITOL053 resume-uncommitted: the "latest" pointer and
the steps a resume may read.

A `latest` file, tracker or symlink names the checkpoint a resume reads. Moved before the
write it names is complete, it points at a file that a crash leaves torn or absent (the
pointer is durable, its target is not). And when a script does commit its steps with such a
marker, a resume that picks the newest step by listing the directory (glob, sort, `max` by
modification time) can read a step that was never committed, the very one a crash cut short.
"""

from __future__ import annotations

from fito.lint import vocab
from fito.lint.events import Load, Rename, Restore, Save, Trace, Write
from fito.lint.rules import split_save
from fito.lint.rules.common import Finding, first_after, is_marker, line, saves_of, shown
from fito.lint.values import INFERRED, is_analysis_dump, is_checkpoint_like

BEFORE, UNCOMMITTED = "FITOL052", "FITOL053"
HINT_BEFORE = (
    "write the checkpoint first (durably: flush and fsync, or through a temporary file and a "
    "rename), then move the pointer; fito.runtime.CheckpointWriter publishes its manifest "
    "last"
)
HINT_UNCOMMITTED = (
    "resume from the step the commit marker names (read `latest` or the tracker), or list "
    "only the steps whose marker exists; fito.runtime.restore(dir) reads committed epochs only"
)


def check_before(trace: Trace) -> list[Finding]:
    """A pointer written before a save of the step it names, and none after that save."""
    split = split_save.split_sites(trace)
    saves = [
        (i, s)
        for i, s in saves_of(trace)
        if is_checkpoint_like(s.payload) and not is_analysis_dump(s.path) and not is_marker(s, [])
    ]
    out: list[Finding] = []
    for j, m in enumerate(trace.events):
        if not isinstance(m, (Write, Save)) or not _is_pointer(m):
            continue
        for i, s in saves:
            if i <= j or s.site in split or s.ctx.loops != m.ctx.loops:
                continue
            if s.ctx.frame != m.ctx.frame:  # one function's protocol, not two neighbours'
                continue
            if not s.ctx.compatible(m.ctx):
                continue
            if first_after(trace, i, s, lambda e, s=s: is_marker(e, [s])) is not None:
                continue
            out.append(
                Finding(
                    BEFORE,
                    m.site,
                    "the latest pointer is moved before the checkpoint it names is written",
                    (
                        f"line {line(m.site)} writes {shown(m.path)}; line {line(s.site)} "
                        f"then saves to {shown(s.path)}",
                        "a crash in between leaves the pointer naming a checkpoint that is "
                        "torn or not there",
                    ),
                    HINT_BEFORE,
                )
            )
            break
    return out


def check_uncommitted(traces: list[Trace], reported: set[int]) -> list[Finding]:
    """File-wide: saves committed by a marker, and a resume that lists the directory for the
    newest step instead of following the marker. `reported`: traces FITOL002 spoke for."""
    committed = None
    for t in traces:
        saves = [s for _, s in saves_of(t)]
        for e in t.events:
            if isinstance(e, (Write, Save, Rename)) and saves and _commits(e, saves):
                committed = e
                break
        if committed is not None:
            break
    if committed is None:
        return []
    out: list[Finding] = []
    for k, t in enumerate(traces):
        if k in reported or any(
            isinstance(e, Load) and vocab.is_marker_path(e.path.text) for e in t.events
        ):
            continue  # the resume reads the marker (or FITOL002 spoke for it)
        loads = {e.ident: e for _, e in t.of(Load)}
        for _, r in t.of(Restore):
            assert isinstance(r, Restore)
            sels = r.source.selections.union(
                *(loads[x].path.selections for x in r.source.loads if x in loads)
            )
            if not sels or r.kind in ("*", "unknown"):
                continue
            out.append(
                Finding(
                    UNCOMMITTED,
                    r.site,
                    "the resume picks the newest checkpoint by listing the directory, not "
                    "the step the commit marker names",
                    (
                        f"line {line(committed.site)} commits each step with a marker; this "
                        "restore never reads it, so it can resume from a step a crash left "
                        "uncommitted",
                    ),
                    HINT_UNCOMMITTED,
                )
            )
            break
    return out


def _is_pointer(e: Write | Save) -> bool:
    """A small file or a symlink naming the checkpoint to resume (`latest`, a tracker), not
    a temporary file being written, not a checkpoint file itself."""
    path = e.path
    return (
        INFERRED not in path.flags
        and vocab.has_word(vocab.basename(path.text), _POINTER_WORDS)
        and not path.is_rank_dependent
        and not path.is_tmp
        and is_marker(e, [])
    )


_POINTER_WORDS = frozenset(("latest", "tracker", "current", "newest"))


def _commits(e: Write | Save | Rename, saves: list[Save]) -> bool:
    if isinstance(e, Write) and INFERRED in e.path.flags:
        return False
    return is_marker(e, saves)
