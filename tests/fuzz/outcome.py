"""What running one case did: fine, or one of the failure classes of docs/fuzzing.md."""

from __future__ import annotations

import re
from dataclasses import dataclass

OK = "ok"
TRACEBACK = "traceback"  # an exception escaped `fito.cli.main`
CRASH = "crash"  # the worker died (a signal, os._exit, an abort in C)
HANG = "hang"  # still running at the wall-clock bound
MEMORY = "memory"  # resident memory above the bound
STATUS = "exit-status"  # an exit status outside {0, 1, 2, 3}
FMT = "fmt-round-trip"  # `fito fmt` output that does not parse to the same tree, or moves
OUTPUT_KIND = "bad-output"  # --format json/sarif output that is not strict JSON
KINDS = (TRACEBACK, CRASH, HANG, MEMORY, STATUS, FMT, OUTPUT_KIND)
EXPECTED_STATUSES = frozenset({0, 1, 2, 3})

#: Who fixes a failure whose innermost fito frame is in these files (issue 12: the model
#: checker's engine, being rewritten; `fito fmt`: its own branch). Anything else is ours.
OWNERS = (
    ("fito/semantics/", "engine"),
    ("fito/check/explore.py", "engine"),
    ("fito/check/refine.py", "engine"),
    ("fito/check/liveness.py", "engine"),
    ("fito/check/lts.py", "engine"),
    ("fito/check/verdicts.py", "engine"),
    ("fito/lang/printer/fmt.py", "fmt"),
    ("fito/lang/printer/canonical.py", "fmt"),
)
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:,| ) ?in (?P<func>\S+)')


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: str
    status: int | None = None
    signature: str = ""  # identifies the failure: kind, command, exception, innermost fito frame
    detail: str = ""  # the traceback, or the stacks at the kill (trimmed)
    owner: str = ""  # "" (this issue), "engine" or "fmt"
    seconds: float = 0.0  # CPU time of the case
    stdout: str = ""  # the beginning of what the command printed
    stderr: str = ""

    @property
    def failed(self) -> bool:
        return self.kind != OK


def fito_frames(text: str, innermost_first: bool) -> list[tuple[str, str]]:
    """(path inside the repository, function) of the fito frames of a traceback or a
    faulthandler dump, innermost first; run_deep's wait is skipped."""
    frames = [(m["file"], m["func"]) for m in _FRAME.finditer(text)]
    if not innermost_first:
        frames.reverse()
    out = []
    for path, func in frames:
        i = path.rfind("/fito/")
        if i < 0 or path.endswith("/fito/deep.py"):
            continue
        out.append((path[i + 1 :], func))
    return out


def busiest_thread(dump: str) -> str:
    """Of a faulthandler dump of every thread, the stack with the most fito frames (the
    thread doing the work: run_deep's thread, not the main thread waiting for it)."""
    stacks = re.split(r"^(?:Thread|Current thread) 0x[0-9a-f]+.*$", dump, flags=re.M)
    return max(stacks, key=lambda s: len(fito_frames(s, True)), default=dump)


def owner_of(frames: list[tuple[str, str]]) -> str:
    if not frames:
        return ""
    path = frames[0][0]
    return next((who for prefix, who in OWNERS if path.startswith(prefix)), "")


def classify(
    kind: str,
    command: str,
    status: int | None,
    detail: str,
    innermost_first: bool = False,
    exc_type: str = "",
    seconds: float = 0.0,
) -> Outcome:
    """An Outcome with its signature and owner from the stack text."""
    if kind == OK:
        return Outcome(OK, status, seconds=seconds)
    frames = fito_frames(busiest_thread(detail) if innermost_first else detail, innermost_first)
    where = (
        "?"
        if not frames
        else frames[0][0]
        if kind in (HANG, MEMORY)
        else f"{frames[0][0]}:{frames[0][1]}"
    )  # a kill lands anywhere in a loop: the file only
    parts = [kind, command] + ([exc_type] if exc_type else []) + [where]
    if kind == STATUS:
        parts.append(str(status))
    owner = "fmt" if kind == FMT else owner_of(frames)
    return Outcome(kind, status, " ".join(parts), _trim(detail), owner, seconds)


def _trim(text: str, limit: int = 6000) -> str:
    return text if len(text) <= limit else text[: limit // 3] + "\n...\n" + text[-2 * limit // 3 :]
