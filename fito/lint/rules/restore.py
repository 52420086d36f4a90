"""FITOL007 mixed-restore and FITOL008 partial-restore: what a resume puts back together.

Model weights, optimizer state (Adam's moments and its step count t), the LR scheduler and the
step counter are one state. Restoring the optimizer from one checkpoint and the weights from
another, or restoring the weights while the optimizer, the scheduler or the step counter start
again from zero, resumes a state no run ever had.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from fito.lint import vocab
from fito.lint.events import Event, KeyRead, Load, Restore, Save, Trace
from fito.lint.index import ModuleIndex, dotted
from fito.lint.rules.common import Finding, frame_site, line, shown
from fito.lint.values import ENTRY, LOADED, Site, Value, component_kinds, normal_form

MIXED, PARTIAL, WHOLE_AS_WEIGHTS = "FITOL007", "FITOL008", "FITOL054"
HINT_WHOLE = (
    "restore the weights from the checkpoint's model entry (model.load_state_dict("
    "ckpt['model'])) and keep strict=True, so that a file of another layout fails loudly; "
    "resume the optimizer and the step from the same checkpoint"
)
HINT_MIXED = (
    "restore every component from one checkpoint of one step; fito.runtime.restore(dir) "
    "returns all domains of one verified epoch"
)
HINT_PARTIAL = (
    "restore the optimizer, the LR scheduler and the step counter from the same "
    "checkpoint as the weights; fito.runtime.restore(dir).states holds every "
    "domain of one epoch"
)


def check_mixed(trace: Trace) -> list[Finding]:
    loads = {e.ident: e for _, e in trace.of(Load)}
    restores = [r for _, r in trace.of(Restore) if isinstance(r, Restore)]
    libraries = [r for r in restores if r.kind == "*"]  # restores the linter cannot see into
    models = [r for r in restores if r.kind == vocab.MODEL and _sources(r.source, loads)]
    out: list[Finding] = []
    for o in restores:
        if o.kind != vocab.OPTIMIZER or not _sources(o.source, loads):
            continue
        together = [m for m in models if m.ctx.compatible(o.ctx)]
        if any(x.ctx.compatible(o.ctx) for x in libraries):
            continue
        if together and not any(_same(m.source, o.source, loads) for m in together):
            m = together[0]
            notes = (
                f"line {line(frame_site(m, [o]))} restores the model from "
                f"{_where(m.source, loads)}; line {line(frame_site(o, [m]))} restores the "
                f"optimizer from {_where(o.source, loads)}",
            )
            out.append(
                Finding(
                    MIXED,
                    frame_site(o, [m]),
                    "the optimizer state is restored from "
                    "a different checkpoint than the model weights",
                    notes,
                    HINT_MIXED,
                )
            )
    return out


def _sources(v: Value, loads: dict[Site, Load]) -> list[str]:
    return [normal_form(loads[x].path.text) for x in v.loads if x in loads and loads[x].path.text]


def _same(a: Value, b: Value, loads: dict[Site, Load]) -> bool:
    """Two restores read one checkpoint: one load, one selection, one path (or a directory
    and a file in it), or two files of one directory whose names carry the same version."""
    if a.loads & b.loads or a.selections & b.selections:
        return True
    for x in _sources(a, loads):
        for y in _sources(b, loads):
            if x == y or x.startswith(y.rstrip("/") + "/") or y.startswith(x.rstrip("/") + "/"):
                return True
            (dx, _, fx), (dy, _, fy) = x.rpartition("/"), y.rpartition("/")
            if dx == dy and _version(fx) == _version(fy):
                return True
    return False


_VERSION_WORDS = frozenset(
    (
        "best",
        "last",
        "latest",
        "final",
        "init",
        "initial",
        "pretrained",
        "prev",
        "previous",
        "old",
        "new",
        "backup",
    )
)


def _version(name: str) -> frozenset[str]:
    """What tells two checkpoints apart in a file name: `best`, `last`, a step, a number."""
    found = {t for t in vocab.tokens(name) if t in _VERSION_WORDS or t in vocab.STEP_WORDS}
    found.update(re.findall(r"\d+", name))
    return frozenset(found)


def _where(v: Value, loads: dict[Site, Load]) -> str:
    paths = [loads[x].path for x in sorted(v.loads) if x in loads]
    return shown(paths[0]) if paths else "an unknown checkpoint"


# --------------------------------------------------------------------------- FITOL008
def check_partial(traces: list[Trace], index: ModuleIndex) -> list[Finding]:
    """File-wide: a resume that restores the weights but not what steps with them."""
    events = [e for t in traces for e in t.events]
    restores = [e for e in events if isinstance(e, Restore)]
    if any(r.kind == "*" for r in restores):
        return []  # a library restores the whole state (accelerator.load_state, ...)
    optim = [r for r in restores if r.kind == vocab.OPTIMIZER]
    models = [r for r in restores if r.kind == vocab.MODEL and r.source.loads]
    saves = [e for e in events if isinstance(e, Save)]
    step_reads = [
        e for e in events if isinstance(e, KeyRead) and vocab.kind_of_key(e.key) == vocab.STEP
    ]
    out: list[Finding] = []
    if optim:
        sched = _unrestored_scheduler(index, restores)
        if sched is not None:
            out.append(
                Finding(
                    PARTIAL,
                    optim[0].site,
                    "the LR scheduler is not restored with "
                    "the optimizer: after a resume the schedule starts again from "
                    "its first step",
                    (
                        f"the scheduler is created at line {sched} "
                        "and stepped, but nothing restores it",
                    ),
                    HINT_PARTIAL,
                )
            )
        saved_steps = [
            s for s in saves if any(vocab.kind_of_key(k) == vocab.STEP for k in s.payload.keys)
        ]
        if saved_steps and not step_reads and any(r.source.loads for r in optim):
            out.append(
                Finding(
                    PARTIAL,
                    optim[0].site,
                    "the step counter saved with the "
                    "checkpoint is not restored: the loop and anything keyed on the "
                    "step start again from zero",
                    (
                        f"line {line(saved_steps[0].site)} saves it under "
                        f"{_step_key(saved_steps[0])!r}; no resume reads it back",
                    ),
                    HINT_PARTIAL,
                )
            )
    elif (
        models
        and any(r.bound for r in step_reads)
        and any(vocab.OPTIMIZER in component_kinds(s.payload) for s in saves)
    ):
        out.append(
            Finding(
                PARTIAL,
                models[0].site,
                "the optimizer state is saved but not "
                "restored: the weights and the step resume while Adam's moments and "
                "its step count t start again from zero",
                ("nothing calls the optimizer's load_state_dict",),
                HINT_PARTIAL,
            )
        )
    if models:
        out.extend(_unrestored_extras(models[0], saves, restores, events))
    return out


def check_skipped(trace: Trace) -> list[Finding]:
    """A restore that an existence test, an exception handler or an early return can skip
    while the weights are restored: the resume goes on with that component fresh."""
    restores = [r for _, r in trace.of(Restore) if isinstance(r, Restore)]
    models = [r for r in restores if r.kind == vocab.MODEL]
    if not models:
        return []
    steps = [
        e
        for _, e in trace.of(KeyRead)
        if isinstance(e, KeyRead) and e.bound and vocab.kind_of_key(e.key) == vocab.STEP
    ]
    out: list[Finding] = []
    seen: set[str] = set()
    loads = {e.ident: e for _, e in trace.of(Load)}
    candidates: list[tuple[str, Restore | KeyRead]] = [
        (r.kind, r) for r in restores if r.kind in _STEPS_WITH_WEIGHTS
    ]
    candidates += [
        ("step counter", e)
        for e in steps
        if not any(  # a tracker or `latest` file read to find the checkpoint: not its step
            x in loads and vocab.is_marker_path(loads[x].path.text) for x in e.source.loads
        )
    ]
    for what, r in candidates:
        if what in seen:
            continue
        same = [x for w, x in candidates if w == what and x is not r]
        for m in models:
            if not m.ctx.compatible(r.ctx):
                continue
            extra = [
                g
                for g in r.ctx.skips
                if g not in m.ctx.skips and not _other_arm_restores(g, r, same)
            ]
            if not extra:
                continue
            seen.add(what)
            _, guard, how = extra[-1]
            out.append(
                Finding(
                    PARTIAL,
                    r.site,
                    f"the {what} restore can be skipped without a word while the weights are "
                    f"restored: the resume then goes on with a fresh {what}",
                    (
                        f"line {line(frame_site(m, [r]))} restores the model unconditionally; "
                        f"{how} at line {guard} can skip this restore",
                    ),
                    HINT_SKIPPED,
                )
            )
            break
    return out


def _other_arm_restores(
    guard: tuple[int, int, str], r: Restore | KeyRead, same: list[Restore | KeyRead]
) -> bool:
    """`if "lr_scheduler" in sd: restore(sd["lr_scheduler"]) else: restore(sd["sched"])`:
    both arms of the test restore it, so the test skips nothing."""
    arm = dict(r.ctx.branches).get(guard[0])
    if arm is None:
        return False
    return any(dict(x.ctx.branches).get(guard[0], arm) != arm for x in same)


_STEPS_WITH_WEIGHTS = (vocab.OPTIMIZER, vocab.SCHEDULER, vocab.SCALER, vocab.RNG, vocab.DATA)
HINT_SKIPPED = (
    "restore every component or none: test that the checkpoint is complete once, before "
    "restoring anything, and fail (raise) when a component is missing instead of going on"
)


_EXTRAS = (
    (vocab.RNG, "the RNG state", "dropout, augmentation and sampling draw other numbers"),
    (
        vocab.DATA,
        "the data-loader position",
        "the epoch's batches are seen again from the start (or others skipped)",
    ),
)


def _unrestored_extras(
    model: Restore, saves: list[Save], restores: list[Restore], events: Sequence[Event]
) -> list[Finding]:
    """The RNG state or the data-loader position saved with the checkpoint, never restored."""
    saved: set[str] = set()
    for s in saves:  # entries of one checkpoint dict with the weights' (a separate file is
        parts = {k for k in (vocab.kind_of_key(key) for key in s.payload.keys) if k}
        if vocab.MODEL in parts:  # restored by its own code, often in another module)
            saved |= parts
    restored = {r.kind for r in restores} | {
        vocab.kind_of_key(e.key) for e in events if isinstance(e, KeyRead)
    }
    out: list[Finding] = []
    for kind, what, effect in _EXTRAS:
        if kind in saved and kind not in restored:
            line_of = next(
                line(s.site)
                for s in saves
                if any(vocab.kind_of_key(k) == kind for k in s.payload.keys)
                and any(vocab.kind_of_key(k) == vocab.MODEL for k in s.payload.keys)
            )
            out.append(
                Finding(
                    PARTIAL,
                    model.site,
                    f"{what} saved with the checkpoint is not restored: after a resume {effect}",
                    (f"line {line_of} saves it; no resume reads it back",),
                    HINT_PARTIAL,
                )
            )
            break  # one finding per site: the first missing part
    return out


def _step_key(s: Save) -> str:
    return next(k for k in sorted(s.payload.keys) if vocab.kind_of_key(k) == vocab.STEP)


def _unrestored_scheduler(index: ModuleIndex, restores: list[Restore]) -> int | None:
    """The line of a scheduler that is created and stepped but never restored, if any."""
    if any(r.kind == vocab.SCHEDULER for r in restores):
        return None
    created: dict[str, int] = {}
    stepped: set[str] = set()
    for node in ast.walk(index.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            callee = dotted(node.value.func) or ""
            if vocab.is_scheduler_class(callee) and not _resumes(node.value):
                for t in node.targets:
                    if (name := dotted(t)) is not None:
                        created.setdefault(name, node.lineno)
            for t in node.targets:  # scheduler.last_epoch = start - 1
                if isinstance(t, ast.Attribute) and t.attr in ("last_epoch", "_step_count"):
                    created.pop(dotted(t.value) or "", None)
        elif isinstance(node, ast.For) and all(_is_step_call(s) for s in node.body):
            stepped.update(
                "!" + (dotted(s.value.func.value) or "")  # type: ignore[attr-defined]
                for s in node.body
            )  # a catch-up loop
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "step"
        ):
            name = dotted(node.func.value) or ""
            if node.args or node.keywords:
                stepped.add("!" + name)  # stepped to an explicit epoch: restored by argument
            else:
                stepped.add(name)
    for name, lineno in sorted(created.items(), key=lambda x: x[1]):
        if name in stepped and "!" + name not in stepped:
            return lineno
    return None


def _is_step_call(s: ast.stmt) -> bool:
    """`scheduler.step()` alone in a loop body: stepping the schedule to the resumed step."""
    return (
        isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Call)
        and isinstance(s.value.func, ast.Attribute)
        and s.value.func.attr == "step"
        and vocab.kind_of_name(dotted(s.value.func.value) or "") == vocab.SCHEDULER
    )


def _resumes(call: ast.Call) -> bool:
    """`last_epoch=start - 1` (or any value but the default -1) restores the schedule."""
    for k in call.keywords:
        if k.arg in ("last_epoch", "last_step", "current_step"):
            v = k.value
            return not (
                isinstance(v, ast.UnaryOp)
                and isinstance(v.operand, ast.Constant)
                and v.operand.value == 1
            )
    return False


def check_whole_as_weights(trace: Trace, saves: list[Save]) -> list[Finding]:
    """FITOL054: a full checkpoint (weights, optimizer, step under their keys) handed whole to
    the model's `load_state_dict(..., strict=False)`: no key matches, nothing is loaded, and
    the model goes on from its initial weights without an error."""
    loads = {e.ident: e for _, e in trace.of(Load)}
    keyed = {
        x
        for _, e in trace.of(KeyRead)
        if isinstance(e, KeyRead) and vocab.kind_of_key(e.key) is not None
        for x in e.source.loads
    }
    out: list[Finding] = []
    for _, r in trace.of(Restore):
        assert isinstance(r, Restore)
        if (
            r.kind != vocab.MODEL
            or r.strict
            or LOADED not in r.source.flags  # the object torch.load returned, as it is
            or ENTRY in r.source.flags
        ):
            continue
        evidence = None
        here = {  # loaded in the function that restores it, where the reader sees it too
            x for x in r.source.loads if x in loads and loads[x].ctx.frame == r.ctx.frame
        }
        if not here:
            continue
        if here & keyed:
            evidence = "the same loaded checkpoint is read by its entries elsewhere"
        else:
            paths = {normal_form(loads[x].path.text) for x in r.source.loads if x in loads}
            names = {_published(p) for p in paths if "{" not in vocab.basename(p)}
            for s in saves:
                saved_as = normal_form(s.path.text)
                if saved_as not in paths and _published(saved_as) not in names:
                    continue
                parts = component_kinds(s.payload) | {
                    k for k in (vocab.kind_of_key(key) for key in s.payload.keys) if k
                }
                if len(parts) > 1 and s.payload.keys:
                    evidence = (
                        f"line {line(s.site)} saves that file as a dictionary of "
                        f"{', '.join(sorted(s.payload.keys))}"
                    )
                    break
        if evidence is None:
            continue
        out.append(
            Finding(
                WHOLE_AS_WEIGHTS,
                r.site,
                "the whole checkpoint is loaded as the model's weights with strict=False: "
                "no key matches, and the model silently keeps its initial weights",
                (evidence,),
                HINT_WHOLE,
            )
        )
    return out


def _published(path: str) -> str:
    """The file name a save publishes: `checkpoint.pth.tmp` is renamed to `checkpoint.pth`."""
    name = vocab.basename(path)
    for suffix in (".tmp", ".temp", ".partial", ".part", ".incomplete"):
        name = name.removesuffix(suffix)
    return name
