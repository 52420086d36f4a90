"""Mutations of inputs: bytes, tokens and lines, splices of two inputs, hostile snippets."""

from __future__ import annotations

import random
import re

_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_']*|[0-9]+|\s+|.", re.S)
INTERESTING_INTS = (
    b"0",
    b"1",
    b"2",
    b"3",
    b"7",
    b"255",
    b"1000",
    b"65536",
    b"1000000",
    b"1000000000",
    b"4294967296",
    b"999999999999999999",
    b"9999999999999999999",
    b"-1",
    b"(0 - 1)",
)
INTERESTING_BYTES = (
    b"\x00",
    b"\xff",
    b"\x80",
    b"\xc3",
    b"\n",
    b"\r",
    b"\t",
    b"{",
    b"}",
    b"(",
    b")",
    b"[",
    b"]",
    b"-",
    b"{-",
    b"-}",
    b"--",
    b"'",
    b'"',
    b"\xef\xbb\xbf",
    b"\xe2\x80\xae",
    b"\\",
    b"@",
    b"|",
    b"=",
    b".",
    b"?",
    b"!",
)
OPERATORS = (
    b"->",
    b"[]",
    b"|~|",
    b"|||",
    b"[|",
    b"|]",
    b"{|",
    b"|}",
    b"/\\",
    b";",
    b"\\",
    b"&",
    b"@",
    b"..",
    b":=",
    b"==",
    b"=>",
    b"and",
    b"or",
    b"not",
    b"/",
    b"%",
    b"*",
    b"+",
    b"-",
    b"forall",
    b"exists",
    b"if",
    b"then",
    b"else",
    b"STOP",
    b"SKIP",
    b"epoch",
    b"require",
    b"let",
    b"pipeline",
    b"within",
    b"Snap",
    b"Conv",
    b"Int",
)

#: Lines a hostile user would add: the shapes of issue 14's findings and their neighbours.
SNIPPETS = (
    b"type Dom = {gpu}\ntype Dom = {gpu, nvme}",
    b"type T = {a, b}\ntype U = {b, c}\ntype T = 0..3",
    b"domain x': 0..2 = 0 volatile\nchannel tick\nprocess Tick' = tick { x' := x' + 1 } -> Tick'",
    b"channel a\nprocess PP(n: 0..3) = a -> PP(n / 0)\nsystem PP(1 / 0)",
    b"channel a\nprocess QQ(y: 1..2) = a -> QQ(y - 1)\nsystem QQ(2)\nassert QQ(2) :[deadlock free]",
    b"type Big = 0..1000000000\nchannel cbig: Big\nprocess Rx = cbig?x -> Rx",
    b"type K = 0..1000\nchannel ck: K\nprocess Rep = [] v: K @ ck.v -> Rep",
    b"const Q3 = forall a: {0..1000} @ forall b: {0..1000} @ forall c: {0..1000} @ a + b + c >= 0",
    b"const S0 = 99999999\nconst S1 = S0 * S0 * S0 * S0\nconst S2 = S1 * S1 * S1 * S1\n"
    b"const S3 = S2 * S2 * S2 * S2\nconst S4 = S3 * S3 * S3 * S3",
    b"channel cc\nprocess Fork = cc -> (Fork [| {| cc |} |] Fork)\nassert Fork :[deadlock free]",
    b"channel a2\nprocess Grow = a2 -> (Grow ||| Grow)\nassert Grow [T= Grow",
    b"assert always forall x: {0..3} @ ((((x + 1)))) >= 0",
    b"assert Node |= eventually (exists d: Dom @ saved[d] == 0)",
    b"system STOP\nassert STOP :[deadlock free]",
    b"pipeline p { epoch e1, e2\n  require e1 == e2 + 1\n  let s = snapshot(gpu) @ e1\n"
    b"  restore(s) }",
    b"pipeline q { epoch e\n  require e * e == 4\n  let c = converge(s) }",
    b"const N = 10 / 0\nconst M = N % 0\ntype R = M..N",
    b"type E = 0..(0 - 1)\ndomain z[i: E]: E = i volatile",
    b"domain arr[i: 0..999][j: 0..999]: Bool = i == j volatile",
    b"process Deep = " + b"if true then " * 300 + b"STOP" + b" else STOP" * 300,
    b"channel cz\nprocess Chain = " + b"cz -> " * 3000 + b"STOP",
    b"const Par = " + b"(" * 300 + b"1" + b")" * 300,
    b"process Ch = " + b" [] ".join([b"a -> Ch"] * 100),
    b"assert P [T= Q\nassert Q [T= P\nassert P :[deadlock free]",
    b"channel crash\nprocess Crash = crash -> Crash /\\ (crash -> SKIP)",
)


