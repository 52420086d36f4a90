"""FITOL003 save-in-place and FITOL004 rename-without-fsync: how one checkpoint file is
published.

`torch.save(state, path)` opens `path`, truncates it and writes: a crash in the middle leaves
a torn file under the very name a restore reads, and the previous checkpoint is already gone.
The durable way is a temporary file in the same directory, `flush` and `os.fsync` of it,
`os.replace` onto the final name, then an fsync of the directory so that the new name itself
survives a power loss. A file written in place under a name of its own step (`iter_100/...`)
and committed afterwards by a marker is accepted: the restore reads committed steps only. A
rename without the first fsync can publish a name whose content never reached the disk;
without the second, the rename itself can be undone.
"""

from __future__ import annotations

from fito.lint.events import Fsync, Rename, Save, Trace
from fito.lint.rules.common import (
    Finding,
    first_after,
    is_marker,
    is_path_like,
    line,
    saves_of,
    shown,
)
from fito.lint.values import is_analysis_dump, is_checkpoint_like

SAVE_IN_PLACE, RENAME_WITHOUT_FSYNC, FRESH_IN_PLACE = "FITOL003", "FITOL004", "FITOL050"
HINT_IN_PLACE = (
    "write to a temporary file in the same directory, flush and os.fsync it, "
    "os.replace it onto the final name, then fsync the directory; "
    "fito.runtime.CheckpointWriter does all four"
)
HINT_FSYNC = (
    "before the rename: f.flush(); os.fsync(f.fileno()); after it: fsync the "
    "directory (fd = os.open(dirname, os.O_RDONLY); os.fsync(fd)); "
    "fito.runtime.CheckpointWriter does both"
)


def check(trace: Trace) -> list[Finding]:
    out: list[Finding] = []
    for i, s in saves_of(trace):
        if not (
            s.is_torch_like and is_checkpoint_like(s.payload) and is_path_like(s.path)
        ) or is_analysis_dump(s.path):
            continue
        k = first_after(trace, i, s, lambda e, s=s: isinstance(e, Rename) and _publishes(e, s))
        if k is None:
            committed = (
                s.path.is_versioned
                and first_after(trace, i, s, lambda e, s=s: is_marker(e, [s])) is not None
            )
            if not s.path.is_tmp and not committed and not _unknown_parameter(s):
                out.append(_in_place(s))
            continue
        rename = trace.events[k]
        file_sync = first_after(trace, i, s, lambda e: isinstance(e, Fsync), stop=k)
        dir_sync = first_after(trace, k, rename, lambda e: isinstance(e, Fsync))
        if file_sync is None or dir_sync is None:
            out.append(_unsynced(s, rename, file_sync is None, dir_sync is None))
    return out


def _unknown_parameter(s: Save) -> bool:
    """The path is a bare parameter nothing in the project binds (`torch.save(states,
    filename)` in a method called from code the linter cannot follow): whether the caller
    passes a fixed name or a fresh one per step is not known, so nothing is said."""
    text = s.path.text
    return (
        text.startswith("{")
        and text.endswith("}")
        and text.count("{") == 1
        and not s.path.is_versioned
        and len(s.path.names) <= 1
        and "." not in text  # `args.save_path`, `self.snapshot_path`: one file for the run
    )


def _publishes(r: Rename, s: Save) -> bool:
    src, path = r.src.text.rstrip("/"), s.path.text
    return bool(src) and (path == src or path.startswith(src + "/"))


def _in_place(s: Save) -> Finding:
    if s.path.is_versioned:  # a fresh name per step: nothing older is overwritten
        return Finding(
            FRESH_IN_PLACE,
            s.site,
            "the checkpoint is written in place under a fresh per-step name, with no "
            "commit after it",
            (
                f"the file {shown(s.path)} is new at every save, so no older checkpoint is "
                "truncated; but a crash during the write leaves a torn newest file, which a "
                "resume that takes the newest file reads",
            ),
            HINT_IN_PLACE,
        )
    notes = (
        f"the file {shown(s.path)} is written in place: a crash during the write leaves a "
        "torn file under the name a restore reads",
        "its name is the same at every save, so the previous checkpoint is "
        "truncated before the new one is complete",
    )
    api = "torch.save" if s.api == "torch.save" else "the save"
    return Finding(
        SAVE_IN_PLACE,
        s.site,
        f"{api} writes the checkpoint straight onto its final path",
        notes,
        HINT_IN_PLACE,
    )


def _unsynced(s: Save, r: object, no_file: bool, no_dir: bool) -> Finding:
    assert isinstance(r, Rename)
    missing = " and ".join(
        x
        for x, m in (("of the file before it", no_file), ("of its directory after it", no_dir))
        if m
    )
    notes = (
        f"line {line(s.site)} saves to {shown(s.path)}; line {line(r.site)} renames "
        f"{shown(r.src)} to {shown(r.dst)}",
        "after a power loss the new name can survive with empty or partial content, "
        "or the rename can be undone"
        if no_file
        else "after a power loss the rename can be undone: the old name comes back",
    )
    return Finding(
        RENAME_WITHOUT_FSYNC,
        r.site,
        f"the rename publishes the checkpoint without an fsync {missing}",
        notes,
        HINT_FSYNC,
    )
