"""`fito types` and `fito check` on the command line: formats, spans and exit statuses."""

from __future__ import annotations

import json

import pytest

from fito.cli.main import main
from tests.types.types_helpers import DATA, SHARED, pipeline

EXAMPLE = str(SHARED / "examples" / "pipelines.fito")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_types_text_lists_each_diagnostic_with_caret_and_a_summary(capsys):
    code, out, _ = run(capsys, "types", EXAMPLE)
    assert code == 1
    assert f"{EXAMPLE}:15:11: error: " in out and "[FITO001 snap-as-conv]" in out
    assert f"{EXAMPLE}:60:11: warning: " in out and "[FITOW01 unchecked-assumption]" in out
    assert "  hint: " in out and "^" in out
    assert (
        out.rstrip().splitlines()[-1]
        == "Found 5 errors and 1 warning in 1 file (checked 8 pipelines in 1 file)"
    )


def test_types_json_has_the_check_shape_and_no_assertions(capsys):
    code, out, _ = run(capsys, "types", "--format", "json", EXAMPLE)
    assert code == 1
    report = json.loads(out)
    (entry,) = report["files"]
    assert entry["path"] == EXAMPLE and entry["assertions"] == []
    got = [(d["line"], d["column"], d["code"], d["severity"]) for d in entry["diagnostics"]]
    assert got == [
        (15, 11, "FITO001", "error"),
        (23, 36, "FITO002", "error"),
        (41, 36, "FITO002", "error"),
        (48, 16, "FITO003", "error"),
        (54, 11, "FITO004", "error"),
        (60, 11, "FITOW01", "warning"),
    ]
    for d in entry["diagnostics"]:
        assert {"message", "end_line", "end_column"} <= set(d)


def test_types_sarif_has_one_result_per_diagnostic_and_rules(capsys):
    code, out, _ = run(capsys, "types", "--format", "sarif", EXAMPLE)
    assert code == 1
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [
        "FITO001",
        "FITO002",
        "FITO002",
        "FITO003",
        "FITO004",
        "FITOW01",
    ]
    assert results[1]["locations"][0]["physicalLocation"]["region"]["startLine"] == 23
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules == {"FITO001", "FITO002", "FITO003", "FITO004", "FITOW01"}


def test_exit_statuses(capsys, tmp_path):
    clean = DATA / "valid" / "commit_and_consume.fito"
    warned = DATA / "valid" / "assumption_warning_only.fito"
    assert run(capsys, "types", str(clean))[0] == 0
    assert run(capsys, "types", str(warned))[0] == 0
    assert run(capsys, "types", str(SHARED / "examples" / "bad_syntax.fito"))[0] == 2
    assert run(capsys, "types", str(tmp_path / "missing.fito"))[0] == 2
    assert run(capsys, "types", str(clean), EXAMPLE)[0] == 1
    _, out, _ = run(capsys, "types", str(clean))
    assert "Success: no type errors; checked 1 pipeline in 1 file" in out


def test_undecided_epochs_exit_3_from_fito_types(capsys, tmp_path):
    from fito.diagnostics import error
    from fito.outcome import FileReport
    from fito.pipeline import TypeReport
    from fito.types.run import exit_status

    undecided = TypeReport(FileReport("a", "", (error("FITO007", "unknown"),)))
    failing = TypeReport(FileReport("b", "", (error("FITO007", "x"), error("FITO001", "y"))))
    assert undecided.report.status == 3 and failing.report.status == 1
    assert exit_status([undecided]) == 3 and exit_status([undecided, failing]) == 1


def test_bad_usage_exits_2(capsys):
    assert run(capsys, "types", "--timeout", "-1", EXAMPLE)[0] == 2
    assert run(capsys, "types", "--format", "xml", EXAMPLE)[0] == 2


def test_stats_and_reveal(capsys):
    code, out, err = run(capsys, "types", "--stats", "--reveal", EXAMPLE)
    assert code == 1
    assert f"{EXAMPLE}:21:7: note: mixed_epochs.w: Snap(gpu, t1) @ e1" in out
    assert "epoch questions" in err and "Z3 checks" in err


def test_check_json_carries_the_type_diagnostics(capsys):
    code, out, _ = run(capsys, "check", "--format", "json", EXAMPLE)
    assert code == 1
    codes = [d["code"] for d in json.loads(out)["files"][0]["diagnostics"]]
    assert codes == ["FITO001", "FITO002", "FITO002", "FITO003", "FITO004", "FITOW01"]


@pytest.mark.parametrize("path", [EXAMPLE, *map(str, sorted(DATA.glob("*/*.fito")))])
def test_check_expect_mode_agrees(capsys, path):
    code, out, _ = run(capsys, "check", "--expect", path)
    assert code == 0, out


def test_a_deep_pipeline_expression_is_no_crash(capsys, tmp_path):
    deep = "e" + " + 1" * 3000
    path = tmp_path / "deep.fito"
    path.write_text(
        pipeline(f"""
        epoch e
        let s = snapshot(gpu) @ {deep}
        let c = converge(P, e + 3000, s)
        restore(c)
    """)
    )
    code, out, _ = run(capsys, "types", str(path))
    assert code == 0, out
