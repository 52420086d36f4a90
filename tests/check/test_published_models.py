"""The published models of bench/models against SPIN (issue 12, point 3).

Each model's small instance, every variant: fito (in-process) meets the model's own
`-- expect:` comments; SPIN (`spin -o3 -a`, gcc, a breadth-first `pan -c0`) runs the
Promela twin written beside it. Where the two correspond one to one, fito's state count is
SPIN's "states, stored" (plus the model's documented offset); the verdicts agree (no error
in SPIN exactly when every fito assertion holds; the failing kind is SPIN's first error);
a counterexample is as long as SPIN's breadth-first trail; and published figures, where a
model records exact ones, are met.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import pytest

from bench.models import harness
from fito.check.options import CheckOptions
from fito.check.result import FAILS, HOLDS
from fito.expect import compare
from fito.outcome import FileReport
from fito.pipeline import check_file

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.spin,
    pytest.mark.skipif(not harness.spin_available(), reason="needs spin and gcc"),
]

CASES = [(name, variant) for name in harness.names() for variant in harness.load(name).VARIANTS]


def _kind(text: str) -> str:
    return "deadlock" if "deadlock free" in text else "assertion"


@pytest.fixture(scope="module")
def spin_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], Future]]:
    """SPIN on every case, started at once on two workers (gcc dominates), while the tests
    run fito in-process."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = {}
        for name, variant in CASES:
            model = harness.load(name)
            out = tmp_path_factory.mktemp(f"{name}-{variant or 'ok'}-spin")
            _, pml = harness.write(model, dict(model.SMALL), variant, out)
            runs[name, variant] = pool.submit(harness.run_spin, pml, True, "-O0", 20)
        yield runs


def _fito(model: ModuleType, variant: str, out: Path) -> FileReport:
    fito_path, _ = harness.write(model, dict(model.SMALL), variant, out)
    report = check_file(str(fito_path), CheckOptions())
    problems = compare(report)
    assert not problems, "\n".join(f"{fito_path}:{p.line}: {p.message}" for p in problems)
    return report


def test_every_model_is_collected() -> None:
    assert len(harness.names()) >= 10
    assert sum(len(harness.load(n).VARIANTS) > 1 for n in harness.names()) >= 3


@pytest.mark.parametrize(("name", "variant"), CASES, ids=[f"{n}-{v or 'ok'}" for n, v in CASES])
def test_model_agrees_with_spin(
    name: str, variant: str, tmp_path: Path, spin_runs: dict[tuple[str, str], Future]
) -> None:
    model = harness.load(name)
    report = _fito(model, variant, tmp_path)
    spin = spin_runs[name, variant].result()
    failed = [v for v in report.verdicts if v.verdict == FAILS]
    assert all(v.verdict in (HOLDS, FAILS) for v in report.verdicts)
    assert {_kind(v.text) for v in failed} == ({spin.error} if spin.error else set())
    for v in failed:
        assert len(v.trace) == spin.trail, (v.text, v.trace, spin.trail)
    held = [v.states for v in report.verdicts if v.verdict == HOLDS]
    if model.EXTRA_FITO_STATES is not None and held:
        assert max(held) == spin.states + model.EXTRA_FITO_STATES


@pytest.mark.parametrize("name", [n for n in harness.names() if harness.load(n).PUBLISHED])
def test_published_figures(name: str, tmp_path: Path) -> None:
    model = harness.load(name)
    published = model.PUBLISHED
    fito_path, _ = harness.write(model, published["params"], "", tmp_path)
    report = check_file(str(fito_path), CheckOptions())
    first = report.verdicts[0]
    if "states" in published:
        assert first.verdict == HOLDS and first.states == published["states"]
    if "generated" in published:  # TLC's states generated: the initial one and every step
        assert first.transitions + 1 == published["generated"]
    if "trace" in published:
        assert first.verdict == FAILS and len(first.trace) == published["trace"]
