"""The Die Hard water-jug puzzle, as TLA+'s DieHard specification.

Origin: L. Lamport, the TLA+ Video Course (lecture 2) and the specification DieHard of the
TLA+ Examples repository (specifications/DieHard): jugs of 3 and 5 gallons, actions fill,
empty and pour one jug into the other; the invariant big /= 4 is violated, and TLC's
counterexample is the puzzle's solution. Generalised here to jugs of S and B gallons and a
goal of G gallons.
Published figures: TLC reports a safety failure (TLA+ Examples manifest.json); the solution,
and TLC's shortest counterexample, takes 6 steps (7 states) at S = 3, B = 5, G = 4.
Correspondence with SPIN and with TLC: one to one. One process (one Promela proctype) whose
six actions are fito events and Promela d_steps over the two variables. The reachable states
are at most (S + 1) * (B + 1), so there is no bench-sized instance.
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "diehard"
SMALL = {"S": 3, "B": 5, "G": 4}
BENCH = {"S": 3, "B": 5, "G": 4}
VARIANTS = {"": "the goal is reachable: big /= G fails in the puzzle's number of steps"}
EXTRA_FITO_STATES = 0
PUBLISHED = {"params": {"S": 3, "B": 5, "G": 4}, "trace": 6}


def fito(variant: str, S: int, B: int, G: int) -> str:
    return f"""const S = {S}
const B = {B}
const G = {G}
channel fillSmall, fillBig, emptySmall, emptyBig, smallToBig, bigToSmall
domain small: 0..S = 0 durable
domain big: 0..B = 0 durable

process Jugs =
  fillSmall {{small := S}} -> Jugs
  [] fillBig {{big := B}} -> Jugs
  [] emptySmall {{small := 0}} -> Jugs
  [] emptyBig {{big := 0}} -> Jugs
  [] smallToBig {{small := small - min(small, B - big), big := big + min(small, B - big)}} -> Jugs
  [] bigToSmall {{small := small + min(big, S - small), big := big - min(big, S - small)}} -> Jugs

system Jugs
assert always big != G  -- expect: fails
assert :[deadlock free]  -- expect: holds
"""


def promela(variant: str, S: int, B: int, G: int) -> str:
    return f"""#define S {S}
#define B {B}
#define G {G}
#define MIN(a, b) ((a) < (b) -> (a) : (b))
byte small;
byte big;
byte pour;

active proctype Jugs() {{
  do
  :: d_step {{ small = S }}
  :: d_step {{ big = B; assert(big != G) }}
  :: d_step {{ small = 0 }}
  :: d_step {{ big = 0; assert(big != G) }}
  :: d_step {{ pour = MIN(small, B - big); small = small - pour; big = big + pour; pour = 0;
              assert(big != G) }}
  :: d_step {{ pour = MIN(big, S - small); small = small + pour; big = big - pour; pour = 0;
              assert(big != G) }}
  od
}}
"""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
