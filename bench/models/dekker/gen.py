"""Dekker's mutual exclusion for two processes, with Ben-Ari's earlier attempts.

Origin: E. W. Dijkstra, "Cooperating sequential processes" (EWD123, 1965), where Dekker's
solution first appeared, in the form M. Ben-Ari gives it in "Principles of Concurrent and
Distributed Programming" (2nd ed., 2006), algorithm 3.10: announce (want[i]), and while the
other wants too, back off if it is the other's turn (drop want[i], wait for the turn, announce
again); after the critical section hand the turn over and drop want[i]. The variants are
Ben-Ari's second attempt (algorithm 3.6: wait until the other does not want, then announce:
mutual exclusion fails) and third attempt (algorithm 3.7: announce, then wait until the
other does not want: both can wait forever, a deadlock).
Published figures: none exact (Ben-Ari gives the verdicts: 3.10 correct, 3.6 violates mutual
exclusion, 3.7 deadlocks).
Correspondence with SPIN: one to one. Each Promela statement (a condition, an `else`, an
assignment, a d_step) is one fito step; a branch of the Promela `do`/`if` is a visible fito
event (an internal step under `[]` would not resolve the choice); want[], turn and the
critical-section count ncs are the same variables (ncs counts a process from its entry
until it drops want[i], after handing the turn over). Two processes by design: the small and
bench instances are the same.
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "dekker"
SMALL: dict[str, int] = {}
BENCH: dict[str, int] = {}
VARIANTS = {
    "": "Dekker (algorithm 3.10): mutual exclusion and deadlock freedom hold",
    "attempt2": "second attempt (algorithm 3.6): mutual exclusion fails",
    "attempt3": "third attempt (algorithm 3.7): deadlock",
}
EXTRA_FITO_STATES = 0
PUBLISHED: dict = {}

_FITO_HEAD = """type Pid = 0..1
channel test, yield, retry, enter: Pid
domain want[i: Pid]: Bool = false durable
domain turn: Pid = 0 durable
domain ncs: 0..2 = 0 durable
"""

_FITO = {
    "": """process Want(i: Pid) = {want[i] := true} -> Loop(i)
-- while the other wants too: back off if it is the other's turn
process Loop(i: Pid) =
  want[1 - i] & test.i -> Turn(i)
  [] not want[1 - i] & enter.i {ncs := ncs + 1} -> Leave(i)
process Turn(i: Pid) =
  turn == 1 - i & yield.i -> {want[i] := false} -> turn == i & {} -> {want[i] := true} -> Loop(i)
  [] turn != 1 - i & retry.i -> Loop(i)
process Leave(i: Pid) = {turn := 1 - i} -> {ncs := ncs - 1, want[i] := false} -> Want(i)
""",
    "attempt2": """process Want(i: Pid) =
  not want[1 - i] & {} -> {want[i] := true, ncs := ncs + 1} -> Leave(i)
process Leave(i: Pid) = {ncs := ncs - 1, want[i] := false} -> Want(i)
""",
    "attempt3": """process Want(i: Pid) =
  {want[i] := true} -> not want[1 - i] & {ncs := ncs + 1} -> Leave(i)
process Leave(i: Pid) = {ncs := ncs - 1, want[i] := false} -> Want(i)
""",
}

_PML = {
    "": """  do
  :: want[_pid] = 1;
     do
     :: want[1 - _pid] ->
        if
        :: turn == 1 - _pid ->
           want[_pid] = 0;
           (turn == _pid);
           want[_pid] = 1
        :: else
        fi
     :: d_step { !want[1 - _pid]; ncs++; assert(ncs <= 1) }; break
     od;
     turn = 1 - _pid;
     d_step { ncs--; want[_pid] = 0 }
  od""",
    "attempt2": """  do
  :: (!want[1 - _pid]);
     d_step { want[_pid] = 1; ncs++; assert(ncs <= 1) };
     d_step { ncs--; want[_pid] = 0 }
  od""",
    "attempt3": """  do
  :: want[_pid] = 1;
     d_step { !want[1 - _pid]; ncs++; assert(ncs <= 1) };
     d_step { ncs--; want[_pid] = 0 }
  od""",
}


def fito(variant: str) -> str:
    expect = {
        "": ("holds", "holds"),
        "attempt2": ("fails", "holds"),
        "attempt3": ("holds", "fails"),
    }[variant]
    return (
        _FITO_HEAD
        + "\n"
        + _FITO[variant]
        + f"""process Dekker = ||| i: Pid @ Want(i)

system Dekker
assert always ncs <= 1  -- expect: {expect[0]}
assert :[deadlock free]  -- expect: {expect[1]}
"""
    )


def promela(variant: str) -> str:
    return f"""bool want[2];
byte turn;
byte ncs;

active [2] proctype P() {{
{_PML[variant]}
}}
"""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
