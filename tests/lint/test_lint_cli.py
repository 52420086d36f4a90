"""`fito lint` as users run it: the diagnostic form, JSON and SARIF, exit statuses, codes
selected and silenced, directories, bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fito.cli.main import main

DIAGNOSTIC = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): warning: (?P<message>.+) "
    r"\[(?P<code>FITOL\d{3}) (?P<name>[a-z0-9-]+)\]$"
)
SPLIT = """import torch


def save(model, optimizer):
    torch.save(model.state_dict(), "model.pt")  # the first save
    torch.save(optimizer.state_dict(), "optimizer.pt")
"""
CLEAN = """import torch


def load(model):
    model.load_state_dict(torch.load("model.pt"))
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(["lint", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def split(tmp_path: Path) -> Path:
    p = tmp_path / "split.py"
    p.write_text(SPLIT, encoding="utf-8")
    return p


def test_text_form_with_source_line_caret_notes_and_hint(capsys, split: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, str(split))
    assert code == 1
    lines = out.splitlines()
    heads = [m for m in map(DIAGNOSTIC.match, lines) if m]
    assert [(m["line"], m["code"], m["name"]) for m in heads] == [
        ("5", "FITOL001", "split-checkpoint"),
        ("5", "FITOL003", "save-in-place"),
        ("6", "FITOL003", "save-in-place"),
    ]
    first = lines.index(heads[0].group(0))
    assert lines[first + 1] == '      torch.save(model.state_dict(), "model.pt")  # the first save'
    assert lines[first + 2] == "      ^" + "~" * 41
    assert any(
        line.startswith("  note: line 6 saves optimizer to 'optimizer.pt'") for line in lines
    )
    assert any(line.startswith("  hint: ") and "fito.runtime" in line for line in lines)
    assert lines[-1] == "Found 3 warnings in 1 file (checked 1 file)"


def test_json_and_sarif(capsys, split: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "--format", "json", str(split))
    data = json.loads(out)
    diags = data["files"][0]["diagnostics"]
    assert code == 1 and [d["code"] for d in diags] == ["FITOL001", "FITOL003", "FITOL003"]
    assert diags[0]["name"] == "split-checkpoint" and diags[0]["severity"] == "warning"
    assert diags[0]["line"] == 5 and diags[0]["column"] == 5 and diags[0]["notes"]
    assert "fito.runtime" in diags[0]["hint"]
    code, out, _ = run(capsys, "--format", "sarif", str(split))
    sarif = json.loads(out)
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["FITOL001", "FITOL003", "FITOL003"]
    assert {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]} == {
        "FITOL001",
        "FITOL003",
    }
    assert results[0]["level"] == "warning"
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 5


def test_select_ignore_noqa_and_exit_zero(capsys, tmp_path: Path, split: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "--select", "FITOL003", "--format", "json", str(split))
    assert [d["code"] for d in json.loads(out)["files"][0]["diagnostics"]] == ["FITOL003"] * 2
    code, out, _ = run(capsys, "--ignore", "fitol00", str(split))
    assert code == 0 and out.strip() == "Success: no issues found (checked 1 file)"
    quiet = tmp_path / "quiet.py"
    quiet.write_text(
        SPLIT.replace("# the first save", "# noqa: FITOL003").replace(
            '"optimizer.pt")', '"optimizer.pt")  # noqa'
        ),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "--format", "json", str(quiet))
    assert [d["code"] for d in json.loads(out)["files"][0]["diagnostics"]] == ["FITOL001"]
    assert run(capsys, "--exit-zero", str(split))[0] == 0


def test_directories_are_searched_for_python_files(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "train.py").write_text(SPLIT, encoding="utf-8")
    (tmp_path / "pkg" / "eval.py").write_text(CLEAN, encoding="utf-8")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "hidden.py").write_text(SPLIT, encoding="utf-8")
    (tmp_path / "notes.txt").write_text(SPLIT, encoding="utf-8")
    code, out, _ = run(capsys, "--format", "json", str(tmp_path))
    paths = [Path(f["path"]).name for f in json.loads(out)["files"]]
    assert code == 1 and paths == ["eval.py", "train.py"]


