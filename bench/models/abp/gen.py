"""The alternating bit protocol over lossy channels of capacity C, data values 0..D-1.

Origin: K. A. Bartlett, R. A. Scantlebury and P. T. Wilkinson, "A note on reliable
full-duplex transmission over half-duplex links", CACM 12(5), 1969; the version of
G. J. Holzmann, "Design and Validation of Computer Protocols" (1991), chapter 14 and of
Roscoe's CSP book (section 5.3). The sender sends (data, bit) again and again until it
receives an acknowledgement carrying its bit, then flips the bit and moves to the next
datum (data cycle through 0..D-1); the receiver delivers a message whose bit it expects,
flips its bit and acknowledges, and acknowledges a duplicate without delivering it. Both
channels are FIFO buffers of capacity C whose head can be lost at any time.
Published figures: none exact (the protocol delivers every datum once and in order).
Correspondence with SPIN: one to one. The Promela channels are buffered channels of
capacity C; in fito each is an array of C slots and a length, shifted on every receive with
the freed slot set to 0, which is how SPIN stores a channel. Each Promela d_step or send is
one fito event (the two sends of acknowledgements are two Promela statements, so two fito
terms); `bad` records a delivery out of order in both. Channels would read more
naturally as fito buffered channels (issue 13).
Variant `nobit`: the receiver ignores the bit and delivers duplicates; delivery fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "abp"
SMALL = {"C": 4, "D": 3}
BENCH = {"C": 16, "D": 5}
VARIANTS = {
    "": "data are delivered once and in order; no deadlock",
    "nobit": "the receiver ignores the bit: delivery fails",
}
EXTRA_FITO_STATES = 0
PUBLISHED: dict = {}


def _pop(names: list[str], C: int, length: str) -> str:
    """The writes that take the head off queue slots `names` (and shorten `length`)."""
    writes = []
    for name in names:
        writes += [f"{name}[{k}] := {name}[{k + 1}]" for k in range(C - 1)]
        writes.append(f"{name}[{C - 1}] := 0")
    return ", ".join([*writes, f"{length} := {length} - 1"])


def fito(variant: str, C: int, D: int) -> str:
    pop_d = _pop(["dd", "db"], C, "dlen")
    pop_a = _pop(["ab"], C, "alen")
    accept = "dlen > 0" if variant == "nobit" else "dlen > 0 and db[0] == rbit"
    duplicate = (
        ""
        if variant == "nobit"
        else f"""
  [] (dlen > 0 and db[0] != rbit) & duplicate {{{pop_d}}} ->
     alen < C & ack {{ab[alen] := 1 - rbit, alen := alen + 1}} -> Receiver"""
    )
    return f"""const C = {C}
const D = {D}
type Slot = 0..C-1
type Data = 0..D-1
channel send, ackOk, ackOld, deliver, duplicate, ack, loseData, loseAck
domain dd[k: Slot]: Data = 0 durable     -- the data channel: data and bit of each slot
domain db[k: Slot]: 0..1 = 0 durable
domain dlen: 0..C = 0 durable
domain ab[k: Slot]: 0..1 = 0 durable     -- the acknowledgement channel
domain alen: 0..C = 0 durable
domain sbit: 0..1 = 0 durable
domain sdata: Data = 0 durable
domain rbit: 0..1 = 0 durable
domain expect: Data = 0 durable
domain bad: Bool = false durable

process Sender =
  dlen < C & send {{dd[dlen] := sdata, db[dlen] := sbit, dlen := dlen + 1}} -> Sender
  [] (alen > 0 and ab[0] == sbit) &
     ackOk {{{pop_a}, sbit := 1 - sbit, sdata := (sdata + 1) % D}} -> Sender
  [] (alen > 0 and ab[0] != sbit) & ackOld {{{pop_a}}} -> Sender
process Receiver =
  ({accept}) & deliver {{{pop_d}, bad := bad or dd[0] != expect,
                         expect := (expect + 1) % D, rbit := 1 - rbit}} -> Ack{duplicate}
process Ack = alen < C & ack {{ab[alen] := 1 - rbit, alen := alen + 1}} -> Receiver
process Lossy =
  dlen > 0 & loseData {{{pop_d}}} -> Lossy
  [] alen > 0 & loseAck {{{pop_a}}} -> Lossy
process ABP = Sender ||| Receiver ||| Lossy

system ABP
assert always not bad  -- expect: {"fails" if variant else "holds"}
assert :[deadlock free]  -- expect: holds
"""


def promela(variant: str, C: int, D: int) -> str:
    if variant == "nobit":
        receive = """  :: d_step { dch?rd,rb; bad = bad || rd != expect; assert(!bad);
              expect = (expect + 1) % D; rbit = 1 - rbit; rd = 0; rb = 0 };
     ach!(1 - rbit)"""
    else:
        receive = """  :: d_step { dch?rd,eval(rbit); bad = bad || rd != expect; assert(!bad);
              expect = (expect + 1) % D; rbit = 1 - rbit; rd = 0 };
     ach!(1 - rbit)
  :: d_step { dch?rd,eval(1 - rbit); rd = 0 };
     ach!(1 - rbit)"""
    return f"""#define C {C}
#define D {D}
chan dch = [C] of {{ byte, bit }};
chan ach = [C] of {{ bit }};
bit sbit;
byte sdata;
bit rbit;
byte expect;
bool bad;
byte rd;      /* the datum just received (reset in the same step) */
bit rb;

active proctype Sender() {{
  do
  :: dch!sdata,sbit
  :: d_step {{ ach?eval(sbit); sbit = 1 - sbit; sdata = (sdata + 1) % D }}
  :: d_step {{ ach?eval(1 - sbit) }}
  od
}}

active proctype Receiver() {{
  do
{receive}
  od
}}

active proctype Lossy() {{
  do
  :: d_step {{ dch?_,_ }}
  :: d_step {{ ach?_ }}
  od
}}
"""


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import cli

    sys.exit(cli(sys.modules[__name__], sys.argv[1:]))
