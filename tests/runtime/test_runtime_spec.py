"""specs/runtime_commit.fito, model-checked: the sound protocol across ranks keeps every
assertion, each broken one fails its own (the `-- expect:` comments), and no state space is
trivial."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from fito.cli.main import main

SPEC = Path(__file__).parents[2] / "specs" / "runtime_commit.fito"


@pytest.mark.slow
def test_runtime_commit_spec_meets_its_expectations() -> None:
    expected = {
        n: m.group(1)
        for n, line in enumerate(SPEC.read_text().splitlines(), 1)
        if (m := re.search(r"-- expect: (holds|fails)\s*$", line))
    }
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["check", "--format", "json", str(SPEC)])
    report = json.loads(out.getvalue())["files"][0]
    assert status == 1 and report["diagnostics"] == []
    got = {a["line"]: a["verdict"] for a in report["assertions"]}
    assert got == expected
    sound = [a for a in report["assertions"] if a["verdict"] == "holds" and not a["trace"]]
    assert len(sound) == 7 and all(a["states"] > 1000 for a in sound)
    broken = {a["text"].split(")")[0] for a in report["assertions"] if a["verdict"] == "fails"}
    assert broken == {"Node(early", "Node(nofsync", "Node(eager", "Node(gcfirst", "Node(local"}
