"""The engine behind `fito prove`: collect claims from files, run each in its own process with a
timeout, re-check its certificate in the kernel, write certificates."""

from __future__ import annotations

import fnmatch
import importlib.metadata
import importlib.util
import json
import multiprocessing
import multiprocessing.connection
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fito import __version__
from fito.errors import FitoError
from fito.proof import kernel
from fito.proof.claims import PROVED, REFUTED, UNKNOWN, Claim, Outcome, registered

DEFAULT_TIMEOUT = 60.0


class CollectError(FitoError):
    """A claims file could not be imported or declares bad claims: (path, line, message)."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(message)
        self.path, self.line, self.message = path, line, message


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """One claim's verdict, time, reason, certificate (a dict, or None) and trust tags."""

    claim: Claim
    verdict: str
    seconds: float
    reason: str = ""
    certificate: dict[str, Any] | None = None
    trusted: tuple[str, ...] = ()


# ---------------------------------------------------------------- collecting
def claim_files(paths: Sequence[str]) -> list[str]:
    """The .py files named by paths (a directory gives its *.py files not starting with _,
    sorted)."""
    files: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            names = sorted(n for n in os.listdir(p) if n.endswith(".py") and not n.startswith("_"))
            files.extend(os.path.join(p, n) for n in names)
        elif os.path.isfile(p):
            if not p.endswith(".py"):
                raise CollectError(p, 1, "not a Python file (.py)")
            files.append(p)
        else:
            raise CollectError(p, 1, "no such file or directory")
    unique: dict[str, str] = {}
    for f in files:
        unique.setdefault(os.path.realpath(f), f)
    return list(unique.values())


def collect(paths: Sequence[str], only: Sequence[str] = ()) -> list[Claim]:
    """Import every claims file and return its registered claims (filtered by --only globs)."""
    claims: list[Claim] = []
    for path in claim_files(paths):
        claims.extend(_import_claims(path))
    seen: dict[str, Claim] = {}
    for c in claims:
        if c.id in seen:
            raise CollectError(
                c.source.rsplit(":", 1)[0] or "?",
                _line(c),
                f"duplicate claim id {c.id!r} (also at {seen[c.id].source})",
            )
        seen[c.id] = c
    if only:
        claims = [c for c in claims if any(fnmatch.fnmatchcase(c.id, g) for g in only)]
    return claims


def _line(c: Claim) -> int:
    tail = c.source.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 1


def _import_claims(path: str) -> list[Claim]:
    before = len(registered())
    real = os.path.realpath(path)
    name = "_fito_claims_" + "".join(
        ch if ch.isalnum() else "_" for ch in os.path.relpath(real, "/")
    )
    spec = importlib.util.spec_from_file_location(name, real)
    if spec is None or spec.loader is None:
        raise CollectError(path, 1, "cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(real))
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit, KeyboardInterrupt) as exc:  # noqa: BLE001 -- any failure
        # of a user's file (sys.exit(7) included: that status is not fito's to give) is a
        # diagnostic
        line = next(
            (
                f.lineno
                for f in reversed(traceback.extract_tb(exc.__traceback__))
                if os.path.realpath(f.filename) == real
            ),
            1,
        )
        raise CollectError(path, line or 1, f"import failed: {type(exc).__name__}: {exc}") from None
    finally:
        sys.path.remove(os.path.dirname(real))
    return registered()[before:]


# ---------------------------------------------------------------- certificates
def producer() -> dict[str, str]:
    """Versions of the tools that produced a certificate."""
    out = {"fito": __version__, "python": platform.python_version()}
    for tool, dist in (("sympy", "sympy"), ("z3", "z3-solver")):
        try:
            out[tool] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[tool] = "absent"
    return out


def build_certificate(c: Claim, outcome: Outcome) -> dict[str, Any]:
    """The `fito-certificate/2` object of a proved or refuted outcome, sealed by the kernel:
    its statement is what the kernel finds the obligations establish (KernelError if the
    kernel refuses them)."""
    cert, result = certify(c, outcome)
    if not result.accepted:
        raise kernel.KernelError(result.reason)
    return cert


def certify(c: Claim, outcome: Outcome) -> tuple[dict[str, Any], kernel.Result]:
    """The sealed certificate of an outcome and the kernel's verdict on it (each obligation
    checked once)."""
    body: dict[str, Any] = {
        "format": kernel.FORMAT,
        "id": c.id,
        "title": c.title,
        "description": c.statement,
        "model": c.model,
        "method": c.method,
        "verdict": outcome.verdict,
        "obligations": [ob.to_json() for ob in outcome.obligations],
        "producer": producer(),
    }
    body = json.loads(json.dumps(body))  # plain JSON values only (fails loudly on others)
    return kernel.seal(body)


def discharge(c: Claim, bind: bool = True) -> dict[str, Any]:
    """Run one claim in this process: verdict, reason, certificate, trust tags (a plain dict).
    `bind=False` skips the binding to the claim registry (only `fito.proof.register`, which
    writes the registry from what the claims now prove)."""
    start = time.perf_counter()
    try:
        outcome = c.run()
        if not isinstance(outcome, Outcome):
            raise TypeError(f"the claim returned {type(outcome).__name__}, not an Outcome")
        result = _certify(c, outcome, bind)
    except (Exception, SystemExit, KeyboardInterrupt) as exc:  # noqa: BLE001 -- a failing
        # claim (one calling sys.exit too) is `unknown` with the reason
        result = {
            "verdict": UNKNOWN,
            "reason": f"{type(exc).__name__}: {exc}".splitlines()[0][:300],
        }
    result["seconds"] = time.perf_counter() - start
    return result


