"""Long and deep inputs: parse -> resolve -> print -> parse on the deep-stack thread, as
`fito check` runs them; nothing overflows, and the tree survives the round trip."""

from __future__ import annotations

import pytest

from fito.deep import run_deep
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_spec
from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import parse
from tests.lang.lang_helpers import front_end

N = 100_000


def pipeline(text: str) -> tuple[A.Spec, list[str], str]:
    def run() -> tuple[A.Spec, list[str], str]:
        parsed = parse(text)
        assert parsed.spec is not None, parsed.diagnostics
        _, diags = resolve(parsed.spec)
        printed = print_spec(parsed.spec)
        again = parse(printed)
        assert again.spec is not None
        assert A.same_tree(again.spec, parsed.spec)
        return parsed.spec, [d.code for d in list(parsed.diagnostics) + list(diags)], printed

    return run_deep(run)


@pytest.mark.slow
def test_long_prefix_chain() -> None:
    spec, codes, printed = pipeline("channel a\nprocess P = " + "a -> " * N + "STOP\n")
    assert codes == []
    assert printed.count("a -> ") == N
    depth, node = 0, spec.decls[1].body  # type: ignore[union-attr]
    while isinstance(node, A.Prefix):
        depth, node = depth + 1, node.body
    assert depth == N and isinstance(node, A.Stop)


@pytest.mark.slow
def test_long_sum() -> None:
    spec, codes, _ = pipeline("const N = " + " + ".join(["1"] * N) + "\nconst M: 0..100000 = N\n")
    assert codes == []
    model = run_deep(lambda: resolve(spec)[0])
    assert model.consts["N"][1] == N


SHAPES = {
    "implies": "const B: Bool = " + " => ".join(["true"] * 20_000),
    "and": "const B: Bool = " + " and ".join(["true"] * 20_000),
    "choice": "channel a\nprocess P = " + " [] ".join(["a -> P"] * 20_000),
    "interleave": "channel a\nprocess P = " + " ||| ".join(["STOP"] * 20_000),
    "guards": "channel a\ndomain x: Bool = true volatile\nprocess P = "
    + "x & " * 20_000
    + "a -> P",
    "indices": "domain x[i: 0..1]: 0..1 = 0 volatile\nconst K = 0\nsystem STOP\n"
    "assert always x[" + "x[" * 200 + "K" + "]" * 200 + "] == 0",
    "nots": "const C: Bool = " + "not " * 5_000 + "true",
    "minuses": "const C = " + "- " * 5_000 + "1",
    "parentheses": "const C = " + "(" * 250 + "1" + ")" * 250,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_long_chains_of_every_shape(shape: str) -> None:
    _, codes, _ = pipeline(SHAPES[shape])
    assert [c for c in codes if c != "R005"] == []


def test_a_huge_array_is_refused_not_enumerated() -> None:
    _, diags = front_end("domain big[i: 0..999999][j: 0..999999]: Bool = false volatile\n")
    assert [d.code for d in diags] == ["S002"]


def test_a_huge_quantifier_in_a_constant_is_refused() -> None:
    _, diags = front_end("const B: Bool = forall i: {0..100000000} @ i >= 0\n")
    assert [d.code for d in diags] == ["T006"]


def test_the_benchmark_spec_is_clean_and_realistic() -> None:
    """bench/parse.py measures a spec that parses and resolves without a diagnostic."""
    import importlib.util

    from tests.lang.lang_helpers import ROOT

    spec = importlib.util.spec_from_file_location("bench_parse", ROOT / "bench" / "parse.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    text = bench.generate(400)
    assert text.count("\n") >= 400
    tree, diags = front_end(text)
    assert tree is not None and diags == []
    kinds = {type(d).__name__ for d in tree.decls}
    assert kinds == {
        "ConstDecl",
        "TypeDecl",
        "ChannelDecl",
        "DomainDecl",
        "ProcessDecl",
        "AssertDecl",
        "SystemDecl",
    }
