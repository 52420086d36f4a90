"""FITOL005 unawaited-async-save: a background save that the next save, the commit marker or
the exit does not wait for.

A save started on a thread, a process, an executor or with `torch.distributed.checkpoint.
async_save` is a snapshot still in flight. If the next step starts another save of the same
files before it ends, the two interleave; if a commit marker is written before it ends, the
marker certifies files that are not there yet; if the process exits (a daemon thread, an
un-awaited future), the save is cut off.
"""

from __future__ import annotations

from collections.abc import Callable

from fito.lint.events import Async, Event, Save, Trace, Wait
from fito.lint.rules.common import Finding, first_after, is_marker, line, saves_of

CODE = "FITOL005"
HINT = (
    "keep the handle and wait for it (join() or result()) before the next save starts, "
    "before the commit marker is written and before the process exits; "
    "fito.runtime.CheckpointWriter.save returns only once its commit is durable"
)


def check(trace: Trace, waited_elsewhere: frozenset[str] = frozenset()) -> list[Finding]:
    """`waited_elsewhere`: handles some other entry point waits for (`on_train_end`, ...)."""
    out: list[Finding] = []
    saves = [s for _, s in saves_of(trace)]
    for i, a in trace.of(Async):
        assert isinstance(a, Async)
        if a.escaped:
            continue
        problems = _problems(trace, i, a, saves, bool(a.handles & waited_elsewhere))
        if problems:
            what = {
                "thread": "a thread",
                "submit": "an executor task",
                "async_save": "async_save",
                "task": "a task",
            }.get(a.api, "a background save")
            out.append(
                Finding(
                    CODE,
                    a.site,
                    f"the checkpoint saved in {what} started here is "
                    f"not waited for by {problems[0][0]}",
                    tuple(p[1] for p in problems),
                    HINT,
                )
            )
    return out


def _waits_for(a: Async) -> Callable[[Event], bool]:
    return lambda e: isinstance(e, Wait) and bool(e.handles & a.handles)


def _problems(
    trace: Trace, i: int, a: Async, saves: list[Save], waited_elsewhere: bool
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    waited_after = first_after(trace, i, a, _waits_for(a))
    if a.ctx.loops and not a.serial:
        loop = a.ctx.loops[-1]
        in_loop = [
            j for j, e in enumerate(trace.events) if _waits_for(a)(e) and loop in e.ctx.loops
        ]
        if not in_loop:
            out.append(
                (
                    "the next save",
                    "it runs in a loop and nothing in the loop waits for "
                    "it: the next step's save can start while it is still writing",
                )
            )
    marker = first_after(
        trace,
        i,
        a,
        lambda e: (
            a.site not in e.ctx.calls  # not its own
            and is_marker(e, saves)
        ),
    )
    if marker is not None and (waited_after is None or waited_after > marker):
        out.append(
            (
                "the commit marker",
                f"the commit marker at line "
                f"{line(trace.events[marker].site)} can be written before it finishes",
            )
        )
    if a.must_wait and waited_after is None and not waited_elsewhere:
        kind = "a daemon thread" if a.api == "thread" else "an un-awaited future"
        out.append(("the exit", f"it is {kind}: the process can exit while it is writing"))
    return out
