"""The corpus: every `# expect:` is reported on its line, nothing else is reported (a false
positive on correct code is a bug), and the corpus covers every code in every style.

Single files are `*_bad.py` (with `# expect:` lines) and `*_good.py` (without); a package
(`packages/<name>_bad/`, `packages/<name>_good/`) is several modules read as one project, the
defect living in the calls between them."""

from __future__ import annotations

from pathlib import Path

from tests.lint.corpus_score import CORPUS, corpus_files, every_code, expected_of, score, table

STYLES = {
    "pytorch_examples",
    "lightning_like",
    "hf_like",
    "nanogpt_like",
    "deepspeed_like",
    "megatron_like",
    "torchtitan_like",
    "packages",
}


def test_no_false_positive_and_the_recall_is_reported(capsys) -> None:  # type: ignore[no-untyped-def]
    s = score()
    with capsys.disabled():
        print(f"\nfito lint on the corpus ({len(corpus_files())} files):\n{table(s)}")
    assert not s.false_positives, table(s)
    assert s.recall >= 0.9, table(s)


def _units() -> dict[str, list[Path]]:
    """Each single file, and each package as the list of its modules."""
    out: dict[str, list[Path]] = {}
    for p in corpus_files():
        rel = p.relative_to(CORPUS)
        key = "/".join(rel.parts[:2]) if rel.parts[0] == "packages" else rel.as_posix()[:-3]
        out.setdefault(key, []).append(p)
    return out


def test_correct_versions_expect_nothing_and_incorrect_ones_something() -> None:
    units = _units()
    for key, files in units.items():
        expected = set().union(*(expected_of(p) for p in files))
        if key.endswith("_good"):
            assert not expected, key
        else:
            assert key.endswith("_bad") and expected, key


def test_every_style_has_correct_and_incorrect_versions_and_every_code_is_expected() -> None:
    units = _units()
    assert {k.split("/")[0] for k in units} == STYLES
    for style in STYLES:
        keys = [k for k in units if k.startswith(style + "/")]
        assert any(k.endswith("_good") for k in keys) and any(k.endswith("_bad") for k in keys)
    for key in units:  # each incorrect version has its correction
        if key.endswith("_bad"):
            assert key.removesuffix("_bad") + "_good" in units, f"{key}: no correction"
    assert any(len(files) > 1 for files in units.values())  # multi-module packages
    codes = {k[2] for p in corpus_files() for k in expected_of(p)}
    assert codes == set(every_code()) - {"FITOL000"}
