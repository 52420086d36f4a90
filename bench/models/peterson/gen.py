"""Peterson's mutual exclusion for N processes (the filter lock).

Origin: G. L. Peterson, "Myths about the mutual exclusion problem", Information Processing
Letters 12(3), 1981: the two-process algorithm and its N-process generalisation, in which a
process climbs N - 1 levels, at each level announcing itself (level[i] := l), giving way
(victim[l] := i) and waiting until no other process is at its level or above, or someone else
has become the victim. Also M. Ben-Ari, "Principles of Concurrent and Distributed
Programming" (2nd ed., 2006), section 3 and the Promela versions of his "Principles of the
Spin Model Checker" (2008).
Published figures: none exact for this encoding (the algorithm's claim is mutual exclusion
and freedom from deadlock for every N).
Correspondence with SPIN: one to one. Each process is one Promela proctype of the
`active [N]` array, each statement one fito step; the local state sits in the global arrays
level[] and victim[] in both; ncs counts processes in the critical section (the invariant).
Variant `bug`: announce after giving way (victim[l] := i before level[i] := l), the
classic mis-ordering; mutual exclusion fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "peterson"
SMALL = {"N": 3}
BENCH = {"N": 5}
VARIANTS = {
    "": "mutual exclusion and deadlock freedom hold",
    "bug": "mutual exclusion fails (steps swapped)",
}
EXTRA_FITO_STATES = 0  # fito states - SPIN states; None when the two do not correspond
PUBLISHED: dict = {}


def fito(variant: str, N: int) -> str:
    announce = "{level[i] := l} -> {victim[l] := i}"
    if variant == "bug":
        announce = "{victim[l] := i} -> {level[i] := l}"
    return f"""const N = {N}
type Pid = 0..N-1
type Level = 0..N-1
domain level[i: Pid]: Level = 0 durable
domain victim[l: Level]: Pid = 0 durable
domain ncs: 0..N = 0 durable

-- level l is passed when no other process is at l or above, or another is the victim of l
process Climb(i: Pid, l: Level) =
  {announce} ->
  if l < N - 1
  then ((forall k: Pid @ k == i or level[k] < l) or victim[l] != i) & {{}} -> Climb(i, l + 1)
  else ((forall k: Pid @ k == i or level[k] < l) or victim[l] != i) & {{ncs := ncs + 1}} -> Leave(i)
process Leave(i: Pid) = {{ncs := ncs - 1, level[i] := 0}} -> Climb(i, 1)
process Peterson = ||| i: Pid @ Climb(i, 1)

system Peterson
assert always ncs <= 1  -- expect: {"fails" if variant else "holds"}
assert :[deadlock free]  -- expect: holds
"""


def promela(variant: str, N: int) -> str:
    body = []
    for level in range(1, N):
        others = " && ".join(f"(_pid == {k} || level[{k}] < {level})" for k in range(N))
        cond = f"(({others}) || victim[{level}] != _pid)"
        steps = [f"level[_pid] = {level};", f"victim[{level}] = _pid;"]
        if variant == "bug":
            steps.reverse()
        body += steps
        if level < N - 1:
            body.append(f"{cond};")
        else:
            body.append(f"d_step {{ {cond}; ncs++; assert(ncs <= 1) }};")
    body.append("d_step { ncs--; level[_pid] = 0 }")
    code = "\n     ".join(body)
    return f"""#define N {N}
byte level[N];
byte victim[N];
byte ncs;

active [N] proctype P() {{
  do
  :: {code}
  od
}}
"""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
