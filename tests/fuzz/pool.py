"""Forked, reused workers that run cases in-process under a wall-clock and a memory bound.

The parent imports fito (and its heavy dependencies) once and forks workers that inherit
them warm. A worker runs `fito.cli.main(argv)` with stdout and stderr captured, in a
directory of its own, and reports an `Outcome`. The parent watches each running case: past
the wall-clock bound, or above the memory bound (resident set size, read from /proc), it
asks the worker for the stacks of its threads (faulthandler on SIGUSR1), kills it and starts
another. A worker also has an address-space limit (RLIMIT_AS) as a last resort, and retires
itself when its memory has grown.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Pipe, wait
from pathlib import Path

from .cases import Case
from .outcome import CRASH, HANG, MEMORY, Outcome, busiest_thread, classify

_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICK = os.sysconf("SC_CLK_TCK")
RETIRE_AFTER = 400  # cases per worker
RETIRE_ABOVE = 700 << 20  # bytes of resident memory after a case


@dataclass(frozen=True, slots=True)
class Bounds:
    """The harness's bounds per case, and the bounds it asks of fito (appended to argv)."""

    seconds: float = 10.0  # CPU time per case (the machine may be busy: not wall time)
    wall: float = 60.0  # wall clock per case (a case blocked, not computing)
    memory: int = 2 << 30  # resident bytes per case
    address_space: int = 8 << 30  # RLIMIT_AS of a worker (a last resort)
    fito_timeout: str = "1"  # --timeout given to every command
    fito_memory: str = "1G"  # --max-memory given to every command
    fito_states: str = "200000"  # --max-states given to `check`
    override: bool = True  # append the flags even where the case gives its own

    def argv(self, argv: tuple[str, ...]) -> list[str]:
        """argv with the bounds appended (last wins), for a command that takes them."""
        from fito.cli.main import COMMANDS

        if not argv or argv[0] not in COMMANDS or "--help" in argv or "-h" in argv:
            return list(argv)
        flags = [("--timeout", self.fito_timeout), ("--max-memory", self.fito_memory)]
        if argv[0] == "check":
            flags.append(("--max-states", self.fito_states))
        extra = [
            x for flag, value in flags if self.override or flag not in argv for x in (flag, value)
        ]
        return list(argv) + extra


def preload() -> None:
    """Import what the commands import, so that forked workers start with it (cheap: no
    command is run)."""
    import fito.check.lts  # noqa: F401
    import fito.check.verdicts  # noqa: F401
    import fito.cli.fleet_args  # noqa: F401
    import fito.cli.main
    import fito.lang.printer.fmt  # noqa: F401
    import fito.models.fleet.sim  # noqa: F401
    import fito.proof.kernel  # noqa: F401
    import fito.runtime  # noqa: F401
    import fito.types  # noqa: F401
    from fito.lang.syntax.parser import machinery

    machinery()
    fito.cli.main.build_parser()


def warm_up() -> None:
    """Run each kind of command once in the parent, so that workers inherit the imports and
    the caches (the grammar's tables, SymPy's derivations, Z3) warm."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from fito.cli.main import main

    from .seeds import ROOT

    preload()
    model, spec = str(ROOT / "models" / "pair_storage.toml"), str(ROOT / "specs")
    for argv in (
        ["check", f"{spec}/checkpoint_naive.fito"],
        ["types", f"{spec}/pipelines.fito"],
        ["fmt", f"{spec}/checkpoint_naive.fito"],
        ["lattice", "-k", "3", "-n", "2"],
        ["simulate", model],
        ["returnmap", model, "--branch", "overlapping"],
    ):
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            main(argv)


FORK_BELOW = 300 << 20  # a parent holding more memory starts fresh interpreters


def _rss_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _exec_worker(fd: int, bounds: Bounds, root: Path, stacks: Path) -> None:
    """Replace the forked child by a fresh interpreter that preloads fito and serves cases on
    the inherited pipe `fd`: a parent that has grown (pytest after the rest of the suite,
    PyTorch loaded) would otherwise hand every worker its own resident memory, and the
    memory bounds of a case would measure the parent."""
    import base64
    import pickle
    import sys

    package = __name__.rsplit(".", 1)[0]
    code = (
        "import base64, pickle, sys\n"
        "from multiprocessing.connection import Connection\n"
        "from pathlib import Path\n"
        f"sys.path[:0] = {sys.path!r}\n"
        f"from {package}.pool import preload\n"
        f"from {package}.worker import serve\n"
        "preload()\n"
        "serve(Connection(int(sys.argv[1])), pickle.loads(base64.b64decode(sys.argv[2])), "
        "Path(sys.argv[3]), Path(sys.argv[4]))\n"
    )
    blob = base64.b64encode(pickle.dumps(bounds)).decode()
    try:
        os.execv(
            sys.executable, [sys.executable, "-c", code, str(fd), blob, str(root), str(stacks)]
        )
    finally:
        os._exit(70)


class _Worker:
    def __init__(self, bounds: Bounds, root: Path, fork: bool = False) -> None:
        self.conn, child = Pipe()
        self.stacks = Path(tempfile.mkstemp(prefix="stacks-", dir=root)[1])
        fresh = not fork and _rss_of(os.getpid()) > FORK_BELOW
        if fresh:
            os.set_inheritable(child.fileno(), True)
        self.pid = os.fork()
        if self.pid == 0:  # the child never returns
            self.conn.close()
            if fresh:
                _exec_worker(child.fileno(), bounds, root, self.stacks)
            from .worker import serve

            serve(child, bounds, root, self.stacks)
        child.close()
        self.case: Case | None = None
        self.started = self.cpu0 = 0.0

    def rss(self) -> int:
        return _rss_of(self.pid)

    def cpu(self) -> float:
        """CPU seconds the worker has used (user and system, every thread)."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / _TICK
        except (OSError, ValueError, IndexError):
            return 0.0

    def kill(self, dump: bool) -> str:
        """Kill the worker; with dump, the stacks of its threads just before."""
        text = ""
        if dump:
            try:
                os.kill(self.pid, signal.SIGUSR1)
                time.sleep(0.3)
                text = self.stacks.read_text(errors="replace")
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        self.reap()
        return text

    def reap(self) -> int:
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            status = 0
        self.conn.close()
        self.stacks.unlink(missing_ok=True)
        return status


