"""Claims reach the model checker through its public API only (fito.check.verdicts): the claims
files and the models' engines import nothing else of fito.check or fito.semantics (the
whole state graph, which the bilateral counts walk, is fito.pipeline.state_graph)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the verdicts and their values; the options are fito.CheckOptions
PUBLIC = {"fito.check.verdicts", "fito.check.result", "fito.check.options"}


def checker_imports(path: Path) -> set[str]:
    """Modules of fito.check and fito.semantics the file imports (at any depth)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        found |= {n for n in names if n.startswith(("fito.check", "fito.semantics"))}
    return found


def test_claims_and_engines_use_the_checkers_public_api():
    files = sorted([*ROOT.glob("proofs/*.py"), *ROOT.glob("fito/models/**/*.py")])
    private = {str(f.relative_to(ROOT)): sorted(checker_imports(f) - PUBLIC) for f in files}
    private = {f: mods for f, mods in private.items() if mods}
    assert private == {}