def test_code_outside_training_is_not_analysed(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "plain.py"
    p.write_text(SPLIT.replace("import torch", "import pickle as torch"), encoding="utf-8")
    assert run(capsys, str(p))[0] == 0


def test_bad_input_is_a_diagnostic_with_status_2(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\ndef f(:\n    pass\n", encoding="utf-8")
    code, out, _ = run(capsys, str(broken))
    assert code == 2
    assert out.splitlines()[0].startswith(f"{broken}:2:7: error: Python syntax error: ")
    assert out.splitlines()[0].endswith("[FITOL000 python-syntax-error]")
    code, out, _ = run(capsys, str(tmp_path / "missing.py"))
    assert code == 2 and "does not exist [C002 unreadable-input]" in out
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"import torch\nx = '\xe9'\n")
    code, out, _ = run(capsys, str(latin))
    assert code == 2 and "[C003 not-utf8]" in out
    code, _, err = run(capsys, "--select", "E501", str(broken))
    assert code == 2 and err.strip().endswith("[C001 bad-usage]")


def test_columns_count_characters_not_bytes(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "unicode.py"
    p.write_text(
        'import torch\n\n\ndef save(model):\n    é = 1; torch.save(model, "m.pt")\n',
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "--format", "json", str(p))
    d = json.loads(out)["files"][0]["diagnostics"][0]
    assert (d["code"], d["line"], d["column"]) == ("FITOL003", 5, 12)


FRESH = """import torch


def save(model, optimizer, step):
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
    torch.save(state, f"ckpt/step_{step}.pt")
"""


def test_a_code_off_by_default_is_reported_only_when_selected_by_name(  # type: ignore[no-untyped-def]
    capsys, tmp_path: Path
) -> None:
    p = tmp_path / "fresh.py"
    p.write_text(FRESH, encoding="utf-8")
    assert run(capsys, str(p))[0] == 0  # a fresh per-step name: not an in-place overwrite
    assert run(capsys, "--select", "FITOL", str(p))[0] == 0  # a prefix of every code
    code, out, _ = run(capsys, "--select", "FITOL050", "--format", "json", str(p))
    assert code == 1
    assert [d["code"] for d in json.loads(out)["files"][0]["diagnostics"]] == ["FITOL050"]
    assert run(capsys, "--select", "FITOL05", str(p))[0] == 1


def test_pyproject_configuration(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "fresh.py").write_text(FRESH, encoding="utf-8")
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.py").write_text(SPLIT, encoding="utf-8")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "split.py").write_text(SPLIT, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        """[tool.fito.lint]
extend-select = ["FITOL050"]
ignore = ["FITOL001"]
exclude = ["legacy/*"]

[tool.fito.lint.per-file-ignores]
"tools/*.py" = ["FITOL003"]
""",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "--format", "json", str(tmp_path))
    files = {Path(f["path"]).relative_to(tmp_path).as_posix(): f for f in json.loads(out)["files"]}
    assert code == 1 and sorted(files) == ["fresh.py", "tools/split.py"]  # legacy excluded
    assert [d["code"] for d in files["fresh.py"]["diagnostics"]] == ["FITOL050"]
    assert files["tools/split.py"]["diagnostics"] == []  # FITOL001 ignored, FITOL003 per file
    # --isolated reads none of it; --select replaces the file's selection
    code, out, _ = run(capsys, "--isolated", "--format", "json", str(tmp_path / "tools"))
    assert [d["code"] for d in json.loads(out)["files"][0]["diagnostics"]] == [
        "FITOL001",
        "FITOL003",
        "FITOL003",
    ]
    named = str(tmp_path / "legacy" / "old.py")  # excluded from a walk, linted when named
    code, out, _ = run(capsys, "--select", "FITOL003", "--format", "json", named)
    assert [d["code"] for d in json.loads(out)["files"][0]["diagnostics"]] == ["FITOL003"] * 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tool.fito.lint]\nselect = ['X1']\n", "names no lint code"),
        ("[tool.fito.lint]\nchoose = ['FITOL001']\n", "unknown key 'choose'"),
        ("[tool.fito.lint]\nselect = 'FITOL001\n", "not valid TOML"),
        ("[tool.fito.lint]\nignore = [1]\n", "must be a list of strings"),
    ],
)
def test_a_bad_configuration_is_a_usage_error(  # type: ignore[no-untyped-def]
    capsys, tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    (tmp_path / "a.py").write_text(SPLIT, encoding="utf-8")
    code = main(["lint", "--config", str(tmp_path / "pyproject.toml"), str(tmp_path / "a.py")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
