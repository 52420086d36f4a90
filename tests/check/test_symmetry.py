"""Symmetry reduction (docs/reductions.md): the proof refuses what is not symmetric, the
reduced search gives the unreduced search's verdicts and trace lengths, its state count is
the number of orbits (counted independently here), the representatives stand for exactly
the unreduced states, and every counterexample is a real run that replay accepts."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from fito.check.explore import Task, search
from fito.check.options import Limits
from fito.check.reduce import plan
from fito.check.traces.replay import replay
from fito.pipeline import front_end
from fito.semantics.compiled import compile_model
from fito.types.symmetry import prove
from tests.helpers.check import ROOT, run_spec
from tests.helpers.symmetric_specs import SymGen, orbits_2pc, states_2pc, two_phase_commit

SPECS = sorted((ROOT / "specs").glob("*.fito")) + sorted(
    (ROOT.parent.parent / "shared" / "examples").glob("*.fito")
)


def _model(text: str):  # type: ignore[no-untyped-def]
    fe = front_end(text)
    assert fe.model is not None and not fe.errors, fe.diagnostics
    return fe.model


def _figures(text: str, **options: object) -> list[tuple]:
    report = run_spec(text, **options)
    return [(v.verdict, len(v.trace), v.reason is not None) for v in report.verdicts]


# ---------------------------------------------------------------------- the proof
@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("process P = {p[gpu] := 1} -> STOP", "T201"),
        ("process P = [] d: Dom @ go.d {p[d] := 1} -> go.gpu -> P", "T201"),
        ("process P = [] d: Dom @ p[d] < 1 & go.d {x := p[d] + 1} -> P", None),
        ("process P = [] d: Dom @ go.d {x := 1} -> go.d -> P", "T204"),
        ("process P(d: Dom) = go.d -> P(d)", "T204"),
        ("process P = ||| d: Dom @ go.d -> STOP", "T204"),
        ("process P = [] d: Dom @ {p[d] := 1} -> P", "T204"),
        ("process P = [] d: Dom @ (forall e: Dom @ e == d or p[e] == 0) & go.d -> P", None),
        ("process P = [] d: Dom @ (exists e: Dom @ e != d) & go.d {p[d] := x} -> P", None),
        ("process P = go?d {p[d] := 1} -> P", None),
        ("process P = go?d: {gpu} -> P", "T201"),
        ("process P = go?d -> go.d -> P", "T204"),
    ],
)
def test_the_proof_accepts_symmetric_uses_and_names_the_first_offending_one(
    body: str, code: str | None
) -> None:
    text = (
        "symmetric type Dom = {gpu, host, nvme}\nchannel go: Dom\n"
        "domain p[d: Dom]: 0..1 = 0 durable\ndomain x: 0..2 = 0 durable\n" + body + "\n"
    )
    proof = prove(_model(text))
    codes = [d.code for d in proof.diagnostics]
    if code is None:
        assert proof.sound == ("Dom",) and not codes
    else:
        assert proof.sound == () and codes[0] == code, codes
        assert proof.diagnostics[0].span.line == 5


def test_ranges_refuse_order_arithmetic_and_numbers_as_indices() -> None:
    base = "symmetric type R = 0..2\nchannel go: R\ndomain p[r: R]: 0..3 = 0 durable\n"
    for body, code in [
        ("process P = [] r: R @ r < 2 & go.r -> P", "T202"),
        ("process P = [] r: R @ go.r {p[r] := r} -> P", "T202"),
        ("process P = [] r: R @ go.r {p[(r + 1) % 3] := 1} -> P", "T202"),
        ("process P = go.0 {p[0] := 1} -> P", "T201"),
    ]:
        proof = prove(_model(base + body + "\n"))
        assert [d.code for d in proof.diagnostics][:1] == [code], body


def test_whole_arrays_only_between_arrays_of_the_same_shape() -> None:
    base = (
        "symmetric type D = 0..2\ndomain p[i: D]: 0..1 = 0 durable\n"
        "domain r[i: D]: 0..1 = 0 durable\ndomain q[i: 0..2]: 0..1 = 0 durable\n"
    )
    assert prove(_model(base + "process P = {r := p} -> P\n")).sound == ("D",)
    for body in ("process P = {q := p} -> P\n", "process P = {r := q} -> P\n"):
        assert [d.code for d in prove(_model(base + body)).diagnostics] == ["T204"], body


def test_a_cell_over_two_symmetric_types_keeps_one_of_them() -> None:
    text = (
        "symmetric type A = {a0, a1}\nsymmetric type B = {b0, b1}\n"
        "domain m[i: A][j: B]: Bool = false durable\n"
    )
    proof = prove(_model(text))
    assert proof.sound == ("A",) and proof.diagnostics[0].code == "T204"


def test_asymmetric_initial_values_and_cells_of_the_type_are_refused() -> None:
    base = "symmetric type Dom = {gpu, host}\n"
    init = prove(_model(base + "domain p[d: Dom]: Bool = (d == gpu) durable\n"))
    assert init.diagnostics[0].code == "T203"
    held = prove(_model(base + "domain leader: Dom = gpu durable\n"))
    assert held.diagnostics[0].code == "T204"


def test_an_asymmetric_property_is_checked_without_symmetry_and_says_so() -> None:
    text = two_phase_commit(3, 2) + "assert always p[d0] <= 2\n"
    report = run_spec(text)
    assert [d.code for d in report.diagnostics] == ["T205"]
    sym, plain = report.verdicts
    assert sym.unreduced_states == states_2pc(3, 2) and sym.states == orbits_2pc(3, 2)
    assert plain.states == states_2pc(3, 2) and plain.unreduced_states == 0
    assert any("not symmetric" in n for n in plain.reductions)


# ---------------------------------------------------------------------- the 2pc family
def _brute_force_orbits(K: int, E: int) -> tuple[int, int]:
    """The unreduced graph, and its orbits under every permutation of the domains."""
    model = _model(two_phase_commit(K, E))
    c = compile_model(model)
    root = c.initial(model.system)
    got, g = search(c, root, [Task(goal=lambda s: False)], Limits())
    blocks = c.symmetry("Dom").blocks
    slots = [b[0] for b in blocks]
    orbits = set()
    for s in g.states:
        images = []
        for perm in itertools.permutations(range(K)):
            t = list(s)
            for i, j in enumerate(perm):
                t[slots[j]] = s[slots[i]]
            images.append(tuple(t))
        orbits.add(min(images))
    return len(g.states), len(orbits)


@pytest.mark.parametrize(("K", "E"), [(2, 2), (3, 2), (3, 3), (4, 2)])
def test_2pc_state_counts_are_the_orbits_of_the_unreduced_graph(K: int, E: int) -> None:
    states, orbits = _brute_force_orbits(K, E)
    assert states == states_2pc(K, E)
    assert orbits == orbits_2pc(K, E)
    (v,) = run_spec(two_phase_commit(K, E)).verdicts
    assert (v.verdict, v.states, v.unreduced_states) == ("holds", orbits, states)


@pytest.mark.parametrize(("K", "E"), [(6, 3), (8, 5)])
def test_2pc_orbits_in_every_engine(K: int, E: int) -> None:
    want = (orbits_2pc(K, E), states_2pc(K, E))
    for options in ({"engine": "scalar"}, {"engine": "frontier"}, {"jobs": 2}):
        if options == {"engine": "scalar"} and K > 6:
            continue
        (v,) = run_spec(two_phase_commit(K, E), **options).verdicts
        assert (v.states, v.unreduced_states) == want, options


def test_the_report_says_what_ran_in_text_and_json() -> None:
    from fito.render.report import render_json_report, render_text_report

    report = run_spec(two_phase_commit(3, 2))
    text = render_text_report([report])
    assert "reductions: symmetry over Dom (3 members" in text
    assert f"stand for {states_2pc(3, 2):,} states" in text
    assert '"unreduced_states": 92' in render_json_report([report])
    off = run_spec(two_phase_commit(3, 2), reduce=False).verdicts[0]
    assert off.states == states_2pc(3, 2) and "--no-reduce" in off.reductions[0]


# ---------------------------------------------------------------------- same answers
def _symmetric_variant(text: str) -> str:
    return re.sub(r"^type ", "symmetric type ", text, flags=re.M)


@pytest.mark.slow
@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_declaring_types_symmetric_keeps_every_verdict_of_the_shipped_specs(path: Path) -> None:
    text = path.read_text()
    if "type " not in text or path.name == "bad_syntax.fito":
        pytest.skip("no type to declare symmetric")
    plain = run_spec(text, max_states=200_000)
    sym = run_spec(_symmetric_variant(text), max_states=200_000)
    assert [(v.verdict, len(v.trace)) for v in sym.verdicts] == [
        (v.verdict, len(v.trace)) for v in plain.verdicts
    ]


def _check_same(text: str) -> int:
    """Reduced and unreduced runs agree; returns how many searches were reduced."""
    reduced = run_spec(text, max_states=50_000)
    plain = run_spec(text, max_states=50_000, reduce=False)
    model = _model_any(text)
    reduced_n = 0
    for r, p, a in zip(reduced.verdicts, plain.verdicts, model.assertions):
        assert (r.verdict, len(r.trace), r.reason) == (p.verdict, len(p.trace), p.reason), text
        if r.unreduced_states and not r.limit_hit:
            reduced_n += 1
            assert r.unreduced_states == p.states, text
            assert r.states <= p.states
        if r.run is not None and r.verdict == "fails":
            assert replay(model, a, r.run).reproduced, text
    return reduced_n


def _model_any(text: str):  # type: ignore[no-untyped-def]
    fe = front_end(text)
    assert fe.model is not None
    return fe.model


def test_random_symmetric_specs_agree_with_the_unreduced_search() -> None:
    reduced = 0
    for seed in range(40):
        text = SymGen(seed).spec()
        assert prove(_model(text)).sound == ("D",), text
        reduced += _check_same(text)
    assert reduced >= 40  # most searches did run reduced


def test_random_tainted_specs_are_refused_and_still_agree() -> None:
    for seed in range(10):
        text = SymGen(seed, taint=True).spec()
        proof = prove(_model(text))
        assert proof.sound == () and proof.diagnostics[0].code == "T201", text
        assert _check_same(text) == 0


def test_counterexamples_are_real_runs_of_the_unreduced_system() -> None:
    """A violation deep in the 2pc family (a commit marker above some domain can only be
    written after every domain persisted): the reduced trace replays, at the same length."""
    text = two_phase_commit(4, 3) + (
        "assert always c < 2 or crashed\n"
        "assert always not (exists i: Dom @ exists j: Dom @ i != j and p[i] == 3 and p[j] == 1)\n"
        "assert reaches crashed and c == 1 and (exists i: Dom @ p[i] == 3)\n"
        "assert :[deadlock free]\n"
    )
    reduced = run_spec(text).verdicts
    plain = run_spec(text, reduce=False).verdicts
    model = _model(text)
    assert [v.verdict for v in plain] == ["holds", "fails", "fails", "holds", "fails"]
    for r, p, a in zip(reduced, plain, model.assertions):
        assert (r.verdict, len(r.trace)) == (p.verdict, len(p.trace))
        assert r.unreduced_states == p.states
        if r.run is not None and r.trace:
            assert replay(model, a, r.run).reproduced


def test_plan_is_the_identity_without_symmetric_types() -> None:
    model = _model((ROOT / "specs" / "peterson.fito").read_text())
    c = compile_model(model)
    red = plan(c, list(model.assertions), Limits())
    proc = model.assertions[0].proc or model.system
    s = c.initial(proc)
    assert not red.symmetric and red.canonical(s) == s
    assert not any("symmetry" in note for note in red.notes)  # POR may say it ran


def test_the_sorting_network_sorts_every_column() -> None:
    import numpy as np

    from fito.check.reduce import _sort_columns

    rng = np.random.default_rng(7)
    for n in range(1, 41):
        for dtype in (np.uint8, np.uint32, np.uint64):
            keys = rng.integers(0, 6, size=(n, 64)).astype(dtype)
            want = np.sort(keys, axis=0)
            _sort_columns(keys)
            assert (keys == want).all(), (n, dtype)


def test_packed_rows_reduce_as_states_do() -> None:
    """canonical_rows on packed rows (several cells per member, a 2-d array over the type)
    equals canonical on the unpacked states, row for row."""
    text = SymGen(3).spec()
    model = _model(text)
    c = compile_model(model)
    root = c.initial(model.system)
    _, g = search(c, root, [Task(goal=lambda s: False)], Limits(max_states=3000))
    red = plan(c, [model.assertions[0]], Limits())
    assert red.symmetric
    import threading

    view = c.packed_view(root, threading.RLock())
    rows = view.pack_many(g.states)
    reduced = red.canonical_rows(view, rows)
    assert [view.unpack(r) for r in reduced] == [red.canonical(s) for s in g.states]
    assert red.orbit_rows(view, reduced) == sum(red.orbit(red.canonical(s)) for s in g.states)


def test_random_symmetric_specs_agree_with_the_reference_interpreter() -> None:
    """The reduced search's verdicts, trace lengths and represented states are the
    reference interpreter's (fito/reference/: no symmetry, its own semantics)."""
    from fito.check.options import CheckOptions
    from fito.check.verdicts import check_assertions
    from fito.reference.interpreter import RefLimit, check

    compared = 0
    for seed in range(100, 106):
        text = SymGen(seed).spec()
        model = _model(text)
        options = CheckOptions(max_states=3_000, timeout=5)
        for a, v in zip(model.assertions, check_assertions(model, options)):
            if v.limit_hit:
                continue
            try:
                ref = check(model, a, 3_000, 5)
            except RefLimit:
                continue
            got = (v.verdict, v.unreduced_states or v.states, len(v.trace))
            assert got == (ref.verdict, ref.states, ref.trace_length), (seed, a.kind, text)
            compared += 1
    assert compared >= 8
