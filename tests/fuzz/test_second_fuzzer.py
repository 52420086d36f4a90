"""Issue 31: what a second, independent fuzzer found, one minimal case per failure class.

Each case runs the real command line through the fuzz harness's bounded workers (CPU time
and resident memory measured from outside, as in `test_fuzz_findings.py`): it must give a
diagnostic, `unknown` (exit 3) or a verdict, within its CPU bound, never a traceback, an
exit status outside {0, 1, 2, 3} or memory past the bound. A case given `--timeout T` must
end within the CPU bound although its work would take far longer without the deadline.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from fractions import Fraction

import pytest

from fito.deep import run_deep
from fito.lang.printer.fmt import format_text
from fito.models.fleet.sim import MAX_EXACT_BITS, format_number

from .cases import DIR, Case
from .extreme import SHAPES
from .outcome import Outcome
from .pool import Bounds, Pool, preload
from .seeds import ROOT
from .test_fuzz_findings import Expect, spec

BOUNDS = Bounds(
    seconds=6.0, wall=60.0, memory=1 << 30, fito_timeout="10", fito_memory="600M", override=False
)
# work that would take far longer than --timeout: answered within this much CPU time
DEADLINE_BOUNDS = replace(BOUNDS, seconds=3.0)
DEADLINE: set[str] = {
    "extreme-check-sync-chain-1000",
    "extreme-check-sliding-chain-2000",
    "simulate-1000000-jobs-exact-past-the-timeout",
    "ten-nested-replicated-choices-reading-every-binder",
    "lts-ten-nested-replicated-choices-reading-every-binder",
}
STAGGERED = (ROOT / "models" / "staggered.toml").read_bytes()
REPORT = {
    "files": [
        {
            "path": "spec.fito",
            "assertions": None,  # null where a list belongs
            "diagnostics": [],
        }
    ]
}
LONG_NAME = "x" * 300


def files(argv: str, named: dict[str, bytes], statuses: set[int], *shows: str) -> Expect:
    words = tuple(w.replace("DIR", DIR) for w in argv.split())
    return Expect(Case(words, tuple(named.items())), frozenset(statuses), shows)


CLAIMS_EXIT = b"import sys\n\nsys.exit(7)\n"
CLAIM_EXITS = (
    b"import sys\n\nfrom fito.proof import claim\n\n\n"
    b'@claim(id="demo.exit", title="exits", model="none", method="sympy")\n'
    b"def leave():\n"
    b'    """Exits with a status of its own."""\n'
    b"    sys.exit(7)\n"
)


def atomic(n: int, statement: str) -> str:
    return (
        "domain x: 0..3 = 0 volatile\nprocess P = atomic { "
        + ", ".join([statement] * n)
        + " } -> P\nsystem P\nassert :[deadlock free]\n"
    )


RENAMED = (
    "channel a, b: (0..5000)\nprocess P = a?x -> P\nprocess Q = b?x -> Q\n"
    "process S = (P [[a <- b]]) [{| b |} || {| b |}] Q\nsystem S\nassert :[deadlock free]\n"
)


def nested_choices(body: str) -> str:
    for i in range(10):
        body = f"[] v{i}: {{0..9}} @ {body}"
    return f"channel c: (0..9)\nprocess P = {body}\nsystem P\nassert :[deadlock free]\n"


NOTS = (
    "import torch\nif " + "not " * 5000 + "ok:\n    torch.save(model.state_dict(), 'm.pt')\n"
    "    torch.save(opt.state_dict(), 'o.pt')\n"
)


CASES: dict[str, Expect] = {
    # generated code: nesting and size
    "atomic-block-of-100-dependent-assignments": spec(
        "check SPEC", atomic(100, "x := (x + 1) % 4"), {0}, "holds (1 states, 1 transitions"
    ),
    "atomic-block-of-100-dependent-assignments-frontier": spec(
        "check --engine frontier SPEC",
        atomic(100, "x := (x + 1) % 4"),
        {0},
        "holds (1 states, 1 transitions",
    ),
    "atomic-block-that-doubles-its-terms": spec(
        "check --timeout 1 SPEC", atomic(40, "x := (x + x) % 4"), {1}, "S003", "split the block"
    ),
    "choice-of-5000-operands": spec(
        "check SPEC",
        "channel a\nprocess P = " + " [] ".join(["a -> P"] * 5000) + "\nsystem P\n"
        "assert :[deadlock free]\n",
        {0},
        "holds (1 states, 5,000 transitions",
    ),
    "renaming-and-alphabetised-parallel-over-5001-values": spec(
        "check SPEC", RENAMED, {0}, "holds (1 states, 5,001 transitions"
    ),
    "lts-renaming-and-alphabetised-parallel-over-5001-values": spec(
        "lts SPEC", RENAMED, {0}, "digraph"
    ),
    "ten-nested-replicated-choices": spec(
        "check --timeout 1 SPEC", nested_choices("c!v0 -> STOP"), {1}, "fails", "2 states"
    ),
    "ten-nested-replicated-choices-reading-every-binder": spec(
        "check --timeout 1 SPEC",
        nested_choices("c!((" + " + ".join(f"v{i}" for i in range(10)) + ") % 10) -> STOP"),
        {3},
        "timeout",
    ),
    "lts-ten-nested-replicated-choices-reading-every-binder": spec(
        "lts --timeout 1 SPEC",
        nested_choices("c!((" + " + ".join(f"v{i}" for i in range(10)) + ") % 10) -> STOP"),
        {3},
    ),
    "chain-of-10000-functions": spec(
        "check SPEC",
        "".join(f"fun f{i}(x: 0..1): 0..1 = f{i + 1}(x)\n" for i in range(10_000))
        + "fun f10000(x: 0..1): 0..1 = x\ndomain d: 0..1 = 0 volatile\nchannel c\n"
        "process P = c {d := f0(d)} -> P\nsystem P\nassert :[deadlock free]\n",
        {0},
        "holds (1 states, 1 transitions",
    ),
    "lts-20000-constants-each-naming-the-next": spec(
        "lts SPEC",
        "".join(f"const K{i} = K{i + 1}\n" for i in range(20_000))
        + "const K20000 = 1\nchannel c: (0..3)\nprocess P = c!K0 -> P\nsystem P\n",
        {0},
        "digraph",
    ),
    # fito lint
    "lint-5000-chained-nots": files(
        "lint --timeout 5 DIR/train.py",
        {"train.py": NOTS.encode()},
        {0, 1},
        "checked 1 file",
    ),
    "lint-20000-torch-saves": files(
        "lint --timeout 5 DIR/train.py",
        {"train.py": ("import torch\n" + "torch.save(m, 'x')\n" * 20_000).encode()},
        {0, 1},
        "checked 1 file",
    ),
    "lint-model-of-a-file-its-parse-would-not-fit": files(
        "lint --model --model-dir DIR/specs --max-memory 64M DIR/train.py",
        {"train.py": ("import torch\n" + "torch.save(m, 'x')\n" * 20_000).encode()},
        {3},
        "M003",
        "parsing",
    ),
    # found by the harness's own generators for issue 31 (tests/fuzz/extreme.py)
    **{
        f"extreme-{command.split()[0]}-{name}-{n}": spec(command, dict(SHAPES)[name](n), statuses)
        for name, n, command, statuses in (
            ("atomic-if", 2000, "check --timeout 1 SPEC", {1}),
            ("sync-chain", 1000, "check --timeout 1 SPEC", {0, 1, 3}),
            ("sync-chain", 1000, "lts --timeout 1 SPEC", {0, 3}),
            ("nested-replicated-interleaving", 1000, "check --timeout 1 SPEC", {0, 1, 3}),
            ("nested-replicated-interleaving", 5000, "lts --timeout 1 SPEC", {0, 2, 3}),
            ("interrupt-chain", 2000, "check --timeout 1 --engine frontier SPEC", {0, 1, 3}),
            ("sliding-chain", 2000, "check --timeout 1 SPEC", {0, 1, 3}),
        )
    },
    "deadlock-offering-a-process-variable": spec(
        "check SPEC",
        "channel c: (0..3)\nprocess P\n  var v: 0..3 = 1\n  = c!v -> P\n"
        "process Q = c?x: {0} -> Q\nprocess S = P [| {| c |} |] Q\nsystem S\n"
        "assert :[deadlock free]\n",
        {1},
        "each process waits",
        "c._",
    ),
    "renaming-over-channels-of-undefined-types": spec(
        "check SPEC",
        "channel a: Foo\nchannel b: Bar\nprocess P = a?x -> P\nprocess S = P [[a <- b]]\n"
        "system S\nassert :[deadlock free]\n",
        {1},
        "R001",
    ),
    "replay-a-report-whose-assertions-are-null": files(
        "replay DIR/trace.json DIR/spec.fito",
        {
            "trace.json": json.dumps(REPORT).encode(),
            "spec.fito": b"channel a\nprocess P = a -> P\nsystem P\n",
        },
        {2},
        "holds no trace",
    ),
    "replay-a-trace-nested-100000-deep": files(
        "replay DIR/trace.json DIR/spec.fito",
        {
            "trace.json": b"[" * 100_000 + b"]" * 100_000,
            "spec.fito": b"channel a\nprocess P = a -> P\nsystem P\n",
        },
        {2},
        "C001",
    ),
    "simulate-a-model-whose-name-is-too-long": files(
        f"simulate DIR/{LONG_NAME}.toml", {}, {2}, "C002", "too long"
    ),
    "simulate-1000000-jobs-exact-past-the-timeout": files(
        "simulate DIR/m.toml --jobs 1000000 --exact --timeout 0.5",
        {"m.toml": STAGGERED},
        {3},
        "M003",
    ),
    "prove-a-claims-file-that-exits-7": files(
        "prove DIR/exits.py --certificates DIR/certs", {"exits.py": CLAIMS_EXIT}, {2}, "K003"
    ),
    "prove-a-claim-that-exits-7": files(
        "prove DIR/exits.py --jobs 1 --certificates DIR/certs",
        {"exits.py": CLAIM_EXITS},
        {3},
        "SystemExit",
    ),
}


def _run(names: list[str]) -> dict[str, Outcome]:
    by_key = {CASES[n].case.key(): n for n in names}
    preload()
    out: dict[str, Outcome] = {}
    for bounds, chosen in (
        (BOUNDS, [n for n in names if n not in DEADLINE]),
        (DEADLINE_BOUNDS, [n for n in names if n in DEADLINE]),
    ):
        with Pool(2, bounds) as pool:
            out.update((by_key[c.key()], o) for c, o in pool.run([CASES[n].case for n in chosen]))
    return out


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return _run(list(CASES))


@pytest.mark.parametrize("name", list(CASES))
def test_second_fuzzer_finding(name: str, outcomes: dict[str, Outcome]) -> None:
    got, expect = outcomes[name], CASES[name]
    assert not got.failed, f"{got.signature}\n{got.detail}"
    shown = got.stdout + got.stderr
    assert got.status in expect.statuses, shown
    assert "Traceback" not in shown
    for text in expect.shows:
        assert re.search(re.escape(text), shown), shown


def test_huge_exact_times_are_printed_rounded() -> None:
    """A firing time whose digits Python refuses to print (over 4,300) is shown rounded."""
    small = Fraction(27, 2)
    assert format_number(small) == "27/2"
    huge = Fraction(3**20_000 + 1, 3**20_000)
    assert huge.denominator.bit_length() > MAX_EXACT_BITS
    assert format_number(huge) == "~1"
    assert format_number(Fraction(10**4000, 1)) == "~inf"
    assert format_number(-huge) == "~-1"


@pytest.mark.parametrize("depth", [200, 2000])
def test_fmt_output_is_within_a_constant_factor_of_deep_input(depth: int) -> None:
    """2,000 nested `if x == 0 then ... else STOP` (50 KB) were laid out in 59.8 MB: the
    indentation grew with the depth. It stops at half the width, and the output is canonical."""
    body = "STOP"
    for _ in range(depth):
        body = f"if x == 0 then {body} else STOP"
    source = f"domain x: 0..1 = 0 volatile\nchannel c\nprocess P = c -> {body}\nsystem P\n"
    out = run_deep(format_text, source).text  # as `fito fmt` runs it: a deep stack
    assert out is not None
    assert len(out) <= 8 * len(source)
    assert max(len(line) for line in out.splitlines()) <= 100 + len("then if x == 0")
    assert run_deep(format_text, out).text == out
