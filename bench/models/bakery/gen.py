"""Lamport's bakery algorithm for N processes, tickets bounded by T.

Origin: L. Lamport, "A new solution of Dijkstra's concurrent programming problem", CACM
17(8), 1974; in the form of M. Ben-Ari, "Principles of Concurrent and Distributed
Programming" (2nd ed., 2006), algorithm 5.2: raise choosing[i], take a ticket one more than
the largest ticket seen, lower choosing[i], then for every other process j wait until it is
not choosing and until it holds no ticket or a later one (ties broken by the process
number). Reading the tickets (into tmp[i]) and writing one's own are two steps, so the
choosing flags matter.
Bounding: tickets live in 0..T. A process that sees a ticket T backs off (lowers choosing[i])
and starts again, so the state space is finite; Lamport's tickets are unbounded.
Published figures: none exact (Lamport proves mutual exclusion and freedom from deadlock).
Correspondence with SPIN: one to one. Each Promela statement is one fito step; the two
branches at the ticket (take one, or back off) are visible fito events; choosing[], number[],
tmp[] and the critical-section count ncs are the same variables. The scan visits the other
processes in the order i+1, i+2, ... (mod N) in both.
Variant `nochoosing`: without the choosing flags; two processes can read the same maximum
and both enter: mutual exclusion fails (Lamport's reason for the flags).
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "bakery"
SMALL = {"N": 3, "T": 2}
BENCH = {"N": 4, "T": 3}
VARIANTS = {
    "": "mutual exclusion and deadlock freedom hold",
    "nochoosing": "mutual exclusion fails without the choosing flags",
}
EXTRA_FITO_STATES = 0
PUBLISHED: dict = {}


def _max(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"max({names[0]}, {_max(names[1:])})"


def fito(variant: str, N: int, T: int) -> str:
    seen = _max([f"number[{k}]" for k in range(N)])
    chose = variant != "nochoosing"
    up, down = ("{choosing[i] := true} -> ", ", choosing[i] := false") if chose else ("", "")
    wait = "not choosing[j] & {} -> " if chose else ""
    return f"""const N = {N}
const T = {T}
type Pid = 0..N-1
type Ticket = 0..T
channel take, back: Pid
domain choosing[i: Pid]: Bool = false durable
domain number[i: Pid]: Ticket = 0 durable
domain tmp[i: Pid]: Ticket = 0 durable
domain ncs: 0..N = 0 durable

process Start(i: Pid) = {up}Draw(i)
-- the largest ticket seen, read in one step; at the bound T, back off and start again
process Draw(i: Pid) =
  {seen} < T & take.i {{tmp[i] := {seen}}} -> {{number[i] := tmp[i] + 1}} ->
    {"{choosing[i] := false} -> " if chose else ""}Scan(i, 1)
  [] {seen} == T & back.i{(" {" + down[2:] + "}") if chose else ""} -> Start(i)
-- j = i + k (mod N) may go first: it is not choosing, and it holds no ticket or a later one
process Scan(i: Pid, k: 1..N-1) = Wait(i, k, (i + k) % N)
process Wait(i: Pid, k: 1..N-1, j: Pid) =
  {wait}(number[j] == 0 or number[i] < number[j] or (number[i] == number[j] and i < j)) &
  (if k < N - 1 then {{}} -> Scan(i, k + 1) else {{ncs := ncs + 1}} -> Leave(i))
process Leave(i: Pid) = {{ncs := ncs - 1, number[i] := 0}} -> Start(i)
process Bakery = ||| i: Pid @ Start(i)

system Bakery
assert always ncs <= 1  -- expect: {"holds" if chose else "fails"}
assert :[deadlock free]  -- expect: holds
"""


def promela(variant: str, N: int, T: int) -> str:
    chose = variant != "nochoosing"
    seen = _pml_max([f"number[{k}]" for k in range(N)])
    lines = []
    if chose:
        lines.append("choosing[_pid] = 1;")
    back = "d_step { SEEN >= T; choosing[_pid] = 0 }" if chose else "(SEEN >= T)"
    lines += [
        "if",
        f":: {back}; goto start",
        ":: d_step { SEEN < T; tmp[_pid] = SEEN }",
        "fi;",
        "number[_pid] = tmp[_pid] + 1;",
    ]
    if chose:
        lines.append("choosing[_pid] = 0;")
    for k in range(1, N):
        j = f"(_pid + {k}) % N"
        if chose:
            lines.append(f"(!choosing[{j}]);")
        ahead = (
            f"(number[{j}] == 0 || number[_pid] < number[{j}]"
            f" || (number[_pid] == number[{j}] && _pid < {j}))"
        )
        enter = f"d_step {{ {ahead}; ncs++; assert(ncs <= 1) }};"
        lines.append(f"{ahead};" if k < N - 1 else enter)
    lines += ["d_step { ncs--; number[_pid] = 0 };", "goto start"]
    code = "\n       ".join(lines)
    return f"""#define N {N}
#define T {T}
#define SEEN {seen}
bool choosing[N];
byte number[N];
byte tmp[N];
byte ncs;

active [N] proctype P() {{
start: {code}
}}
"""


def _pml_max(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    rest = _pml_max(names[1:])
    return f"({names[0]} > {rest} -> {names[0]} : {rest})"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
