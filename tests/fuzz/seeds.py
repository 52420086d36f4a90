"""The material inputs are made from: specs, fleet models, claims, certificates, checkpoints."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "corpus"
_FITO_BLOCK = re.compile(r"```fito\n(.*?)\n```", re.S)


@dataclass(frozen=True, slots=True)
class Seeds:
    specs: tuple[bytes, ...]
    models: tuple[bytes, ...]
    claims: tuple[tuple[str, bytes], ...]
    certificates: tuple[bytes, ...]
    checkpoints: tuple[tuple[tuple[str, bytes], ...], ...]  # one file tree per directory
    python: tuple[bytes, ...] = ()  # training scripts (`fito lint`)
    reports: tuple[tuple[bytes, bytes], ...] = ()  # (check --format json report, spec)


def shared_examples() -> list[Path]:
    """../shared/examples of the checkout, where it exists (not on every CI machine)."""
    for base in (ROOT.parent / "shared", ROOT.parents[1] / "shared", Path("/work/shared")):
        found = sorted((base / "examples").glob("*.fito"))
        if found:
            return found
    return []


def spec_texts() -> list[bytes]:
    """Every spec the repository ships or tests, the documentation's examples, and the
    corpus's own spec files (inputs that once failed are good parents)."""
    paths = sorted((ROOT / "specs").glob("*.fito"))
    for sub in ("valid", "invalid"):
        paths += sorted((ROOT / "tests" / "lang" / "data" / sub).glob("*.fito"))
    paths += shared_examples()
    texts = [p.read_bytes() for p in paths]
    for doc in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        texts += [m.encode() + b"\n" for m in _FITO_BLOCK.findall(doc.read_text("utf-8"))]
    texts += corpus_files(".fito")
    return [t for t in texts if len(t) < 200_000]


def corpus_files(suffix: str) -> list[bytes]:
    import json

    out: list[bytes] = []
    for path in sorted(CORPUS.glob("*/*.json")):
        try:
            from .cases import Case

            case = Case.from_json(json.loads(path.read_text("utf-8")))
        except (ValueError, KeyError, TypeError):
            continue
        out += [data for name, data in case.files if name.endswith(suffix)]
    return out


def load(work: Path) -> Seeds:
    """Everything, with certificates and checkpoints made under `work` when needed."""
    models = [p.read_bytes() for p in sorted((ROOT / "models").glob("*.toml"))]
    models += corpus_files(".toml")
    claims = [
        (p.name, p.read_bytes())
        for p in sorted((ROOT / "tests" / "proof" / "data").glob("demo_*.py"))
    ]
    specs = tuple(spec_texts())
    return Seeds(
        specs,
        tuple(models),
        tuple(claims),
        tuple(certificates(work)),
        (checkpoint_tree(work),),
        tuple(python_files()),
        tuple(reports()),
    )


def python_files() -> list[bytes]:
    """Training scripts for `fito lint`: its corpus where there is one, and fito's own code."""
    paths = (
        sorted((ROOT / "tests" / "lint").rglob("*.py"))[:200]
        if (ROOT / "tests" / "lint").is_dir()
        else []
    )
    paths += sorted((ROOT / "fito" / "runtime").glob("*.py"))
    return [p.read_bytes() for p in paths if p.stat().st_size < 100_000]


def reports() -> list[tuple[bytes, bytes]]:
    """`fito check --format json` reports of the shipped specs, with their specs
    (counterexamples for `fito replay`)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from fito.cli.main import COMMANDS, main

    if "replay" not in COMMANDS:
        return []
    out = []
    for path in sorted((ROOT / "specs").glob("*.fito")):
        text = io.StringIO()
        with redirect_stdout(text), redirect_stderr(io.StringIO()):
            main(["check", "--format", "json", "--timeout", "10", str(path)])
        out.append((text.getvalue().encode(), path.read_bytes()))
    return out


def certificates(work: Path) -> list[bytes]:
    """Certificates of build/certificates (CI proves everything first), else of the kit's
    examples, proved now."""
    found = sorted((ROOT / "build" / "certificates").glob("*.json"))
    if not found:
        out = work / "certificates"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "fito",
                "prove",
                str(ROOT / "proofs" / "kit_examples.py"),
                "--certificates",
                str(out),
            ],
            cwd=work,
            capture_output=True,
            timeout=300,
            check=False,
        )
        found = sorted(out.glob("*.json"))
    return [p.read_bytes() for p in found if p.stat().st_size < 100_000][:40]


def checkpoint_tree(work: Path) -> tuple[tuple[str, bytes], ...]:
    """A small checkpoint directory with two committed epochs, as (relative path, bytes)."""
    import numpy as np

    from fito.runtime import CheckpointWriter

    root = Path(tempfile.mkdtemp(prefix="ckpt-", dir=work))
    with CheckpointWriter(root, keep=2) as w:
        for epoch in (1, 2):
            w.save(epoch, {"model": {"w": np.arange(4) * epoch}, "opt": {"step": epoch}})
    return tuple(
        (str(p.relative_to(root)), p.read_bytes()) for p in sorted(root.rglob("*")) if p.is_file()
    )
