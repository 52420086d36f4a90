"""The fuzzer's findings (docs/fuzzing.md), one minimal case each: a diagnostic, `unknown`
(exit 3) or a verdict, never a traceback, a hang or a machine out of memory.

Every case runs through the fuzzer's bounded workers (CPU time, resident memory), all of them
at once on two workers. Costs that must be linear in a range or a chain run on a tighter CPU
bound.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction

import pytest

from .cases import DIR, Case
from .outcome import Outcome
from .pool import Bounds, Pool, preload
from .seeds import ROOT

BOUNDS = Bounds(
    seconds=5.0, wall=60.0, memory=1 << 30, fito_timeout="10", fito_memory="400M", override=False
)
# costs that grow with a range or a chain: linear, so answered within this much CPU time
LINEAR_BOUNDS = replace(BOUNDS, seconds=3.0)
LINEAR = {
    "quantifier-over-250-values-in-a-guard",
    "replicated-choice-is-linear",
    "long-choice-is-linear",
    "lts-long-prefix-chain-is-linear",
    "parallel-recursion-memory",
}
PAIR = (ROOT / "models" / "pair_storage.toml").read_bytes()
FIFO_WAIT = ("--timeout", "0.5")  # a FIFO nobody writes is refused at the deadline


@dataclass(frozen=True)
class Expect:
    """A case and what it must give: an exit status among `statuses`, these texts shown."""

    case: Case
    statuses: frozenset[int]
    shows: tuple[str, ...] = ()
    marks: tuple[object, ...] = field(default=())


def spec(argv: str, text: str, statuses: set[int], *shows: str, marks: tuple = ()) -> Expect:
    words = [w.replace("SPEC", f"{DIR}/spec.fito") for w in argv.split()]
    return Expect(
        Case(tuple(words), (("spec.fito", text.encode()),)), frozenset(statuses), shows, marks
    )


def model(argv: list[str], statuses: set[int], *shows: str, text: bytes = PAIR) -> Expect:
    words = [w.replace("MODEL", f"{DIR}/model.toml") for w in argv]
    return Expect(Case(tuple(words), (("model.toml", text),)), frozenset(statuses), shows)


def _pair_with(old: str, new: str) -> bytes:
    text = PAIR.decode()
    assert old in text
    return text.replace(old, new).encode()


# deep enough to overflow Python's default stack in the compiler (1,000 frames)
CHAIN = "channel a\nprocess P = " + "a -> " * 1000 + "STOP\nsystem P\n"
DEEP_IF = (
    "channel a\ndomain v: 0..1 = 0 volatile\nprocess P = "
    + "if v == 0 then a -> " * 500
    + "STOP"
    + " else STOP" * 500
    + "\nsystem P\n"
)
CHOICE = (
    "channel a\nprocess P = "
    + " [] ".join(["a -> P"] * 200)
    + "\nsystem P\nassert :[deadlock free]\n"
)
# P(atomic) of the random-crash model at k = 3, r = 10000: prod_i i / (i + r) = k! r! / (k + r)!
RANDOM_CRASH = Fraction(math.factorial(3) * math.factorial(10000), math.factorial(10003))

CASES: dict[str, Expect] = {
    # the front end
    "duplicate-enumeration-type": spec(
        "check SPEC",
        "type Dom = {gpu}\ntype Dom = {gpu, nvme}\nchannel a\nprocess P = a -> P\n"
        "system P\nassert P :[deadlock free]\n",
        {1},
        "R002",
    ),
    "duplicate-enumeration-type-types": spec(
        "types SPEC", "type Dom = {gpu}\ntype Dom = {gpu, nvme}\n", {1}, "R002"
    ),
    "system-argument-divides-by-zero": spec(
        "check SPEC",
        "channel a\nprocess P(n: 0..3) = a -> P(n)\nsystem P(1 / 0)\nassert :[deadlock free]\n",
        {1},
        "T009",
    ),
    "nested-quantifiers-in-a-constant": spec(
        "check SPEC",
        "type T = 0..1000\nconst N = forall a: T @ forall b: T @ forall c: T @ "
        "a + b + c >= 0\nchannel x\nprocess P = x -> P\nsystem P\n",
        {1},
        "S004",
        "0..1000",
    ),
    "nested-quantifiers-in-an-assertion": spec(
        "check SPEC",
        "type T = 0..1000\nchannel x\nprocess P = x -> P\nsystem P\nassert P |= "
        "always forall a: T @ forall b: T @ forall c: T @ a + b + c >= 0\n",
        {1},
        "S004",
    ),
    "repeated-squaring": spec(
        "check SPEC",
        "const A = 99999999\n"
        + "".join(
            f"const A{i} = {p} * {p} * {p} * {p}\n"
            for i, p in enumerate(["A"] + [f"A{j}" for j in range(11)])
        )
        + "channel x\nprocess P = x -> P\n"
        "system P\n",
        {1},
        "T009",
        "bits",
    ),
    "input-over-a-huge-channel-type": spec(
        "check SPEC",
        "type T = 0..1000000000\nchannel c: T\nprocess P = c?x -> P\nsystem P\n"
        "assert P :[deadlock free]\n",
        {1},
        "S004",
        "0..1000000000",
    ),
    "replicated-over-a-huge-type": spec(
        "check SPEC",
        "type T = 0..10000000\nchannel c: T\nprocess P = [] v: T @ c.v -> P\nsystem P\n",
        {1},
        "S004",
        "0..10000000",
    ),
    "front-end-deadline": spec(
        "check --timeout 0.2 SPEC",
        "domain r[i: 0..999][j: 0..999]: Bool = i == j volatile\n",
        {3},
        "M003",
        "timeout",
    ),
    "front-end-memory": spec(
        "check --max-memory 1M SPEC", "const N = 1\n", {3}, "M003", "memory limit"
    ),
    "types-deadline": spec(
        "types --timeout 0.2 SPEC",
        "domain r[i: 0..999][j: 0..999]: Bool = i == j volatile\n",
        {3},
        "M003",
    ),
    "lts-long-prefix-chain": spec("lts SPEC", CHAIN, {0}, 'digraph "system"'),
    "lts-deep-if": spec("lts SPEC", DEEP_IF, {0}, 'digraph "system"'),
    # the model checker's engine
    "primed-cell-name": spec(
        "check SPEC",
        "domain x': 0..2 = 0 volatile\nchannel a\nprocess P = x' < 2 & a "
        "{ x' := x' + 1 } -> P\nsystem P\nassert P |= always x' <= 2\n",
        {0},
        "holds",
    ),
    "primed-cell-name-out-of-range": spec(
        "check SPEC",
        "domain x': 0..2 = 0 volatile\nchannel a\nprocess P = a { x' := x' + 1 }"
        " -> P\nsystem P\nassert P |= always x' <= 2\n",
        {1},
        "M001",
        "x' := 3",
    ),
    "call-argument-divides-by-zero": spec(
        "check SPEC",
        "channel a\nprocess P(n: 0..3) = a -> P(n / 0)\nsystem P(1)\nassert :[deadlock free]\n",
        {1},
        "M002",
        "counterexample",
    ),
    "quantifier-over-250-values-in-a-guard": spec(
        "check SPEC",
        "channel a\ndomain y: 0..3 = 0 volatile\nprocess P = (exists i: {0..250} "
        "@ i == y) & a -> P\nsystem P\nassert P :[deadlock free]\n",
        {0},
        "holds",
    ),
    "replicated-choice-is-linear": spec(
        "check SPEC",
        "type T = 0..1000\nchannel c: T\nprocess P = [] v: T @ c.v -> P\n"
        "system P\nassert P :[deadlock free]\n",
        {0},
        "holds",
        "1,001 transitions",
    ),
    "long-choice-is-linear": spec("check SPEC", CHOICE, {0}, "holds", "200 transitions"),
    "lts-long-prefix-chain-is-linear": spec(
        "lts --max-states 4000 SPEC",
        CHAIN.replace("a -> " * 1000, "a -> " * 3000),
        {0},
        'digraph "system"',
    ),
    "parallel-recursion-memory": spec(
        "check --max-memory 200M SPEC",
        "channel c\nprocess P = c -> (P [| {| c |} |] P)\nsystem P\nassert P :[deadlock free]\n",
        {3},
        "unknown",
        "keeps growing",
    ),
    "argument-out-of-range-from-a-cell": spec(
        "check SPEC",
        "channel a\ndomain v: 0..2 = 0 volatile\nprocess Q(y: 1..2) = a -> Q(y)\n"
        "system Q(v)\nassert :[deadlock free]\n",
        {1},
        "M001",
        "fails",
    ),
    "argument-out-of-range-by-recursion": spec(
        "check SPEC",
        "channel a\nprocess P(x: 1..2) = a -> P(x - 1)\nsystem P(2)\nassert :[deadlock free]\n",
        {1},
        "M001",
        "counterexample",
    ),
    "argument-out-of-range-in-a-branch-not-taken": spec(
        "check SPEC",
        "channel a\ndomain v: 0..2 = 0 volatile\nprocess P(x: 0..2) = "
        "a { v := x } -> (if v < 2 then P(v + 1) else STOP)\nsystem P(0)\n"
        "assert P(0) |= always v <= 2\n",
        {0},
        "holds",
    ),
    # reading
    "fifo-spec": Expect(
        Case(("check", f"{DIR}/fifo.fito", *FIFO_WAIT), fifos=("fifo.fito",)),
        frozenset({2}),
        ("C002", "not a regular file"),
    ),
    "fifo-types": Expect(
        Case(("types", f"{DIR}/fifo.fito", *FIFO_WAIT), fifos=("fifo.fito",)),
        frozenset({2}),
        ("C002",),
    ),
    "fifo-lts": Expect(
        Case(("lts", f"{DIR}/fifo.fito", *FIFO_WAIT), fifos=("fifo.fito",)),
        frozenset({2}),
        ("C002",),
    ),
    # fito lattice
    "lattice-rate-ratio-not-rational": Expect(
        Case(("lattice", "-k", "3", "-n", "2", "--rate-ratio", "10000")),
        frozenset({0}),
        (f"P(atomic) = gamma(k + 1)*gamma(r + 1)/gamma(k + r + 1) = {RANDOM_CRASH}",),
    ),
    **{
        f"lattice-{i}": Expect(Case(("lattice", *flags.split())), frozenset(ok), shows)
        for i, (flags, ok, shows) in enumerate(
            [
                ("-k 3 -n 2 --rate-ratio 1e100", {2}, ("--rate-ratio",)),
                ("-k 3 -n 2 --rate-ratio 1e400", {2}, ("--rate-ratio",)),
                ("-k 3 -n 10001", {0}, ()),
                ("-k 3 -n 99999999999999999999", {2}, ("--epochs",)),
                ("-k 2001 -n 3", {0}, ()),
                ("-k 10000 -n 999999999999999999", {0}, ()),
                ("-k 3 -n 2 --mu-tau 1e-5000", {2}, ("--mu-tau",)),
                ("-k 10000 -n 5 --rate-ratio 1e-29", {0}, ()),
            ]
        )
    },
    # the fleet engines
    **{
        f"simulate-flag-{i}": model(["simulate", "MODEL", *flags], {1, 2}, "S101")
        for i, flags in enumerate(
            [
                ["--param", "B=1/0"],
                ["--volume", "2^1000000"],
                ["--capacity", "sqrt(-1)"],
                ["--capacity", "log(0)"],
                ["--throughput=-inf"],
                ["--work", "exp(1000)"],
                ["--work", "1e400"],
            ]
        )
    },
    **{
        f"model-{i}": model([command, "MODEL"] + extra, {1, 2}, code, text=_pair_with(old, new))
        for i, (command, extra, old, new, code) in enumerate(
            [
                ("simulate", [], "work = 10 ", 'work = "1/0" ', "S101"),
                ("simulate", [], "work = 10 ", 'work = "exp(1000)" ', "S101"),
                ("returnmap", ["--branch", "overlapping"], "work = 10 ", 'work = "1/0" ', "S101"),
                ("simulate", [], "values = [10, 9]", "values = 10", "S101"),
                ("simulate", [], 'throughput = "B"', 'throughput = "-inf"', "S101"),
            ]
        )
    },
    "simulate-float-phases": model(["simulate", "MODEL", "--phases", "0.5,0.25"], {0}),
    "simulate-deadline": model(
        ["simulate", "MODEL", "--cycles", "99999999999999999999", "--timeout", "0.5"], {3}, "M003"
    ),
    "returnmap-deadline": model(
        ["returnmap", "MODEL", "--branch", "all", "--timeout", "0.3"],
        {3},
        "M003",
        text=(ROOT / "models" / "staggered.toml").read_bytes(),
    ),
}


# the cases that cost more than a second of CPU each: run with the slow tests
SLOW = {
    "lattice-4",
    "lattice-rate-ratio-not-rational",
    "lts-long-prefix-chain-is-linear",
    "lts-long-prefix-chain",
    "lts-deep-if",
}


# SymPy's exact work on extreme lattice flags: seconds of CPU in a cold worker (a fresh
# interpreter when the test process has grown), bounded all the same
SYMBOLIC = {"lattice-4", "lattice-rate-ratio-not-rational"}
SYMBOLIC_BOUNDS = replace(BOUNDS, seconds=20.0)


def _bounds(name: str) -> Bounds:
    if name in LINEAR:
        return LINEAR_BOUNDS
    return SYMBOLIC_BOUNDS if name in SYMBOLIC else BOUNDS


def _run(names: list[str]) -> dict[str, Outcome]:
    """These cases on two bounded workers; the costs that must be linear on a tighter bound."""
    by_key = {CASES[n].case.key(): n for n in names}
    preload()
    out: dict[str, Outcome] = {}
    for bounds in (BOUNDS, LINEAR_BOUNDS, SYMBOLIC_BOUNDS):
        cases = [CASES[n].case for n in names if _bounds(n) is bounds]
        with Pool(2, bounds) as pool:
            out.update((by_key[c.key()], o) for c, o in pool.run(cases))
    return out


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return _run([n for n in CASES if n not in SLOW])


@pytest.fixture(scope="module")
def slow_outcomes() -> dict[str, Outcome]:
    return _run(sorted(SLOW))


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=e.marks + ((pytest.mark.slow,) if n in SLOW else ()))
        for n, e in CASES.items()
    ],
)
def test_fuzz_finding(name: str, request: pytest.FixtureRequest) -> None:
    got = request.getfixturevalue("slow_outcomes" if name in SLOW else "outcomes")[name]
    expect = CASES[name]
    assert not got.failed, f"{got.signature}\n{got.detail}"
    shown = got.stdout + got.stderr
    assert got.status in expect.statuses, shown
    assert "Traceback" not in shown
    for text in expect.shows:
        assert re.search(re.escape(text), shown), shown
