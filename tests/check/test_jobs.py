"""`--jobs N`: large levels are expanded by forked worker processes while the parent inserts
(fito/check/frontier/workers.py), and the answers are those of one process: verdicts, state and
transition counts, traces, model errors (issue 12, point 4). The tests lower the level size
at which workers start to two rows, so that every level of a small spec goes through the
workers, the pipes and the parent's insertion.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fito.check.frontier import workers
from fito.check.options import CheckOptions
from fito.pipeline import check_source
from fito.source import Source
from tests.helpers.random_specs import Gen
from tests.oracles.family import closed_form, spec

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not workers.available(), reason="no os.fork here")


def answers(text: str, jobs: int, limit: int = 5_000, seconds: float = 5) -> list[tuple | None]:
    options = CheckOptions(max_states=limit, timeout=seconds, engine="frontier", jobs=jobs)
    report = check_source(Source("t.fito", text), options)
    return [
        None
        if v.limit_hit
        else (v.text, v.verdict, v.states, v.transitions, v.trace, v.reason, v.error, v.depth)
        for v in report.verdicts
    ]


def assert_same(text: str, label: str, jobs: int = 4, limit: int = 5_000) -> int:
    one, many = answers(text, 1, limit), answers(text, jobs, limit)
    assert len(one) == len(many), label
    pairs = [(a, b) for a, b in zip(one, many) if a is not None and b is not None]
    for a, b in pairs:
        assert a == b, f"{label}\n{text}"
    return len(pairs)


@pytest.fixture
def small_levels(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Workers for every level of two rows or more, chunks of 8 rows; counts of the chunks
    the parent received from workers and of the chunks it redid for them."""
    got = {"received": 0, "redone": 0}
    receive, redo = workers._receive, workers.expand_range

    def received(fd: int) -> object:
        out = receive(fd)
        got["received"] += out is not None
        return out

    def redone(*args: object) -> None:
        got["redone"] += 1
        redo(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(workers, "PARALLEL_MIN", 2)
    monkeypatch.setattr(workers, "PARALLEL_CHUNK", 8)  # parent and workers both take chunks
    monkeypatch.setattr(workers, "_receive", received)
    monkeypatch.setattr(workers, "expand_range", redone)
    return got


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**32 - 1))
def test_several_jobs_agree_with_one_on_random_specs(seed: int, small_levels: dict) -> None:
    assert_same(Gen(seed).spec(), f"seed {seed}")


@pytest.mark.parametrize(
    "name",
    sorted(
        p.name
        for p in (ROOT / "specs").glob("*.fito")
        if "assert " in p.read_text(encoding="utf-8")
    ),
)
def test_several_jobs_agree_with_one_on_shipped_specs(name: str, small_levels: dict) -> None:
    assert_same((ROOT / "specs" / name).read_text(encoding="utf-8"), name, jobs=2)


@pytest.fixture
def workers_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent takes no chunk itself (it only inserts what workers send), so that what
    workers do is certain to matter."""
    parent, take = os.getpid(), workers.Chunks.take
    monkeypatch.setattr(
        workers.Chunks, "take", lambda self: None if os.getpid() == parent else take(self)
    )


def test_workers_answer_on_the_oracle_family(small_levels: dict, workers_only: None) -> None:
    """2pc K=4, E=3 (the closed form's count) and naive (a 3-step counterexample): the
    workers' rows are used, not redone."""

    text = spec(4, 3, "2pc").replace("assert always true\n", "")
    (v,) = check_source(Source("f.fito", text), CheckOptions(engine="frontier", jobs=2)).verdicts
    assert (v.verdict, v.states) == ("holds", closed_form(4, 3, "2pc"))
    assert small_levels["received"] > 0 and small_levels["redone"] == 0
    text = spec(3, 2, "naive").replace("assert always true\n", "")
    (v,) = check_source(Source("f.fito", text), CheckOptions(engine="frontier", jobs=4)).verdicts
    assert (v.verdict, len(v.trace)) == ("fails", 3)


def test_a_worker_that_learns_a_new_location_is_redone(
    small_levels: dict, workers_only: None
) -> None:
    """A component whose terms keep changing: workers meet locations the parent has not
    coded, so their rows cannot be used; the parent expands those ranges itself."""
    text = Gen(2930531).spec()  # the spec of test_engines_agree's terms-keep-changing case
    assert_same(text, "growing", limit=1_000)
    assert small_levels["redone"] > 0


def test_a_worker_that_dies_is_redone(
    small_levels: dict, workers_only: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def die(ex: object, chunks: workers.Chunks, *args: object) -> None:
        while chunks.take() is not None:  # takes every chunk, sends none
            pass
        os._exit(1)

    monkeypatch.setattr(workers, "_work", die)

    text = spec(3, 2, "2pc").replace("assert always true\n", "")
    (v,) = check_source(Source("f.fito", text), CheckOptions(engine="frontier", jobs=2)).verdicts
    assert (v.verdict, v.states) == ("holds", closed_form(3, 2, "2pc"))
    assert small_levels["received"] == 0 and small_levels["redone"] > 0


def test_limits_hold_with_several_jobs(small_levels: dict) -> None:

    text = spec(4, 3, "2pc").replace("assert always true\n", "")
    options = CheckOptions(engine="frontier", jobs=2, max_states=500)
    (v,) = check_source(Source("f.fito", text), options).verdicts
    assert v.verdict == "unknown" and v.limit_hit and "500" in v.reason


@pytest.mark.slow
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**32 - 1))
def test_several_jobs_agree_with_one_on_random_specs_with_the_new_forms(
    seed: int, small_levels: dict
) -> None:
    """Buffers, process variables, assert, atomic and the other forms of issue 13: their
    model errors cross the pipe as the parent would have noted them."""
    assert_same(Gen(seed, forms=True).spec(), f"seed {seed}", limit=2_000)


def test_a_region_that_fills_up_gives_the_level_to_the_parent(
    small_levels: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every region counts as full: each level is given up and expanded again by the parent
    alone, and the answers stay those of one process."""
    from fito.check.frontier import visited

    monkeypatch.setattr(visited, "REGION_LOAD", 0.0)

    assert_same(spec(4, 3, "2pc").replace("assert always true\n", ""), "2pc", jobs=2)
    assert small_levels["redone"] > 0


def test_no_fork_to_be_had_leaves_the_level_to_the_parent(
    small_levels: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fork() failing (too many processes, no memory) is no error: one process goes on."""

    def refuse() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(workers.os, "fork", refuse)

    assert_same(spec(3, 2, "2pc").replace("assert always true\n", ""), "2pc", jobs=2)
    assert small_levels["received"] == 0 and small_levels["redone"] > 0
