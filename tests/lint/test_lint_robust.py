"""Whatever the input, `fito lint` reports diagnostics and never raises: truncated and
shuffled training scripts, arbitrary text, deep nesting."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fito.lint.run import LintOptions, lint_source
from fito.source import Source
from tests.lint.corpus_score import corpus_files

LINES = [line for p in corpus_files() for line in p.read_text(encoding="utf-8").splitlines()]


def lint(text: str) -> None:
    report = lint_source(Source("x.py", text), LintOptions()).report
    for d in report.diagnostics:
        assert d.code.startswith("FITOL") and d.span.line >= 1 and d.span.column >= 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=60))
def test_scripts_made_of_corpus_lines_never_raise(lines: list[str]) -> None:
    lint("import torch\n" + "\n".join(lines) + "\n")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    lint("import torch\n" + text)


def test_deep_nesting_and_recursive_helpers() -> None:
    nested = "import torch\nx = " + "(" * 150 + "1" + ")" * 150 + "\n"
    lint(nested)
    lint("import torch\nx = " + " + ".join(f"a{i}" for i in range(900)) + "\n")
    lint(
        "import torch\n\ndef f(p):\n    return f(p + '/x')\n\n\n"
        "def g(m):\n    torch.save(m.state_dict(), f('ckpt'))\n    g(m)\n"
    )
