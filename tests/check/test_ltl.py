"""`assert P |= ltl <formula> [fair ...]` (docs/ltl.md): verdicts derived by hand on small
models; every counterexample is replayed and confirmed independently of the automaton
(tests/check/ltl_helpers.py); `eventually` and `ltl <> e fair weak` agree."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.check.ltl_helpers import answers, checked
from tests.helpers.check import cli, run_spec
from tests.helpers.random_specs import Gen

HEAD = """channel a, b, done
domain x: 0..3 = 0 volatile
domain fin: Bool = false volatile
domain fl: Bool = false volatile
process Inc = x < 3 & a {x := x + 1} -> Inc
process Loop = b -> Loop
process Choice = b -> Choice [] done {fin := true} -> STOP
process Flip = b {fl := not fl} -> Flip [] fl & done {fin := true} -> STOP
process Over = a {x := x + 1} -> Over
"""


def verdict(assertion: str, **options: object) -> str:
    (v,) = checked(HEAD + assertion + "\n", **options)
    return v.verdict


def test_eventually_and_always_on_a_counter_that_stops() -> None:
    assert verdict("assert Inc |= ltl <> x == 3") == "holds"  # it stutters at x = 3
    (v,) = checked(HEAD + "assert Inc |= ltl [] x < 3\n")
    assert v.verdict == "fails" and v.run is not None and v.run.final.kind == "end"
    assert len(v.trace) == 3 and "stutters" in (v.reason or "")


def test_without_fairness_a_process_may_be_starved() -> None:
    assert verdict("assert Inc ||| Loop |= ltl <> x == 3") == "fails"
    assert verdict("assert Inc ||| Loop |= ltl <> x == 3 fair weak") == "holds"
    assert verdict("assert Inc ||| Loop |= ltl <> x == 3 fair weak(Inc)") == "holds"
    assert verdict("assert Inc ||| Loop |= ltl <> x == 3 fair weak(Loop)") == "fails"


def test_weak_and_strong_fairness_differ_on_an_event_enabled_now_and_then() -> None:
    assert verdict("assert Flip |= ltl <> fin fair weak({| done |})") == "fails"
    assert verdict("assert Flip |= ltl <> fin fair strong({| done |})") == "holds"
    assert verdict("assert Flip |= ltl <> fin fair weak") == "fails"  # one process: it moves
    assert verdict("assert Flip |= ltl <> fin fair strong") == "fails"
    assert verdict("assert Choice |= ltl <> fin fair weak({| done |})") == "holds"


def test_events_next_until_release_and_weak_until() -> None:
    assert verdict("assert Loop |= ltl [] <> fired(b)") == "holds"
    assert verdict("assert Inc ||| Loop |= ltl [] <> fired(a)") == "fails"
    assert verdict("assert Inc ||| Loop |= ltl <> [] fired(b)") == "holds"  # a stops after 3
    assert verdict("assert Inc |= ltl X x == 1") == "holds"
    assert verdict("assert Inc |= ltl X X x == 1") == "fails"
    assert verdict("assert Inc |= ltl x < 3 U x == 3") == "holds"
    assert verdict("assert Inc |= ltl x < 2 U x == 3") == "fails"
    assert verdict("assert Inc ||| Loop |= ltl x < 3 U x == 3") == "fails"
    assert verdict("assert Inc ||| Loop |= ltl x < 3 W x == 3") == "holds"
    assert verdict("assert Inc |= ltl x == 3 R x <= 3") == "holds"
    assert verdict("assert Inc |= ltl x == 2 R x < 2") == "fails"
    assert verdict("assert Inc |= ltl [] (x == 1 => X x == 2)") == "holds"
    assert verdict("assert Inc ||| Loop |= ltl [] (x == 1 => X x == 2)") == "fails"


def test_a_lasso_names_its_loop_and_fairness_in_every_format() -> None:
    (v,) = checked(HEAD + "assert Inc ||| Loop |= ltl <> x == 3\n")
    assert v.verdict == "fails" and v.loop_start >= 1 and v.run is not None
    assert v.run.final.kind == "loop" and v.run.final.loop_start == v.loop_start
    data = v.to_json()
    assert data["fairness"] == [] and data["loop_start"] == v.loop_start
    (w,) = checked(HEAD + "assert Inc ||| Loop |= ltl <> x == 3 fair weak\n")
    assert w.to_json()["fairness"] == ["weak fairness of every process"]


def test_sarif_and_html_mark_the_loop(tmp_path: Path) -> None:
    spec = tmp_path / "m.fito"
    spec.write_text(HEAD + "assert Inc ||| Loop |= ltl <> x == 3\n")
    sarif = json.loads(cli("check", "--format", "sarif", str(spec)).stdout)
    (result,) = [r for r in sarif["runs"][0]["results"] if r.get("codeFlows")]
    kinds = [loc["kinds"] for loc in result["codeFlows"][0]["threadFlows"][0]["locations"]]
    assert "loop" in kinds[-1] and any("loop" not in k for k in kinds) or "loop" in kinds[0]
    html = cli("check", "--format", "html", str(spec)).stdout
    assert 'class="loop"' in html and "repeat forever" in html


def test_a_model_error_fails_with_its_shortest_trace() -> None:
    (v,) = run_spec(HEAD + "assert Over |= ltl [] <> fired(a)\n").verdicts
    assert v.verdict == "fails" and v.error is not None and len(v.trace) == 4


def test_a_fairness_target_that_is_not_a_process_of_the_system() -> None:
    (v,) = run_spec(HEAD + "assert Inc ||| Loop |= ltl <> x == 3 fair weak(Choice)\n").verdicts
    assert v.verdict == "unknown" and "[M302]" in (v.reason or "")


def test_limits_give_unknown() -> None:
    (v,) = run_spec(HEAD + "assert Inc ||| Loop |= ltl [] <> fired(a)\n", max_states=2).verdicts
    assert v.verdict == "unknown" and v.limit_hit
    big = (
        "type Ten = 0..9\ndomain z[i: Ten]: 0..3 = 0 volatile\n"
        "process Z(i: Ten) = z[i] < 3 & a {z[i] := z[i] + 1} -> Z(i) [] b -> Z(i)\n"
        "process Zs = ||| i: Ten @ Z(i)\n"
    )
    text = HEAD + big + "assert Zs |= ltl [] <> (fired(a) or fired(b)) fair strong\n"
    (w,) = run_spec(text, timeout=0.5).verdicts
    assert w.verdict == "unknown" and w.limit_hit


def test_jobs_give_the_same_answers_and_say_so() -> None:
    text = HEAD + "assert Inc ||| Loop |= ltl <> x == 3\nassert Loop |= ltl [] <> fired(b)\n"
    one = [v.verdict for v in run_spec(text).verdicts]
    two = run_spec(text, jobs=2).verdicts
    assert [v.verdict for v in two] == one
    assert all(any("one process" in n for n in v.notes) for v in two)


def test_the_command_line_reports_fairness_and_replays(tmp_path: Path) -> None:
    spec = tmp_path / "m.fito"
    spec.write_text(HEAD + "assert Inc ||| Loop |= ltl <> x == 3\n")
    out = cli("check", str(spec))
    assert out.returncode == 1 and "assuming no fairness" in out.stdout
    assert "the loop" in out.stdout
    report = tmp_path / "r.json"
    report.write_text(cli("check", "--format", "json", str(spec)).stdout)
    assert json.loads(report.read_text())["files"][0]["assertions"][0]["loop_start"] >= 1
    again = cli("replay", str(report), str(spec))
    assert again.returncode == 1 and "as saved" in again.stdout, again.stdout


# ---------------------------------------------------------------- eventually as a special case
LIVENESS_HEAD = """channel a, b, done
domain fin: Bool = false volatile
domain n: 0..3 = 0 volatile
process P = a -> P
process Q = done {fin := true} -> STOP
process R = b -> R [] done {fin := true} -> STOP
process Count = n < 3 & b {n := n + 1} -> Count
"""
# every `eventually` of tests/check/test_liveness.py, on the same processes
LIVENESS = [
    ("P ||| Q", "fin"),
    ("R", "fin"),
    ("(a -> STOP)", "fin"),
    ("(a -> SKIP)", "fin"),
    ("P", "n == 0"),
    ("Count ||| P", "n == 3"),
    ("Count [] P", "n == 3"),
]


def _as_ltl(line: str) -> str:
    return re.sub(r"\|= eventually (.*?)(\s+--|$)", r"|= ltl <> (\1) fair weak\2", line)


def test_eventually_is_ltl_diamond_under_weak_fairness_of_every_process() -> None:
    lines = [f"assert {p} |= eventually {e}" for p, e in LIVENESS]
    text = LIVENESS_HEAD + "\n".join(lines + [_as_ltl(x) for x in lines]) + "\n"
    got = answers(text)
    assert got[: len(lines)] == got[len(lines) :]


@pytest.mark.parametrize("name", ["bilateral_commit", "fleet_update", "checkpoint_commit"])
def test_eventually_in_the_shipped_specs(name: str) -> None:
    spec = (Path(__file__).resolve().parents[2] / "specs" / f"{name}.fito").read_text()
    if name == "checkpoint_commit":  # as tests/check/test_liveness.py checks it
        spec += (
            "\nprocess Calm = Trainer ||| Committer ||| (||| d: Dom @ Flusher(d))\n"
            "assert Calm |= eventually committed == E\n"
        )
    kept = [x for x in spec.splitlines() if not x.startswith("assert") or "eventually" in x]
    ltl = [_as_ltl(x) for x in kept if x.startswith("assert")]
    got = [v for v in checked("\n".join(kept + ltl) + "\n")]
    half = len(got) // 2
    assert half and [v.verdict for v in got[:half]] == [v.verdict for v in got[half:]]


# ---------------------------------------------------------------- random specs
ATOMS = ["x == 0", "x < 2", "y > 0", "f", "arr[0] == arr[1]", "fired(a)", "fired(c.1)"]


def random_formula(r: object, depth: int = 0) -> str:
    import random

    assert isinstance(r, random.Random)
    k = r.randrange(9 if depth < 3 else 1)
    if k == 0:
        return r.choice(ATOMS)
    if k in (1, 2, 3):
        return f"{r.choice(['[]', '<>', 'X', 'not'])} ({random_formula(r, depth + 1)})"
    op = r.choice(["U", "R", "W", "and", "or", "=>"])
    return f"({random_formula(r, depth + 1)}) {op} ({random_formula(r, depth + 1)})"


@pytest.mark.parametrize("seed", range(12))
def test_random_specs_every_counterexample_replays(seed: int) -> None:
    import random

    r = random.Random(seed)
    spec = Gen(seed).spec()
    kept = [x for x in spec.splitlines() if not x.startswith("assert")]
    fair = ["", " fair weak", " fair strong", " fair weak({| a |})", " fair strong({| c |})"]
    asserts = [f"assert Sys |= ltl {random_formula(r)}{r.choice(fair)}" for _ in range(4)]
    goal = r.choice(["x == 0", "f", "y > 0"])
    asserts += [f"assert Sys |= eventually {goal}", f"assert Sys |= ltl <> ({goal}) fair weak"]
    got = checked("\n".join(kept + asserts) + "\n", max_states=20_000)
    ev, lt = got[-2], got[-1]
    if "unknown" not in (ev.verdict, lt.verdict) and ev.error is None and lt.error is None:
        assert ev.verdict == lt.verdict, spec
