"""`|= eventually` under weak fairness of every process (docs/semantics.md)."""

from __future__ import annotations

from tests.helpers.check import run_spec

HEAD = """channel a, b, done
domain fin: Bool = false volatile
domain n: 0..3 = 0 volatile
process P = a -> P
process Q = done {fin := true} -> STOP
process R = b -> R [] done {fin := true} -> STOP
"""


def check(assertion: str) -> tuple[str, int, str]:
    (v,) = run_spec(HEAD + assertion + "\n").verdicts
    return v.verdict, len(v.trace), v.reason or ""


def test_a_process_enabled_forever_must_move() -> None:
    assert check("assert P ||| Q |= eventually fin")[0] == "holds"


def test_fairness_is_per_process_not_per_event() -> None:
    verdict, length, reason = check("assert R |= eventually fin")
    assert (verdict, length) == ("fails", 1) and "fair loop" in reason


def test_a_deadlock_before_the_goal_is_a_counterexample() -> None:
    verdict, length, reason = check("assert (a -> STOP) |= eventually fin")
    assert (verdict, length) == ("fails", 1) and "deadlocks" in reason


def test_termination_before_the_goal_is_a_counterexample() -> None:
    assert check("assert (a -> SKIP) |= eventually fin")[:2] == ("fails", 2)


def test_goal_in_the_initial_state_holds() -> None:
    assert check("assert P |= eventually n == 0")[0] == "holds"


def test_counter_reaches_its_bound_only_when_the_other_process_is_fair() -> None:
    text = HEAD + (
        "process Count = n < 3 & b {n := n + 1} -> Count\n"
        "assert Count ||| P |= eventually n == 3\n"
        "assert Count [] P |= eventually n == 3\n"
    )
    first, second = run_spec(text).verdicts
    assert first.verdict == "holds"
    assert second.verdict == "fails"  # choosing P resolves the choice: a-loop forever


def test_the_checkpoint_protocol_eventually_commits_without_crashes() -> None:
    from pathlib import Path

    spec = (Path(__file__).resolve().parents[2] / "specs" / "checkpoint_commit.fito").read_text()
    text = (
        spec + "\nprocess Calm = Trainer ||| Committer ||| (||| d: Dom @ Flusher(d))\n"
        "assert Calm |= eventually committed == E\n"
    )
    verdicts = run_spec(text).verdicts
    assert verdicts[-1].verdict == "holds"
