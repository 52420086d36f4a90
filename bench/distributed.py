#!/usr/bin/env python3
"""The distributed search (`mpiexec -n R fito check --distributed`) on the oracles' 2pc
family at K = 8, on 1, 2 and 3 ranks of this machine: wall time, bytes exchanged per level
and peak memory per rank, against the one-process frontier search in the same run.

Each run checks the same spec (tests/oracles/family.py, the fito version of
../shared/oracles' reference model) and must give the one-process verdicts and state counts
(the closed form's). Per rank the search records (fito/check/distributed/search.py,
`FIGURES`) the states after each level, the bytes all ranks sent in the level's exchanges
(rows, keys and parent links to their owners; the discovery keys and numbers of the global
numbering; the frontier of a small level sent to every rank), each level's wall time, its
visited store's bytes and its peak resident memory (and that of its forked expanders). On
one machine R ranks share its cores: the figures to read are the bytes and the memory per
state, which docs/distributed.md turns into a model of many machines.

Usage: python bench/distributed.py [--quick] [--k 8] [--e 3] [--ranks 1 2 3]
       (a rank of a run: python bench/distributed.py --rank-of OUT SPEC)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rank_of(out: str, spec_file: str) -> int:
    """One rank of a distributed run: check the spec, write this rank's figures."""
    from fito.check.distributed import search
    from fito.check.distributed.comm import world
    from fito.check.options import CheckOptions
    from fito.pipeline import check_source
    from fito.source import Source

    start = time.perf_counter()
    report = check_source(
        Source(spec_file, Path(spec_file).read_text()), CheckOptions(distributed=True)
    )
    wall = time.perf_counter() - start
    figures = [
        {f: getattr(x, f) for f in x.__dataclass_fields__}  # type: ignore[attr-defined]
        for x in search.FIGURES
    ]
    verdicts = [(v.verdict, v.states, len(v.trace)) for v in report.verdicts]
    rank = world().Get_rank()
    Path(f"{out}.{rank}").write_text(
        json.dumps({"wall": wall, "figures": figures, "verdicts": verdicts})
    )
    return 0


def one_process(spec_file: Path) -> tuple[float, list]:
    from fito.check.options import CheckOptions
    from fito.pipeline import check_source
    from fito.source import Source

    start = time.perf_counter()
    report = check_source(
        Source(str(spec_file), spec_file.read_text()), CheckOptions(engine="frontier")
    )
    return time.perf_counter() - start, [
        (v.verdict, v.states, len(v.trace)) for v in report.verdicts
    ]


def mpiexec() -> str:
    here = Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else "mpiexec"


def distributed(ranks: int, spec_file: Path, tmp: Path) -> list[dict]:
    out = tmp / f"r{ranks}"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [
        mpiexec(),
        "-n",
        str(ranks),
        sys.executable,
        __file__,
        "--rank-of",
        str(out),
        str(spec_file),
    ]
    subprocess.run(cmd, check=True, env=env, cwd=ROOT)
    return [json.loads(Path(f"{out}.{r}").read_text()) for r in range(ranks)]


def mib(n: float) -> str:
    return f"{n / 2**20:,.1f} MiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="E = 2 (14,152 states)")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--e", type=int, default=3)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--rank-of", nargs=2, metavar=("OUT", "SPEC"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rank_of:
        return rank_of(*args.rank_of)
    sys.path.insert(0, str(ROOT / "tests" / "oracles"))
    from family import closed_form, spec  # the oracles' family, in fito

    e = 2 if args.quick else args.e
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        f = tmp / f"twopc_k{args.k}_e{e}.fito"
        f.write_text(spec(args.k, e, "2pc").replace("assert always true\n", ""))
        expected = closed_form(args.k, e, "2pc")
        print(f"2pc family, K = {args.k}, E = {e}: {expected:,} states (closed form)")
        peer, peer_verdicts = one_process(f)
        assert peer_verdicts[0][1] == expected, peer_verdicts
        print(f"one process, frontier engine: {peer:.2f} s")
        print()
        for ranks in args.ranks:
            got = distributed(ranks, f, tmp)
            for g in got:
                got_verdicts = [tuple(v) for v in g["verdicts"]]
                assert got_verdicts == peer_verdicts, (ranks, got_verdicts, peer_verdicts)
            wall = max(g["wall"] for g in got)
            fig = [g["figures"][0] for g in got]
            per_level = fig[0]["exchanged"]
            states = fig[0]["states"]
            total = sum(per_level)
            print(f"--- {ranks} rank(s): {wall:.2f} s, {wall / peer:.2f} x the one-process time")
            print(
                f"  levels {len(states)}, bytes exchanged {total:,} "
                f"({total / expected:.1f} per state),"
                f" largest level {max(per_level):,} bytes"
            )
            print("  level  states-after  exchanged-bytes  seconds(rank 0)")
            for lv, (n, b, t) in enumerate(zip(states, per_level, fig[0]["seconds"])):
                print(f"  {lv + 1:5d}  {n:12,}  {b:15,}  {t:8.3f}")
            for r, x in enumerate(fig):
                print(
                    f"  rank {r}: store {mib(x['store_bytes'])} "
                    f"({x['store_bytes'] / expected * ranks:.0f} bytes per owned state, about),"
                    f" peak RSS {mib(x['peak_rss'])},"
                    f" its expanders' peak {mib(x['peak_rss_children'])}"
                )
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
