"""`fito check` output formats (text with carets, JSON per LANGUAGE.md, SARIF 2.1.0) and
exit statuses, run in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fito.cli.main import main
from tests.cli.cli_helpers import DIAGNOSTIC_LINE, ROOT

BROKEN = """channel c: (0..3)
domain x: 0..3 = 0 volatile
process P = c!y -> P
process Q = d { x := 1, x := 2 } -> Q
system P
assert always x <= 3
channel d
"""
GOOD = """channel c: (0..3)
domain x: 0..3 = 0 volatile
process P = x < 3 & c!x { x := x + 1 } -> P
system P
assert always x <= 3
assert always x < 3
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(["check", "--no-progress", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    path = tmp_path / "broken.fito"
    path.write_text(BROKEN, encoding="utf-8")
    return path


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.fito"
    path.write_text(GOOD, encoding="utf-8")
    return path


def test_text_diagnostic_with_source_line_and_caret(capsys, broken: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, str(broken))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{broken}:3:15: error: 'y' is not defined [R001 undefined-name]"
    assert lines[1] == "  process P = c!y -> P"
    assert lines[2] == "  " + " " * 14 + "^"
    i = lines.index(
        f"{broken}:4:25: error: 'x' is written twice in one assignment block [T005 double-write]"
    )
    assert lines[i + 1] == "  process Q = d { x := 1, x := 2 } -> Q"
    assert lines[i + 2] == "  " + " " * 24 + "^"
    assert lines[i + 3] == "  note: first written at line 4, column 17"
    assert lines[i + 4].startswith("  hint: ")
    heads = [line for line in lines if DIAGNOSTIC_LINE.match(line)]
    assert len(heads) == 2


def test_caret_spans_the_token(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "span.fito"
    path.write_text("const LIMIT: 0..3 = 1000\n", encoding="utf-8")
    _, out, _ = run(capsys, str(path))
    assert out.splitlines()[1:3] == ["  const LIMIT: 0..3 = 1000", "  " + " " * 20 + "^~~~"]


def test_json_follows_the_contract(capsys, broken: Path, good: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "--format", "json", str(broken), str(good))
    assert code == 1
    doc = json.loads(out)
    assert [f["path"] for f in doc["files"]] == [str(broken), str(good)]
    for f in doc["files"]:
        assert set(f) >= {"path", "diagnostics", "assertions"}
        for d in f["diagnostics"]:
            assert set(d) >= {
                "code",
                "severity",
                "message",
                "line",
                "column",
                "end_line",
                "end_column",
            }
            assert d["severity"] in ("error", "warning", "note")
            assert all(
                isinstance(d[k], int) and d[k] >= 1
                for k in ("line", "column", "end_line", "end_column")
            )
        for a in f["assertions"]:
            assert set(a) >= {
                "text",
                "line",
                "verdict",
                "states",
                "transitions",
                "seconds",
                "trace",
            }
            assert a["verdict"] in ("holds", "fails", "unknown")
            assert isinstance(a["trace"], list) and all(isinstance(s, str) for s in a["trace"])
    first = doc["files"][0]["diagnostics"][0]
    where = (first["code"], first["line"], first["column"], first["end_column"])
    assert where == ("R001", 3, 15, 16)
    verdicts = [a["verdict"] for a in doc["files"][1]["assertions"]]
    assert verdicts == ["holds", "fails"]


def test_json_for_an_unreadable_file(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "--format", "json", str(tmp_path / "missing.fito"))
    assert code == 2
    doc = json.loads(out)
    assert doc["files"][0]["diagnostics"][0]["code"] == "C002"
    assert doc["files"][0]["assertions"] == []


def check_sarif(log: dict) -> None:  # type: ignore[type-arg]
    """The properties SARIF 2.1.0's schema requires, and the value sets it allows."""
    assert log["version"] == "2.1.0"
    assert isinstance(log.get("$schema", ""), str)
    assert isinstance(log["runs"], list) and log["runs"]
    for run_ in log["runs"]:
        driver = run_["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        rule_ids = [r["id"] for r in driver.get("rules", [])]
        assert len(rule_ids) == len(set(rule_ids))
        for result in run_.get("results", []):
            assert isinstance(result["message"]["text"], str) and result["message"]["text"]
            assert isinstance(result["ruleId"], str)
            if rule_ids:
                assert result["ruleId"] in rule_ids
            assert result.get("level", "warning") in ("none", "note", "warning", "error")
            for loc in result.get("locations", []):
                phys = loc["physicalLocation"]
                assert isinstance(phys["artifactLocation"]["uri"], str)
                region = phys.get("region", {})
                for key in ("startLine", "startColumn", "endLine", "endColumn"):
                    if key in region:
                        assert isinstance(region[key], int) and region[key] >= 1


def test_sarif_has_the_required_structure(capsys, broken: Path, good: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "--format", "sarif", str(broken), str(good))
    assert code == 1
    log = json.loads(out)
    check_sarif(log)
    results = log["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"R001", "T005", "M005"}
    r001 = next(r for r in results if r["ruleId"] == "R001")
    assert r001["level"] == "error"
    region = r001["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (3, 15)


@pytest.mark.parametrize(
    "log",
    [
        {"version": "2.0.0", "runs": []},
        {"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]},
        {
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {"driver": {"name": "x"}},
                    "results": [{"ruleId": "R001", "message": {"text": "m"}, "level": "fatal"}],
                }
            ],
        },
        {
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {"driver": {"name": "x"}},
                    "results": [
                        {
                            "ruleId": "R001",
                            "message": {"text": "m"},
                            "locations": [
                                {
                                    "physicalLocation": {
                                        "artifactLocation": {"uri": "f"},
                                        "region": {"startLine": 0},
                                    }
                                }
                            ],
                        }
                    ],
                }
            ],
        },
    ],
)
def test_the_sarif_check_rejects_broken_logs(log: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises((AssertionError, KeyError)):
        check_sarif(log)


def test_sarif_validates_against_a_schema_subset(capsys, broken: Path) -> None:  # type: ignore[no-untyped-def]
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parent / "data" / "sarif-2.1.0-subset.json").read_text())
    _, out, _ = run(capsys, "--format", "sarif", str(broken))
    jsonschema.validate(json.loads(out), schema)


@pytest.mark.parametrize(
    "spec, args, status",
    [
        ("specs/checkpoint_naive.fito", [], 1),
        ("specs/checkpoint_commit.fito", ["--max-states", "50"], 3),
        ("specs/bad_syntax.fito", [], 2),
        ("tests/lang/data/valid/declarations.fito", [], 0),
        ("tests/lang/data/invalid/R001_undefined_value.fito", [], 1),
    ],
)
def test_exit_status(capsys, spec: str, args: list[str], status: int) -> None:  # type: ignore[no-untyped-def]
    code, _, _ = run(capsys, *args, str(ROOT / spec))
    assert code == status


def test_exit_status_of_several_files_is_the_worst(capsys) -> None:  # type: ignore[no-untyped-def]
    files = [
        str(ROOT / "tests/lang/data/valid/declarations.fito"),
        str(ROOT / "specs/checkpoint_naive.fito"),
    ]
    assert run(capsys, *files)[0] == 1
    assert run(capsys, *files, str(ROOT / "specs/bad_syntax.fito"))[0] == 2