class Pool:
    """`jobs` workers; `run(cases)` yields (case, outcome) as cases finish (in any order)."""

    def __init__(self, jobs: int, bounds: Bounds, fork: bool = False) -> None:
        """fork: workers are always forked from this process, never fresh interpreters
        (for a worker that must inherit a change made in the parent)."""
        self.jobs, self.bounds, self.fork = max(1, jobs), bounds, fork
        self._tmp = tempfile.TemporaryDirectory(prefix="fito-fuzz-")
        self.root = Path(self._tmp.name)
        self.workers: list[_Worker] = []

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for w in self.workers:
            try:
                w.conn.send(None)
            except OSError:
                pass
            w.kill(dump=False)
        self.workers.clear()
        self._tmp.cleanup()

    def run(self, cases: Iterable[Case]) -> Iterator[tuple[Case, Outcome]]:
        pending = iter(cases)
        exhausted = False
        while self.workers or not exhausted:
            while not exhausted and len(self.workers) < self.jobs:
                self.workers.append(_Worker(self.bounds, self.root, self.fork))
            for w in self.workers:
                if w.case is None and not exhausted:
                    case = next(pending, None)
                    if case is None:
                        exhausted = True
                        break
                    w.case, w.started, w.cpu0 = case, time.monotonic(), w.cpu()
                    w.conn.send(case)
            busy = [w for w in self.workers if w.case is not None]
            if not busy:
                if exhausted:
                    for w in list(self.workers):
                        w.conn.send(None)
                        w.reap()
                    self.workers.clear()
                continue
            ready = wait([w.conn for w in busy], timeout=0.05)
            for w in busy:
                done = self._collect(w, w.conn in ready)
                if done is not None:
                    yield done

    def _collect(self, w: _Worker, ready: bool) -> tuple[Case, Outcome] | None:
        case = w.case
        assert case is not None
        elapsed = time.monotonic() - w.started
        if ready:
            try:
                outcome, retiring = w.conn.recv()
            except (EOFError, OSError):
                status = w.reap()
                self.workers.remove(w)
                return case, classify(
                    CRASH,
                    case.command,
                    None,
                    f"the worker died (wait status {status})",
                    seconds=elapsed,
                )
            w.case = None
            if retiring:  # the worker exits after this case (grown, or done enough)
                w.reap()
                self.workers.remove(w)
            return case, outcome
        cpu = w.cpu() - w.cpu0
        kind = (
            HANG
            if cpu > self.bounds.seconds or elapsed > self.bounds.wall
            else MEMORY
            if w.rss() > self.bounds.memory
            else None
        )
        if kind is None:
            return None
        stacks = w.kill(dump=True)
        self.workers.remove(w)
        what = (
            f"still running after {cpu:.1f} s of CPU, {elapsed:.1f} s"
            if kind == HANG
            else f"resident memory above {self.bounds.memory >> 20} MiB"
        )
        return case, classify(
            kind,
            case.command,
            None,
            f"{what}\n{busiest_thread(stacks)}",
            innermost_first=True,
            seconds=cpu,
        )


def run_one(case: Case, bounds: Bounds) -> Outcome:
    """One case in a fresh pool of one worker (replaying the corpus, minimising)."""
    with Pool(1, bounds) as pool:
        for _, outcome in pool.run([case]):
            return outcome
    raise AssertionError("the pool returned nothing")  # pragma: no cover
