"""The dining philosophers, as Roscoe's CSP college with and without the butler.

Origin: E. W. Dijkstra's problem (EWD310, 1971) in the CSP form of A. W. Roscoe, "The Theory
and Practice of Concurrency" (1997), section 2.2.1: PHIL(i) = thinks.i -> sits.i ->
picks.i.i -> picks.i.(i+1) -> eats.i -> putsdown.i.(i+1) -> putsdown.i.i -> getsup.i ->
PHIL(i); FORK(i) is picked and put down by philosopher i or i-1; the college deadlocks when
every philosopher holds the left fork; a BUTLER that lets at most N - 1 sit removes the
deadlock.
Published figures: none exact (Roscoe gives the verdicts: the college deadlocks, the
college with the butler is deadlock free).
Correspondence with SPIN: one to one. A Promela philosopher has one statement per CSP event;
the forks and the butler are global variables of the Promela model (fork[i] = 0 when free,
else the holder plus one; nsit the number seated), in one-to-one correspondence with the
states of the fito FORK and BUTLER processes. Purely local events (thinks, and sits/getsup
without the butler) are Promela printf statements, which SPIN keeps as steps under -o3.
eating[] (set at eats.i, cleared with the right fork) is a function of the control state,
so the invariant adds no state.
Variant `nobutler`: the college without the butler: deadlock.
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "philosophers"
SMALL = {"N": 3}
BENCH = {"N": 6}
VARIANTS = {
    "": "with the butler: no neighbours eat together, no deadlock",
    "nobutler": "without the butler: deadlock",
}
EXTRA_FITO_STATES = 0
PUBLISHED: dict = {}


def fito(variant: str, N: int) -> str:
    system = "College" if variant == "nobutler" else "Served"
    return f"""const N = {N}
type Id = 0..N-1
channel thinks, sits, eats, getsup: Id
channel picks, putsdown: Id.Id
domain eating[i: Id]: Bool = false durable

process Phil(i: Id) =
  thinks.i -> sits.i -> picks.i.i -> picks.i.((i + 1) % N) -> eats.i {{eating[i] := true}} ->
  putsdown.i.((i + 1) % N) {{eating[i] := false}} -> putsdown.i.i -> getsup.i -> Phil(i)
process Fork(i: Id) =
  picks.i.i -> putsdown.i.i -> Fork(i)
  [] picks.((i + N - 1) % N).i -> putsdown.((i + N - 1) % N).i -> Fork(i)
process Butler(n: 0..N-1) = n < N - 1 & sits?i -> Butler(n + 1) [] n > 0 & getsup?i -> Butler(n - 1)
process College = (||| i: Id @ Phil(i)) [| {{| picks, putsdown |}} |] (||| i: Id @ Fork(i))
process Served = College [| {{| sits, getsup |}} |] Butler(0)

system {system}
assert always (forall i: Id @ not (eating[i] and eating[(i + 1) % N]))  -- expect: holds
assert :[deadlock free]  -- expect: {"fails" if variant else "holds"}
"""


def promela(variant: str, N: int) -> str:
    butler = variant != "nobutler"
    sits = "d_step { nsit < N - 1; nsit++ }" if butler else 'printf("sits\\n")'
    getsup = "nsit--" if butler else 'printf("getsup\\n")'
    return f"""#define N {N}
#define R ((_pid + 1) % N)
byte fork[N];     /* 0: free, else the holder + 1 */
byte nsit;        /* the butler: philosophers seated */
bool eating[N];

active [N] proctype Phil() {{
  do
  :: printf("thinks\\n");
     {sits};
     d_step {{ fork[_pid] == 0; fork[_pid] = _pid + 1 }};
     d_step {{ fork[R] == 0; fork[R] = _pid + 1 }};
     d_step {{ eating[_pid] = 1; assert(!eating[R] && !eating[(_pid + N - 1) % N]) }};
     d_step {{ fork[R] = 0; eating[_pid] = 0 }};
     fork[_pid] = 0;
     {getsup}
  od
}}
"""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
