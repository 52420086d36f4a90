"""The frontier engine's generated numpy (fused writes per word, computed indices over the
slots their bounds allow, copies of fields as shifts of words) and its grouping of rows by
the movers' locations give the answers of the state-by-state engine: verdicts, counts,
traces and model errors (issue 12, point 5)."""

from __future__ import annotations

import pytest

from tests.helpers.agreement import assert_same

# a: eight 10-bit fields over two words (shifted copies across words, computed indices
# whose slots lie in both words); b: four fields of lowest value 1 written at computed
# indices; the `always` fails at depth 17, past the rows after which groups are vectorised
RING = """const N = 8
type Idx = 0..N-1
domain a[k: Idx]: 0..1000 = 0 durable
domain b[k: 0..3]: 1..4 = 1 durable
domain p: 0..N = 0 durable
domain c: 0..6 = 0 durable
channel put, roll, tick, swap, fill, extra
process W = p < N & put {a[p] := p * 100, p := p + 1} -> W
  [] p > 0 & roll {a[0] := a[1], a[1] := a[2], a[2] := a[3], a[3] := a[4], a[4] := a[5],
                   a[5] := a[6], a[6] := a[7], a[7] := 0, p := p - 1} -> W
  [] p == N & fill {a[b[c % 4] + 2] := a[c], p := 0} -> W
process T = tick {c := (c + 1) % 7, b[c % 4] := 1 + c % 4} -> T
  [] swap {b[0] := b[3], b[3] := b[0]} -> T
  EXTRA
system W ||| T
assert always not (a[b[c % 4] + 2] == 600 and p == 3)
assert always not (p == 2 and a[0] == 300 and c == 6 and b[1] == 2)
"""

EXTRAS = {
    "none": "",
    # two writes of one event to one computed slot, with different values (M008)
    "conflict": "[] p > 6 & c == 6 & extra {b[c % 4] := 2, b[(c * 3) % 4] := 3} -> T",
    # a computed index past the array's end (M007), met at depth 14
    "index": "[] p > 6 & extra {a[p + c - 5] := 1} -> T",
}

# N processes synchronised on one event: the movers' locations make a key of 3 bits each
# (at 10: too wide for a table of live locations; at 22: wider than 62 bits); the first
# process reaches the event by two ways, so its rows have two keys; a free counter gives
# each group enough rows to be vectorised
BARRIER = """const N = {n}
type Id = 0..N-1
channel tick, inc
channel step, hop, rest: Id
domain turn: 0..N = 0 durable
domain n: 0..3 = 0 durable
domain k: 0..49 = 0 durable
process P(i: Id) = turn == i & step.i {{turn := turn + 1}} -> tick -> P(i)
  [] i == 0 & turn == i & hop.i {{turn := turn + 1}} -> tick -> rest.i -> P(i)
process Q = turn == N & tick {{n := (n + 1) % 4, turn := 0}} -> Q
process C = inc {{k := (k + 1) % 50}} -> C
process Sys = (([| {{| tick |}} |] i: Id @ P(i)) [| {{| tick |}} |] Q) ||| C
system Sys
assert always n < 3
assert :[deadlock free]
"""


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_writes_at_computed_indices_agree(extra: str) -> None:
    assert assert_same(RING.replace("EXTRA", EXTRAS[extra]), extra) == 2


@pytest.mark.parametrize("n", [4, 10, 22])
def test_wide_synchronisations_agree(n: int) -> None:
    assert assert_same(BARRIER.format(n=n), f"barrier of {n}") == 2


# a write into a set type with gaps, of a value between its members, after the group of the
# only control has met enough rows to be vectorised (it once went unflagged there)
GAPS = """type Odd = {{1, 3, 5}}
channel go, tick
domain x: Odd = 1 durable
domain k: 0..200 = 0 durable
process P = k < 200 & tick {{k := k + 1}} -> P
  [] k > 150 & go {{x := {value}}} -> P
system P
assert always k < 199
"""


@pytest.mark.parametrize("value", ["2", "k % 6", "1 + (k / 160) * 2"])
def test_writes_between_the_members_of_a_set_agree(value: str) -> None:
    assert assert_same(GAPS.format(value=value), value) == 1
