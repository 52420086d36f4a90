"""Limits that mean what they say (issue 32, point 4): --max-states is exact in every
engine, --timeout bounds the one search a group of assertions shares, the memory message
adds up, Ctrl-C prints the figures so far on a line of its own, and memory, not a state
count, bounds a search by default (docs/limits.md)."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fito import budget
from fito.budget import Budget, BudgetExceeded
from fito.check.options import CheckOptions
from fito.pipeline import check_source
from fito.source import Source
from tests.oracles.family import closed_form, spec

ROOT = Path(__file__).resolve().parents[2]


def verdicts(text: str, **options: object) -> list:
    return list(check_source(Source("t.fito", text), CheckOptions(**options)).verdicts)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ["scalar", "frontier"])
@pytest.mark.parametrize("bound", [1, 100, 1_000])
def test_max_states_is_exact(engine: str, bound: int) -> None:
    text = spec(5, 3, "2pc")
    assert closed_form(5, 3, "2pc") > bound  # the whole space is larger than the bound
    for v in verdicts(text, max_states=bound, engine=engine):
        assert (v.verdict, v.states) == ("unknown", bound)
        assert v.reason == f"more than {bound:,} states"


def test_a_bound_equal_to_the_whole_space_is_no_limit() -> None:
    text = spec(2, 2, "2pc")
    whole = closed_form(2, 2, "2pc")
    for engine in ("scalar", "frontier"):
        got = verdicts(text, max_states=whole, engine=engine)
        assert all(v.verdict != "unknown" and v.states == whole for v in got), engine


def test_a_group_of_assertions_shares_one_deadline() -> None:
    text = spec(8, 5, "2pc")  # millions of states: far more than a second's work
    got = verdicts(text, timeout=0.5)
    assert len(got) == 2 and {v.reason.split(";")[0] for v in got} == {"timeout after 0.5 s"}


def test_no_state_count_bounds_a_search_by_default() -> None:
    assert CheckOptions().limits().max_states is None


def test_the_memory_message_adds_up() -> None:
    b = Budget(max_bytes=budget.rss_bytes() + (64 << 20))
    with pytest.raises(BudgetExceeded) as got:
        b.reserve(1 << 30, "the visited states' keys")
    message = got.value.message
    assert message.startswith(f"memory limit of {budget.show_bytes(b.max_bytes)} reached: ")
    assert message.endswith("in use, and the visited states' keys would take about 1 GiB more")


def _philosophers(n: int) -> str:
    gen = importlib.util.spec_from_file_location("gen", ROOT / "bench/models/philosophers/gen.py")
    assert gen is not None and gen.loader is not None
    module = importlib.util.module_from_spec(gen)
    gen.loader.exec_module(module)
    return module.fito("", n)


def test_ctrl_c_prints_the_figures_so_far_on_a_line_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "philosophers.fito"
    path.write_text(_philosophers(9), encoding="utf-8")  # 45,782,528 states: minutes
    child = subprocess.Popen(
        [sys.executable, "-m", "fito", "check", "--no-progress", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(3)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("fito: interrupted after ") and " states, depth " in line
    assert "Traceback" not in err
