"""Counterexamples as data (fito.check.traces.records): every emitted trace replays in the naive
reference interpreter state by state; writes are exactly the cells that changed; a crash
names what it reset; a deadlock says what each process waits for; the JSON form is lossless.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fito.check.options import CheckOptions
from fito.check.traces.records import DEADLOCK, VIOLATION, Trace
from fito.pipeline import check_source, front_end
from fito.reference.steps import EVENT, TICK
from fito.reference.terms import Reference
from fito.source import Source

ROOT = Path(__file__).resolve().parents[2]

CRASHY = """
type V = 0..2
channel set: V
domain mem: V = 0 volatile
domain disk: V = 0 durable
process Work = mem < 2 & set!(mem + 1) { mem := mem + 1, disk := mem + 1 } -> Work
process Node = Work /\\ (crash -> Node)
system Node
assert always not (mem == 0 and disk == 2)
"""

STUCK = """
type V = 0..1
channel a, b
domain x: V = 0 durable
process P = x > 0 & a -> P
process Q = b -> SKIP
system P ||| Q
assert :[deadlock free]
"""


def report(text: str, name: str = "t.fito"):  # type: ignore[no-untyped-def]
    return check_source(Source(name, text), CheckOptions())


def replays_in_reference(text: str, trace: Trace) -> bool:
    """The trace's states follow transitions of the reference interpreter, one per step."""
    model = front_end(text).model
    ref = Reference(model)
    assert model.system is not None

    def shown(store):  # type: ignore[no-untyped-def]
        cells = tuple((name, t.show(v)) for (name, t), v in zip(_names(model, ref), store.cells))
        return cells + tuple(
            _fifo(model, name, idx, q) for (name, idx), q in zip(ref.buffers, store.bufs)
        )

    root = ref.root(model.system)
    frontier = {root}
    if shown(root[1]) != trace.initial_state:
        return False
    for step in trace.steps:
        nxt = set()
        for term, store in frontier:
            for tr in ref.trans(term, store):
                kind = {EVENT: "event", TICK: "tick"}.get(tr.kind, "internal")
                if (kind == "event") != (step.kind == "event"):
                    continue
                if kind == "event" and tr.event[0] != step.channel:
                    continue
                after = ref.fire(tr, store)
                if shown(after[1]) == step.state:
                    nxt.add(after)
        if not nxt:
            return False
        frontier = nxt
    return True


def _fifo(model, name: str, idx: tuple[int, ...], queue: tuple) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A buffer as a trace shows it: `q[0]` and its messages, oldest first: `<1.0, 2.1>`."""
    chan = model.channels[name]
    label = name + "".join(f"[{t.show(v)}]" for t, v in zip(chan.fields, idx))
    types = chan.fields[chan.arrays :]
    messages = (".".join(t.show(v) for t, v in zip(types, m)) for m in queue)
    return label, f"<{', '.join(messages)}>"


def _names(model, ref):  # type: ignore[no-untyped-def]
    import itertools

    out = []
    for name, cell in model.cells.items():
        for combo in itertools.product(*(t.values() for t in cell.indices)):
            label = name + "".join(f"[{t.show(v)}]" for t, v in zip(cell.indices, combo))
            out.append((label, cell.type))
    return out


@pytest.mark.parametrize(
    "name", ["checkpoint_naive.fito", "firmware_rollout.fito", "checkpoint_commit_early.fito"]
)
def test_every_trace_of_the_shipped_specs_replays(name: str) -> None:
    text = (ROOT / "specs" / name).read_text(encoding="utf-8")
    runs = [v.run for v in report(text, name).verdicts if v.run is not None]
    assert runs
    for run in runs:
        assert replays_in_reference(text, run)
        assert Trace.from_json(run.to_json()) == run


def test_writes_are_the_changed_cells_and_the_labels_are_the_trace() -> None:
    v = report((ROOT / "specs" / "checkpoint_naive.fito").read_text()).verdicts[0]
    assert v.run is not None and v.run.labels == v.trace
    before = v.run.initial_state
    for step in v.run.steps:
        assert step.writes == tuple(p for p, q in zip(step.state, before) if p != q)
        before = step.state
    assert [s.movers for s in v.run.steps] == [("Trainer",), ("Flusher(gpu)",)]
    assert v.run.final.kind == VIOLATION
    assert dict(v.run.final.cells) == {
        k: val for k, val in v.run.last_state if k.startswith("saved")
    }


def test_a_trace_shows_each_buffer_as_its_messages_oldest_first() -> None:
    text = (
        "type V = 0..2\ntype I = 0..1\nchannel q[I]: V.Bool buffer 2\nchannel go\n"
        "process P = q[0]!1!true -> q[1]!2!false -> q[0]!0!false -> q[0]?x?b -> go -> STOP"
        "\nsystem P\nassert :[deadlock free]\n"
    )
    (v,) = report(text).verdicts
    assert v.verdict == "fails" and v.run is not None
    states = [dict(s.state) for s in v.run.steps]
    assert dict(v.run.initial_state)["q[0]"] == "<>"
    assert [s["q[0]"] for s in states] == [
        "<1.true>",
        "<1.true>",
        "<1.true, 0.false>",
        "<0.false>",
        "<0.false>",
    ]
    assert states[1]["q[1]"] == "<2.false>"
    assert {c.name: c.durable for c in v.run.cells if c.name.startswith("q")} == {
        "q[0]": False,
        "q[1]": False,
    }
    assert replays_in_reference(text, v.run)


def test_a_crash_names_the_volatile_cells_it_reset() -> None:
    v = report(CRASHY).verdicts[0]
    assert v.verdict == "fails" and v.run is not None
    crash = next(s for s in v.run.steps if s.crash)
    before = dict(v.run.state_before(crash.index))
    assert crash.crash_reset == ("mem",) and before["mem"] != "0"
    assert dict(crash.state)["mem"] == "0" and dict(crash.state)["disk"] == before["disk"]
    assert replays_in_reference(CRASHY, v.run)
    domains = {c.name: (c.domain, c.durable) for c in v.run.cells}
    assert domains == {"mem": ("", False), "disk": ("", True)}


def test_a_deadlock_says_what_each_process_waits_for() -> None:
    v = report(STUCK).verdicts[0]
    assert v.verdict == "fails" and v.run is not None and v.run.final.kind == DEADLOCK
    waiting = {w.process: w for w in v.run.final.waiting}
    assert waiting["P"].guarded == ("a",) and not waiting["P"].offers
    assert waiting["Q"].terminated


def test_an_atomic_label_names_the_elements_it_writes_at_a_computed_index() -> None:
    text = (
        "type V = 0..2\ndomain a[i: 0..1]: V = 0 volatile\ndomain k: 0..1 = 1 volatile\n"
        "process P = atomic { a[k] := 2, k := 0 } -> STOP\nsystem P\n"
        "assert :[deadlock free]\n"
    )
    (v,) = report(text).verdicts
    assert v.run is not None
    label = v.run.steps[0].label
    assert "a[1] := 2" in label and "k := 0" in label and "a :=" not in label
