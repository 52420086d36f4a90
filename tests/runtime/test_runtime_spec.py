"""specs/runtime_commit.fito, model-checked: the sound writer keeps every assertion, each
broken writer fails its own (the `-- expect:` comments), and no state space is trivial."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from fito.cli import main

SPEC = Path(__file__).parents[2] / "specs" / "runtime_commit.fito"


@pytest.mark.slow
def test_runtime_commit_spec_meets_its_expectations() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["check", "--expect", str(SPEC)]) == 0, out.getvalue()
    out = io.StringIO()
    with redirect_stdout(out):
        main(["check", "--format", "json", str(SPEC)])
    assertions = json.loads(out.getvalue())["files"][0]["assertions"]
    sound = [a for a in assertions if a["verdict"] == "holds" and not a["trace"]]
    assert sound and all(a["states"] > 1000 for a in sound)
    broken = [a for a in assertions if a["verdict"] == "fails"]
    assert {a["text"].split(")")[0] for a in broken} >= {"Node(early", "Node(nofsync",
                                                          "Node(gcfirst"}
    assert all(a["trace"] for a in broken)
