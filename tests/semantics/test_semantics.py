"""The operational rules of docs/semantics.md, one small spec each; the expected verdicts and
trace lengths are worked out by hand from the rules."""

from __future__ import annotations

import pytest

from tests.helpers.check import run_spec, verdicts

HEAD = """
channel a, b, c2
type V = 0..3
channel c: V
domain x: 0..3 = 0 volatile
domain y: 0..3 = 0 durable
"""


def one(body: str, assertion: str) -> tuple[str, int, tuple[str, ...]]:
    report = run_spec(HEAD + body + "\n" + assertion + "\n")
    assert not [d for d in report.diagnostics if d.is_error], report.diagnostics
    (v,) = report.verdicts
    return v.verdict, len(v.trace), v.trace


def test_termination_is_not_deadlock() -> None:
    assert one("process P = a -> SKIP", "assert P :[deadlock free]")[:2] == ("holds", 0)


def test_stop_deadlocks_at_once() -> None:
    assert one("process P = STOP", "assert P :[deadlock free]")[:2] == ("fails", 0)


def test_sequential_composition_turns_tick_into_tau() -> None:
    verdict, n, trace = one("process P = (a -> SKIP) ; (b -> STOP)", "assert P :[deadlock free]")
    assert (verdict, n) == ("fails", 3)
    assert trace == ("a", "tau", "b")


def test_interleaving_terminates_when_both_sides_have() -> None:
    # a, b, each side's tick as a tau (2), the composition's tick as the tau of `;`
    verdict, n, _ = one(
        "process P = ((a -> SKIP) ||| (b -> SKIP)) ; STOP", "assert P :[deadlock free]"
    )
    assert (verdict, n) == ("fails", 5)


def test_replicated_interleaving_is_one_n_ary_operator() -> None:
    # three events, three ticks as taus, one tau of `;`
    verdict, n, _ = one(
        "process P = (||| i: {0..2} @ c.i -> SKIP) ; STOP", "assert P :[deadlock free]"
    )
    assert (verdict, n) == ("fails", 7)


def test_crash_resets_volatile_cells_only() -> None:
    body = "process P = a {x := 1, y := 1} -> crash -> STOP"
    assert one(body, "assert P reaches x == 0 and y == 1 and false")[0] == "fails"
    verdict, n, trace = one(body, "assert P |= always (x == y or (x == 0 and y == 1))")
    assert verdict == "holds"
    verdict, n, trace = one(body + "\nprocess Q = P ; STOP", "assert P :[deadlock free]")
    assert (verdict, n, trace) == ("fails", 2, ("a", "crash"))


def test_assignments_on_a_crash_happen_after_the_reset() -> None:
    body = "process P = a {x := 1} -> crash {x := x + 2} -> STOP"
    verdict, n, _ = one(body, "assert P reaches x == 3")
    assert (verdict, n) == ("holds", 2)


def test_guards_are_reevaluated_in_every_state() -> None:
    body = "process P = (y == 1 & a -> STOP) ||| (b {y := 1} -> STOP)"
    verdict, n, trace = one(body, "assert P :[deadlock free]")
    assert (verdict, n, trace) == ("fails", 2, ("b", "a"))


def test_a_tau_keeps_an_external_choice() -> None:
    body = "process P = ({x := 1} -> a -> STOP) [] (b {y := 1} -> STOP)"
    verdict, n, trace = one(body, "assert P reaches x == 1 and y == 1")
    assert (verdict, n, trace) == ("holds", 2, ("{x := 1}", "b"))


def test_recursion_through_a_tau_under_a_choice_closes() -> None:
    # P --tau--> a -> P [] P, which is P again by the laws of docs/semantics.md (flattened,
    # the repeated stable `a -> P` dropped): one control state per value of x.
    text = (
        HEAD
        + """
process P = a -> P [] {x := 1} -> P
process Q = STOP [] (a -> Q [] ({x := (x + 1) % 4} -> Q [] STOP))
assert P :[deadlock free]
assert Q :[deadlock free]
"""
    )
    report = run_spec(text)
    p, q = report.verdicts
    assert (p.verdict, p.states) == ("holds", len({0, 1}))
    assert (q.verdict, q.states) == ("holds", len(range(4)))


def test_a_repeated_unstable_operand_is_kept() -> None:
    # R starts with a tau, so R [] R is not R: each copy can resolve its own internal
    # choice, and both cells can be set (tau, tau, {x := 1}, {y := 1}); R alone sets one.
    r = "process R = ({x := 1} -> STOP) |~| ({y := 1} -> STOP)\n"
    both = "assert P reaches x == 1 and y == 1"
    assert one(r + "process P = R [] R", both)[:2] == ("holds", 4)
    assert one(r + "process P = R", both)[0] == "fails"


