"""Extreme inputs (issue 31): deep and wide structures of every operator and declaration,
extreme parameters of every command, and the files of one command given to another.

A second, independent fuzzer found what mutating seeds rarely makes: a structure repeated
thousands of times (a choice of 20,000 operands, 10,000 functions each calling the next,
ten nested replicated choices, an atomic block of dependent statements, 2,000 nested `if`s
for `fmt`), a command's parameter at its extreme (`simulate --jobs 100000 --exact`), and a
file made for another command. Each generator here builds one such shape at a size drawn
from `SIZES`; every one must be answered within the harness's bounds like any other case.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from .cases import DIR, Case
from .seeds import Seeds

SIZES = (10, 100, 1000, 2000, 5000, 20_000)
HEAD = "channel a, b\nchannel c: (0..3)\ndomain x: 0..3 = 0 volatile\n"
TAIL = "system P\nassert :[deadlock free]\nassert P |= always x <= 3\n"


def _proc(body: str) -> str:
    return f"{HEAD}process P = {body}\n{TAIL}"


def _chain(op: str) -> Callable[[int], str]:
    return lambda n: _proc(f" {op} ".join(["a -> P"] * n))


def _nested(wrap: Callable[[str], str], leaf: str = "a -> P") -> Callable[[int], str]:
    def make(n: int) -> str:
        body = leaf
        for _ in range(n):
            body = wrap(body)
        return _proc(body)

    return make


def _expr_chain(op: str) -> Callable[[int], str]:
    return lambda n: _proc(f"({f' {op} '.join(['x'] * n)}) >= 0 & a -> P")


def _bool_chain(op: str) -> Callable[[int], str]:
    return lambda n: _proc(f"({f' {op} '.join(['x == 0'] * n)}) & a -> P")


def _prefix(n: int) -> str:
    return _proc("a -> " * n + "P")


def _functions(n: int) -> str:
    funs = "".join(f"fun f{i}(v: 0..3): 0..3 = f{i + 1}(v)\n" for i in range(n))
    return f"{funs}fun f{n}(v: 0..3): 0..3 = v\n" + _proc("a { x := f0(x) } -> P")


def _constants(n: int) -> str:
    consts = "const K0 = 1\n" + "".join(f"const K{i + 1} = K{i}\n" for i in range(n))
    return consts + _proc("c!(K0 % 4) -> P")


def _constants_backwards(n: int) -> str:
    consts = "".join(f"const K{i} = K{i + 1}\n" for i in range(n)) + f"const K{n} = 1\n"
    return consts + _proc("c!(K0 % 4) -> P")


def _types(n: int) -> str:
    types = "type T0 = 0..3\n" + "".join(f"type T{i + 1} = T{i}\n" for i in range(n))
    return types + f"channel d: T{n}\n" + _proc("d?v -> P")


def _processes(n: int) -> str:
    procs = "".join(f"process Q{i} = a -> Q{i + 1}\n" for i in range(n)) + f"process Q{n} = P\n"
    return procs + _proc("b -> Q0")


def _assertions(n: int) -> str:
    return _proc("a -> P") + "assert P |= always x <= 3\n" * n


def _enumeration(n: int) -> str:
    members = ", ".join(f"m{i}" for i in range(n))
    return f"type E = {{{members}}}\nchannel e: E\n" + _proc("e?v -> P")


def _replicated(op: str) -> Callable[[int], str]:
    def make(n: int) -> str:
        depth = max(2, min(12, n // 100 + 2))
        body = "c!(v0 % 4) -> STOP" if op != "|~|" else "c!(v0 % 4) -> P"
        for i in range(depth):
            body = f"{op} v{i}: {{0..9}} @ {body}"
        return _proc(body)

    return make


def _atomic(statement: str) -> Callable[[int], str]:
    return lambda n: _proc("atomic { " + ", ".join([statement] * n) + " } -> P")


def _select(n: int) -> str:
    return _proc("if " + " ".join([":: a -> P"] * n) + " fi")


def _renaming(n: int) -> str:
    return (
        f"channel p, q: (0..{n})\nprocess R = p?v -> R\nprocess S = q?v -> S\n"
        "process P = (R [[p <- q]]) [{| q |} || {| q |}] S\nsystem P\nassert :[deadlock free]\n"
    )


def _wide_channel(n: int) -> str:
    fields = ".".join(["(0..1)"] * min(n, 64))
    return f"channel w: {fields}\n" + _proc("w?v -> P")


def _array(n: int) -> str:
    return f"domain arr[i: 0..{n}]: 0..3 = 0 volatile\n" + _proc(
        f"a {{ forall j: (0..{n}) @ arr[j] := (arr[j] + 1) % 4 }} -> P"
    )


def _lets(n: int) -> str:
    lets = "".join(f"let y{i} = {'x' if i == 0 else f'y{i - 1}'} in " for i in range(n))
    return _proc(f"({lets}y{n - 1}) >= 0 & a -> P")


def _block_comments(n: int) -> str:
    return "{-" * n + " -}" * n + "\n" + _proc("a -> P")


#: (name, builder of a spec of size n): every operator and declaration, deep or wide
SHAPES: tuple[tuple[str, Callable[[int], str]], ...] = (
    ("choice-chain", _chain("[]")),
    ("internal-choice-chain", _chain("|~|")),
    ("interleaving-chain", _chain("|||")),
    ("interrupt-chain", _chain("/\\")),
    ("sliding-chain", _chain("[>")),
    ("sequence-chain", lambda n: _proc(" ; ".join(["SKIP"] * n) + " ; a -> P")),
    ("sync-chain", _chain("[| {| a |} |]")),
    ("prefix-chain", _prefix),
    ("nested-if", _nested(lambda p: f"if x == 0 then {p} else STOP")),
    ("nested-guard", _nested(lambda p: f"x < 3 & {p}")),
    ("nested-hiding", _nested(lambda p: f"({p}) \\ {{| b |}}")),
    ("nested-renaming", _nested(lambda p: f"({p}) [[a <- b]]")),
    ("nested-parentheses", _nested(lambda p: f"({p})")),
    ("nested-choice-right", _nested(lambda p: f"a -> P [] ({p})")),
    ("nested-parallel", _nested(lambda p: f"(a -> P) ||| ({p})")),
    ("nested-assignment-prefix", _nested(lambda p: f"a {{ x := (x + 1) % 4 }} -> {p}")),
    ("sum-chain", _expr_chain("+")),
    ("product-chain", _expr_chain("*")),
    ("difference-chain", _expr_chain("-")),
    ("modulo-chain", _expr_chain("%")),
    ("and-chain", _bool_chain("and")),
    ("or-chain", _bool_chain("or")),
    ("implies-chain", _bool_chain("=>")),
    ("not-chain", lambda n: _proc("not " * n + "(x == 0) & a -> P")),
    ("negation-chain", lambda n: _proc("- " * n + "x <= 3 & a -> P")),
    ("nested-let", _lets),
    ("nested-forall", lambda n: _proc("(" + "forall v: 0..1 @ " * min(n, 30) + "x >= 0) & a -> P")),
    ("max-chain", lambda n: _proc("max(" * n + "x" + ", 1)" * n + " >= 0 & a -> P")),
    ("min-chain", lambda n: _proc("min(" * n + "x" + ", 1)" * n + " >= 0 & a -> P")),
    ("function-chain", _functions),
    ("constant-chain", _constants),
    ("constant-chain-backwards", _constants_backwards),
    ("type-chain", _types),
    ("process-chain", _processes),
    ("many-assertions", _assertions),
    ("wide-enumeration", _enumeration),
    ("nested-replicated-choice", _replicated("[]")),
    ("nested-replicated-internal-choice", _replicated("|~|")),
    ("nested-replicated-interleaving", _replicated("|||")),
    ("atomic-block", _atomic("x := 1")),
    ("atomic-dependent", _atomic("x := (x + 1) % 4")),
    ("atomic-doubling", _atomic("x := (x + x) % 4")),
    ("atomic-if", _atomic("if x == 0 then { x := 1 } else { x := 2 }")),
    ("select-branches", _select),
    ("renamed-alphabetised-parallel", _renaming),
    ("wide-channel", _wide_channel),
    ("wide-array", _array),
    ("nested-block-comments", _block_comments),
)


def extreme_spec(r: random.Random) -> tuple[bytes, str]:
    name, make = r.choice(SHAPES)
    n = r.choice(SIZES)
    return make(n).encode(), f"{name}-{n}"


def spec_case(r: random.Random, seeds: Seeds) -> Case:
    """A deep or wide spec, for a command that reads specs."""
    text, how = extreme_spec(r)
    command = r.choice(["check", "check", "check", "fmt", "fmt", "lts", "types"])
    argv = [command, f"{DIR}/spec.fito"]
    if command == "check":
        argv += r.choice([[], [], ["--engine", "frontier"], ["--format", "json"]])
    return Case(tuple(argv), (("spec.fito", text),), origin=f"extreme/{command}/{how}")


def _big(r: random.Random) -> str:
    return r.choice(["100000", "1000000", "99999999999999999999", "0", "1", "-1", "1e9"])


def parameter_case(r: random.Random, seeds: Seeds) -> Case:
    """A command at an extreme of one of its parameters."""
    model = r.choice(seeds.models) if seeds.models else b""
    k = r.randrange(6)
    if k == 0:
        argv = ["simulate", f"{DIR}/model.toml", "--jobs", _big(r)]
        argv += r.choice([["--exact"], [], ["--exact", "--writers"], ["--format", "json"]])
        argv += r.choice([[], ["--cycles", _big(r)], ["--max-events", _big(r)]])
        return Case(tuple(argv), (("model.toml", model),), origin="extreme/simulate")
    if k == 1:
        argv = ["returnmap", f"{DIR}/model.toml", "--branch", "all", "--jobs", _big(r)]
        return Case(tuple(argv), (("model.toml", model),), origin="extreme/returnmap")
    if k == 2:
        argv = ["lattice", "-k", _big(r), "-n", _big(r)]
        return Case(tuple(argv), origin="extreme/lattice")
    if k == 3:
        text, how = extreme_spec(r)
        argv = [
            "check",
            f"{DIR}/spec.fito",
            "--max-states",
            _big(r),
            "--jobs",
            r.choice(["1", "2"]),
        ]
        return Case(tuple(argv), (("spec.fito", text),), origin=f"extreme/check-flags/{how}")
    if k == 4:
        text, how = extreme_spec(r)
        argv = ["lts", f"{DIR}/spec.fito", "--max-states", _big(r)]
        return Case(tuple(argv), (("spec.fito", text),), origin=f"extreme/lts-flags/{how}")
    # not drawn yet: 5,000 lines of `torch.save(model.state_dict(), f'ckpt/{step}/m.pt')`,
    # after each of which a lint rule scans every later event (docs/fuzzing.md: open)
    n = r.choice(SIZES)
    line = r.choice(
        [
            "torch.save(m, 'x')\n",
            "if " + "not " * n + "ok:\n    torch.save(opt.state_dict(), 'o.pt')\n",
        ]
    )
    data = ("import torch\n" + line * (n if len(line) < 80 else 1)).encode()
    argv = ["lint", f"{DIR}/train.py"] + r.choice(
        [[], ["--model", "--model-dir", f"{DIR}/specs"], ["--format", "sarif"]]
    )
    return Case(tuple(argv), (("train.py", data),), origin=f"extreme/lint-{n}")


def _a_file(r: random.Random, seeds: Seeds) -> tuple[bytes, str]:
    """A file made for some command: a spec, a model, a certificate, a report, a script."""
    kinds: list[tuple[str, tuple[bytes, ...]]] = [
        ("spec", seeds.specs),
        ("model", seeds.models),
        ("certificate", seeds.certificates),
        ("report", tuple(report for report, _ in seeds.reports)),
        ("python", seeds.python),
        ("claims", tuple(data for _, data in seeds.claims)),
    ]
    name, pool = r.choice([k for k in kinds if k[1]])
    return r.choice(pool), name


def foreign_case(r: random.Random, seeds: Seeds) -> Case:
    """One command given the file of another (a model to `check`, a spec to `simulate`, a
    certificate to `replay`, a report to `recheck`, a script to `inspect`...)."""
    data, kind = _a_file(r, seeds)
    other, _ = _a_file(r, seeds)
    command = r.choice(
        [
            "check",
            "fmt",
            "lts",
            "types",
            "simulate",
            "returnmap",
            "recheck",
            "lint",
            "replay",
            "inspect",
            "prove",
            "lattice",
        ]
    )
    if command == "replay":
        argv = ["replay", f"{DIR}/a", f"{DIR}/b"]
        files = (("a", data), ("b", other))
    elif command == "returnmap":
        argv, files = ["returnmap", f"{DIR}/a", "--branch", "all"], (("a", data),)
    elif command == "inspect":
        argv = ["inspect", f"{DIR}/d"]
        files = (("d/commits/e0000000001.json", data), ("d/shards/model/e0000000001.shard", other))
    elif command == "prove":
        argv, files = ["prove", f"{DIR}/a.py", "--certificates", f"{DIR}/out"], (("a.py", data),)
    elif command == "lattice":
        argv, files = ["lattice", "-k", f"{DIR}/a", "-n", "2"], (("a", data),)
    elif command == "lint":
        argv, files = ["lint", f"{DIR}/a.py"], (("a.py", data),)
    elif command == "recheck":
        argv, files = ["recheck", f"{DIR}/a.json"], (("a.json", data),)
    else:
        argv, files = [command, f"{DIR}/a"], (("a", data),)
    return Case(tuple(argv), files, origin=f"foreign/{command}/{kind}")


def deep_json(r: random.Random, seeds: Seeds) -> Case:
    """A JSON document deep or wide, where a command reads JSON."""
    n = r.choice(SIZES)
    doc = r.choice(
        [
            "[" * n + "]" * n,
            json.dumps({"files": [{"assertions": None}]}),
            json.dumps({"files": [{"assertions": [{"verdict": "fails", "run": None}]}]}),
            json.dumps({"steps": [[0] * n]}),
            '{"a": ' * n + "1" + "}" * n,
        ]
    ).encode()
    command = r.choice(["replay", "recheck"])
    if command == "replay":
        spec = r.choice(seeds.specs) if seeds.specs else b""
        argv, files = (
            ["replay", f"{DIR}/t.json", f"{DIR}/s.fito"],
            (("t.json", doc), ("s.fito", spec)),
        )
    else:
        argv, files = ["recheck", f"{DIR}/t.json"], (("t.json", doc),)
    return Case(tuple(argv), files, origin=f"extreme/json-{command}-{n}")


#: (weight, maker) added to `inputs.draw`: a few per cent of the stream, since each costs
#: up to the harness's --timeout
MAKERS: tuple[tuple[float, Callable[[random.Random, Seeds], Case]], ...] = (
    (1.2, spec_case),
    (0.5, parameter_case),
    (0.8, foreign_case),
    (0.3, deep_json),
)
