"""Leader election on a unidirectional ring: Dolev, Klawe and Rodeh's algorithm B.

Origin: D. Dolev, M. Klawe and M. Rodeh, "An O(n log n) unidirectional distributed algorithm
for extrema finding in a circle", J. of Algorithms 3(3), 1982, as in SPIN's Examples
(leader0.pml, leader_trace.pml). N nodes with distinct numbers 1..N on a ring of FIFO
channels of capacity L. An active node sends its value (one), relays the first value it
receives (two) and remembers it (left); on the second value it stays active with `left` as
its new value when left beats both the value received and its own, else it becomes a relay.
A node that receives its own value back knows the maximum and sends `winner`; the node whose
number it is becomes the leader; each node relays `winner` once and stops.
Published figures: SPIN's README_tests.txt (Spin 6) for leader0.pml, N = 5 (channels of
10): 15,779 states stored and 58,181 transitions without reduction (-DNOREDUCE, -DSAFETY).
That model starts its nodes from an init process with `run` and local variables, so its
count is not this model's; only the verdicts compare.
Correspondence with SPIN: one to one, up to one state: every Promela statement (a receive, a
decision, a send) is one fito step, the channels are arrays of L slots shifted on receive
with the freed slot cleared (SPIN's layout); the node's variables are global arrays indexed
by the node in both. A node ends with a printf step, then rests at a valid end label; in fito
it ends with SKIP, whose termination adds one state when every node has stopped (fito has
one state more than SPIN). Channels and the node's variables would read more naturally as
fito buffered channels and process-local variables (issue 13).
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "leader"
SMALL = {"N": 3, "L": 3}
BENCH = {"N": 7, "L": 3}
VARIANTS = {"": "exactly one leader, the node numbered N; no deadlock"}
EXTRA_FITO_STATES = 1
PUBLISHED: dict = {}


def _pop(i: str, L: int) -> str:
    writes = []
    for name, empty in (("qk", "none"), ("qv", "0")):
        writes += [f"{name}[{i}][{k}] := {name}[{i}][{k + 1}]" for k in range(L - 1)]
        writes.append(f"{name}[{i}][{L - 1}] := {empty}")
    return ", ".join([*writes, f"qlen[{i}] := qlen[{i}] - 1"])


def fito(variant: str, N: int, L: int) -> str:
    pop = _pop("i", L)

    def send(kind: str, value: str) -> str:
        o = "(i + 1) % N"
        return (
            f"qlen[{o}] < L & {kind}.i {{qk[{o}][qlen[{o}]] := {kind}k, "
            f"qv[{o}][qlen[{o}]] := {value}, qlen[{o}] := qlen[{o}] + 1}}"
        )

    return f"""const N = {N}
const L = {L}
type Id = 0..N-1
type Num = 0..N
type Slot = 0..L-1
type Kind = {{none, onek, twok, winnerk}}
channel one, two, winner, getOne, getTwo, getWinner: Id
channel relay, second, found, keep, passive, elected, lost, stop: Id
domain qk[c: Id][k: Slot]: Kind = none durable   -- channel c leads into node c
domain qv[c: Id][k: Slot]: Num = 0 durable
domain qlen[c: Id]: 0..L = 0 durable
domain active[i: Id]: Bool = true durable
domain know[i: Id]: Bool = false durable
domain nr[i: Id]: Num = 0 durable                 -- the value last received
domain mx[i: Id]: Num = 0 durable                 -- the value the node stands for
domain left[i: Id]: Num = 0 durable
domain leaders: 0..N = 0 durable
domain chosen: Num = 0 durable

-- node i has the number N - (i + 2) % N
process Node(i: Id) = {{mx[i] := N - (i + 2) % N}} -> {send("one", "mx[i]")} -> Loop(i)
process Loop(i: Id) =
  (qlen[i] > 0 and qk[i][0] == onek) & getOne.i {{nr[i] := qv[i][0], {pop}}} -> One(i)
  [] (qlen[i] > 0 and qk[i][0] == twok) & getTwo.i {{nr[i] := qv[i][0], {pop}}} -> Two(i)
  [] (qlen[i] > 0 and qk[i][0] == winnerk) & getWinner.i {{nr[i] := qv[i][0], {pop}}} -> Won(i)
