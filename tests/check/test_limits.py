"""--max-states and --timeout give `unknown` and exit status 3, with the figures so far."""

from __future__ import annotations

import json

from tests.helpers.check import cli

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
    # exact in every engine: the search keeps 500 states and stops on the 501st
    assert a["states"] == 500 and a["reason"] == "more than 500 states"


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


GROWING = """channel a, b
process P = a -> (P ||| b -> P)
system P
assert P :[deadlock free]
assert P [T= P
assert P |= eventually false
"""


def test_timeout_holds_for_every_engine_when_every_state_is_a_new_term(spec_file) -> None:  # type: ignore[no-untyped-def]
    # Every state of P is a new, larger process term, so time goes into compiling the
    # successors of new terms; the deadline is checked there too (search, refinement and
    # the fair-loop search alike), and each assertion ends unknown with its figures.
    proc = cli("check", "--format", "json", "--timeout", "0.5", spec_file(GROWING))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    got = json.loads(proc.stdout)["files"][0]["assertions"]
    assert [a["verdict"] for a in got] == ["unknown"] * 3
    assert all("timeout" in a["reason"] for a in got)
    assert all(a["states"] > 0 for a in got)
