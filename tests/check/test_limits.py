"""--max-states and --timeout give `unknown` and exit status 3, with the figures so far."""
from __future__ import annotations

import json

from conftest import cli

BIG = """channel a
type N = 0..200000
domain x: N = 0 volatile
domain y: N = 0 volatile
process P = x < 200000 & a {x := x + 1} -> P [] y < 200000 & a {y := y + 1} -> P
system P
assert always x >= 0
"""


def test_max_states_gives_unknown(spec_file) -> None:  # type: ignore[no-untyped-def]
    proc = cli("check", "--format", "json", "--max-states", "500", spec_file(BIG))
    assert proc.returncode == 3
    (a,) = json.loads(proc.stdout)["files"][0]["assertions"]
    assert a["verdict"] == "unknown"
    assert 500 <= a["states"] <= 500 + 10
    assert "500" in a["reason"]


def test_timeout_gives_unknown(spec_file) -> None:  # type: ignore[no-untyped-def]
    proc = cli("check", "--format", "json", "--timeout", "0.5", spec_file(BIG))
    assert proc.returncode == 3
    (a,) = json.loads(proc.stdout)["files"][0]["assertions"]
    assert a["verdict"] == "unknown" and "timeout" in a["reason"]
    assert a["states"] > 0


def test_text_output_says_why(spec_file) -> None:  # type: ignore[no-untyped-def]
    proc = cli("check", "--max-states", "100", spec_file(BIG))
    assert proc.returncode == 3
    assert "unknown (more than 100 states" in proc.stdout
