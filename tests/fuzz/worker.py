"""The inside of a fuzz worker: run cases in-process, report Outcomes, never return."""

from __future__ import annotations

import faulthandler
import io
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING

from .cases import Case, materialise
from .outcome import EXPECTED_STATUSES, FMT, OK, OUTPUT_KIND, STATUS, TRACEBACK, Outcome, classify

if TYPE_CHECKING:
    from .pool import Bounds

OUTPUT = 4000  # characters of stdout and of stderr kept in an Outcome


def serve(conn: Connection, bounds: Bounds, root: Path, stacks: Path) -> None:
    """Answer cases until told to stop (None), then exit the process."""
    code = 0
    try:
        home = Path(tempfile.mkdtemp(prefix="worker-", dir=root))
        os.chdir(home)  # commands that write (prove --certificates) write here
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        resource.setrlimit(resource.RLIMIT_AS, (bounds.address_space, bounds.address_space))
        dump = open(stacks, "w")  # noqa: SIM115 - open for the life of the worker
        faulthandler.register(signal.SIGUSR1, file=dump, all_threads=True)
        from .pool import RETIRE_ABOVE, RETIRE_AFTER

        done = 0
        while True:
            case = conn.recv()
            if case is None:
                break
            outcome = run_case(case, home, bounds)
            done += 1
            retiring = done >= RETIRE_AFTER or _rss() > RETIRE_ABOVE
            conn.send((outcome, retiring))
            if retiring:
                break
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass
    except BaseException:  # noqa: BLE001 - the harness itself failed: say so, then leave
        traceback.print_exc()
        code = 70
    os._exit(code)


def _rss() -> int:
    with open("/proc/self/statm", "rb") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _Kept(io.BytesIO):
    """Bytes that stay readable when a command closes them (pygls closes stdout's buffer)."""

    def close(self) -> None:
        pass


class _Capture(io.TextIOWrapper):
    """A captured stdout or stderr with a binary `buffer` too (as the real ones have)."""

    def __init__(self) -> None:
        super().__init__(_Kept(), encoding="utf-8", errors="backslashreplace", write_through=True)

    def close(self) -> None:  # a command that closes its stdout: keep what it wrote
        self.flush()

    def getvalue(self) -> str:
        self.flush()
        return self.buffer.getvalue().decode("utf-8", "replace")  # type: ignore[attr-defined]


def run_case(case: Case, home: Path, bounds: Bounds) -> Outcome:
    """fito.cli.main on the case's argv (with the bounds), its files in a fresh directory."""
    from fito.cli.main import main

    where = Path(tempfile.mkdtemp(dir=home))
    start = time.process_time()
    out, err = _Capture(), _Capture()
    try:
        argv = bounds.argv(tuple(materialise(case, where)))
        sys.stdin = io.TextIOWrapper(io.BytesIO(case.stdin), encoding="utf-8")
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:  # --help, --version
                status = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
        seconds = time.process_time() - start
        if status not in EXPECTED_STATUSES:
            return classify(STATUS, case.command, status, err.getvalue()[-3000:], seconds=seconds)
        wrong = output_problem(case, status, out.getvalue())
        if wrong:
            return classify(OUTPUT_KIND, case.command, status, wrong, seconds=seconds)
        if case.command == "fmt" and "--check" not in case.argv:
            broken = (
                fmt_round_trip(case, out.getvalue())
                if status == 0
                else fmt_refusal(case)
                if status == 2 and "[C001 bad-usage]" not in err.getvalue()
                else ""
            )
            if broken:
                return classify(FMT, case.command, status, broken, seconds=seconds)
        return replace(
            classify(OK, case.command, status, "", seconds=seconds),
            stdout=out.getvalue()[:OUTPUT],
            stderr=err.getvalue()[:OUTPUT],
        )
    except BaseException as exc:  # noqa: BLE001 - what the fuzzer looks for
        return classify(
            TRACEBACK,
            case.command,
            None,
            traceback.format_exc(),
            exc_type=type(exc).__name__,
            seconds=time.process_time() - start,
        )
    finally:
        sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
        shutil.rmtree(where, ignore_errors=True)


def output_problem(case: Case, status: int, stdout: str) -> str:
    """What is wrong with what the command printed ('' if nothing): with --format json or
    sarif, stdout is one strict JSON document (no NaN, no Infinity) whenever it is not empty."""
    import json

    formats = [b for a, b in zip(case.argv, case.argv[1:]) if a == "--format"]
    if "--expect" in case.argv:  # `check --expect` prints its own comparison, as text
        return ""
    if (
        not formats
        or formats[-1] not in ("json", "sarif")
        or not stdout.strip()
        or status == 2
        and not stdout.lstrip().startswith(("{", "["))
    ):
        return ""

    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    try:
        json.loads(stdout, parse_constant=refuse)
    except ValueError as exc:
        return (
            f"--format {formats[-1]} printed something that is not JSON: {exc}\n"
            f"--- stdout\n{stdout[:3000]}"
        )
    return ""


def fmt_refusal(case: Case) -> str:
    """`fito fmt` exits 2 (past its command line) only on a file that does not parse or
    cannot be read."""
    from fito.deep import run_deep
    from fito.lang.syntax.parser import parse

    specs = [data for name, data in case.files if name.endswith(".fito")]
    if len(specs) != 1 or sum(a.endswith(".fito") for a in case.argv) != 1:
        return ""
    try:
        source = specs[0].decode("utf-8")
    except UnicodeDecodeError:
        return ""
    parsed = run_deep(parse, source.removeprefix("\ufeff"))
    if (
        parsed.spec is None
        or any(d.is_error for d in parsed.diagnostics)
        or not parsed.spec.decls
        or any(ord(c) < 32 and c not in "\t\n\r\f" or c == "\x7f" for c in source)
    ):
        return ""
    return "fito fmt refused (exit 2) a file that parses"


def _errors(parsed: object) -> list[tuple[str, str]]:
    """The errors of a parse, without their places (fmt moves text, not meaning)."""
    return [(d.code, d.message) for d in parsed.diagnostics if d.is_error]  # type: ignore[attr-defined]


def fmt_round_trip(case: Case, output: str) -> str:
    """What is wrong with `fito fmt`'s output for the case's one spec file ('' if nothing):
    it must parse to the same tree as the input, and be its own canonical form."""
    from fito.deep import run_deep
    from fito.lang.printer.fmt import format_text
    from fito.lang.syntax.parser import parse

    specs = [data for name, data in case.files if name.endswith(".fito")]
    if len(specs) != 1 or sum(a.endswith(".fito") for a in case.argv) != 1:
        return ""
    source = specs[0].decode("utf-8", "replace").removeprefix("\ufeff")

    def judge() -> str:
        before, after = parse(source), parse(output)
        new = sorted(set(_errors(after)) - set(_errors(before)))
        if after.spec is None or new:  # fmt keeps a declaration with an error as written
            first = new[0][1] if new else "?"
            return f"the output does not parse: {first}\n--- output\n{output}"
        if before.spec != after.spec:
            return f"the output parses to another tree\n--- output\n{output}"
        again = format_text(output).text
        if again != output:
            return (
                f"fmt of the output differs from the output\n--- output\n{output}\n"
                f"--- again\n{again}"
            )
        return ""

    return run_deep(judge)


__all__ = ["serve", "run_case", "OK"]
