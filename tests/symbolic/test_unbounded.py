"""Cells of the unbounded type Int: refused by the explicit engines with M401, checked by
the symbolic engine (issue 26, point 1)."""

from __future__ import annotations

import re

from tests.helpers.check import cli, run_spec

SPEC = """type Epoch = Int
channel advance, fail
domain g: Epoch = 0 durable
domain c: Int = 0 durable
process Trainer = advance { g := g + 1 } -> Trainer
process Committer = c < g & {c := g} -> Committer
process Node = (Trainer ||| Committer) /\\ (fail -> STOP)
system Node
assert always c <= g
assert reaches c == 3
assert always g < 5
"""


def test_the_explicit_engines_refuse_an_unbounded_cell() -> None:
    for engine in ("auto", "scalar", "frontier"):
        report = run_spec(SPEC, engine=engine)
        (d,) = [d for d in report.diagnostics if d.is_error]
        assert d.code == "M401" and "--engine symbolic" in (d.hint or ""), engine
        assert d.span.line == 3
        assert {v.verdict for v in report.verdicts} == {"unknown"}


def test_the_symbolic_engine_checks_it() -> None:
    report = run_spec(SPEC, engine="symbolic")
    assert not report.diagnostics
    got = [(v.verdict, len(v.trace)) for v in report.verdicts]
    assert got == [("holds", 0), ("holds", 4), ("fails", 5)]
    assert report.verdicts[0].proof is not None and report.verdicts[0].invariant


def test_the_command_line_exit_statuses(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "u.fito"
    path.write_text(SPEC.replace("assert always g < 5\n", ""), encoding="utf-8")
    assert cli("check", str(path)).returncode == 1
    done = cli("check", "--engine", "symbolic", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "inductive invariant" in done.stdout


def test_the_certificate_is_rechecked_by_the_kernel_without_z3() -> None:
    import copy

    from fito.proof.kernel.certificate import check

    v = run_spec(SPEC, engine="symbolic").verdicts[0]
    cert = v.certificate
    assert isinstance(cert, dict)
    result = check(cert)
    assert result.accepted and not result.trusted, result.reason
    kinds = {ob["kind"] for ob in cert["obligations"]}
    assert kinds == {"linear_valid"}
    assert "trust tags: none" in v.kernel
    forged = copy.deepcopy(cert)
    ob = next(o for o in forged["obligations"] if any(any(m) for m in o["cases"]))
    ob["cases"] = [[0 for _ in case] for case in ob["cases"]]
    assert not check(forged).accepted


FROM = """type Epoch = 0..*
channel advance
domain g: Epoch = 0 durable
domain c: Epoch = 0 durable
process Trainer = advance { g := g + 1 } -> Trainer
process Committer = c < g & {c := g} -> Committer
process Undo = c > 0 & {c := c - STEP} -> Undo
system Trainer ||| Committer ||| Undo
assert always c <= g
"""


def test_a_type_bounded_below_only() -> None:
    """`0..*`: the explicit engines refuse it; below 0 is a model error (M001)."""
    (d,) = run_spec(FROM.replace("STEP", "1")).diagnostics
    assert d.code == "M401" and "0..*" in d.message
    (v,) = run_spec(FROM.replace("STEP", "1"), engine="symbolic").verdicts
    assert v.verdict == "holds" and v.invariant
    (v,) = run_spec(FROM.replace("STEP", "2"), engine="symbolic").verdicts
    assert (v.verdict, len(v.trace)) == ("fails", 3)
    assert v.error is not None and "c := -1" in v.error.message


def test_the_printer_keeps_an_open_range() -> None:
    from fito.lang.printer.canonical import print_spec
    from fito.lang.syntax.parser import parse

    spec = parse(FROM).spec
    assert spec is not None
    again = parse(print_spec(spec)).spec
    assert again == spec and "0..*" in print_spec(spec)


def test_an_invariant_that_needs_the_control_explains_it() -> None:
    text = (
        "type T = 0..3\nchannel a, b, c\ndomain x: T = 0 durable\n"
        "process P = a {x := 1} -> Q\nprocess Q = b {x := x + 1} -> R\n"
        "process R = c {x := 0} -> P\nsystem P\nassert always x <= 2\n"
    )
    (v,) = run_spec(text, engine="symbolic").verdicts
    assert v.verdict == "holds"
    legend = [line for line in v.invariant if line.startswith("-- control ")]
    named = {
        int(m)
        for line in v.invariant
        if not line.startswith("--")
        for m in re.findall(r"control [=!<>]=? (\d+)", line)
    }
    assert named, v.invariant  # x <= 2 is not inductive without the control
    explained = {int(line.split()[2].rstrip(":")) for line in legend}
    assert named <= explained, v.invariant
    assert all(" -> " in line for line in legend), v.invariant


def test_unknown_says_what_was_tried() -> None:
    """Nonlinear arithmetic: BMC finds no violation, Spacer is not run, k-induction does
    not close; `unknown` at the timeout, with each reason."""
    text = (
        "domain x: Int = 2 durable\ndomain y: Int = 3 durable\nchannel a, b\n"
        "process P = a {x := x * y} -> P [] b {y := y + x} -> P\nsystem P\n"
        "assert always x > 0\n"
    )
    (v,) = run_spec(text, engine="symbolic", timeout=2).verdicts
    assert v.verdict == "unknown" and v.limit_hit
    reason = v.reason or ""
    assert "timeout after 2 s" in reason and "no run to a bad state" in reason
    assert "nonlinear arithmetic (x * y)" in reason and "k-induction" in reason
