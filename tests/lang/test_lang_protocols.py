"""Published protocols written with the new forms (issue 13): each names its source; the
assertions expected to fail fail, a violated `assert(b)` being reported with the line of
that assert (every expectation of specs/ is met: tests/check/test_specs_expect.py); and
SPIN, run on the Promela twin beside it, gives the same verdicts, trace lengths and state
counts."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from bench.models import harness
from fito.check.options import CheckOptions
from fito.expect import compare, expectations
from fito.outcome import FileReport
from fito.pipeline import check_source
from fito.source import Source
from tests.lang.lang_helpers import PROTOCOLS, checked_report


@functools.cache
def _report(path: Path) -> FileReport:
    """`fito check`'s report of a protocol (once per run)."""
    return checked_report(path, model_check=True)


def test_there_are_protocols_with_their_sources() -> None:
    assert len(PROTOCOLS) >= 3
    for path in PROTOCOLS:
        head = path.read_text(encoding="utf-8").split("\ntype", 1)[0]
        assert "Source:" in head, path.name


@pytest.mark.parametrize("path", PROTOCOLS, ids=lambda p: p.name)
def test_a_failing_protocol_fails_as_expected_naming_its_assert(path: Path) -> None:
    """The assertions expected to fail (tests/check/test_specs_expect.py checks every
    expectation of specs/; the holding ones are left out here, the larger searches), and a
    violated `assert(b)` is reported with its line."""
    text = path.read_text(encoding="utf-8")
    expected = expectations(text)
    assert any(e.startswith("holds") for e in expected.values())
    lines = text.splitlines()
    failing = (
        "\n".join(
            "" if expected.get(n, "").startswith("holds") else line
            for n, line in enumerate(lines, 1)
        )
        + "\n"
    )
    report = check_source(Source(str(path), failing), CheckOptions())
    assert report.verdicts and compare(report) == []
    for v in report.verdicts:
        if v.reason and "assertion violated" in v.reason:
            line = int(re.search(r"at line (\d+)", v.reason)[1])  # type: ignore[index]
            assert "assert(" in lines[line - 1]


# ---------------------------------------------------------------------- against SPIN

TWIN = re.compile(r"SPIN twin of: (.+)")
OFFSET = re.compile(r"fito states = SPIN states \+ (\d+)")


def _twins(path: Path) -> list[tuple[str, str]]:
    """(the -D flag or "", the fito process) for each build of the Promela model beside a
    protocol, from its `SPIN twin of:` line."""
    m = TWIN.search(path.with_suffix(".pml").read_text(encoding="utf-8"))
    assert m is not None, path.name
    pairs = []
    for item in m[1].split(","):
        flag, _, proc = item.strip().rpartition(" ")
        pairs.append((flag.removeprefix("-D").rstrip(":"), proc))
    return pairs


CASES = [(p, flag, proc) for p in PROTOCOLS for flag, proc in _twins(p)]


@pytest.fixture(scope="module")
def spin_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple, Future]]:
    """SPIN on every build of every twin, started at once on two workers (gcc dominates)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = {}
        for path, flag, _ in CASES:
            out = tmp_path_factory.mktemp(f"{path.stem}-{flag or 'ok'}")
            pml = path.with_suffix(".pml").read_text(encoding="utf-8")
            (out / "model.pml").write_text((f"#define {flag}\n" if flag else "") + pml)
            runs[path, flag] = pool.submit(harness.run_spin, out / "model.pml", True, "-O0", 20)
        yield runs


@pytest.mark.parametrize(
    ("path", "flag", "proc"), CASES, ids=[f"{p.stem}-{f or 'ok'}" for p, f, _ in CASES]
)
@pytest.mark.slow  # gcc builds eight verifiers: ~15 s
@pytest.mark.spin
@pytest.mark.skipif(not harness.spin_available(), reason="needs spin and gcc")
def test_protocol_agrees_with_spin(
    path: Path, flag: str, proc: str, spin_runs: dict[tuple, Future]
) -> None:
    """SPIN on the Promela twin (breadth-first, every state) and fito on the process it is
    a twin of: the same verdict; a failure of the same kind (an assertion violated, an
    invalid end state for a deadlock) with a shortest trace of the same length; when the
    process is deadlock free, SPIN's states stored are fito's states (less the offset the
    twin documents)."""
    (v,) = [v for v in _report(path).verdicts if v.text == f"{proc} :[deadlock free]"]
    spin = spin_runs[path, flag].result()
    if v.verdict == "holds":
        assert spin.error == ""
        offset = OFFSET.search(path.with_suffix(".pml").read_text(encoding="utf-8"))
        assert v.states == spin.states + (int(offset[1]) if offset else 0)
    else:
        assert v.verdict == "fails" and v.reason is not None
        assert spin.error == ("assertion" if "assertion violated" in v.reason else "deadlock")
        assert len(v.trace) == spin.trail
