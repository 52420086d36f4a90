"""FITOL001 split-checkpoint: components saved to separate files (or by separate ranks) with
no commit marker written after all of them.

A crash between two of the saves leaves files of different steps, and whatever restores them
reads them as one checkpoint: a product of snapshots taken at different times, not a
converged state (paper A, claim 1). Two saves form a split when they can run in the same
step (same loops, compatible branches) and hold disjoint components (model weights in one,
optimizer state in the other); two copies of the same state (`best.pt`, `last.pt`) do not.
"""

from __future__ import annotations

from fito import budget
from fito.lint import vocab
from fito.lint.events import Rename, Save, Trace
from fito.lint.rules.common import (
    Finding,
    Protocol,
    component_label,
    first_after,
    frame_site,
    is_marker,
    is_rank_shard,
    line,
    saves_of,
    shown,
)
from fito.lint.values import component_kinds, is_analysis_dump

CODE = "FITOL001"
HINT = (
    "save every component in one call to fito.runtime.CheckpointWriter.save(step, {...}), "
    "which writes a commit manifest after all shards are durable; or save into a "
    "directory per step and write a commit marker naming the step after the last save, "
    "and restore only committed steps"
)
Analysis = tuple[Finding | None, Protocol, int]


def check(trace: Trace) -> list[Finding]:
    return [f for f, _, _ in analyse(trace) if f is not None]


def analyse(trace: Trace) -> list[Analysis]:
    """Each split protocol of the trace, with its finding when it has no valid commit."""
    saves = [
        (i, s) for i, s in saves_of(trace) if not is_marker(s, []) and not is_analysis_dump(s.path)
    ]
    out: list[Analysis] = []
    groups: dict[tuple[int, ...], list[tuple[int, Save]]] = {}
    for i, s in saves:
        groups.setdefault(s.ctx.loops, []).append((i, s))
    split_sites: set[tuple[int, int, int, int]] = set()
    for group in groups.values():
        for part in _executions(_split(group)):
            out.append(_sequential(trace, part))
            split_sites.update(s.site for _, s in part)
    shards = [(i, s) for i, s in saves if is_rank_shard(s) and s.site not in split_sites]
    if shards:
        found = _shards(trace, shards)
        if found is not None:
            out.append(found)
    return out


def split_sites(trace: Trace) -> set[tuple[int, int, int, int]]:
    """The saves that take part in a split of the trace (FITOL001 speaks for them)."""
    groups: dict[tuple[int, ...], list[tuple[int, Save]]] = {}
    for i, s in saves_of(trace):
        if not is_marker(s, []) and not is_analysis_dump(s.path):
            groups.setdefault(s.ctx.loops, []).append((i, s))
    return {s.site for g in groups.values() for part in _executions(_split(g)) for _, s in part}


def _split(group: list[tuple[int, Save]]) -> list[tuple[int, Save]]:
    """The saves of the group that hold a part of a state another save holds the rest of.

    Whether two saves pair depends only on their components, their dictionary entries and
    their branches, so saves alike in those are one class, and the pairs are looked for
    between classes: 20,000 identical `torch.save` lines are one class, not 2 * 10^8 pairs.
    Two saves of one class never pair (their components and entries meet)."""
    classes: dict[tuple, list[tuple[int, Save]]] = {}
    for i, s in group:
        ks = component_kinds(s.payload)
        if ks:
            classes.setdefault((ks, _entries(s), s.ctx.branches), []).append((i, s))
    keys = list(classes)
    paired: set[int] = set()
    for a, key in enumerate(keys):
        s, ks = classes[key][0][1], key[0]
        for b in range(a + 1, len(keys)):
            budget.check()  # the command's deadline: classes may still be many
            t, kt = classes[keys[b]][0][1], keys[b][0]
            if (
                _disjoint(s, t, ks, kt)
                and not (ks | kt) <= {vocab.MODEL}
                and s.ctx.compatible(t.ctx)
            ):
                paired.update((a, b))
    return sorted(x for n in sorted(paired) for x in classes[keys[n]])


