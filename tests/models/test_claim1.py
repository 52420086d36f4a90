"""Claim 1 by model checking: the generated spec, and the verdicts of `fito check` on it."""

from __future__ import annotations

import itertools
import re

import pytest

from fito.models.epochs import boundaries as claim1


def expected(k: int, e: int) -> set[tuple[int, ...]]:
    """{e-1, e}^k, the paper's answer, built here independently."""
    return set(itertools.product((e - 1, e), repeat=k))


@pytest.mark.parametrize("k,n,e", [(1, 2, 1), (3, 2, 1), (2, 3, 2), (4, 5, 5)])
def test_generated_text(k: int, n: int, e: int) -> None:
    s = claim1.spec(k, n, e)
    lines = s.text.splitlines()
    width = len([x for x in range(e - 2, e + 2) if 0 <= x <= n])
    reaches = [line for line in lines if line.startswith("assert Node reaches")]
    assert len(reaches) == len(s.candidates) == width**k
    assert f"type Dom = {{{', '.join(f'd{i}' for i in range(1, k + 1))}}}" in lines
    assert f"const N = {n}" in lines and any(line.startswith(f"const E = {e} ") for line in lines)
    assert lines[s.paper_line - 1].endswith("(saved[d] == E - 1 or saved[d] == E)))")
    assert lines[s.window_line - 1].startswith(
        "assert Node |= always ((crashed and writing == E) =>"
    )
    for line_no, vector in s.candidates:
        cells = re.findall(r"saved\[d(\d+)\] == (\d+)", lines[line_no - 1])
        assert tuple(int(v) for _, v in cells) == vector
        assert [int(d) for d, _ in cells] == list(range(1, k + 1))
    assert s.text.endswith("\n") and "\t" not in s.text


@pytest.mark.parametrize("args", [(0, 2, 1), (9, 2, 1), (2, 0, 1), (2, 2, 0), (2, 2, 3)])
def test_bad_sizes(args) -> None:
    with pytest.raises(ValueError):
        claim1.spec(*args)


def _report(s: claim1.Spec, verdicts: dict[int, str]) -> dict:
    return {
        "files": [
            {
                "path": "x.fito",
                "diagnostics": [],
                "assertions": [
                    {
                        "text": "",
                        "line": line,
                        "verdict": v,
                        "states": 3,
                        "transitions": 2,
                        "seconds": 0.5,
                        "trace": [],
                    }
                    for line, v in verdicts.items()
                ],
            }
        ]
    }


def test_derive_from_synthetic_verdicts() -> None:
    s = claim1.spec(2, 2, 1)
    reach = {line: ("holds" if set(v) <= {0, 1} else "fails") for line, v in s.candidates}
    d = claim1.derive(s, _report(s, {s.window_line: "holds", s.paper_line: "holds", **reach}))
    assert d.decided and set(d.reachable) == expected(2, 1) and d.mixed == 2
    partial = claim1.derive(s, _report(s, {s.window_line: "holds", s.paper_line: "holds"}))
    assert not partial.decided and partial.unknown
    incomplete = claim1.derive(
        s, _report(s, {s.window_line: "fails", s.paper_line: "fails", **reach})
    )
    assert not incomplete.decided


def _check_available() -> bool:
    try:
        import fito.cli.commands.check  # noqa: F401
    except ImportError:
        return False
    return True


needs_checker = pytest.mark.skipif(not _check_available(), reason="fito check is not built")


@needs_checker
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_model_checking_finds_the_crash_window(k: int) -> None:
    d = claim1.model_check(k)
    assert d.decided, d.unknown
    assert set(d.reachable) == expected(k, 1)
    assert d.mixed == 2**k - 2
    assert d.paper_invariant == "holds"


@needs_checker
def test_model_checking_a_later_epoch() -> None:
    d = claim1.model_check(2, epochs=3, epoch=2)  # W = {0..3}: candidates on both sides
    assert d.decided and set(d.reachable) == expected(2, 2) and d.mixed == 2


@needs_checker
@pytest.mark.slow
@pytest.mark.parametrize("k", [5, 6])
def test_model_checking_larger_k(k: int) -> None:
    d = claim1.model_check(k)
    assert d.decided and set(d.reachable) == expected(k, 1) and d.mixed == 2**k - 2
