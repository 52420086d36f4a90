"""The fourth law of `[]` (docs/semantics.md, structural congruence): an operand that
returns to its own choice is kept once, so a recursion through a choice of guarded
assignments closes; an internal step that leads elsewhere keeps its copies; and the
recursions the law cannot close are named by the warning T601 before the search.

Each state count is worked out independently (one state per reachable value of the cell,
by a breadth-first search written here over the guarded updates), and both engines and the
reference interpreter give it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fito.check.options import CheckOptions
from fito.lang import nodes as A
from fito.lang.resolve.loops import recurrent_operands
from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import parse
from fito.pipeline import check_source
from fito.reference.interpreter import check
from fito.source import Source

LIMIT = 2_000  # far above every count below; on an open state space the search stops here


def figures(text: str) -> list[tuple[str, int]]:
    """(verdict, states) of each assertion, the same from both engines and the reference."""
    parsed = parse(text)
    assert parsed.spec is not None, parsed.diagnostics
    model, diags = resolve(parsed.spec)
    assert not [d for d in diags if d.is_error], diags
    ref = [(r.verdict, r.states) for r in (check(model, a, LIMIT) for a in model.assertions)]
    for engine in ("scalar", "frontier"):
        report = check_source(Source("t.fito", text), CheckOptions(max_states=LIMIT, engine=engine))
        assert [(v.verdict, v.states) for v in report.verdicts] == ref, (engine, text)
    return ref


def warnings(text: str) -> list[str]:
    parsed = parse(text)
    assert parsed.spec is not None
    _, diags = resolve(parsed.spec)
    return [d.message for d in diags if d.code == "T601"]


def print_assigns(p: A.Prefix) -> str:
    (a,) = p.assigns
    assert isinstance(a, A.Assign) and isinstance(a.target, A.Name)
    return f"{a.target.id} := {a.value.id}"  # type: ignore[attr-defined]


RING = """
domain c: 0..1 = 0 volatile
process Ring = c == 0 & {c := 1} -> Ring [] c == 1 & {c := 0} -> Ring
system Ring
assert :[deadlock free]
"""


def test_the_issue_ring_has_two_states_as_in_spin() -> None:
    assert figures(RING) == [("holds", 2)]
    assert warnings(RING) == []


def reachable(size: int, updates: list[tuple[int, int]]) -> set[int]:
    """Values of c reachable from 0 when `c == g & {c := v}` may fire for each (g, v)."""
    seen, work = {0}, [0]
    while work:
        c = work.pop()
        for g, v in updates:
            if g == c and v not in seen:
                seen.add(v)
                work.append(v)
    return seen


def ring(size: int, updates: list[tuple[int, int]], params: bool) -> str:
    """A choice of guarded assignments, each returning to the choice (with its parameter
    passed on unchanged when `params`)."""
    call = "Ring(n)" if params else "Ring"
    ops = " [] ".join(f"c == {g} & {{c := {v}}} -> {call}" for g, v in updates)
    return (
        f"domain c: 0..{size - 1} = 0 volatile\n"
        f"process {'Ring(n: 0..1)' if params else 'Ring'} = {ops}\n"
        f"system {'Ring(1)' if params else 'Ring'}\n"
        "assert :[deadlock free]\n"
        f"assert reaches c == {size - 1}\n"
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(2, 4).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=2, max_size=5
            ),
            st.booleans(),
        )
    )
)
def test_a_choice_of_returning_assignments_has_one_state_per_value(case: tuple) -> None:
    size, updates, params = case
    values = reachable(size, updates)
    (deadlock, states), (reach, _) = figures(ring(size, updates, params))
    stuck = any(not any(g == c for g, _ in updates) for c in values)
    assert deadlock == ("fails" if stuck else "holds")
    if not stuck:
        assert states == len(values)  # one state per value: the chain never grows
    assert reach == ("holds" if size - 1 in values else "fails")


def test_a_replicated_pick_that_returns_has_one_state_per_value() -> None:
    text = (
        "type V = 0..3\ndomain x: V = 0 volatile\n"
        "process Pick = [] v: V @ {x := v} -> Pick\n"
        "system Pick\nassert :[deadlock free]\n"
    )
    assert figures(text) == [("holds", 4)]  # one state per value of x


def test_a_second_copy_of_a_step_that_does_not_return_stays_on_offer() -> None:
    text = (
        "domain x: 0..3 = 0 volatile\n"
        "process Q = {x := x + 1} -> STOP\n"
        "process P = Q [] Q\n"
        "system P\nassert reaches x == 2\nassert P |= always x <= 2\n"
    )
    # (P, 0) -> (Q, 1) -> (STOP, 2): the copy left behind is taken too
    assert figures(text) == [("holds", 3), ("holds", 3)]


def test_a_step_that_changes_a_var_parameter_does_not_return() -> None:
    text = (
        "domain x: 0..3 = 0 volatile\n"
        "process P(var k: 0..2) = k < 2 & {k := k + 1} -> P(k) [] {x := k} -> P(k)\n"
        "system P(0)\nassert P(0) |= always x <= 2\n"
    )
    parsed = parse(text)
    assert parsed.spec is not None
    model, _ = resolve(parsed.spec)
    steps = [n for n in recurrent_operands(model.processes["P"], ()) if isinstance(n, A.Prefix)]
    assert [print_assigns(n) for n in steps] == ["x := k"]
    (message,) = warnings(text)  # the step on k leads to a new choice every time
    assert "P -> P" in message


PICK = """
type Val = 0..1
domain c[i: 0..1]: Val = 0 volatile
channel go
process Init(i: 0..2) = if i == 2 then go -> Init(0) else [] v: Val @ {c[i] := v} -> Init(i + 1)
system Init(0)
"""


def test_a_recursion_that_cannot_close_is_named_before_the_search() -> None:
    (message,) = warnings(PICK)
    assert "Init -> Init" in message and "may not close" in message
    committed = PICK.replace("[] v: Val @ {c[i] := v} -> Init(i + 1)", "go -> Init(i + 1)")
    assert warnings(committed) == []


@pytest.mark.parametrize(
    "body",
    [
        "a -> P [] {x := 1} -> P",  # the third law's own example
        "x == 0 & {x := 1} -> Q [] a -> P",  # Q starts with a visible event
    ],
)
def test_recursions_that_close_get_no_warning(body: str) -> None:
    text = f"domain x: 0..1 = 0 volatile\nchannel a\nprocess P = {body}\nprocess Q = a -> P\n"
    assert warnings(text) == []
