"""Fixtures of the model-checking tests (their helpers: tests/helpers/check.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def spec_file(tmp_path: Path):  # type: ignore[no-untyped-def]
    def write(text: str, name: str = "spec.fito") -> str:
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return str(p)

    return write
