"""Partial-order reduction (docs/reductions.md): reduced and unreduced searches give the
same verdicts and trace lengths on the shipped specs, the shared examples and random specs,
the reduced search never stores more states, it provably saves states on independent
processes (the formula computed here), and every counterexample replays."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fito.check.traces.replay import replay
from fito.pipeline import front_end
from tests.helpers.check import ROOT, run_spec
from tests.helpers.random_specs import Gen


@pytest.fixture(autouse=True)
def _por_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FITO_POR", "1")  # partial-order reduction is opt-in for now


SPECS = sorted((ROOT / "specs").glob("*.fito")) + sorted(
    (ROOT.parent.parent / "shared" / "examples").glob("*.fito")
)
POR = "partial-order reduction ("  # the note of a search that ran reduced


def independent(n: int, k: int) -> str:
    """n processes, each counting to k on its own events: no step depends on another's."""
    return (
        f"type I = 0..{n - 1}\ntype C = 0..{k}\nchannel step: I\n"
        f"process P(i: I, c: C) = c < {k} & step.i -> P(i, c + 1)\n"
        "system ||| i: I @ P(i, 0)\n"
        "assert always true\nassert :[deadlock free]\nassert reaches false\n"
    )


@pytest.mark.parametrize(("n", "k"), [(2, 3), (3, 3), (4, 2), (5, 1)])
def test_independent_processes_are_reduced_to_one_interleaving(n: int, k: int) -> None:
    text = independent(n, k)
    reduced = run_spec(text).verdicts
    plain = run_spec(text, reduce=False).verdicts
    unreduced_states = (k + 1) ** n  # every combination of the n counters
    one_interleaving = n * k + 1  # the root, then one state per step of one process at a time
    assert [v.states for v in plain] == [unreduced_states] * 3
    always, deadlock, reaches = reduced
    assert always.verdict == "holds" and always.states == one_interleaving
    assert reaches.verdict == "fails" and reaches.states == one_interleaving
    assert any(POR in r for r in always.reductions)
    # the deadlock found reduced is searched again unreduced: a shortest trace, replayed
    assert (deadlock.verdict, len(deadlock.trace)) == (plain[1].verdict, len(plain[1].trace))
    assert len(deadlock.trace) == n * k
    model = front_end(text).model
    assert model is not None and deadlock.run is not None
    assert replay(model, model.assertions[1], deadlock.run).reproduced


def test_no_reduce_and_the_frontier_engine_turn_it_off() -> None:
    text = independent(3, 2)
    for options in ({"reduce": False}, {"engine": "frontier"}):
        v = run_spec(text, **options).verdicts[0]  # type: ignore[arg-type]
        assert v.states == 27 and not any(POR in r for r in v.reductions)


def _same(text: str, max_states: int = 20_000) -> bool:
    """Reduced and unreduced runs agree; whether some search ran reduced."""
    fe = front_end(text)
    if fe.model is None or any(d.is_error for d in fe.diagnostics):
        return False
    reduced = run_spec(text, max_states=max_states)
    plain = run_spec(text, max_states=max_states, reduce=False)
    ran = False
    for r, p, a in zip(reduced.verdicts, plain.verdicts, fe.model.assertions):
        if p.limit_hit or r.limit_hit:
            continue
        assert (r.verdict, len(r.trace), r.reason) == (p.verdict, len(p.trace), p.reason), text
        if any(POR in x for x in r.reductions):
            ran = True
            assert r.states <= p.states, text
        if r.run is not None and r.verdict == "fails" and a.kind in ("always", "deadlock"):
            # a real run of the system, wherever the unreduced run replays
            plain_replays = p.run is not None and replay(fe.model, a, p.run).reproduced
            assert replay(fe.model, a, r.run).reproduced or not plain_replays, text
    return ran


