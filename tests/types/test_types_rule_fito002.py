"""FITO002: values of different (or not provably equal) epochs combined into one state.

Witnesses come from Z3; the tests check them against the requires with an evaluator of
their own, and cross-check "never" and "possible" by enumerating a box of small epochs.
"""

from __future__ import annotations

import itertools

import pytest

from tests.types.types_helpers import (
    SHARED,
    codes,
    column_of,
    evaluate,
    line_of,
    only,
    pipeline,
    requires_of,
    type_check,
    witness_of,
)


def _box_models(requires, names, bound=6):
    """Every assignment in [-bound, bound]^k that satisfies the requires."""
    for values in itertools.product(range(-bound, bound + 1), repeat=len(names)):
        env = dict(zip(names, values))
        if all(evaluate(r, env) for r in requires):
            yield env


def _least(requires, names, a, b):
    """The counterexample the checker promises: least sum of magnitudes, then fewest negative
    values, then the smallest first-declared epoch (enumerated, not solved)."""
    found = [m for m in _box_models(requires, names) if m[a] != m[b]]

    def key(m):
        return (sum(abs(v) for v in m.values()), sum(v < 0 for v in m.values()), abs(m[names[0]]))

    best = min(map(key, found))
    winners = [m for m in found if key(m) == best]
    return winners


def test_epochs_that_can_never_be_equal():
    text = pipeline("""
        epoch e1, e2
        require e2 == e1 + 1
        let w = snapshot(gpu) @ e1
        let o = snapshot(nvme) @ e2
        let c = converge(Trained, e1, w, o)
    """)
    d = only(type_check(text), "FITO002")
    assert (d.span.line, d.span.column) == (line_of(text, "converge"), column_of(text, "o", "w, "))
    assert "can never equal e1" in d.message and "'o'" in d.message and "e2" in d.message
    requires = requires_of(text, "p")
    w = witness_of(d)
    assert set(w) == {"e1", "e2"} and w["e1"] != w["e2"]
    assert all(evaluate(r, w) for r in requires)
    assert not any(m["e1"] == m["e2"] for m in _box_models(requires, ["e1", "e2"]))
    assert _least(requires, ["e1", "e2"], "e1", "e2") == [w]


def test_epochs_that_are_merely_not_provably_equal():
    text = pipeline("""
        epoch e1, e2
        let w = snapshot(gpu) @ e1
        let o = snapshot(nvme) @ e2
        let c = converge(Trained, e1, w, o)
    """)
    d = only(type_check(text), "FITO002")
    assert "not provably equal to e1" in d.message
    assert "require e2 == e1" in (d.hint or "")
    w = witness_of(d)
    assert w["e1"] != w["e2"]
    assert _least([], ["e1", "e2"], "e1", "e2") == [w]


def test_an_ordering_is_not_an_equality():
    text = pipeline("""
        epoch lo, hi
        require lo <= hi
        let a = snapshot(gpu) @ lo
        let b = snapshot(host) @ hi
        let c = converge(Trained, lo, a, b)
    """)
    d = only(type_check(text), "FITO002")
    assert "not provably equal" in d.message
    requires = requires_of(text, "p")
    w = witness_of(d)
    assert all(evaluate(r, w) for r in requires) and w["lo"] != w["hi"]
    assert any(m["lo"] == m["hi"] for m in _box_models(requires, ["lo", "hi"]))


@pytest.mark.parametrize(
    "facts",
    [
        ["e1 <= e2", "e2 <= e1"],
        ["e2 == e1 + 3 - 3"],
        ["2 * e1 == 2 * e2"],
        ["e1 - e2 >= 0 and e2 - e1 >= 0"],
        ["not (e1 != e2)"],
        ["e1 < e2 + 1", "e2 < e1 + 1"],
        ["e1 == x", "x == e2"],
    ],
)
def test_a_proved_equality_lets_converge_through(facts):
    reqs = "\n".join(f"require {f}" for f in facts)
    text = pipeline(f"""
        epoch e1, e2, x
        {reqs}
        let w = snapshot(gpu) @ e1
        let o = snapshot(nvme) @ e2
        let c = converge(Trained, e1, w, o)
        restore(c)
    """)
    assert type_check(text) == []


