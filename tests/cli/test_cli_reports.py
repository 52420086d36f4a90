"""Counterexamples in every format (issue 17): the text report collapses internal runs and
shows changes per domain; --explain is a per-domain timeline; JSON follows the schema in
docs/report-schema.json; SARIF carries codeFlows; --format combines with --expect;
`fito replay` reproduces a saved trace or says where it parts from the spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fito.cli.main import main
from tests.cli.cli_helpers import ROOT

NAIVE = ROOT / "specs" / "checkpoint_naive.fito"
SCHEMA = ROOT / "docs" / "report-schema.json"

TAUS = """type V = 0..3
channel a: V
domain x: V = 0 durable
process P = (||| i: {0, 1, 2} @ SKIP) ; a!x { x := x + 1 } -> P
system P
assert always x < 2
"""


def run(capsys, *argv: str) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.fixture
def taus(tmp_path: Path) -> Path:
    path = tmp_path / "taus.fito"
    path.write_text(TAUS, encoding="utf-8")
    return path


def test_text_counterexample_collapses_internal_runs(capsys, taus: Path) -> None:  # type: ignore[no-untyped-def]
    code, out = run(capsys, "check", "--no-progress", str(taus))
    assert code == 1
    lines = out.splitlines()
    # per round: three SKIPs terminate and `;` starts its right side: 3 + 1 internal steps
    internal = 3 + 1
    assert any(
        x.strip().startswith(
            f"1-{internal}.  ({internal} internal steps that change no cell; --verbose shows them)"
        )
        for x in lines
    ), out
    assert any(
        x.split()[:3] == [f"{internal + 1}.", "a.0", "P"] and x.endswith("other: x = 1")
        for x in lines
    ), out
    code, verbose = run(capsys, "check", "--no-progress", "--verbose", str(taus))
    assert "internal steps" not in verbose and verbose.count(". tau") == 2 * internal


def test_explain_prints_one_column_per_domain(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out = run(capsys, "check", "--no-progress", "--explain", str(NAIVE))
    assert code == 1
    header = next(x for x in out.splitlines() if x.strip().startswith("# |"))
    assert [c.strip() for c in header.split("|")] == ["#", "event", "process", "gpu", "other"]
    row = next(x for x in out.splitlines() if x.strip().startswith("2 |"))
    assert [c.strip() for c in row.split("|")] == [
        "2",
        "flush.gpu.1",
        "Flusher(gpu)",
        "saved = 1",
        "",
    ]


def test_json_follows_the_documented_schema(capsys, taus: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    stuck = tmp_path / "stuck.fito"
    stuck.write_text(
        "type V = 0..1\nchannel a\ndomain x: V = 0 durable\n"
        "process P = x > 0 & a -> P\nsystem P\nassert :[deadlock free]\n"
    )
    _, out = run(
        capsys, "check", "--no-progress", "--format", "json", str(NAIVE), str(taus), str(stuck)
    )
    doc = json.loads(out)
    jsonschema.validate(doc, schema)
    failing = [a for f in doc["files"] for a in f["assertions"] if a["verdict"] == "fails"]
    assert all(len(a["run"]["steps"]) == len(a["trace"]) for a in failing)
    deadlock = doc["files"][2]["assertions"][0]["run"]["final"]
    assert deadlock["kind"] == "deadlock" and deadlock["waiting"][0]["guarded"] == ["a"]
    with pytest.raises(jsonschema.ValidationError):
        failing[0]["run"]["steps"][0]["kind"] = "jump"
        jsonschema.validate(doc, schema)


def test_sarif_carries_the_trace_as_code_flows(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out = run(capsys, "check", "--no-progress", "--format", "sarif", str(NAIVE))
    log = json.loads(out)
    jsonschema = pytest.importorskip("jsonschema")
    subset = ROOT / "tests" / "cli" / "data" / "sarif-2.1.0-subset.json"
    jsonschema.validate(log, json.loads(subset.read_text(encoding="utf-8")))
    driver = log["runs"][0]["tool"]["driver"]
    assert "example.org" not in json.dumps(driver)
    result = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "M005")
    flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [loc["executionOrder"] for loc in flow] == [1, 2]
    assert flow[1]["state"]["saved[gpu]"] == {"text": "1"}
    assert flow[1]["location"]["message"]["text"].startswith("2. flush.gpu.1 by Flusher(gpu)")
    region = flow[1]["location"]["physicalLocation"]["region"]
    assert NAIVE.read_text().splitlines()[region["startLine"] - 1].startswith("process Flusher")


@pytest.mark.parametrize("fmt", ["json", "sarif", "html"])
def test_format_combines_with_expect(capsys, tmp_path: Path, fmt: str) -> None:  # type: ignore[no-untyped-def]
    wrong = tmp_path / "wrong.fito"
    wrong.write_text(NAIVE.read_text().replace("expect: fails in 2", "expect: holds"))
    code, out = run(
        capsys, "check", "--no-progress", "--expect", "--format", fmt, str(NAIVE), str(wrong)
    )
    assert code == 1
    if fmt == "json":
        doc = json.loads(out)
        assert doc["expect"] == {"passed": 1, "failed": 1}
        assert doc["files"][1]["expect"]["problems"][0]["line"] == 24
    elif fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        unmet = [r for r in results if r["ruleId"] == "C301"]
        texts = sorted(r["message"]["text"] for r in unmet)
        assert texts[0] == "exit status 1, expected 0"
        assert texts[1].startswith("verdict fails, expected holds")
    else:
        assert "expectations not met" in out and "<svg" in out
    code, _ = run(capsys, "check", "--no-progress", "--expect", "--format", fmt, str(NAIVE))
    assert code == 0


def test_output_goes_to_a_file(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "report.html"
    code, out = run(
        capsys, "check", "--no-progress", "--format", "html", "-o", str(target), str(NAIVE)
    )
    assert code == 1 and out == ""
    assert target.read_text().startswith("<!DOCTYPE html>")


def test_replay_reproduces_or_says_where_the_spec_parts(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    saved = tmp_path / "naive.json"
    run(capsys, "check", "--no-progress", "--format", "json", "-o", str(saved), str(NAIVE))
    code, out = run(capsys, "replay", str(saved), str(NAIVE))
    assert code == 1 and "replayed 2 steps: the expression is violated after step 2" in out
    fixed = tmp_path / "fixed.fito"
    fixed.write_text(NAIVE.read_text().replace("flush.d!live", "flush.d!saved[d]"))
    code, out = run(capsys, "replay", str(saved), str(fixed))
    assert code == 0
    assert "part ways at step 2 (flush.gpu.1): the spec cannot make it; it offers" in out
    code, out = run(capsys, "replay", "--line", "25", str(saved), str(NAIVE))
    assert code == 0 and "the expression holds after step 5" in out
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{")
    assert main(["replay", str(garbage), str(NAIVE)]) == 2
