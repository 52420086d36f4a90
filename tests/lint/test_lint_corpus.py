"""The corpus: every `# expect:` is reported on its line, nothing else is reported (a false
positive on correct code is a bug), and the corpus covers every code in every style."""

from __future__ import annotations

from tests.lint.corpus_score import CORPUS, corpus_files, expected_of, score, table


def test_no_false_positive_and_the_recall_is_reported(capsys) -> None:  # type: ignore[no-untyped-def]
    s = score()
    with capsys.disabled():
        print(f"\nfito lint on the corpus ({len(corpus_files())} files):\n{table(s)}")
    assert not s.false_positives, table(s)
    assert s.recall >= 0.9, table(s)


def test_correct_versions_expect_nothing_and_incorrect_ones_something() -> None:
    for path in corpus_files():
        expected = expected_of(path)
        if path.stem.endswith("_good"):
            assert not expected, path
        else:
            assert path.stem.endswith("_bad") and expected, path


def test_every_style_has_correct_and_incorrect_loops_and_every_code_is_expected() -> None:
    styles = {p.parent.name for p in corpus_files()}
    assert styles == {"pytorch_examples", "lightning_like", "hf_like", "nanogpt_like"}
    for style in styles:
        stems = {p.stem for p in (CORPUS / style).glob("*.py")}
        assert any(s.endswith("_good") for s in stems) and any(s.endswith("_bad") for s in stems)
        for s in stems:  # each incorrect loop has its corrected version
            if s.endswith("_bad"):
                assert s.removesuffix("_bad") + "_good" in stems, f"{style}/{s}: no correction"
    codes = {k[2] for p in corpus_files() for k in expected_of(p)}
    assert codes == {f"FITOL00{i}" for i in range(1, 9)}
