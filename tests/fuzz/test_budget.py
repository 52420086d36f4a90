"""fito.budget: the deadline, the memory limit, the backstop, and --max-memory on the CLI."""

from __future__ import annotations

import os
import resource
import time

import pytest

from fito import budget
from fito.budget import Budget, BudgetExceeded, parse_size


def test_a_passed_deadline_is_reported_at_the_first_check() -> None:
    b = Budget.of(timeout=0.001)
    time.sleep(0.01)
    with pytest.raises(BudgetExceeded) as exc:
        b.check()
    assert exc.value.reason == "timeout" and exc.value.message == "timeout after 0.001 s"


def test_memory_above_the_limit_is_reported() -> None:
    b = Budget(max_bytes=1 << 20)  # this process holds far more than 1 MiB
    with pytest.raises(BudgetExceeded) as exc:
        b.check()
    assert exc.value.reason == "memory" and "1 MiB" in exc.value.message


def test_check_polls_only_now_and_then() -> None:
    class Counting(Budget):
        polls = 0

        def poll(self) -> None:
            Counting.polls += 1
            super().poll()

    b = Counting.of(timeout=3600, max_bytes=1 << 50)
    for _ in range(100_000):
        b.check()
    assert 1 <= Counting.polls < 100_000 // 8


def test_reserve_refuses_what_does_not_fit() -> None:
    b = Budget(max_bytes=budget.rss_bytes() + (64 << 20))
    b.reserve(1 << 20, "a table")
    with pytest.raises(
        BudgetExceeded, match="reached: .* in use, and a table would take about 1 GiB more"
    ):
        b.reserve(1 << 30, "a table")


def test_within_keeps_the_nearer_deadline_and_the_memory() -> None:
    outer = Budget.of(timeout=10, max_bytes=123)
    assert outer.within(None).deadline == outer.deadline
    assert outer.within(3600).deadline == outer.deadline
    inner = outer.within(1)
    assert inner.deadline is not None and outer.deadline is not None
    assert inner.deadline < outer.deadline and inner.max_bytes == 123 and inner.timeout == 1


def test_active_sets_and_restores_the_backstop() -> None:
    before = resource.getrlimit(resource.RLIMIT_DATA)
    if before[1] != resource.RLIM_INFINITY:
        pytest.skip("a hard RLIMIT_DATA is set: the backstop is capped by it")
    with budget.active(Budget(max_bytes=5 << 30)) as b:
        assert budget.current() is b
        assert resource.getrlimit(resource.RLIMIT_DATA)[0] == (5 << 30) + budget.HEADROOM
    assert budget.current() is budget.UNLIMITED
    assert resource.getrlimit(resource.RLIMIT_DATA) == before


def test_the_default_protects_a_shared_machine() -> None:
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert budget.default_max_bytes() == min(physical * 3 // 4, 8 << 30)


@pytest.mark.parametrize(
    "text, size",
    [
        ("512M", 512 << 20),
        ("4G", 4 << 30),
        ("1.5GiB", 3 << 29),
        ("1000", 1000),
        ("2k", 2048),
        ("1T", 1 << 40),
    ],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "0", "-1", "nan", "inf", "1e400", "G", "12X", "junk"])
def test_bad_sizes(text: str) -> None:
    with pytest.raises(ValueError):
        parse_size(text)


@pytest.mark.parametrize(
    "argv",
    [
        ["lattice", "-k", "2", "-n", "1", "--max-memory", "0"],
        ["check", "--max-memory", "lots", "x.fito"],
        ["fmt", "--timeout", "-1", "x.fito"],
    ],
)
def test_bad_budget_flags_are_usage_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from fito.cli.main import main

    assert main(argv) == 2
    assert "[C001 bad-usage]" in capsys.readouterr().err


# a state space far larger than any memory limit below: 10^10 states, about 3 new per state
BIG = (
    "channel a, b\ndomain x: 0..99999 = 0 volatile\ndomain y: 0..99999 = 0 volatile\n"
    "process P = x < 99999 & a { x := x + 1 } -> P [] y < 99999 & b { y := y + 1 } -> P\n"
    "system P\nassert :[deadlock free]\nassert P |= eventually x == 99999\n"
)


@pytest.mark.parametrize("engine", ["scalar", "auto"])
def test_a_search_stops_at_the_memory_limit_with_its_figures(engine: str) -> None:
    """--max-memory bounds the searches themselves (state by state, and the frontier engine
    after the hand-over): unknown, with the states reached, not a machine out of memory."""
    from fito.check.options import CheckOptions
    from fito.check.verdicts import check_assertions
    from fito.pipeline import front_end

    model = front_end(BIG).model
    options = CheckOptions(timeout=60.0, engine=engine)
    with budget.active(Budget(max_bytes=budget.rss_bytes() + (8 << 20))):
        verdicts = list(check_assertions(model, options))
    for v in verdicts:  # deadlock freedom, then liveness (state by state in any engine)
        assert v.verdict == "unknown" and v.limit_hit, v
        assert "memory limit" in (v.reason or "") and v.states > 1000, v
