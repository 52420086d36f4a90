"""Helpers for the FITO type checker's tests: check a spec text, pick diagnostics by code."""

from __future__ import annotations

import pathlib
import sys
from collections.abc import Sequence

from fito.diagnostics import Diagnostic
from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import parse
from fito.types import EpochOracle, check_pipelines

DATA = pathlib.Path(__file__).parent / "data"
SHARED = pathlib.Path("/work/shared")
DOMAINS = "type Dom = {gpu, host, nvme}\n"


def type_check(
    text: str, oracle: EpochOracle | None = None, with_resolver: bool = False
) -> list[Diagnostic]:
    """The pipeline diagnostics of a spec text (plus the resolver's when asked)."""
    parsed = parse(text)
    assert parsed.spec is not None, parsed.diagnostics
    model, resolve_diags = resolve(parsed.spec)
    out = check_pipelines(model, oracle=oracle)
    return (list(resolve_diags) + out) if with_resolver else out


def pipeline(body: str, header: str = DOMAINS, name: str = "p") -> str:
    """A spec with the header and one pipeline whose statements are the lines of body."""
    lines = "\n".join("  " + line.strip() for line in body.strip().splitlines())
    return f"{header}pipeline {name} {{\n{lines}\n}}\n"


def codes(diags: Sequence[Diagnostic]) -> list[str]:
    return sorted(d.code for d in diags)


def only(diags: Sequence[Diagnostic], code: str) -> Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in diags]
    return found[0]


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of text containing needle."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in text")


def column_of(text: str, needle: str, within: str) -> int:
    """The 1-based column of needle after `within`, on the first line containing `within`."""
    line = text.splitlines()[line_of(text, within) - 1]
    return line.index(needle, line.index(within) + len(within)) + 1


def fito_cmd() -> list[str]:
    return [sys.executable, "-m", "fito"]


# ---------------------------------------------------------------------------- independent checks
def evaluate(e: object, env: dict[str, int]) -> int | bool:
    """A require expression's value under an assignment: a plain evaluator of the AST,
    written independently of the checker's canonical forms (Python's // and %, as LANGUAGE.md)."""
    from fito.lang import nodes as A

    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.BoolLit):
        return e.value
    if isinstance(e, A.Name):
        return env[e.id]
    if isinstance(e, A.Unary):
        v = evaluate(e.operand, env)
        return -v if e.op == "-" else not v
    if isinstance(e, A.IfExpr):
        return evaluate(e.then, env) if evaluate(e.cond, env) else evaluate(e.orelse, env)
    if isinstance(e, A.Call):
        a, b = (evaluate(x, env) for x in e.args)
        return min(a, b) if e.func == "min" else max(a, b)
    assert isinstance(e, A.Binary), e
    a, b = evaluate(e.left, env), evaluate(e.right, env)
    ops = {
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "/": lambda: a // b,
        "%": lambda: a % b,
        "==": lambda: a == b,
        "!=": lambda: a != b,
        "<": lambda: a < b,
        "<=": lambda: a <= b,
        ">": lambda: a > b,
        ">=": lambda: a >= b,
        "and": lambda: a and b,
        "or": lambda: a or b,
        "=>": lambda: (not a) or b,
    }
    return ops[e.op]()


def requires_of(text: str, pipeline_name: str) -> list[object]:
    """The require expressions of one pipeline of a spec text."""
    from fito.lang import nodes as A

    spec = parse(text).spec
    assert spec is not None
    p = next(d for d in spec.decls if isinstance(d, A.PipelineDecl) and d.name == pipeline_name)
    return [s.expr for s in p.stmts if isinstance(s, A.RequireStmt)]


def witness_of(d: Diagnostic) -> dict[str, int]:
    """The Z3 counterexample a FITO002 diagnostic shows in its notes."""
    import re

    for note in d.notes:
        m = re.match(r"counterexample from Z3: (.*)$", note)
        if m:
            pairs = (p.split(" = ") for p in m.group(1).split(", "))
            return {k: int(v) for k, v in pairs}
    raise AssertionError(f"no counterexample in {d.notes}")
