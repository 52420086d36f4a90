"""Run specs under `mpiexec -n R` with `--distributed` and read back every rank's answers.

`main` is what each rank runs (python -m tests.distributed.mpirun OUT FILE...): it checks
every file with the distributed engine and writes, per rank, the answers as JSON next to
OUT (OUT.rank0, OUT.rank1, ...), so a test can see that every rank answered alike.
`distributed_answers` starts the run from a test and returns rank 0's answers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def mpiexec() -> str | None:
    """The mpiexec of this Python's MPI (the mpich wheel puts it next to python)."""
    here = Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else shutil.which("mpiexec")


def answers_of(text: str, **options: object) -> list[list]:
    """Each verdict's figures and trace, JSON-shaped (the fields the engines must share)."""
    from fito.check.options import CheckOptions  # lazy-import: each rank's own start-up
    from fito.pipeline import check_source  # lazy-import: each rank's own start-up
    from fito.source import Source  # lazy-import: each rank's own start-up

    report = check_source(Source("t.fito", text), CheckOptions(**options))  # type: ignore[arg-type]
    return [
        [
            v.text,
            v.verdict,
            v.states,
            v.transitions,
            list(v.trace),
            v.reason,
            None if v.error is None else v.error.message,
            v.unreduced_states,
            list(v.reductions),
            v.limit_hit,
        ]
        for v in report.verdicts
    ]


def distributed_answers(
    ranks: int,
    files: list[Path],
    out: Path,
    seconds: float = 60,
    limit: int = 200_000,
    speculate_all: bool = False,
) -> list[list[list]]:
    """Rank 0's answers for every file, after checking that every rank gave the same. With
    speculate_all, no level is expanded whole by every rank: each rank's child expands its
    own rows from the first level on (fito/check/distributed/speculate.py)."""
    exe = mpiexec()
    assert exe is not None
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [exe, "-n", str(ranks), sys.executable, "-m", "tests.distributed.mpirun", str(out)]
    cmd += ["--seconds", str(seconds), "--limit", str(limit)]
    cmd += ["--replicate-below", "0" if speculate_all else "default"] + [str(f) for f in files]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = [json.loads(Path(f"{out}.rank{r}").read_text()) for r in range(ranks)]
    for r in range(1, ranks):
        assert got[r] == got[0], f"rank {r} answered otherwise than rank 0"
    return got[0]  # type: ignore[no-any-return]


def main(argv: list[str]) -> int:
    from fito.check.distributed import speculate  # lazy-import: starts MPI
    from fito.check.distributed.comm import world  # lazy-import: starts MPI

    out, rest = argv[0], argv[1:]
    seconds, limit = float(rest[1]), int(rest[3])
    if rest[5] != "default":
        speculate.REPLICATE_BELOW = int(rest[5])
    files = rest[6:]
    got = [
        answers_of(
            Path(f).read_text(encoding="utf-8"),
            distributed=True,
            timeout=seconds,
            max_states=limit,
        )
        for f in files
    ]
    rank = world().Get_rank()
    Path(f"{out}.rank{rank}").write_text(json.dumps(got), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
