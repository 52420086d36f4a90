"""pytest collects fito specs: each assertion of a `*.fito` file under the configured folders
is a test item, and so are the file's diagnostics.

Configure the folders in pytest's ini file (`fito_paths = specs models/protocols`) or with
`--fito-path DIR`; nothing is collected otherwise. An assertion passes when its verdict is
the one its `-- expect:` comment names (`holds`, `fails`, `fails in N`, `unknown`) or, with
no comment, when it holds; a failing one shows its counterexample. The `diagnostics` item
of a file passes when its diagnostics are the ones its `-- expect:` comments name.
`fito_timeout` and `fito_max_states` bound each assertion (a bound reached is a failure
that says so). Registered through the `pytest11` entry point of the fito package.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fito", "fito specs")
    group.addoption(
        "--fito-path",
        action="append",
        default=[],
        metavar="DIR",
        help="collect the *.fito specs under DIR (also ini: fito_paths)",
    )
    parser.addini(
        "fito_paths", "folders whose *.fito specs are collected", type="paths", default=[]
    )
    parser.addini("fito_timeout", "seconds per assertion (default: no limit)", default="")
    parser.addini("fito_max_states", "states per assertion (default: fito's)", default="")


def _folders(config: pytest.Config) -> list[Path]:
    given = [Path(p) for p in config.getoption("fito_path")]
    return [p.resolve() for p in list(config.getini("fito_paths")) + given]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".fito":
        return None
    where = file_path.resolve()
    if any(where.is_relative_to(folder) for folder in _folders(parent.config)):
        return SpecFile.from_parent(parent, path=file_path)
    return None


class SpecFile(pytest.File):
    """A spec: checked once, its verdicts shared by its items."""

    _report: Any = None

    def report(self) -> Any:
        if self._report is None:
            from fito.check.options import CheckOptions  # lazy-import: every pytest run loads this
            from fito.deep import run_deep  # lazy-import: every pytest run loads this
            from fito.pipeline import check_file  # lazy-import: every pytest run loads this

            cfg = self.config
            timeout = cfg.getini("fito_timeout")
            max_states = cfg.getini("fito_max_states")
            options = CheckOptions(
                timeout=float(timeout) if timeout else None,
                max_states=int(max_states) if max_states else None,
            )
            self._report = run_deep(check_file, str(self.path), options)
        return self._report

    def collect(self) -> Iterator[pytest.Item]:
        from fito.pipeline import front_end  # lazy-import: every pytest run loads this

        yield DiagnosticsItem.from_parent(self, name="diagnostics")
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return
        model = front_end(text).model
        for a in getattr(model, "assertions", ()):
            yield AssertionItem.from_parent(self, name=f"line {a.span.line}", line=a.span.line)


class FitoFailure(Exception):
    """What a failing item shows (already rendered)."""


class AssertionItem(pytest.Item):
    """One assertion and the verdict its line expects."""

    def __init__(self, *, line: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line

    def runtest(self) -> None:
        from fito.expect import (  # lazy-import: every pytest run loads this
            compare,
            expectations,
        )
        from fito.render.report import render_verdict  # lazy-import: every pytest run loads this

        spec: SpecFile = self.parent  # type: ignore[assignment]
        report = spec.report()
        verdict = next((v for v in report.verdicts if v.line == self.line), None)
        if verdict is None:
            raise FitoFailure(f"{self.path}:{self.line}: the assertion was not checked")
        expected = expectations(report.text or "").get(self.line)
        shown = render_verdict(str(self.path), verdict)
        if expected is None:
            if verdict.verdict != "holds":
                raise FitoFailure(shown)
            return
        wrong = [p for p in compare(report) if p.line == self.line]
        if wrong:
            raise FitoFailure(
                "\n".join([f"expected: {expected}"] + [p.message for p in wrong] + [shown])
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, FitoFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.line - 1, f"{self.path.name}:{self.line}"


class DiagnosticsItem(pytest.Item):
    """The file's diagnostics against its `-- expect:` comments."""

    def runtest(self) -> None:
        from fito.diagnostics import render_text  # lazy-import: every pytest run loads this
        from fito.expect import compare  # lazy-import: every pytest run loads this

        spec: SpecFile = self.parent  # type: ignore[assignment]
        report = spec.report()
        lines = {v.line for v in report.verdicts}
        wrong = [p for p in compare(report) if p.line not in lines and p.line != 0]
        if report.text is None or wrong:
            shown = [render_text(d, str(self.path), report.text) for d in report.diagnostics]
            raise FitoFailure(
                "\n".join([f"{self.path}:{p.line}: {p.message}" for p in wrong] + shown)
            )

    repr_failure = AssertionItem.repr_failure

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: diagnostics"
