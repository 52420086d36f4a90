"""Szymanski's mutual exclusion algorithm for N processes.

Origin: B. K. Szymanski, "A simple solution to Lamport's concurrent programming problem with
linear wait", Proc. ICS 1988. A process moves its flag through 1 (wants in), 3 (in the
doorway), 2 (waits for others to pass the doorway), 4 (doorway closed) and 0: flag[i] := 1;
await all flags < 3; flag[i] := 3; if some flag is 1 then (flag[i] := 2; await some flag
== 4); flag[i] := 4; await every lower-numbered flag < 2; critical section; await every
higher-numbered flag < 2 or > 3; flag[i] := 0. Also among the BEEM benchmarks (Pelanek,
SPIN 2007) as `szymanski`.
Published figures: none exact for this encoding (BEEM's instances encode the same algorithm
with other step boundaries, so their state counts differ).
Correspondence with SPIN: one to one. Each Promela statement (an assignment, an await, a
d_step) is one fito step; the two branches at the doorway are visible fito events; flag[]
and the critical-section count ncs are the same variables. The critical section is entered
with the last await of the entry and left with the first await of the exit.
Variant `noexit`: without the exit's wait for the higher-numbered processes; mutual
exclusion fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "szymanski"
SMALL = {"N": 3}
BENCH = {"N": 7}
VARIANTS = {
    "": "mutual exclusion and deadlock freedom hold",
    "noexit": "mutual exclusion fails without the exit's wait",
}
EXTRA_FITO_STATES = 0
PUBLISHED: dict = {}


def fito(variant: str, N: int) -> str:
    exit_wait = "(forall j: Pid @ j <= i or flag[j] < 2 or flag[j] > 3) & "
    if variant == "noexit":
        exit_wait = ""
    return f"""const N = {N}
type Pid = 0..N-1
channel wait, pass: Pid
domain flag[i: Pid]: 0..4 = 0 durable
domain ncs: 0..N = 0 durable

process Want(i: Pid) =
  {{flag[i] := 1}} -> (forall j: Pid @ flag[j] < 3) & {{}} -> {{flag[i] := 3}} -> Door(i)
-- in the doorway: wait for those still wanting in, or close the door
process Door(i: Pid) =
  (exists j: Pid @ flag[j] == 1) & wait.i {{flag[i] := 2}} ->
    (exists j: Pid @ flag[j] == 4) & {{}} -> {{flag[i] := 4}} -> Enter(i)
  [] not (exists j: Pid @ flag[j] == 1) & pass.i {{flag[i] := 4}} -> Enter(i)
process Enter(i: Pid) =
  (forall j: Pid @ j >= i or flag[j] < 2) & {{ncs := ncs + 1}} ->
  {exit_wait}{{ncs := ncs - 1}} -> {{flag[i] := 0}} -> Want(i)
process Szymanski = ||| i: Pid @ Want(i)

system Szymanski
assert always ncs <= 1  -- expect: {"fails" if variant else "holds"}
assert :[deadlock free]  -- expect: holds
"""


def promela(variant: str, N: int) -> str:
    def every(cond: str) -> str:
        return "(" + " && ".join(cond.format(j=j) for j in range(N)) + ")"

    def some(cond: str) -> str:
        return "(" + " || ".join(cond.format(j=j) for j in range(N)) + ")"

    exit_wait = every("(_pid >= {j} || flag[{j}] < 2 || flag[{j}] > 3)") + "; "
    if variant == "noexit":
        exit_wait = ""
    return f"""#define N {N}
byte flag[N];
byte ncs;

active [N] proctype P() {{
  do
  :: flag[_pid] = 1;
     {every("flag[{j}] < 3")};
     flag[_pid] = 3;
     if
     :: d_step {{ {some("flag[{j}] == 1")}; flag[_pid] = 2 }};
        {some("flag[{j}] == 4")};
        flag[_pid] = 4
     :: d_step {{ !{some("flag[{j}] == 1")}; flag[_pid] = 4 }}
     fi;
     d_step {{ {every("(_pid <= {j} || flag[{j}] < 2)")}; ncs++; assert(ncs <= 1) }};
     d_step {{ {exit_wait}ncs-- }};
     flag[_pid] = 0
  od
}}
"""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
