"""Every input the fuzzer ever saved (tests/fuzz/corpus/) runs clean now; and the harness
itself sees each failure class (a planted fault of each kind is found and classified)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from .cases import Case
from .minimise import minimise, same_failure
from .outcome import CRASH, FMT, HANG, MEMORY, OK, STATUS, TRACEBACK, Outcome
from .pool import Bounds, Pool, preload
from .seeds import CORPUS

SAVED = sorted(CORPUS.glob("*/*.json"))
# as found: fito's own --timeout 1 (wall clock), and 3 s of CPU at most per case; the workers
# start with fito imported (preload), so that the deadline goes to the work, not to imports
REPLAY = Bounds(seconds=3.0, wall=90.0, memory=1536 << 20, fito_timeout="1")
KNOWN = {"engine": "engine rewrite, issue 12", "fmt": "fito fmt, its own branch (issue 14.5)"}


def _params() -> list[object]:
    out = []
    for path in SAVED:
        owner = json.loads(path.read_text("utf-8")).get("owner", "")
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[owner])] if owner in KNOWN else []
        out.append(pytest.param(path, marks=marks, id=f"{path.parent.name}/{path.stem}"))
    return out


@pytest.fixture(scope="module")
def replayed() -> dict[Path, Outcome]:
    preload()
    cases = {Case.from_json(json.loads(p.read_text("utf-8"))).key(): p for p in SAVED}
    with Pool(2, REPLAY) as pool:
        return {
            cases[c.key()]: o
            for c, o in pool.run(Case.from_json(json.loads(p.read_text("utf-8"))) for p in SAVED)
        }


@pytest.mark.parametrize("path", _params())
def test_saved_input_runs_clean(path: Path, replayed: dict[Path, Outcome]) -> None:
    got = replayed[path]
    assert not got.failed, f"{got.signature}\n{got.detail}"


# ----------------------------------------------------------------- the harness sees each class
def _planted(
    monkeypatch: pytest.MonkeyPatch,
    fault: object,
    argv: tuple[str, ...] = ("lattice", "-k", "2", "-n", "1"),
    module: str = "fito.cli.commands.lattice",
) -> Outcome:
    """Run one case in a worker forked after `module.run` was replaced by `fault`."""
    __import__(module)
    monkeypatch.setattr(sys.modules[module], "run", fault)
    # the worker is forked from this process (it must inherit the fault), so its bounds
    # are set above what this process already holds
    held, mapped = _statm()
    bounds = Bounds(
        seconds=1.0, wall=30.0, memory=held + (400 << 20), address_space=mapped + (4 << 30)
    )
    with Pool(1, bounds, fork=True) as pool:
        return next(o for _, o in pool.run([Case(argv)]))


def _statm() -> tuple[int, int]:
    """Resident and mapped bytes of this process."""
    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/statm", "rb") as fh:
        size, resident = fh.read().split()[:2]
    return int(resident) * page, int(size) * page


def _raise(args: object) -> int:
    return {}["missing"]  # type: ignore[return-value]


def _spin(args: object) -> int:
    while True:
        pass


def _grow(args: object) -> int:
    hoard = []
    while True:
        hoard.append(bytearray(1 << 20))


def _odd_status(args: object) -> int:
    return 7


def _die(args: object) -> int:
    import os

    os._exit(9)


def _bad_format(args: object) -> int:
    print("channel a\nprocess P = a -> (P")  # not the input's tree, and does not parse
    return 0


@pytest.mark.parametrize(
    "fault, kind",
    [(_raise, TRACEBACK), (_spin, HANG), (_grow, MEMORY), (_odd_status, STATUS), (_die, CRASH)],
)
def test_the_harness_classifies_each_failure(
    monkeypatch: pytest.MonkeyPatch, fault: object, kind: str
) -> None:
    got = _planted(monkeypatch, fault)
    assert got.kind == kind, got
    assert got.signature.startswith(f"{kind} lattice")
    assert got.owner == ""  # not the engine's, not fmt's
    if kind == TRACEBACK:  # the exception and the innermost fito frame (the fault is a test's)
        assert got.signature == "traceback lattice KeyError fito/cli/main.py:main"


def test_a_broken_fmt_round_trip_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    case = Case(("fmt", "{d}/spec.fito"), (("spec.fito", b"channel a\nprocess P = a -> P\n"),))
    import fito.cli.commands.fmt

    monkeypatch.setattr(fito.cli.commands.fmt, "run", _bad_format)
    held, mapped = _statm()  # forked from this process: it must inherit the broken fmt
    bounds = Bounds(seconds=5.0, memory=held + (2 << 30), address_space=mapped + (8 << 30))
    with Pool(1, bounds, fork=True) as pool:
        got = next(o for _, o in pool.run([case]))
    assert got.kind == FMT and got.owner == "fmt", got


def test_a_clean_run_is_ok() -> None:
    case = Case(("fmt", "{d}/spec.fito"), (("spec.fito", b"channel a\nprocess P  =  a -> P\n"),))
    with Pool(1, Bounds(seconds=5.0)) as pool:
        got = next(o for _, o in pool.run([case]))
    assert got.kind == OK and got.status == 0
    assert got.stdout == "channel a\nprocess P = a -> P\n"


def test_minimising_keeps_the_failure_and_drops_the_rest() -> None:
    """Greedy chunk removal on a fake runner: the case fails while its spec holds 'BUG'."""

    def run(case: Case) -> Outcome:
        text = dict(case.files)["spec.fito"]
        failing = b"BUG" in text and "--flag" in case.argv
        return Outcome(
            TRACEBACK if failing else OK, signature="traceback check X" if failing else ""
        )

    noise = b"".join(b"line %d\n" % i for i in range(200))
    case = Case(
        ("check", "{d}/spec.fito", "--format", "json", "--flag"),
        (("spec.fito", noise + b"a BUG here\n" + noise),),
    )
    small = minimise(case, run(case), run, seconds=60)
    assert dict(small.files)["spec.fito"] == b"BUG"
    assert small.argv == ("check", "--flag")
    assert same_failure(run(case), run(small))