def mutate_bytes(r: random.Random, data: bytes) -> bytes:
    """One random byte-level change."""
    b = bytearray(data)
    op = r.randrange(8)
    at = r.randrange(len(b) + 1)
    if op == 0 and b:  # flip a bit
        i = r.randrange(len(b))
        b[i] ^= 1 << r.randrange(8)
    elif op == 1:  # insert an interesting byte sequence
        b[at:at] = r.choice(INTERESTING_BYTES)
    elif op == 2 and b:  # delete a range
        b[at : at + r.randrange(1, 64)] = b""
    elif op == 3 and b:  # duplicate a range
        n = r.randrange(1, 128)
        b[at:at] = b[at : at + n]
    elif op == 4:  # truncate
        del b[at:]
    elif op == 5:  # random bytes
        b[at:at] = bytes(r.randrange(256) for _ in range(r.randrange(1, 8)))
    elif op == 6:  # line endings
        return bytes(b).replace(b"\n", r.choice([b"\r\n", b"\r", b"\n\n", b" "]))
    else:  # a byte repeated
        b[at:at] = r.choice(INTERESTING_BYTES) * r.randrange(2, 600)
    return bytes(b)


COMMENTS = (
    b"{- c -}",
    b"{--}",
    b"{- {- nested -} -}",
    b"-- line\n",
    b"--\n",
    b"{-\n-}",
    b"{- -- -}",
    b" -- {-\n",
    b"{- \xe2\x80\xae -}",
)


def mutate_text(r: random.Random, data: bytes, others: tuple[bytes, ...] = ()) -> bytes:
    """One random change at the level of tokens or lines (specs, models, certificates)."""
    op = r.randrange(11)
    if op == 10:  # a comment between two tokens (the printer must keep it, and the tree)
        tokens = _TOKEN.findall(data)
        tokens.insert(r.randrange(len(tokens) + 1), r.choice(COMMENTS))
        return b"".join(tokens)
    if op == 0 and others:
        return splice(r, data, r.choice(others))
    if op == 1:
        return insert_line(r, data, r.choice(SNIPPETS))
    if op in (2, 3):
        return _lines(r, data)
    tokens = _TOKEN.findall(data)
    if not tokens:
        return data + r.choice(SNIPPETS)
    i = r.randrange(len(tokens))
    t = tokens[i]
    if t.isdigit() or op == 4:
        tokens[i] = r.choice(INTERESTING_INTS)
    elif op == 5:
        tokens[i] = r.choice(OPERATORS)
    elif op == 6:  # a name replaced by another name of the input (or a primed one)
        names = [x for x in tokens if x[:1].isalpha()] or [b"x"]
        tokens[i] = r.choice(names) + (b"'" if r.random() < 0.2 else b"")
    elif op == 7:  # parentheses around a stretch
        j = min(len(tokens), i + r.randrange(1, 8))
        depth = r.choice([1, 2, 5, 40])
        tokens[i:j] = [b"(" * depth] + tokens[i:j] + [b")" * depth]
    elif op == 8:
        del tokens[i : i + r.randrange(1, 4)]
    else:
        tokens.insert(i, tokens[r.randrange(len(tokens))])
    return b"".join(tokens)


def _lines(r: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    i, j = r.randrange(len(lines)), r.randrange(len(lines))
    op = r.randrange(4)
    if op == 0:
        lines.insert(i, lines[j])
    elif op == 1 and len(lines) > 1:
        del lines[i]
    elif op == 2:
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines[i:i] = [lines[j]] * r.randrange(2, 50)
    return b"\n".join(lines)


def splice(r: random.Random, a: bytes, b: bytes) -> bytes:
    """A prefix of one input and a suffix of another, cut at line boundaries mostly."""
    la, lb = a.split(b"\n"), b.split(b"\n")
    if r.random() < 0.8:
        return b"\n".join(la[: r.randrange(len(la) + 1)] + lb[r.randrange(len(lb) + 1) :])
    return a[: r.randrange(len(a) + 1)] + b[r.randrange(len(b) + 1) :]


def insert_line(r: random.Random, data: bytes, line: bytes) -> bytes:
    lines = data.split(b"\n")
    lines.insert(r.randrange(len(lines) + 1), line)
    return b"\n".join(lines)


def mutate(
    r: random.Random, data: bytes, others: tuple[bytes, ...] = (), rounds: int | None = None
) -> bytes:
    """A few mutations in a row: mostly textual, sometimes byte-level."""
    for _ in range(rounds if rounds is not None else r.choice([1, 1, 1, 2, 3, 5])):
        data = mutate_bytes(r, data) if r.random() < 0.2 else mutate_text(r, data, others)
        if len(data) > 400_000:
            data = data[:400_000]
    return data