def _certify(c: Claim, outcome: Outcome, bind: bool = True) -> dict[str, Any]:
    if outcome.verdict == UNKNOWN:
        return {"verdict": UNKNOWN, "reason": outcome.reason}
    if outcome.verdict not in (PROVED, REFUTED):
        raise ValueError(f"verdict {outcome.verdict!r} is not proved, refuted or unknown")
    if not outcome.obligations:
        return {
            "verdict": UNKNOWN,
            "reason": f"{outcome.verdict} without obligations: nothing to re-check",
        }
    cert, checked = certify(c, outcome)
    if not checked.accepted:
        return {
            "verdict": UNKNOWN,
            "reason": f"the kernel rejected the certificate: {checked.reason}",
        }
    reason = outcome.reason
    try:
        if bind:
            kernel.bind(cert)
    except kernel.KernelError as exc:
        if outcome.verdict == PROVED:
            return {
                "verdict": UNKNOWN,
                "reason": f"not the registered claim: {exc} (after review: "
                "python -m fito.proof.register, docs/proofs.md)",
            }
        # a kernel-checked refutation of the claim as derived from the model at hand
        reason = f"{reason}; refutes the claim as derived from this model, not as registered"
    return {
        "verdict": outcome.verdict,
        "reason": reason.lstrip("; "),
        "certificate": cert,
        "trusted": list(checked.trusted),
    }


# ---------------------------------------------------------------- running
Progress = Callable[[int, int, ClaimResult], None]


def run_claims(
    claims: Sequence[Claim],
    *,
    timeout: float | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
    bind: bool = True,
) -> list[ClaimResult]:
    """Discharge every claim, each in a forked process killed after its timeout, at most
    `jobs` at a time; `progress(done, total, result)` is called as each one finishes. The
    results (and certificates) do not depend on `jobs` or on the order of completion."""
    if jobs < 1 or "fork" not in multiprocessing.get_all_start_methods():
        out = []
        for c in claims:
            out.append(_result(c, discharge(c, bind)))
            if progress:
                progress(len(out), len(claims), out[-1])
        return out
    ctx = multiprocessing.get_context("fork")
    results: dict[int, ClaimResult] = {}
    pending = list(enumerate(claims))[::-1]
    running: dict[Any, tuple[int, Any, float, float]] = {}
    while pending or running:
        while pending and len(running) < jobs:
            i, c = pending.pop()
            reader, writer = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(c, writer, bind), daemon=True)
            proc.start()
            writer.close()
            limit = timeout if timeout is not None else (c.timeout or DEFAULT_TIMEOUT)
            running[reader] = (i, proc, time.monotonic() + limit, limit)
        wait = max(0.0, min(d for _, _, d, _ in running.values()) - time.monotonic())
        ready: list[Any] = multiprocessing.connection.wait(list(running), timeout=wait)
        for done in ready:
            i, proc, _, _ = running.pop(done)
            results[i] = _collect_child(claims[i], done, proc)
            if progress:
                progress(len(results), len(claims), results[i])
        now = time.monotonic()
        for reader, (i, proc, deadline, limit) in list(running.items()):
            if now >= deadline:
                proc.kill()
                proc.join()
                reader.close()
                del running[reader]
                results[i] = ClaimResult(claims[i], UNKNOWN, limit, f"timeout after {limit:g} s")
                if progress:
                    progress(len(results), len(claims), results[i])
    return [results[i] for i in range(len(claims))]


def _child(c: Claim, writer: Any, bind: bool = True) -> None:
    sys.stdout = sys.stderr  # a claim's prints must not corrupt the table or the JSON
    writer.send(discharge(c, bind))
    writer.close()


def _collect_child(c: Claim, reader: Any, proc: Any) -> ClaimResult:
    try:
        data = reader.recv()
    except (EOFError, OSError):
        proc.join()
        return ClaimResult(c, UNKNOWN, 0.0, f"the claim's process died (exit code {proc.exitcode})")
    finally:
        reader.close()
    proc.join()
    return _result(c, data)


def _result(c: Claim, data: dict[str, Any]) -> ClaimResult:
    return ClaimResult(
        c,
        data["verdict"],
        data["seconds"],
        data.get("reason", ""),
        data.get("certificate"),
        tuple(data.get("trusted", ())),
    )


def certificate_path(directory: str, claim_id: str) -> str:
    """Where the certificate of a claim is written."""
    return os.path.join(directory, f"{claim_id}.json")


def write_certificate(directory: str, r: ClaimResult) -> str | None:
    """Write (or, for an unknown verdict, remove a stale) certificate; its path or None."""
    path = certificate_path(directory, r.claim.id)
    if r.certificate is None:
        if os.path.exists(path):
            os.remove(path)
        return None
    os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(dumps_certificate(r.certificate))
    return path


def dumps_certificate(cert: dict[str, Any]) -> str:
    """Readable, deterministic text: one field per line, one obligation per line."""

    def one(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False, separators=(", ", ": "))

    lines = []
    for key, value in cert.items():
        if key == "obligations":
            body = ",\n".join(f"  {one(ob)}" for ob in value)
            lines.append(f' "obligations": [\n{body}\n ]')
        else:
            lines.append(f" {one(key)}: {one(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"
