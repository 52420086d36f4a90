"""The pytest plugin (entry point `pytest11`): specs under configured folders become test
items, one per assertion plus the file's diagnostics; `-- expect:` is honoured; a failure
shows the counterexample; nothing is collected outside the configured folders."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
NAIVE = (ROOT / "specs" / "checkpoint_naive.fito").read_text(encoding="utf-8")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nfito_paths = protocols\n")
    protocols = pytester.mkdir("protocols")
    (protocols / "naive.fito").write_text(NAIVE, encoding="utf-8")
    (protocols / "unexpected.fito").write_text(
        NAIVE.replace("-- expect: fails in 2", ""), encoding="utf-8"
    )
    (protocols / "typo.fito").write_text("channel a\nprocess P = b -> P\n", encoding="utf-8")
    (pytester.mkdir("elsewhere") / "ignored.fito").write_text("garbage", encoding="utf-8")
    return pytester


def plugin_args() -> list[str]:
    """`-p fito.editors.pytest_plugin` unless the installed package already registers it."""
    from importlib.metadata import entry_points

    installed = any(e.value == "fito.editors.pytest_plugin" for e in entry_points(group="pytest11"))
    return [] if installed else ["-p", "fito.editors.pytest_plugin"]


def test_specs_become_items_and_expectations_are_honoured(project: pytest.Pytester) -> None:
    result = project.runpytest(*plugin_args(), "-v")
    result.assert_outcomes(passed=7, failed=2)
    text = result.stdout.str()
    for item in (
        "naive.fito::line 24 PASSED",
        "naive.fito::diagnostics PASSED",
        "unexpected.fito::line 24 FAILED",
        "typo.fito::diagnostics FAILED",
    ):
        assert item in text
    assert "elsewhere" not in text
    # a failure shows the counterexample, or the diagnostic
    assert "unexpected.fito:24: Node |= always" in text and "2. flush.gpu.1" in text
    assert "'b' is not defined [R001 undefined-name]" in text


def test_the_entry_point_is_declared() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '[project.entry-points.pytest11]\nfito = "fito.editors.pytest_plugin"' in text
