#!/usr/bin/env python3
"""mypy on fito/ against a baseline that may only go down: fail when a module has more errors.

Runs mypy with the configuration of pyproject.toml (`[tool.mypy]`: fito/, strict flags on
the pipeline modules) and counts its errors per file. The baseline, mypy-baseline.txt, holds
one `path count` line per file with errors. The check fails, naming the file and listing its
errors, when a file has more errors than the baseline allows (a file absent from it allows
none), and when a strict module has any error at all; it prints the files whose count went
down, so the baseline gets lowered with `--update`, which rewrites the file from this run
(and refuses to record an error in a strict module).

Usage: python tools/mypy_check.py [--update] [--baseline PATH]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "mypy-baseline.txt"
HEADER = """\
# mypy errors per file of fito/ (mypy's configuration: [tool.mypy] in pyproject.toml).
# A count may only go down: tools/mypy_check.py fails when a file has more errors than
# listed here (none when it is not listed); `python tools/mypy_check.py --update` rewrites
# this file after errors were fixed. The strict modules never appear here.
"""
ERROR = re.compile(r"^(?P<path>[^:\s][^:]*\.pyi?):(?:\d+:)*\s*error:")


def run_mypy() -> tuple[int, list[str]]:
    """mypy's exit status and its output lines (errors and notes, one per line)."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-pretty",
            "--no-color-output",
            "--no-error-summary",
            "--show-error-codes",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return proc.returncode, (proc.stdout + proc.stderr).splitlines()


def errors_per_file(lines: list[str]) -> dict[str, list[str]]:
    """mypy's error lines grouped by the file they are in."""
    out: dict[str, list[str]] = {}
    for line in lines:
        m = ERROR.match(line)
        if m:
            out.setdefault(m["path"], []).append(line)
    return out


def strict_modules(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """The modules of the `[[tool.mypy.overrides]]` that switch the strict flags on."""
    config = tomllib.loads(pyproject.read_text())
    out: list[str] = []
    for override in config.get("tool", {}).get("mypy", {}).get("overrides", []):
        if override.get("disallow_untyped_defs") or override.get("strict"):
            modules = override["module"]
            out.extend([modules] if isinstance(modules, str) else modules)
    return out


def module_of(path: str) -> str:
    """The dotted module name of a file path (fito/check/options.py: fito.check.options)."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_strict(path: str, strict: list[str]) -> bool:
    """Whether the file's module is one of the strict ones (patterns `a.b` or `a.b.*`)."""
    name = module_of(path)
    return any(
        name == pattern or (pattern.endswith(".*") and name.startswith(pattern[:-1]))
        for pattern in strict
    )


def read_baseline(path: Path) -> Counter[str]:
    """The baseline's allowed error count per file."""
    out: Counter[str] = Counter()
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, count = line.rsplit(None, 1)
            out[name] = int(count)
    return out


def write_baseline(path: Path, counts: Mapping[str, int]) -> None:
    """Write the counts, one `path count` line per file with errors, sorted by path."""
    body = "".join(f"{name} {n}\n" for name, n in sorted(counts.items()) if n)
    path.write_text(HEADER + body)


def compare(
    found: Mapping[str, list[str]], allowed: Mapping[str, int], strict: list[str]
) -> tuple[list[str], list[str]]:
    """(the failures, each with its error lines; the files whose count went down)."""
    failures: list[str] = []
    lowered: list[str] = []
    for name in sorted(set(found) | set(allowed)):
        n, limit = len(found.get(name, [])), allowed.get(name, 0)
        if n and is_strict(name, strict):
            failures.append(f"{name}: {_errors(n)} in a strict module (it must have none)")
            failures.extend(f"    {line}" for line in found[name])
        elif n > limit:
            failures.append(f"{name}: {_errors(n)}, the baseline allows {limit}")
            failures.extend(f"    {line}" for line in found[name])
        elif n < limit:
            lowered.append(f"{name}: {_errors(n)}, the baseline allows {limit}")
    return failures, lowered


def _errors(n: int) -> str:
    return f"{n} error" if n == 1 else f"{n} errors"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true", help="rewrite the baseline from this run")
    ap.add_argument("--baseline", type=Path, default=BASELINE, help="the baseline file")
    args = ap.parse_args(argv)

    status, lines = run_mypy()
    found = errors_per_file(lines)
    if status not in (0, 1) or (status == 1 and not found):
        print("\n".join(lines), file=sys.stderr)
        print(f"mypy_check: mypy failed to run (exit status {status})", file=sys.stderr)
        return 2
    strict = strict_modules()
    total = sum(map(len, found.values()))
    if args.update:
        in_strict = sorted(name for name in found if is_strict(name, strict))
        if in_strict:
            for name in in_strict:
                print("\n".join(found[name]))
            print(f"mypy_check: errors in strict modules, not recorded: {', '.join(in_strict)}")
            return 1
        write_baseline(args.baseline, {name: len(errs) for name, errs in found.items()})
        print(f"mypy_check: baseline rewritten: {total} errors in {len(found)} files")
        return 0
    allowed = read_baseline(args.baseline)
    failures, lowered = compare(found, allowed, strict)
    for line in lowered:
        print(f"mypy_check: fewer errors: {line}")
    if lowered:
        print("mypy_check: lower the baseline: python tools/mypy_check.py --update")
    if failures:
        print("\n".join(failures))
        print(f"mypy_check: FAILED: more mypy errors than {args.baseline.name} allows")
        return 1
    print(
        f"mypy_check: {total} errors in {len(found)} files, "
        f"within the baseline ({sum(allowed.values())}); strict modules clean"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
