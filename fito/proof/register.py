"""Write the claim registry (`fito/proof/kernel/registry.json`) from what the claims prove.

    python -m fito.proof.register proofs/                      # every claim
    python -m fito.proof.register proofs/ --only 'fleet.prop14.*'   # re-register some
    fito recheck --show certificates/                          # review what each states

Every claim named is run without the binding (`runner.run_claims(bind=False)`) and must be
proved with a kernel-accepted certificate; the registry then holds, for each, its words and
the hash of each proposition of its statement (`fito.proof.kernel.registry`). Without
`--only` the registry becomes exactly the claims found (a removed claim leaves it). The
kernel only reads the registry; this is the one place that writes it, and a change to it is
a change to what a claim means, reviewed like code (`git diff` shows which claims changed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from fito.proof.kernel import registry


def entry(cert: dict[str, Any]) -> dict[str, Any]:
    """The registry entry of a proved certificate: its words and proposition hashes."""
    return {w: cert[w] for w in registry.WORDS} | {
        "statement": [registry.proposition_hash(p) for p in cert["statement"]]
    }


def current(path: str) -> dict[str, Any]:
    """The entries of the registry file at path ({} if there is none)."""
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    registry.parse(data)
    return dict(data["claims"])


def dumps(claims: dict[str, Any]) -> str:
    """The registry file's text: one claim per line, sorted by id."""
    lines = [
        f"  {json.dumps(cid)}: {json.dumps(e, ensure_ascii=False)}"
        for cid, e in sorted(claims.items())
    ]
    head = f'{{\n "format": {json.dumps(registry.REGISTRY_FORMAT)},\n "claims": {{\n'
    return head + ",\n".join(lines) + "\n }\n}\n"


def main(argv: list[str] | None = None) -> int:
    """`python -m fito.proof.register PATH... [--only GLOB]... [--jobs N] [--output FILE]`."""
    from fito.proof import runner  # lazy-import: the kernel side of this module is stdlib

    parser = argparse.ArgumentParser(prog="python -m fito.proof.register")
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("--only", action="append", default=[], metavar="GLOB")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=None)
    parser.add_argument("--output", default=registry.PATH)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        claims = runner.collect(args.paths, args.only)
    except runner.CollectError as exc:
        print(f"register: {exc.path}:{exc.line}: {exc.message}")
        return 2
    if not claims:
        print("register: no claims")
        return 2
    results = runner.run_claims(claims, timeout=args.timeout, jobs=args.jobs, bind=False)
    failed = [r for r in results if r.verdict != "proved" or r.certificate is None]
    for r in failed:
        print(f"register: {r.claim.id}: {r.verdict}: {r.reason}")
    if failed:
        print(f"register: {len(failed)} claims not proved; the registry is unchanged")
        return 1
    entries = current(args.output) if args.only else {}
    changed = 0
    for r in results:
        assert r.certificate is not None
        new = entry(r.certificate)
        changed += entries.get(r.claim.id) != new
        entries[r.claim.id] = new
    with open(args.output, "w", encoding="utf-8") as fh:
        fh.write(dumps(entries))
    print(
        f"register: {len(results)} claims proved, {changed} entries changed; "
        f"{len(entries)} claims in {args.output}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