def _executions(part: list[tuple[int, Save]]) -> list[list[tuple[int, Save]]]:
    """The saves of a split, one list per way through the branches: saves on the two arms of
    an `if` are alternatives, each arm with the saves that run whichever arm is taken."""
    runs: list[list[tuple[int, Save]]] = []
    for i, s in part:
        joined = False
        for run in runs:
            if all(s.ctx.compatible(t.ctx) for _, t in run):
                run.append((i, s))
                joined = True
        if not joined:  # a new alternative, with the saves before it it can run with
            runs.append([(j, t) for j, t in part if j < i and s.ctx.compatible(t.ctx)] + [(i, s)])
    out: list[list[tuple[int, Save]]] = []
    for run in runs:
        saves = sorted(run)
        if len(saves) > 1 and _split(saves) and saves not in out:
            out.append(saves)
    return out


def _disjoint(s: Save, t: Save, ks: frozenset[str], kt: frozenset[str]) -> bool:
    """Two saves hold different parts of one state: disjoint components, or dictionaries
    with disjoint entries (`{"generator": ...}` and `{"discriminator": ..., "optim_g": ...}`),
    neither of them a copy of the weights (EMA, SWA, a shadow model)."""
    if not ks & kt:
        return True
    a, b = _entries(s), _entries(t)
    return bool(a and b) and not a & b and not any(_is_copy(x) for x in a | b)


def _entries(s: Save) -> frozenset[str]:
    """The entries of a saved dictionary, its step counters aside (`mpd`, `optim_g`)."""
    return frozenset(k for k in s.payload.keys if vocab.kind_of_key(k) != vocab.STEP)


def _is_copy(key: str) -> bool:
    return vocab.has_word(key, _COPY_WORDS)


_COPY_WORDS = frozenset(("ema", "swa", "shadow", "average", "averaged", "avg", "best"))


def _sequential(trace: Trace, part: list[tuple[int, Save]]) -> Analysis:
    first_i, first = part[0]
    last_i, last = part[-1]
    saves = [s for _, s in part]
    marker = first_after(trace, last_i, last, lambda e: is_marker(e, saves))
    early = first_after(trace, first_i, first, lambda e: is_marker(e, saves), stop=last_i)
    marked = trace.events[marker] if marker is not None else None
    renamed_dir = isinstance(marked, Rename) and not vocab.is_marker_path(marked.dst.text)
    versioned = renamed_dir or all(s.path.is_versioned or s.path.is_tmp for s in saves)
    labels = tuple(component_label(s.payload) for s in saves)
    notes = [
        f"line {line(frame_site(s, saves))} saves {component_label(s.payload)} to {shown(s.path)}"
        for s in saves
    ]
    protocol = Protocol(
        False,
        labels,
        versioned,
        marker is not None,
        marker_after=-1
        if marker is not None
        else (sum(1 for i, _ in part if i < early) if early is not None else -1),
    )
    if marker is not None and versioned:
        return None, protocol, line(frame_site(first, saves))
    if marker is not None:
        message = (
            f"the checkpoint is split over {_files(labels)} overwritten in place: the "
            f"commit marker at line {line(trace.events[marker].site)} cannot bring back "
            "the previous step's files"
        )
    else:
        message = (
            f"the checkpoint is split over {_files(labels)} with no commit marker "
            "after the last one"
        )
        if early is not None:
            notes.append(
                f"the marker at line {line(trace.events[early].site)} is written "
                "before the last save"
            )
    notes.append(
        "a crash between these saves leaves files of different steps, which a "
        "restore reads as one checkpoint"
    )
    site = frame_site(first, saves)
    return Finding(CODE, site, message, tuple(notes), HINT, protocol), protocol, line(site)


def _shards(trace: Trace, shards: list[tuple[int, Save]]) -> Analysis | None:
    last_i, last = shards[-1]
    marker = first_after(trace, last_i, last, lambda e: is_marker(e, []))
    protocol = Protocol(
        True, ("shard",), all(s.path.is_versioned for _, s in shards), marker is not None
    )
    if marker is not None:
        return None  # FITOL006 judges the barrier before it
    first = shards[0][1]
    notes = (
        f"line {line(first.site)} runs on every rank and saves to {shown(first.path)}",
        "a crash while the ranks are saving leaves shards of different steps, which a "
        "restore reads as one checkpoint",
    )
    message = (
        "every rank saves its own shard and nothing marks the step complete once all "
        "shards are written"
    )
    return Finding(CODE, first.site, message, notes, HINT, protocol), protocol, line(first.site)


def _files(labels: tuple[str, ...]) -> str:
    return f"{len(labels)} files ({'; '.join(labels)})"
