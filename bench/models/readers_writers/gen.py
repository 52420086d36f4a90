"""Readers and writers with semaphores, readers' priority (R readers, W writers).

Origin: P. J. Courtois, F. Heymans and D. L. Parnas, "Concurrent control with 'readers' and
'writers'", CACM 14(10), 1971, problem 1; also M. Ben-Ari, "Principles of Concurrent and
Distributed Programming" (2nd ed., 2006), chapter 6. A reader takes mutex, counts itself in
readcount and, if it is the first, takes w; releases mutex, reads, takes mutex, counts
itself out and, if it is the last, releases w; releases mutex. A writer takes w, writes,
releases w.
Published figures: none exact (the paper proves that writers exclude everyone).
Correspondence with SPIN: one to one. Each Promela statement (a semaphore operation, a
counter update, a condition, an `else`) is one fito step; the first-reader and last-reader
tests are visible fito events; mutex, w, readcount and the counts of active readers (nr)
and writers (nw) are the same variables.
Variant `nolock`: readers never take w; a writer and a reader can be active together.
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "readers_writers"
SMALL = {"R": 2, "W": 2}
BENCH = {"R": 7, "W": 3}
VARIANTS = {
    "": "writers exclude everyone; no deadlock",
    "nolock": "exclusion fails when readers do not take w",
}
EXTRA_FITO_STATES = 0
PUBLISHED: dict = {}


def fito(variant: str, R: int, W: int) -> str:
    take_w = "" if variant == "nolock" else "w > 0 & {w := w - 1} -> "
    give_w = "" if variant == "nolock" else "{w := w + 1} -> "
    return f"""const R = {R}
const W = {W}
type RId = 0..R-1
type WId = 0..W-1
channel first, later, last, notLast: RId
domain mutex: 0..1 = 1 durable
domain w: 0..1 = 1 durable
domain readcount: 0..R = 0 durable
domain nr: 0..R = 0 durable
domain nw: 0..W = 0 durable

process Reader(i: RId) =
  mutex > 0 & {{mutex := mutex - 1}} -> {{readcount := readcount + 1}} ->
  (readcount == 1 & first.i -> {take_w}Read(i)
   [] readcount != 1 & later.i -> Read(i))
process Read(i: RId) =
  {{mutex := mutex + 1}} -> {{nr := nr + 1}} -> {{nr := nr - 1}} ->
  mutex > 0 & {{mutex := mutex - 1}} -> {{readcount := readcount - 1}} ->
  (readcount == 0 & last.i -> {give_w}{{mutex := mutex + 1}} -> Reader(i)
   [] readcount != 0 & notLast.i -> {{mutex := mutex + 1}} -> Reader(i))
process Writer(j: WId) =
  w > 0 & {{w := w - 1, nw := nw + 1}} -> {{nw := nw - 1, w := w + 1}} -> Writer(j)
process System = (||| i: RId @ Reader(i)) ||| (||| j: WId @ Writer(j))

system System
assert always nw <= 1 and (nw == 0 or nr == 0)  -- expect: {"fails" if variant else "holds"}
assert :[deadlock free]  -- expect: holds
"""


def promela(variant: str, R: int, W: int) -> str:
    lock = variant != "nolock"
    first = ":: readcount == 1" + (" -> d_step { w > 0; w-- }" if lock else "")
    last = ":: readcount == 0" + (" -> w++" if lock else "")
    return f"""#define R {R}
#define W {W}
byte mutex = 1;
byte w = 1;
byte readcount;
byte nr;
byte nw;

active [R] proctype Reader() {{
  do
  :: d_step {{ mutex > 0; mutex-- }};
     readcount++;
     if
     {first}
     :: else
     fi;
     mutex++;
     d_step {{ nr++; assert(nw == 0) }};
     nr--;
     d_step {{ mutex > 0; mutex-- }};
     readcount--;
     if
     {last}
     :: else
     fi;
     mutex++
  od
}}

active [W] proctype Writer() {{
  do
  :: d_step {{ w > 0; w--; nw++; assert(nw <= 1 && nr == 0) }};
     d_step {{ nw--; w++ }}
  od
}}
"""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
