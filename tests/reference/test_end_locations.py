"""Valid end locations (issue 32, point 2): `end P` makes the start of P a place where a
component may wait for ever without a deadlock, as Promela's `end:` labels do; anywhere else
a wait is still a deadlock. Both engines, the symbolic engine and the reference interpreter
agree; the state counts are those of the spec without the declaration."""

from __future__ import annotations

import pytest

from fito.check.options import CheckOptions
from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import parse
from fito.pipeline import check_source
from fito.reference.interpreter import check
from fito.source import Source

GO_BACK = """
channel msg: (0..2)
channel ack
process Sender(n: 0..2) = if n < 2 then msg!n -> ack -> Sender(n + 1) else SKIP
process Receiver = msg?x -> ack -> Receiver
process Net = Sender(0) [| {| msg, ack |} |] Receiver
assert Net :[deadlock free]
"""


def figures(text: str, engines: tuple[str, ...] = ("scalar", "frontier")) -> list[tuple]:
    parsed = parse(text)
    assert parsed.spec is not None, parsed.diagnostics
    model, diags = resolve(parsed.spec)
    assert not [d for d in diags if d.is_error], diags
    ref = [
        (r.verdict, r.states, r.trace_length) for r in (check(model, a) for a in model.assertions)
    ]
    for engine in engines:
        report = check_source(Source("t.fito", text), CheckOptions(engine=engine))
        got = [(v.verdict, v.states, len(v.trace)) for v in report.verdicts]
        assert got == ref, engine
    return ref


def test_a_receiver_that_waits_at_its_start_is_no_deadlock() -> None:
    # the sender sends 0 and 1 (4 steps) and terminates; the receiver waits for a third
    (without,) = figures(GO_BACK)
    assert without == ("fails", 6, 5)  # 2 x (msg, ack) + the sender's termination
    (marked,) = figures(GO_BACK + "end Receiver\n")
    assert marked == ("holds", 6, 0)
    symbolic = check_source(
        Source("t.fito", GO_BACK + "end Receiver\n"), CheckOptions(engine="symbolic")
    )
    assert [v.verdict for v in symbolic.verdicts] == ["holds"]


def test_a_wait_elsewhere_is_still_a_deadlock() -> None:
    text = GO_BACK.replace("msg!n -> ack -> Sender(n + 1)", "msg!n -> Sender(n + 1)")
    # the receiver waits for `ack`, in the middle of its loop: not its start
    (got,) = figures(text + "end Receiver\n")
    assert got[0] == "fails"
    (also,) = figures(text)
    assert got == also


def test_a_choice_at_the_start_and_a_state_with_everybody_at_an_end() -> None:
    text = (
        "channel a, b\n"
        "process Server = a -> Server [] b -> Server\n"
        "process Client = a -> b -> STOP\n"
        "process Sys = Server [| {| a, b |} |] Client\n"
        "assert Sys :[deadlock free]\n"
    )
    (got,) = figures(text + "end Server\n")
    assert got[0] == "fails"  # the client's STOP is no valid end
    (got,) = figures(
        text.replace("b -> STOP", "b -> Client2\nprocess Client2 = a -> Client2")
        + "end Server, Client2\n"
    )
    assert got[0] == "holds"


@pytest.mark.parametrize("decl, code", [("end Nobody", "R001"), ("channel c\nend c", "R004")])
def test_end_names_processes(decl: str, code: str) -> None:
    parsed = parse(GO_BACK + decl + "\n")
    assert parsed.spec is not None
    _, diags = resolve(parsed.spec)
    assert [d.code for d in diags if d.is_error] == [code]


def test_fmt_keeps_the_declaration() -> None:
    from fito.lang.printer.fmt import format_text

    out = format_text(GO_BACK + "end Receiver, Net\n").text
    assert out.rstrip().endswith("end Receiver, Net")
