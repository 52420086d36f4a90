"""Front-end throughput: scan, parse and resolve a generated 20,000-line spec; lines per second.

    python bench/parse.py [--lines N] [--repeat R] [--no-peer] [--profile]

The spec is a mix like the shipped examples: constants, ranges and enumerations, channels
with tuple payloads, arrays of cells, multi-line processes with guards, assignment blocks,
replicated forms, hiding, interrupts and assertions. Every name resolves (the resolver's
diagnostics are asserted empty), so the resolver does its full work.

The peer, in the same run: Lark's own LALR runtime (`Lark.parse`, building Lark's parse
tree) over the same grammar and the same tokens, wrapped as Lark `Token`s, which is how the
front end ran before it had its own driver. The runs are interleaved and the best of each
is kept, so background load hits them alike; CPU time is printed beside wall time, and the
ratio uses CPU time. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable


def module(i: int) -> str:
    """One self-contained block of declarations whose names carry the suffix i."""
    s = f"_{i}"
    return f"""\
-- module {i}: a trainer, flushers per domain, a committer and recovery
const E{s} = {2 + i % 3}
const K{s}: 0..10 = E{s} + 1
type Epoch{s} = 0..E{s}
type Dom{s} = {{gpu{s}, host{s}, nvme{s}}}
channel step{s}: Epoch{s}
channel flush{s}, restore{s}: Dom{s}.Epoch{s}
channel commit{s}: Epoch{s}
channel tick{s}
domain live{s}: Epoch{s} = 0 volatile
domain has{s}[d: Dom{s}][e: Epoch{s}]: Bool = (e == 0) durable
domain saved{s}[d: Dom{s}]: Epoch{s} = 0 durable
domain committed{s}: Epoch{s} = 0 durable
{{- a block comment {{- nested -}} between declarations -}}
process Trainer{s} =
  live{s} < E{s} & step{s}!(live{s} + 1) {{ live{s} := live{s} + 1 }} -> Trainer{s}
  [] live{s} == E{s} & tick{s} -> Trainer{s}
process Flusher{s}(d: Dom{s}) =
  [] e: Epoch{s} @ (e <= live{s} and not has{s}[d][e]) &
     flush{s}.d.e {{ has{s}[d][e] := true, saved{s}[d] := max(saved{s}[d], e) }} -> Flusher{s}(d)
process Committer{s} =
  [] e: Epoch{s} @ (e > committed{s} and (forall d: Dom{s} @ has{s}[d][e])) &
     commit{s}.e {{ committed{s} := e }} -> Committer{s}
process Restore{s}(d: Dom{s}) =
  if committed{s} > 0 then restore{s}.d!committed{s} -> SKIP
  else restore{s}.d.0 -> SKIP
process Recovery{s} =
  (||| d: Dom{s} @ Restore{s}(d)) ; {{ live{s} := committed{s} }} -> Node{s}
process Work{s} =
  Trainer{s} ||| Committer{s} ||| (||| d: Dom{s} @ Flusher{s}(d))
process Node{s} = Work{s} /\\ (crash -> Recovery{s})
process Quiet{s} = Node{s} \\ {{| step{s}, flush{s}, restore{s}, tick{s} |}}
process Watch{s}(c: Epoch{s}) =
  [] e: Epoch{s} @ e >= c & commit{s}.e -> Watch{s}(e)
  |~| crash -> Watch{s}(c)
assert Node{s} |= always (forall d: Dom{s} @ has{s}[d][committed{s}])
assert Node{s} |= always (committed{s} <= live{s} or committed{s} > 0 => live{s} >= 0)
assert Node{s} :[deadlock free]
assert Node{s} reaches committed{s} == E{s} and (exists d: Dom{s} @ saved{s}[d] == E{s})
assert Watch{s}(0) [T= Quiet{s}
system Node{s}
"""


def generate(lines: int) -> str:
    """A spec of at least `lines` lines (whole modules), one `system` declaration."""
    out: list[str] = []
    count, i = 0, 0
    while count < lines:
        text = module(i)
        if i:
            text = text.replace(f"system Node_{i}\n", "")
        out.append(text)
        count += text.count("\n")
        i += 1
    return "".join(out)


def _interleaved(
    runs: dict[str, Callable[[], object]], repeat: int
) -> dict[str, tuple[float, float]]:
    """Best wall and CPU seconds of each run, the runs interleaved so that load hits all alike."""
    best = {name: (float("inf"), float("inf")) for name in runs}
    for _ in range(repeat):
        for name, fn in runs.items():
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def _fito_parse_resolve(text: str) -> None:
    """What `fito check` runs before type and model checking (fito.pipeline.front_end)."""
    from fito.pipeline import front_end

    front = front_end(text)
    result, diags = front.parsed, front.resolved
    if result.spec is None or result.diagnostics:
        raise SystemExit(f"bench spec does not parse: {result.diagnostics[:3]}")
    if diags:
        raise SystemExit(f"bench spec has diagnostics: {diags[:3]}")


def _peer_parse(text: str) -> None:
    """Lark's generic LALR loop and tree builder over the same tokens."""
    from fito.lang.syntax.parser import lark_runtime_parse

    lark_runtime_parse(text)


def _fito_parse_only(text: str) -> None:
    from fito.lang.syntax.parser import parse

    parse(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-peer", action="store_true", help="skip Lark's runtime loop")
    ap.add_argument("--profile", action="store_true", help="cProfile one parse+resolve")
    args = ap.parse_args(argv)
    from fito.deep import run_deep
    from fito.lang.syntax.parser import parse

    text = generate(args.lines)
    n = text.count("\n")
    parse("const warm = 1\n")  # build (or load) the parser tables outside the timing
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        _fito_parse_resolve(text)
        prof.disable()
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(25)
        return 0
    runs: dict[str, Callable[[], object]] = {
        "fito parse + resolve": lambda: _fito_parse_resolve(text),
        "fito parse only": lambda: _fito_parse_only(text),
    }
    if not args.no_peer:
        runs["peer: Lark's LALR loop, parse only"] = lambda: _peer_parse(text)
    best = run_deep(_interleaved, runs, args.repeat)
    print(f"spec: {n:,} lines, {len(text):,} bytes; best of {args.repeat}, runs interleaved")
    for name, (wall, cpu) in best.items():
        print(
            f"{name:<38} {wall:6.3f} s wall = {n / wall:8,.0f} lines/s; "
            f"{cpu:6.3f} s cpu = {n / cpu:8,.0f} lines/s"
        )
    if not args.no_peer:
        ratio = best["peer: Lark's LALR loop, parse only"][1] / best["fito parse only"][1]
        print(f"ratio (cpu), parse only: fito is {ratio:.2f}x faster than the peer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
