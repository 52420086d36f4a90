"""Lamport's fast mutual exclusion algorithm for N processes.

Origin: L. Lamport, "A fast mutual exclusion algorithm", ACM TOCS 5(1), 1987, figure 2
(processes numbered 1..N, 0 meaning none): start: b[i] := true; x := i; if y != 0 then
(b[i] := false; await y = 0; goto start); y := i; if x != i then (b[i] := false; for j := 1
to N: await not b[j]; if y != i then (await y = 0; goto start)); critical section; y := 0;
b[i] := false. Also among the BEEM benchmarks (Pelanek, SPIN 2007) as `lamport`.
Published figures: none exact for this encoding (Lamport proves mutual exclusion and
freedom from deadlock; starvation is possible).
Correspondence with SPIN: one to one. Each statement of the figure (a read-and-test, a
write, an await) is one Promela statement and one fito step; the two outcomes of each test
are visible fito events; b[], x, y and the critical-section count ncs are the same
variables. Process i is Promela's _pid + 1.
Variant `nocheck`: without the second test (x != i after y := i); mutual exclusion fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "lamport_fast"
SMALL = {"N": 2}
BENCH = {"N": 4}
VARIANTS = {
    "": "mutual exclusion and deadlock freedom hold",
    "nocheck": "mutual exclusion fails without the second test",
}
EXTRA_FITO_STATES = 0
PUBLISHED: dict = {}


def fito(variant: str, N: int) -> str:
    after_y = "{ncs := ncs + 1} -> Leave(i)" if variant == "nocheck" else "Check(i)"
    return f"""const N = {N}
type Pid = 1..N
type Who = 0..N
channel busy, open, contended, alone, late, ours: Pid
domain b[i: Pid]: Bool = false durable
domain x: Who = 0 durable
domain y: Who = 0 durable
domain ncs: 0..N = 0 durable

process Start(i: Pid) = {{b[i] := true}} -> {{x := i}} -> Gate(i)
process Gate(i: Pid) =
  y != 0 & busy.i -> {{b[i] := false}} -> y == 0 & {{}} -> Start(i)
  [] y == 0 & open.i -> {{y := i}} -> {after_y}
process Check(i: Pid) =
  x != i & contended.i -> {{b[i] := false}} -> Scan(i, 1)
  [] x == i & alone.i {{ncs := ncs + 1}} -> Leave(i)
process Scan(i: Pid, j: Pid) = not b[j] & {{}} -> (if j < N then Scan(i, j + 1) else Last(i))
process Last(i: Pid) =
  y != i & late.i -> y == 0 & {{}} -> Start(i)
  [] y == i & ours.i {{ncs := ncs + 1}} -> Leave(i)
process Leave(i: Pid) = {{ncs := ncs - 1, y := 0}} -> {{b[i] := false}} -> Start(i)
process Fast = ||| i: Pid @ Start(i)

system Fast
assert always ncs <= 1  -- expect: {"fails" if variant else "holds"}
assert :[deadlock free]  -- expect: holds
"""


def promela(variant: str, N: int) -> str:
    scan = "\n           ".join(f"(!b[{j}]);" for j in range(1, N + 1))
    enter = "d_step { ncs++; assert(ncs <= 1) }"
    if variant == "nocheck":
        check = enter
    else:
        check = f"""if
        :: (x != ME);
           b[ME] = 0;
           {scan}
           if
           :: (y != ME);
              (y == 0);
              goto start
           :: d_step {{ y == ME; ncs++; assert(ncs <= 1) }}
           fi
        :: d_step {{ x == ME; ncs++; assert(ncs <= 1) }}
        fi"""
    return f"""#define N {N}
#define ME (_pid + 1)
bool b[N + 1];   /* b[1..N] */
byte x;
byte y;
byte ncs;

active [N] proctype P() {{
start:  b[ME] = 1;
        x = ME;
        if
        :: (y != 0);
           b[ME] = 0;
           (y == 0);
           goto start
        :: (y == 0)
        fi;
        y = ME;
        {check};
        d_step {{ ncs--; y = 0 }};
        b[ME] = 0;
        goto start
}}
"""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