class PorGen:
    """Random specs of a few processes over counters, shared cells and a synchronised
    channel: some steps are process-local, some read or write the cells, some synchronise."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def step(self, j: int) -> str:
        r = self.r
        nxt = r.choice(["c", "(c + 1) % 3", "0", "2"])
        kind = r.choice(["local", "local", "write", "read", "sync", "tau"])
        guard = r.choice(["", "c < 2 & ", "c == 0 & ", "c != 1 & "])
        if kind == "local":
            return f"{guard}a.{j} -> P{j}({nxt})"
        if kind == "tau":
            return f"{guard}b.{j} -> P{j}({nxt})"
        if kind == "write":
            v = r.choice(["x + 1", "c", "1 - f", "0"])
            cell = r.choice(["x", "f"]) if v != "1 - f" else "f"
            if cell == "f":
                v = r.choice(["1 - f", "0", "1"])
            return f"{guard}a.{j} {{{cell} := {v}}} -> P{j}({nxt})"
        if kind == "read":
            return f"x == {r.randint(0, 2)} & b.{j} -> P{j}({nxt})"
        return f"{guard}s -> P{j}({nxt})"

    def spec(self) -> str:
        r = self.r
        n = r.randint(2, 3)
        lines = [
            "type J = 0..2",
            "type T = 0..2",
            "channel a, b: J",
            "channel s",
            "domain x: T = 0 durable",
            "domain f: 0..1 = 0 durable",
        ]
        for j in range(n):
            steps = [self.step(j) for _ in range(r.randint(1, 3))]
            lines.append(f"process P{j}(c: T) = " + " [] ".join(f"({s})" for s in steps))
        parts = [f"P{j}({r.randint(0, 2)})" for j in range(n)]
        top = parts[0]
        for p in parts[1:]:
            top = f"({top}) [| {{| s |}} |] {p}" if r.random() < 0.4 else f"({top}) ||| {p}"
        lines.append(f"system {top}")
        lines.append("assert :[deadlock free]")
        lines.append(f"assert always x != {r.randint(1, 2)} or f == 0")
        lines.append(f"assert reaches x == {r.randint(0, 2)} and f == {r.randint(0, 1)}")
        return "\n".join(lines) + "\n"


def test_random_specs_agree_with_the_unreduced_search() -> None:
    ran = 0
    for seed in range(200):
        ran += _same(PorGen(seed).spec())
    assert ran >= 150  # most of them did run reduced


def test_random_specs_of_the_differential_generator_agree() -> None:
    for seed in range(40):
        _same(Gen(seed, forms=seed % 2 == 1).spec(), max_states=5_000)


@pytest.mark.slow
@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_shipped_specs_and_examples_agree(path: Path) -> None:
    _same(path.read_text(), max_states=200_000)


def test_whole_model_facts_are_derived_once_per_model(monkeypatch) -> None:
    """`plan` runs per assertion; the symmetry proof and the crash scan are about the whole
    model and run once (a spec of 20,000 assertions was quadratic: issue 31's fuzzer)."""
    import fito
    from fito.check import reduce as reduce_mod

    calls = {"prove": 0, "crashes": 0}
    prove, crashes = reduce_mod.prove, reduce_mod._crashes

    def counted_prove(model):  # type: ignore[no-untyped-def]
        calls["prove"] += 1
        return prove(model)

    def counted_crashes(node):  # type: ignore[no-untyped-def]
        calls["crashes"] += 1
        return crashes(node)

    monkeypatch.setattr(reduce_mod, "prove", counted_prove)
    monkeypatch.setattr(reduce_mod, "_crashes", counted_crashes)
    head = (
        "symmetric type D = {a, b}\n"
        "domain x[d: D]: 0..1 = 0 volatile\n"
        "channel go: D\n"
        "process P = [] d: D @ x[d] == 0 & go.d {x[d] := 1} -> P\n"
        "system P\n"
    )
    report = fito.check_text(head + "assert always x[a] + x[b] <= 2\n" * 50)
    assert [v.verdict for v in report.verdicts] == ["holds"] * 50
    assert calls == {"prove": 1, "crashes": 1}
