"""Front-end throughput: scan, parse and resolve a generated 20,000-line spec; lines per second.

    python bench/parse.py [--lines N] [--repeat R] [--peer] [--profile]

The spec is a mix like the shipped examples: constants, ranges and enumerations, channels
with tuple payloads, arrays of cells, multi-line processes with guards, assignment blocks,
replicated forms, hiding, interrupts and assertions. Every name resolves (the resolver's
diagnostics are asserted empty), so the resolver does its full work.

The peer, in the same run (`--peer`, default on): Lark's own LALR runtime (`Lark.parse`
with an inline transformer) over the same grammar and the same tokens, so the printed ratio
is the gain of fito's table-driven loop over Lark's generic one. Wall-clock figures are
printed, never asserted.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Callable

MODULE_LINES = 40  # lines per generated module (measured on the text, not assumed)


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


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _fito_parse_resolve(text: str) -> None:
    from fito.lang.parser import parse
    from fito.lang.resolve import resolve

    result = parse(text)
    if result.spec is None or result.diagnostics:
        raise SystemExit(f"bench spec does not parse: {result.diagnostics[:3]}")
    _, diags = resolve(result.spec)
    if diags:
        raise SystemExit(f"bench spec has diagnostics: {diags[:3]}")


def _peer_parse(text: str) -> None:
    """Lark's generic LALR loop over the same tokens and builder callbacks."""
    from fito.lang.parser import lark_runtime_parse

    lark_runtime_parse(text)


def _fito_parse_only(text: str) -> None:
    from fito.lang.parser import parse

    parse(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-peer", action="store_true", help="skip Lark's runtime loop")
    ap.add_argument("--profile", action="store_true", help="cProfile one parse+resolve")
    args = ap.parse_args(argv)
    from fito.deep import run_deep
    from fito.lang.parser import parse

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
    total = run_deep(_best, lambda: _fito_parse_resolve(text), args.repeat)
    parse_only = run_deep(_best, lambda: _fito_parse_only(text), args.repeat)
    print(f"spec: {n:,} lines, {len(text):,} bytes (best of {args.repeat})")
    print(f"fito parse + resolve: {total:.3f} s, {n / total:,.0f} lines/s")
    print(f"fito parse only:      {parse_only:.3f} s, {n / parse_only:,.0f} lines/s")
    if not args.no_peer:
        peer = run_deep(_best, lambda: _peer_parse(text), args.repeat)
        print(f"peer (Lark runtime loop) parse only: {peer:.3f} s, {n / peer:,.0f} lines/s")
        print(f"ratio parse only, fito / peer: {peer / parse_only:.2f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