def test_convergences_of_other_epochs_are_checked_too():
    text = pipeline("""
        epoch e
        let a = commit(Trained, e, gpu)
        let b = commit(Trained, e + 1, nvme)
        let c = converge(Trained, e, a, b)
    """)
    d = only(type_check(text), "FITO002")
    assert "'b'" in d.message and "can never equal" in d.message


def test_one_diagnostic_per_converge_naming_every_input():
    text = pipeline("""
        epoch e, f, g
        require g == f + 2
        let a = snapshot(gpu) @ f
        let b = snapshot(host) @ g
        let c = snapshot(nvme) @ e
        let k = converge(Trained, e, a, b, c)
    """)
    d = only(type_check(text), "FITO002")
    joined = "\n".join(d.notes)
    assert "'a': Snap(gpu, t1) at epoch f (not provably equal to e)" in joined
    assert "'b': Snap(host, t2) at epoch g (not provably equal to e)" in joined
    assert "'c': Snap(nvme, t3) at epoch e (proved equal to e)" in joined
    assert "g == f + 2 (line" in joined


def test_the_shared_example_tells_never_from_not_provable():
    text = (SHARED / "examples" / "pipelines.fito").read_text()
    diags = [d for d in type_check(text) if d.code == "FITO002"]
    by_line = {d.span.line: d for d in diags}
    assert sorted(by_line) == [
        line_of(text, "FITO002"),
        [n for n, ln in enumerate(text.splitlines(), 1) if "FITO002" in ln][1],
    ]
    first, second = (by_line[k] for k in sorted(by_line))
    assert "can never equal e1" in first.message
    assert "not provably equal to e1" in second.message
    requires = requires_of(text, "mixed_epochs")
    assert _least(requires, ["e1", "e2"], "e1", "e2") == [witness_of(first)]
    assert _least([], ["e1", "e2"], "e1", "e2") == [witness_of(second)]


def test_requires_hold_for_the_whole_pipeline_wherever_they_are_written():
    text = pipeline("""
        epoch e1, e2
        let w = snapshot(gpu) @ e1
        let o = snapshot(nvme) @ e2
        let c = converge(Trained, e1, w, o)
        require e1 == e2
    """)
    assert codes(type_check(text)) == []


def test_large_fact_groups_decide_like_small_ones():
    """Above the narrowing threshold, proofs that need the whole chain still go through,
    refutations by a neighbouring fact keep a counterexample that satisfies every fact."""
    n = 30
    chain = "\n".join(f"require e{i + 1} == e{i} + 1" for i in range(n))
    text = pipeline(f"""
        epoch {", ".join(f"e{i}" for i in range(n + 1))}, x
        {chain}
        require x >= e0
        let far = snapshot(gpu) @ e{n} - {n}
        let near = snapshot(host) @ e1
        let loose = snapshot(nvme) @ x
        let a = converge(Trained, e0, far)
        let b = converge(Trained, e0, near)
        let c = converge(Trained, e0, loose)
    """)
    diags = type_check(text)
    assert [(d.span.line, d.code) for d in diags] == [
        (line_of(text, "converge(Trained, e0, near)"), "FITO002"),
        (line_of(text, "converge(Trained, e0, loose)"), "FITO002"),
    ]
    never, possible = diags
    assert "can never equal e0" in never.message and "not provably equal" in possible.message
    requires = requires_of(text, "p")
    for d in diags:
        w = witness_of(d)
        env = {f"e{i}": w.get("e0", 0) + i for i in range(n + 1)}
        env.update(w)
        env.setdefault("x", env["e0"] + 1)
        assert all(evaluate(r, env) for r in requires), w
