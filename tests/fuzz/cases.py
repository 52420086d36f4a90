"""One fuzz input: a command line and the files it names, stored as JSON in the corpus."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

#: In argv, this stands for the directory the case's files are written to.
DIR = "{d}"


@dataclass(frozen=True, slots=True)
class Case:
    """`fito ARGV...` with FILES written under a fresh directory (and FIFOS made there)."""

    argv: tuple[str, ...]
    files: tuple[tuple[str, bytes], ...] = ()
    fifos: tuple[str, ...] = ()
    origin: str = field(default="", compare=False)
    stdin: bytes = b""  # what the command reads on standard input (`fito lsp`)

    @property
    def command(self) -> str:
        return self.argv[0] if self.argv else ""

    def key(self) -> str:
        """A short stable digest (the corpus file name)."""
        h = hashlib.sha256(json.dumps(self.to_json(with_origin=False), sort_keys=True).encode())
        return h.hexdigest()[:16]

    def size(self) -> int:
        return sum(len(a) for a in self.argv) + sum(len(c) for _, c in self.files) + len(self.stdin)

    def with_files(self, files: tuple[tuple[str, bytes], ...]) -> Case:
        return Case(self.argv, files, self.fifos, self.origin, self.stdin)

    def with_argv(self, argv: tuple[str, ...]) -> Case:
        return Case(argv, self.files, self.fifos, self.origin, self.stdin)

    def to_json(self, with_origin: bool = True) -> dict[str, object]:
        out: dict[str, object] = {
            "argv": list(self.argv),
            "files": {name: _encode(data) for name, data in self.files},
        }
        if self.fifos:
            out["fifos"] = list(self.fifos)
        if self.stdin:
            out["stdin"] = _encode(self.stdin)
        if with_origin and self.origin:
            out["origin"] = self.origin
        return out

    @staticmethod
    def from_json(data: dict[str, object]) -> Case:
        files = data.get("files", {})
        assert isinstance(files, dict)
        return Case(
            tuple(data["argv"]),  # type: ignore[arg-type]
            tuple((name, _decode(v)) for name, v in files.items()),
            tuple(data.get("fifos", ())),  # type: ignore[arg-type]
            str(data.get("origin", "")),
            _decode(data["stdin"]) if "stdin" in data else b"",
        )


def _encode(data: bytes) -> object:
    """Text stays readable in the corpus; anything else is base64."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}
    return text


def _decode(value: object) -> bytes:
    if isinstance(value, dict):
        return base64.b64decode(value["base64"])
    assert isinstance(value, str)
    return value.encode("utf-8")


def materialise(case: Case, directory: Path) -> list[str]:
    """Write the case's files under directory; its argv with `{d}` replaced."""
    import os

    for name, data in case.files:
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for name in case.fifos:
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)
    return [a.replace(DIR, str(directory)) for a in case.argv]
