"""Reports a newcomer can trust (issue 32, point 5): the JSON report says its format and
version and types its values, SARIF names no path of the machine that wrote it, DOT draws a
state's loops as one labelled loop, and the HTML chart keeps its bands inside the lifelines,
wraps long diagnostics and does not colour a witness like a failure."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fito.check.options import CheckOptions
from fito.check.traces.records import Trace
from fito.cli.main import main
from fito.pipeline import check_source
from fito.render.page import CSS
from fito.render.report import render_report
from fito.render.svg import render_chart
from fito.source import Source

ROOT = Path(__file__).resolve().parents[2]
NAIVE = ROOT / "specs" / "checkpoint_naive.fito"

TYPED = """
type Phase = {idle, commit}
domain n: 0..3 = 0 volatile
domain ok: Bool = false durable
domain phase: Phase = idle volatile
channel go: Phase
process P = n < 2 & go!commit {n := n + 1, ok := true, phase := commit} -> P
assert P |= always n < 2
"""

CRASHY = """
domain saved: 0..2 = 0 durable
domain live: 0..2 = 0 volatile
domain loaded: Bool = false durable
channel step: (0..2)
channel load: (0..2)
process Job = live < 2 & step!(live + 1) {live := live + 1, saved := live + 1} -> Job
process Recover = load!saved {loaded := true} -> STOP
process Node = Job /\\ (crash -> Recover)
assert Node |= always not loaded
assert Node reaches loaded and saved == 1
"""


def report(text: str, fmt: str) -> str:
    return render_report([check_source(Source("t.fito", text), CheckOptions())], fmt)


def test_the_json_report_has_a_format_version_and_typed_values() -> None:
    doc = json.loads(report(TYPED, "json"))
    assert (doc["format"], doc["version"]) == ("fito-check-report", 2)
    (a,) = doc["files"][0]["assertions"]
    run = a["run"]
    assert run["initial_state"] == {"n": 0, "ok": False, "phase": "idle"}
    assert run["steps"][0]["values"] == ["commit"]
    assert run["steps"][0]["writes"] == {"n": 1, "ok": True, "phase": "commit"}
    assert run["final"]["cells"] == {"n": 2}
    # replay reads the typed values back, and the strings of an unversioned report
    trace = Trace.from_json(run)
    assert Trace.from_json(trace.to_json()) == trace
    old = json.loads(json.dumps(run), parse_int=str, parse_constant=str)
    old["initial_state"] = {"n": "0", "ok": "false", "phase": "idle"}
    assert Trace.from_json(old).initial_state == trace.initial_state


def test_sarif_names_no_file_of_the_machine_that_wrote_it() -> None:
    log = json.loads(report(TYPED, "sarif"))
    driver = log["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver
    assert "file://" not in json.dumps(log)


def test_dot_draws_the_loops_of_a_state_as_one_labelled_loop(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = tmp_path / "loops.fito"
    spec.write_text(
        "channel a, b, c\nprocess P = a -> P [] b -> P [] c -> Q\nprocess Q = a -> Q\nsystem P\n",
        encoding="utf-8",
    )
    assert main(["lts", str(spec), "--format", "dot"]) == 0
    edges = re.findall(r"^  (s\d+ -> s\d+) \[label=\"(.*)\"\];$", capsys.readouterr().out, re.M)
    assert edges == [("s0 -> s0", "a\\nb"), ("s0 -> s1", "c"), ("s1 -> s1", "a")]


def test_long_diagnostics_wrap_in_the_page() -> None:
    rule = re.search(r"pre\.diag \{([^}]*)\}", CSS)
    assert rule is not None and "white-space: pre-wrap" in rule.group(1)


def _lines(svg: str, cls: str) -> list[float]:
    return [
        float(x) for x in re.findall(rf'<line class="{cls}" x1="\d+" y1="\d+" x2="([\d.]+)"', svg)
    ]


def test_the_crash_band_ends_at_the_last_lifeline_and_a_witness_is_not_red() -> None:
    verdicts = check_source(Source("t.fito", CRASHY), CheckOptions()).verdicts
    runs = [v.run for v in verdicts if v.run is not None]
    assert runs, [v.verdict for v in verdicts]
    crashed = [r for r in runs if any(s.crash for s in r.steps)]
    assert crashed
    for run in crashed:
        svg = render_chart(run)
        lifelines = [float(x) for x in re.findall(r'<line x1="([\d.]+)" y1="36"', svg)]
        (band,) = _lines(svg, "crash")
        assert band <= max(lifelines) + 24.5  # x2 is rounded to a pixel
    (witness,) = [v.run for v in verdicts if v.verdict == "holds" and v.run is not None]
    assert 'class="final goal"' in render_chart(witness)
