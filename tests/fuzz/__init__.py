"""A fuzzer of the whole command line: `python -m tests.fuzz --budget N --seed S`.

See docs/fuzzing.md. Inputs (`cases.Case`) are drawn by `inputs.py` from mutated specs,
grammar-generated specs, byte-level mutations, mutated fleet models, certificates and
checkpoint directories, and hostile flags; `pool.py` runs them in forked, reused workers
under a wall-clock and a memory bound; `outcome.py` classifies what happened; `minimise.py`
shrinks every failure, which is saved in `corpus/` and replayed by `test_fuzz_corpus.py`.
"""
