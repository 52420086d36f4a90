"""Drawing cases: one subcommand, its input files (mutated, generated) and hostile flags."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator

from tests.helpers.random_specs import Gen

from . import extreme
from .cases import DIR, Case
from .grammar import program
from .mutate import SNIPPETS, insert_line, mutate, mutate_bytes
from .seeds import Seeds

NUMBERS = (
    "0",
    "-1",
    "1",
    "2",
    "3",
    "1e400",
    "-1e400",
    "1e-5000",
    "nan",
    "inf",
    "-inf",
    "0x10",
    "1_000",
    "",
    " ",
    "99999999999999999999",
    "1/0",
    "0/0",
    "1/3",
    "2^1000000",
    "1e100",
    "1e-320",
    "abc",
    "-0",
    "0.5",
    "10000",
    "2001",
    "10001",
    "1e-5",
    "3/2",
    "-1/2",
)
EXPRESSIONS = (
    "1/0",
    "2^1000000",
    "sqrt(-1)",
    "log(0)",
    "-inf",
    "inf",
    "nan",
    "exp(1000)",
    "10^400",
    "1e400",
    "0",
    "-1",
    "n*b",
    "B",
    "(",
    "",
    "1/3",
    "0.1",
    "x",
    "B^B^B^B",
    "1e-400",
    "log(-1)",
    "sqrt(2)",
    "exp(-1000)",
    "min(n, 4)*3/2",
    "n^n^n^n",
    "2**2**2**2**2",
    "floor(1e300)",
    "ceil(-0.5)",
    "abs(-3)",
    "max(1)",
    "min()",
    "(((((((((((((1)))))))))))))",
    "1" * 400,
    "-" * 30 + "1",
    "n/(n-1)",
    "n-2",
)
SIZES = ("1", "1K", "0", "-1", "10M", "64M", "1G", "1e400", "nan", "junk", "999999999T", "2G")


def draw(r: random.Random, seeds: Seeds) -> Case:
    """One case; the mix favours the commands with the most input surface."""
    makers: list[tuple[float, Callable[[random.Random, Seeds], Case]]] = [
        (30, check),
        (10, types),
        (14, fmt),
        (7, lts),
        (8, lattice),
        (9, simulate),
        (6, returnmap),
        (6, recheck),
        (4, inspect),
        (0.3, prove),
        (2, odd),
    ] + [(weight, make) for name, weight, make in LATER if name in _commands()]
    makers += list(extreme.MAKERS)
    total = sum(w for w, _ in makers)
    x = r.uniform(0, total)
    for weight, make in makers:
        x -= weight
        if x <= 0:
            return make(r, seeds)
    return check(r, seeds)


def cases(seed: int, seeds: Seeds) -> Iterator[Case]:
    """An endless, reproducible stream of cases."""
    r = random.Random(seed)
    while True:
        yield draw(r, seeds)


# ------------------------------------------------------------------------------ specs
def spec(r: random.Random, seeds: Seeds) -> tuple[bytes, str]:
    """A spec text and how it was made."""
    k = r.random()
    if k < 0.5:
        return mutate(r, r.choice(seeds.specs), seeds.specs), "mutated"
    if k < 0.65:
        return program(r, depth=r.choice([6, 9, 12, 16])), "grammar"
    if k < 0.8:
        text = _random_spec(r)
        return (mutate(r, text, seeds.specs) if r.random() < 0.5 else text), "generated"
    if k < 0.9:
        data = r.choice(seeds.specs)
        for _ in range(r.randrange(1, 20)):
            data = mutate_bytes(r, data)
        return data, "bytes"
    return insert_line(r, r.choice(seeds.specs), r.choice(SNIPPETS)), "snippet"


def _random_spec(r: random.Random) -> bytes:
    return Gen(r.randrange(1 << 30)).spec().encode()


def _maybe(r: random.Random, p: float, *flags: str) -> list[str]:
    return list(flags) if r.random() < p else []


def _hostile(r: random.Random, options: dict[str, tuple[str, ...]], p: float = 0.3) -> list[str]:
    out: list[str] = []
    for flag, values in options.items():
        if r.random() < p:
            out += [flag, r.choice(values)]
    return out


def check(r: random.Random, seeds: Seeds) -> Case:
    text, how = spec(r, seeds)
    files = [("spec.fito", text)]
    argv = ["check", f"{DIR}/spec.fito"]
    if r.random() < 0.05:
        files.append(("two.fito", spec(r, seeds)[0]))
        argv.append(f"{DIR}/two.fito")
    argv += _maybe(r, 0.3, "--format", r.choice(["json", "sarif", "text", "xml"]))
    argv += _maybe(r, 0.1, "--expect")
    argv += _hostile(
        r,
        {
            "--max-states": NUMBERS,
            "--timeout": NUMBERS,
            "--max-bytes": NUMBERS,
            "--max-memory": SIZES,
        },
        0.05,
    )
    return Case(tuple(argv), tuple(files), origin=f"check/{how}")


def types(r: random.Random, seeds: Seeds) -> Case:
    text, how = spec(r, seeds)
    argv = ["types", f"{DIR}/spec.fito"] + _maybe(r, 0.3, "--reveal") + _maybe(r, 0.2, "--stats")
    argv += _maybe(r, 0.2, "--format", r.choice(["json", "sarif"]))
    argv += _hostile(r, {"--timeout": NUMBERS, "--max-bytes": NUMBERS}, 0.05)
    return Case(tuple(argv), (("spec.fito", text),), origin=f"types/{how}")


def fmt(r: random.Random, seeds: Seeds) -> Case:
    text, how = spec(r, seeds)
    argv = ["fmt", f"{DIR}/spec.fito"] + _maybe(r, 0.15, "--check")
    return Case(tuple(argv), (("spec.fito", text),), origin=f"fmt/{how}")


def lts(r: random.Random, seeds: Seeds) -> Case:
    text, how = spec(r, seeds)
    argv = ["lts", f"{DIR}/spec.fito"] + _maybe(r, 0.5, "--format", "json")
    argv += _maybe(r, 0.2, "--process", r.choice(["P", "Q", "Node", "Sys", "Spec1", "x", ""]))
    argv += _hostile(r, {"--max-states": NUMBERS}, 0.2)
    return Case(tuple(argv), (("spec.fito", text),), origin=f"lts/{how}")


def lattice(r: random.Random, seeds: Seeds) -> Case:
    ints = (
        "1",
        "2",
        "3",
        "4",
        "8",
        "0",
        "-1",
        "2000",
        "2001",
        "10000",
        "10001",
        "99999999999999999999",
        "abc",
        "1e3",
        "200000",
    )
    argv = ["lattice", "-k", r.choice(ints), "-n", r.choice(ints)]
    argv += _hostile(
        r,
        {
            "--p": NUMBERS,
            "--rate-ratio": NUMBERS,
            "--mu-tau": NUMBERS + ("1,2", "1,2,3", ",", "1e-5000,1", "0.5," * 40),
        },
        0.5,
    )
    argv += _maybe(r, 0.5, "--format", "json")
    return Case(tuple(argv), origin="lattice")


def _model(r: random.Random, seeds: Seeds) -> tuple[bytes, str]:
    data = r.choice(seeds.models)
    if r.random() < 0.6:
        return mutate(r, data, seeds.models), "mutated"
    return data, "seed"


def _model_flags(r: random.Random) -> list[str]:
    argv = _hostile(
        r,
        {
            "--jobs": NUMBERS,
            "--work": EXPRESSIONS + ("1,2", "1,2,3"),
            "--volume": EXPRESSIONS,
            "--throughput": EXPRESSIONS,
            "--capacity": EXPRESSIONS,
            "--phases": (
                "even",
                "together",
                "together:1/0",
                "ramp:1/3",
                "ramp:0",
                "random:1",
                "random:x",
                "0,3,7/2",
                "1e400,0",
                "0.5,0.25",
                "0",
            ),
        },
        0.15,
    )
    for _ in range(r.choice([0, 0, 1, 2])):
        argv += ["--param", f"{r.choice(['B', 'b', 'C', 'X', ''])}={r.choice(EXPRESSIONS)}"]
    return argv + _maybe(r, 0.3, "--format", "json")


def simulate(r: random.Random, seeds: Seeds) -> Case:
    data, how = _model(r, seeds)
    argv = ["simulate", f"{DIR}/model.toml"] + _model_flags(r)
    argv += _maybe(r, 0.4, "--exact") + _maybe(r, 0.2, "--writers") + _maybe(r, 0.2, "--sections")
    argv += _hostile(r, {"--cycles": NUMBERS, "--max-events": NUMBERS}, 0.15)
    return Case(tuple(argv), (("model.toml", data),), origin=f"simulate/{how}")


def returnmap(r: random.Random, seeds: Seeds) -> Case:
    data, how = _model(r, seeds)
    branch = r.choice(
        [
            "pairwise",
            "overlapping",
            "staggered",
            "all",
            "c: fire1 end0 end1 fire0",
            "x",
            "",
            "c: fire9",
            "c:",
            "cc: fire0 fire0 fire0",
        ]
    )
    argv = ["returnmap", f"{DIR}/model.toml", "--branch", branch] + _model_flags(r)
    argv += _maybe(r, 0.3, "--symbolic") + _maybe(r, 0.3, "--no-check")
    return Case(tuple(argv), (("model.toml", data),), origin=f"returnmap/{how}")


def certificate(r: random.Random, data: bytes) -> bytes:
    """A structural change of a certificate, re-signed so that the kernel looks inside."""
    from fito.proof.kernel.certificate import certificate_hash

    try:
        cert = json.loads(data)
    except ValueError:
        return mutate(r, data)
    if not isinstance(cert, dict):
        return mutate(r, data)
    _mutate_json(r, cert)
    cert["sha256"] = certificate_hash(cert) if r.random() < 0.9 else "0" * 64
    text = json.dumps(cert)
    for depth in (50, 5000, 100_000):  # nesting too deep to build as objects: spliced as text
        text = text.replace(f'"{_DEEP}{depth}"', '["+", ' * depth + '"x"' + ", 1]" * depth)
    return text.encode()


_VALUES: tuple[object, ...] = (
    0,
    1,
    -1,
    10**30,
    2**64,
    1.5,
    1e308,
    "x",
    "",
    None,
    True,
    [],
    {},
    ["^", "x", 10**9],
    ["^", 2, 10**7],
    ["/", 1, 0],
    ["+"] * 3,
    [["*"]],
    ["^", "x", -1],
    "proved",
    "refuted",
)


def _mutate_json(r: random.Random, node: object, depth: int = 0) -> None:
    if isinstance(node, dict) and node:
        key = r.choice(sorted(node, key=str))
        if depth > 2 and r.random() < 0.5 or not isinstance(node[key], (dict, list)):
            node[key] = r.choice(_VALUES) if r.random() < 0.8 else _deep(r)
            return
        _mutate_json(r, node[key], depth + 1)
    elif isinstance(node, list) and node:
        i = r.randrange(len(node))
        if r.random() < 0.4 or not isinstance(node[i], (dict, list)):
            node[i] = r.choice(_VALUES) if r.random() < 0.8 else _deep(r)
            return
        _mutate_json(r, node[i], depth + 1)


_DEEP = "__deep__"


def _deep(r: random.Random) -> object:
    return f"{_DEEP}{r.choice([50, 5000, 100_000])}"


def recheck(r: random.Random, seeds: Seeds) -> Case:
    files = []
    for i in range(r.randrange(1, 4)):
        data = r.choice(seeds.certificates) if seeds.certificates else b"{}"
        data = certificate(r, data) if r.random() < 0.7 else mutate(r, data)
        files.append((f"certs/c{i}.json", data))
    argv = (
        ["recheck", f"{DIR}/certs"]
        + _maybe(r, 0.3, "--strict")
        + _maybe(r, 0.3, "--format", "json")
    )
    return Case(tuple(argv), tuple(files), origin="recheck")


def inspect(r: random.Random, seeds: Seeds) -> Case:
    tree = list(r.choice(seeds.checkpoints))
    for _ in range(r.randrange(1, 4)):
        i = r.randrange(len(tree))
        name, data = tree[i]
        op = r.random()
        if op < 0.15:
            del tree[i]
            if not tree:
                break
        elif op < 0.3:
            tree.append((name.replace("2", "3"), data))
        else:
            tree[i] = (name, mutate(r, data) if name.endswith(".json") else mutate_bytes(r, data))
    files = tuple((f"ckpt/{n}", d) for n, d in tree)
    argv = ["inspect", f"{DIR}/ckpt"] + _maybe(r, 0.5, "--format", r.choice(["json", "prometheus"]))
    return Case(tuple(argv), files, origin="inspect")


def prove(r: random.Random, seeds: Seeds) -> Case:
    name, data = r.choice(seeds.claims)
    argv = ["prove", f"{DIR}/{name}", "--certificates", f"{DIR}/out", "--jobs", "1"]
    argv += _hostile(r, {"--only": ("*", "demo.*", "nothing", "[", ""), "--timeout": NUMBERS}, 0.3)
    return Case(tuple(argv), ((name, data),), origin="prove")


def odd(r: random.Random, seeds: Seeds) -> Case:
    """Paths and command lines that are not files: a FIFO, devices, directories, no command."""
    choice = r.randrange(8)
    command = r.choice(["check", "types", "fmt", "lts"])
    if choice == 0:
        return Case((command, f"{DIR}/fifo.fito"), fifos=("fifo.fito",), origin="fifo")
    if choice == 7:  # a FIFO where another command reads a file
        return r.choice(
            [
                Case(("simulate", f"{DIR}/m.toml"), fifos=("m.toml",), origin="fifo"),
                Case(("recheck", f"{DIR}/c.json"), fifos=("c.json",), origin="fifo"),
                Case(("recheck", f"{DIR}/certs"), fifos=("certs/c.json",), origin="fifo"),
                Case(
                    ("inspect", f"{DIR}/ckpt"),
                    tuple((f"ckpt/{n}", d) for n, d in seeds.checkpoints[0][1:]),
                    fifos=(f"ckpt/{seeds.checkpoints[0][0][0]}",),
                    origin="fifo",
                ),
                Case(
                    ("prove", f"{DIR}/claims.py", "--no-certificates"),
                    fifos=("claims.py",),
                    origin="fifo",
                ),
            ]
        )
    if choice == 1:
        return Case(
            (
                command,
                r.choice(["/dev/zero", "/dev/null", "/dev/urandom", "/proc/self/mem", "/", DIR]),
            ),
            origin="device",
        )
    if choice == 2:
        return Case(
            tuple(
                r.choice(
                    [
                        [],
                        ["--version"],
                        ["--help"],
                        ["nope"],
                        ["-"],
                        ["check"],
                        ["check", "--help"],
                        ["--max-memory", "1G"],
                    ]
                )
            ),
            origin="argv",
        )
    if choice == 3:
        return Case(("simulate", r.choice(["/dev/zero", DIR, f"{DIR}/none.toml"])), origin="device")
    if choice == 4:
        return Case(("inspect", r.choice(["/dev/null", "/proc", f"{DIR}/none"])), origin="device")
    if choice == 5:
        return Case(
            ("recheck", r.choice(["/dev/null", "/proc/self/status", f"{DIR}"])), origin="device"
        )
    return Case(
        (command, f"{DIR}/spec.fito", "--max-memory", r.choice(SIZES)),
        (("spec.fito", r.choice(seeds.specs)),),
        origin="memory-flag",
    )


# ------------------------------------------------------------------ commands added later
def _commands() -> tuple[str, ...]:
    from fito.cli.main import COMMANDS

    return COMMANDS


def lint(r: random.Random, seeds: Seeds) -> Case:
    """`fito lint` on a training script: mutated, deeply nested, or not Python at all."""
    data = r.choice(seeds.python) if seeds.python else b"import torch\n"
    k = r.random()
    if k < 0.6:
        data = mutate(r, data, seeds.python)
    elif k < 0.75:
        depth = r.choice([50, 200, 1000, 100_000])
        data = r.choice(
            [
                b"x = " + b"(" * depth + b"1" + b")" * depth + b"\n",
                b"x = " + b"1 + " * depth + b"1\n",
                b"if x:\n"
                + b"".join(b" " * i + b"if x:\n" for i in range(1, 120))
                + b" " * 120
                + b"pass\n",
            ]
        )
    elif k < 0.85:
        data = mutate_bytes(r, data)
    argv = ["lint", f"{DIR}/train.py"] + _maybe(r, 0.3, "--format", r.choice(["json", "sarif"]))
    argv += _maybe(r, 0.2, "--model", "--model-dir", f"{DIR}/models")
    argv += _hostile(
        r,
        {
            "--select": ("", ",", "X", "FITO", "*"),
            "--ignore": ("", "FITO001"),
            "--max-bytes": NUMBERS,
        },
        0.1,
    )
    return Case(tuple(argv), (("train.py", data),), origin="lint")


def replay(r: random.Random, seeds: Seeds) -> Case:
    """`fito replay` of a saved counterexample on its spec: either side changed."""
    if not seeds.reports:
        return check(r, seeds)
    report, text = r.choice(seeds.reports)
    k = r.random()
    if k < 0.4:
        report = certificate_like(r, report)
    elif k < 0.6:
        report = mutate(r, report)
    elif k < 0.9:
        text = mutate(r, text, seeds.specs)
    argv = ["replay", f"{DIR}/trace.json", f"{DIR}/spec.fito"] + _maybe(r, 0.5, "-v")
    argv += _maybe(r, 0.3, "--line", r.choice(["1", "24", "0", "-1", "999999", "x"]))
    return Case(tuple(argv), (("trace.json", report), ("spec.fito", text)), origin="replay")


def certificate_like(r: random.Random, data: bytes) -> bytes:
    """A structural change of a JSON document (no signature to keep)."""
    try:
        doc = json.loads(data)
    except ValueError:
        return mutate(r, data)
    _mutate_json(r, doc)
    return json.dumps(doc).encode()


def lsp(r: random.Random, seeds: Seeds) -> Case:
    """`fito lsp`: a session on standard input (initialize, open a mutated spec, edit it,
    ask for what the server offers, shut down), sometimes with its bytes mutated."""
    text = mutate(r, r.choice(seeds.specs), seeds.specs).decode("utf-8", "replace")
    uri = "file:///spec.fito"
    messages: list[dict[str, object]] = [
        {"id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"method": "initialized", "params": {}},
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "fito", "version": 1, "text": text}
            },
        },
    ]
    for i in range(r.randrange(4)):
        messages.append(
            r.choice(
                [
                    {
                        "method": "textDocument/didChange",
                        "params": {
                            "textDocument": {"uri": uri, "version": 2 + i},
                            "contentChanges": [
                                {"text": mutate(r, text.encode()).decode("utf-8", "replace")}
                            ],
                        },
                    },
                    {
                        "id": 10 + i,
                        "method": r.choice(
                            [
                                "textDocument/hover",
                                "textDocument/definition",
                                "textDocument/documentSymbol",
                                "textDocument/formatting",
                            ]
                        ),
                        "params": {
                            "textDocument": {"uri": uri},
                            "position": {"line": r.randrange(-1, 40), "character": r.randrange(80)},
                            "options": {"tabSize": 2, "insertSpaces": True},
                        },
                    },
                ]
            )
        )
    messages += [{"id": 99, "method": "shutdown"}, {"method": "exit"}]
    stream = b"".join(_frame(m) for m in messages)
    if r.random() < 0.2:
        stream = mutate_bytes(r, stream)
    return Case(("lsp",), stdin=stream, origin="lsp")


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


LATER: tuple[tuple[str, float, Callable[[random.Random, Seeds], Case]], ...] = (
    ("lint", 4, lint),
    ("replay", 3, replay),
    ("lsp", 0.5, lsp),
)
