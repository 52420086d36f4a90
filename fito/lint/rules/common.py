"""What the rules share: the finding they report and the questions they ask of events."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fito.lint import vocab
from fito.lint.events import Event, Rename, Save, Trace, Write
from fito.lint.values import BUFFER, INFERRED, Site, Value, component_kinds


@dataclass(frozen=True, slots=True)
class Protocol:
    """A checkpoint protocol simple enough to model: a fixed set of saves per step."""

    ranks: bool  # the saves are one shard per rank (else one process)
    domains: tuple[str, ...]  # what is saved, in order (files, or rank-0 extras)
    versioned: bool  # each step gets new file names (else overwritten)
    marker: bool  # a commit marker is written after the saves
    barrier: bool = False  # ranks: a barrier between the shards and the marker
    marker_after: int = -1  # sequential: the marker follows this many saves (-1: all)


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    site: Site
    message: str
    notes: tuple[str, ...] = ()
    hint: str = ""
    protocol: Protocol | None = None


_PATH_WORDS = frozenset(
    (
        "path",
        "file",
        "filename",
        "fname",
        "dir",
        "directory",
        "ckpt",
        "checkpoint",
        "output",
        "out",
        "save",
        "dest",
        "target",
        "location",
        "snapshot",
        "name",
        "folder",
        "root",
        "prefix",
    )
)


def is_path_like(v: Value) -> bool:
    """A file-system path (or a file opened from one), not a buffer or an unknown object."""
    if BUFFER in v.flags or not v.text:
        return False
    if v.text.startswith("{") and v.text.endswith("}") and v.text.count("{") == 1:
        return vocab.has_word(v.text[1:-1], _PATH_WORDS)
    return True


def component_label(v: Value) -> str:
    """`model`, `optimizer, scheduler`: the components a save holds (its step counter aside)."""
    kinds = sorted(component_kinds(v) - {vocab.STEP}) or sorted(component_kinds(v))
    return ", ".join(kinds) if kinds else "checkpoint"


def is_marker(e: Event, saves: list[Save]) -> bool:
    """A commit marker: a small file named like one (`latest`, `COMPLETE`, `tracker`), a
    symlink switch, or the rename of the directory the saves went into."""
    if isinstance(e, Write):
        return vocab.is_marker_path(e.path.text) or INFERRED in e.path.flags
    if isinstance(e, Save):
        return vocab.is_marker_path(e.path.text) and not (component_kinds(e.payload) - {vocab.STEP})
    if isinstance(e, Rename):
        if vocab.is_marker_path(e.dst.text):
            return True
        src = e.src.text.rstrip("/")
        return bool(src) and bool(saves) and all(_inside(s, src) for s in saves)
    return False


def _inside(s: Save, directory: str) -> bool:
    """The save writes into `directory` (or, for `save_pretrained`, is that directory)."""
    return s.path.text.startswith(directory + "/") or (
        s.api == "save_pretrained" and s.path.text == directory
    )


def first_after(
    trace: Trace,
    start: int,
    anchor: Event,
    pred: Callable[..., bool],  # called with an event
    stop: int | None = None,
) -> int | None:
    """The index of the first event after `start` (before `stop`) satisfying `pred` that can
    run together with `anchor`."""
    end = len(trace.events) if stop is None else stop
    for j in range(start + 1, end):
        e = trace.events[j]
        if e.ctx.compatible(anchor.ctx) and pred(e):
            return j
    return None


def frame_site(e: Event, others: Sequence[Event]) -> Site:
    """Where to report `e` among `others`: in the function where they part ways.

    Saves made by one helper called twice (`save(model, ...)`, `save(opt, ...)`) are reported
    at the helper's call sites, not inside the helper; saves in one function at themselves."""
    depth = len(e.ctx.calls)
    for o in others:
        k = 0
        while k < min(depth, len(o.ctx.calls)) and e.ctx.calls[k] == o.ctx.calls[k]:
            k += 1
        depth = min(depth, k)
    return e.ctx.calls[depth] if depth < len(e.ctx.calls) else e.site


def line(site: Site) -> int:
    return site[0]


def shown(v: Value) -> str:
    return f"'{v.text}'" if v.text else "an unknown path"


def is_rank_shard(s: Save) -> bool:
    """Every rank saves its own piece of the checkpoint (model, optimizer, ... state) under a
    rank-dependent name."""
    return (
        not s.ctx.rank0
        and s.path.is_rank_dependent
        and bool(component_kinds(s.payload) - {vocab.STEP})
    )


def saves_of(trace: Trace) -> list[tuple[int, Save]]:
    return trace.of(Save)