process One(i: Id) =
  (active[i] and nr[i] != mx[i]) & second.i {{left[i] := nr[i]}} ->
    {send("two", "nr[i]")} -> Loop(i)
  [] (active[i] and nr[i] == mx[i]) & found.i {{know[i] := true}} ->
    {send("winner", "nr[i]")} -> Loop(i)
  [] not active[i] & relay.i -> {send("one", "nr[i]")} -> Loop(i)
process Two(i: Id) =
  (active[i] and left[i] > nr[i] and left[i] > mx[i]) & keep.i {{mx[i] := left[i]}} ->
    {send("one", "mx[i]")} -> Loop(i)
  [] (active[i] and not (left[i] > nr[i] and left[i] > mx[i])) & passive.i {{active[i] := false}} ->
    Loop(i)
  [] not active[i] & relay.i -> {send("two", "nr[i]")} -> Loop(i)
process Won(i: Id) =
  nr[i] == N - (i + 2) % N & elected.i {{leaders := leaders + 1, chosen := nr[i]}} -> Pass(i)
  [] nr[i] != N - (i + 2) % N & lost.i -> Pass(i)
process Pass(i: Id) =
  know[i] & stop.i -> SKIP
  [] not know[i] & relay.i -> {send("winner", "nr[i]")} -> SKIP
process Ring = ||| i: Id @ Node(i)

system Ring
assert always leaders <= 1 and (leaders == 0 or chosen == N)  -- expect: holds
assert :[deadlock free]  -- expect: holds
"""


def promela(variant: str, N: int, L: int) -> str:
    return f"""#define N {N}
#define L {L}
#define NONE 0
#define ONE 1
#define TWO 2
#define WINNER 3
#define ME (N - (_pid + 2) % N)
#define OUT q[(_pid + 1) % N]
chan q[N] = [L] of {{ byte, byte }};   /* q[c] leads into node c */
bool act[N] = 1;        /* active (a Promela keyword) */
bool know[N];
byte nr[N];
byte mx[N];
byte left[N];
byte leaders;
byte chosen;

active [N] proctype Node() {{
  mx[_pid] = ME;
  OUT!ONE,mx[_pid];
  do
  :: q[_pid]?ONE,nr[_pid] ->
     if
     :: d_step {{ act[_pid] && nr[_pid] != mx[_pid]; left[_pid] = nr[_pid] }};
        OUT!TWO,nr[_pid]
     :: d_step {{ act[_pid] && nr[_pid] == mx[_pid]; know[_pid] = 1 }};
        OUT!WINNER,nr[_pid]
     :: (!act[_pid]);
        OUT!ONE,nr[_pid]
     fi
  :: q[_pid]?TWO,nr[_pid] ->
     if
     :: d_step {{ act[_pid] && left[_pid] > nr[_pid] && left[_pid] > mx[_pid];
                 mx[_pid] = left[_pid] }};
        OUT!ONE,mx[_pid]
     :: d_step {{ act[_pid] && !(left[_pid] > nr[_pid] && left[_pid] > mx[_pid]);
                 act[_pid] = 0 }}
     :: (!act[_pid]);
        OUT!TWO,nr[_pid]
     fi
  :: q[_pid]?WINNER,nr[_pid] ->
     if
     :: d_step {{ nr[_pid] == ME; leaders++; chosen = nr[_pid];
                 assert(leaders <= 1 && chosen == N) }}
     :: (nr[_pid] != ME)
     fi;
     if
     :: (know[_pid]); printf("stop\\n")
     :: (!know[_pid]); OUT!WINNER,nr[_pid]; printf("stop\\n")
     fi;
     break
  od;
end: (0)
}}
"""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