def test_a_visible_event_resolves_an_external_choice() -> None:
    body = "process P = (a {x := 1} -> STOP) [] (b {y := 1} -> STOP)"
    assert one(body, "assert P reaches x == 1 and y == 1")[0] == "fails"


def test_internal_choice_is_a_tau_to_either_side() -> None:
    body = "process P = (a -> STOP) |~| (b -> STOP)\nprocess S = a -> STOP"
    verdict, n, trace = one(body, "assert S [T= P")
    assert (verdict, n, trace) == ("fails", 2, ("tau", "b"))


def test_hidden_events_are_taus_that_count() -> None:
    verdict, n, trace = one("process P = (a -> b -> STOP) \\ {| a |}", "assert P :[deadlock free]")
    assert (verdict, n, trace) == ("fails", 2, ("tau (a)", "b"))


def test_interrupt_discards_the_left_side() -> None:
    body = "process P = (a -> b {x := 1} -> STOP) /\\ (c2 -> STOP)"
    assert one(body, "assert P reaches x == 1")[:2] == ("holds", 2)
    verdict, n, trace = one(body, "assert P :[deadlock free]")
    assert (verdict, n, trace) == ("fails", 1, ("c2",))


def test_synchronised_assignments_happen_together() -> None:
    body = "process P = (a {x := 1} -> STOP) [| {| a |} |] (a {y := 2} -> STOP)"
    assert one(body, "assert P reaches x == 1 and y == 2")[:2] == ("holds", 1)


def test_synchronisation_matches_values() -> None:
    body = "process P = (c!2 -> STOP) [| {| c |} |] (c?v {x := v} -> STOP)"
    assert one(body, "assert P reaches x == 2")[:3] == ("holds", 1, ("c.2",))


def test_synchronisation_needs_both_sides() -> None:
    body = "process P = (c.1 -> STOP) [| {| c |} |] (c.2 -> STOP)"
    assert one(body, "assert P :[deadlock free]")[:2] == ("fails", 0)


def test_call_arguments_are_evaluated_when_the_call_is_made() -> None:
    body = (
        "process Q(v: 0..3) = b {y := v} -> STOP\n"
        "process P = (a {x := 2} -> Q(x)) ||| (c2 {x := 3} -> STOP)"
    )
    # Q(x) sees x = 2 although c2 may change x before Q's first event
    assert one(body, "assert P reaches y == 3")[0] == "fails"
    assert one(body, "assert P reaches y == 2 and x == 3")[:2] == ("holds", 3)


def test_input_restricted_to_a_set() -> None:
    body = "process P = c?v:{1, 3} {x := v} -> STOP"
    assert one(body, "assert P reaches x == 3")[:2] == ("holds", 1)
    assert one(body, "assert P reaches x == 2")[0] == "fails"


@pytest.mark.parametrize(
    "body,assertion,length,code",
    [
        ("process P = a {x := x + 1} -> P", "assert P |= always true", 4, "M001"),
        ("process P = (2 / x > 0) & a -> STOP", "assert P |= always true", 0, "M002"),
        ("process P = c!(x + 4) -> STOP", "assert P :[deadlock free]", 1, "M001"),
        (
            "domain arr[i: 0..1]: Bool = false volatile\n"
            "process P = a {x := x + 1} -> b {arr[x] := true} -> P",
            "assert P |= always true",
            4,
            "M007",
        ),
        (
            "process P = (a {x := 1} -> STOP) [| {| a |} |] (a {x := 2} -> STOP)",
            "assert P |= always true",
            1,
            "M008",
        ),
    ],
)
def test_model_errors_fail_with_the_trace_to_them(
    body: str, assertion: str, length: int, code: str
) -> None:
    report = run_spec(HEAD + body + "\n" + assertion + "\n")
    (v,) = report.verdicts
    assert v.verdict == "fails"
    assert len(v.trace) == length
    assert v.error is not None and code in (v.reason or "")


def test_the_shorter_of_violation_and_error_is_reported() -> None:
    body = "process P = a {x := x + 1} -> P"
    assert one(body, "assert P |= always x < 2")[:2] == ("fails", 2)  # violation before the error


def test_refinement_counterexample_ends_with_the_refused_event() -> None:
    body = "process S = a -> S\nprocess P = a -> a -> b -> STOP"
    assert one(body, "assert S [T= P")[1:] == (3, ("a", "a", "b"))


def test_refinement_includes_termination() -> None:
    body = "process S = a -> STOP\nprocess P = a -> SKIP"
    assert one(body, "assert S [T= P")[1:] == (2, ("a", "tick"))


def test_reaches_fails_with_an_empty_trace() -> None:
    assert one("process P = a -> P", "assert P reaches x == 3")[:2] == ("fails", 0)


def test_assertions_without_a_process_use_the_system() -> None:
    assert verdicts(
        HEAD + "process P = a -> STOP\nsystem P\nassert :[deadlock free]\nassert always x == 0\n"
    ) == [("fails", 1), ("holds", 0)]
