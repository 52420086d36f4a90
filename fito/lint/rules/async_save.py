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

from fito.lint.events import Async, Event, Mutate, Save, Trace, Wait
from fito.lint.rules.common import Finding, first_after, is_marker, line, saves_of

CODE, LIVE = "FITOL005", "FITOL051"
HINT_LIVE = (
    "hand the background save a copy made before it starts ({k: v.detach().cpu().clone() "
    "for k, v in sd.items()}, or torch.save into an io.BytesIO, then write the bytes in the "
    "background), or wait for it (for dcp.async_save with an async stager: "
    "response.staging_completion.result()) before the next optimizer step"
)
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
    if a.must_wait and waited_after is None and not waited_elsewhere and not a.held:
        kind = "a daemon thread" if a.api == "thread" else "an un-awaited future"
        out.append(("the exit", f"it is {kind}: the process can exit while it is writing"))
    return out


def check_live(trace: Trace) -> list[Finding]:
    """FITOL051: a background save of the model's or optimizer's own tensors (not a copy)
    while the training loop steps the optimizer before the save is waited for: the file holds
    parameters and moments of different steps."""
    out: list[Finding] = []
    mutations = [(j, m) for j, m in trace.of(Mutate)]
    for i, a in trace.of(Async):
        assert isinstance(a, Async)
        if not a.live or a.escaped:
            continue
        hit = _mutated_before_wait(trace, i, a, mutations)
        if hit is None:
            continue
        out.append(
            Finding(
                LIVE,
                a.site,
                "the background save writes the live model and optimizer tensors while the "
                "training loop goes on changing them",
                (
                    f"line {line(hit.site)} steps the optimizer (in place) before the save "
                    "started here is waited for: the file can hold parameters and moments "
                    "of different steps",
                ),
                HINT_LIVE,
            )
        )
    return out


def _mutated_before_wait(
    trace: Trace, i: int, a: Async, mutations: list[tuple[int, Mutate]]
) -> Mutate | None:
    waits = [j for j, e in enumerate(trace.events) if _waits_for(a)(e)]
    for j, m in mutations:
        if not m.ctx.compatible(a.ctx):
            continue
        if j > i and not any(i < w < j for w in waits):
            return m
        # in the same loop, before the start: the next iteration's step, unless a wait for
        # it comes after the start or before the step in the loop's body
        loop = a.ctx.loops[-1] if a.ctx.loops else None
        if loop is not None and j < i and loop in m.ctx.loops:
            in_loop = [w for w in waits if loop in trace.events[w].ctx.loops]
            if not any(w > i or w < j for w in in_loop):
                return m
    return None
