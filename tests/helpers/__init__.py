"""Helpers the tests of several folders share, imported as `tests.helpers.<module>`.

pytest imports test modules by their full names (`--import-mode=importlib`, with the
repository root on `sys.path` through `pythonpath` in pyproject.toml), so a test imports a
helper the way any module imports another: no `sys.path` edits, no `from conftest import`.
A helper used by one folder only stays in that folder (`tests.lang.lang_helpers`).
"""
