"""FITO type checker throughput: a generated pipeline of 10,000 statements, and Z3 query counts.

    python bench/types.py [--statements N] [--shape blocks|chain|both] [--no-peer]

The pipeline repeats a block of statements shaped like real pipelines: two epochs and a fact
relating them, snapshots with epoch metadata, a commit, converges that are proved, converges
that fail (FITO002, each with a Z3 counterexample), repeated converges of the same inputs,
consumers, times, saves, logs and an assumption. With `--shape chain` every block's fact also
links it to the previous block, so all epochs form one group of facts and every question is
asked under all of them (the worst case for the solver).

Printed: statements/s, the number of epoch questions, how many distinct questions reached
Z3 (each exactly once: the cache answers repeats, and questions are compared up to renaming
of epochs, so every block asks the same few), Z3 checks and witness searches. Peers in the
same run: the same check with the cache off (every question to Z3), and the front end
(parse + resolve) on the same text. Wall-clock figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BLOCK = (
    "epoch a{k}, b{k}",
    "require b{k} == a{k} + 1",
    "let s{k} = snapshot(gpu) @ a{k}",
    "let t{k} = snapshot(nvme) @ b{k} - 1",
    "let u{k} = snapshot(host) @ b{k}",
    "let c{k} = commit(Trained, a{k}, gpu, nvme)",
    "let g{k} = converge(Trained, a{k}, s{k}, t{k}, c{k})",
    "let h{k} = converge(Trained, a{k}, s{k}, u{k})",
    "let r{k} = converge(Trained, a{k}, s{k}, t{k})",
    "let q{k} = converge(Trained, a{k}, s{k}, u{k})",
    "restore(g{k})",
    "resume(r{k})",
    "let m{k} = time(s{k})",
    "save(t{k}, host)",
    "log(q{k}, m{k})",
    "let w{k} = assume(Trained, b{k}, u{k})",
    "deploy(w{k})",
)
LINK = "require a{k} == b{p}"


def generate(statements: int, shape: str) -> str:
    """A spec with one pipeline of exactly `statements` statements."""
    lines: list[str] = []
    k = 0
    while len(lines) < statements:
        block = [s.format(k=k, p=k - 1) for s in BLOCK]
        if shape == "chain" and k > 0:
            block.insert(2, LINK.format(k=k, p=k - 1))
        lines.extend(block)
        k += 1
    del lines[statements:]
    while lines and lines[-1].startswith(("epoch", "require")):
        lines.pop()  # never end on a half block: keep the count exact by padding with logs
    lines += ["log(1)"] * (statements - len(lines))
    body = "\n".join("  " + s for s in lines)
    return f"type Dom = {{gpu, host, nvme}}\n\npipeline big {{\n{body}\n}}\n"


def front_end(text: str):
    from fito.lang.resolve.resolver import resolve
    from fito.lang.syntax.parser import parse

    parsed = parse(text)
    assert parsed.spec is not None and not parsed.diagnostics, parsed.diagnostics[:3]
    model, diags = resolve(parsed.spec)
    assert not diags, diags[:3]
    return model


def type_check(model, cache: bool):
    from fito.types import EpochOracle, check_pipelines

    oracle = EpochOracle(cache=cache)
    start = time.perf_counter()
    diags = check_pipelines(model, oracle=oracle)
    return time.perf_counter() - start, diags, oracle


def run(statements: int, shape: str, peer: bool) -> None:
    text = generate(statements, shape)
    start = time.perf_counter()
    model = front_end(text)
    front = time.perf_counter() - start
    seconds, diags, oracle = type_check(model, cache=True)
    s = oracle.stats
    distinct = len(oracle._answers)
    per_code = Counter(d.code for d in diags)
    print(f"\n== {statements:,} statements, shape {shape} ==")
    print(f"front end (parse + resolve): {front:.2f} s")
    print(
        f"type check (cached Z3):      {seconds:.2f} s  ({statements / seconds:,.0f} statements/s)"
    )
    print(f"diagnostics: {dict(sorted(per_code.items()))}")
    print(
        f"epoch questions: {s.questions:,}; decided without Z3: {s.trivial:,}; "
        f"answered by the cache: {s.cache_hits:,}; distinct questions sent to Z3: {distinct:,}"
    )
    print(f"Z3 checks: {s.checks:,}; witness searches: {s.witness_searches:,}")
    print(f"ratio type check / front end: {seconds / front:.2f}")
    if peer:
        peer_s, peer_diags, peer_oracle = type_check(model, cache=False)
        assert [d.message for d in peer_diags] == [d.message for d in diags]
        print(
            f"peer, cache off:             {peer_s:.2f} s  "
            f"(Z3 checks {peer_oracle.stats.checks:,}, "
            f"witness searches {peer_oracle.stats.witness_searches:,})"
        )
        print(f"speed-up of the cache: {peer_s / seconds:.1f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--statements", type=int, default=10_000)
    ap.add_argument("--shape", choices=("blocks", "chain", "both"), default="both")
    ap.add_argument("--no-peer", action="store_true", help="skip the cache-off peer run")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(100_000)
    shapes = ("blocks", "chain") if args.shape == "both" else (args.shape,)
    for shape in shapes:
        run(args.statements, shape, not args.no_peer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
