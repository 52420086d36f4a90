"""The kernel stands alone: `fito recheck` works with SymPy, Z3 and NumPy unimportable."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.proof.proof_helpers import ROOT

BLOCKER = textwrap.dedent("""
    import importlib.abc, sys
    BLOCKED = ("sympy", "z3", "numpy", "mpmath", "torch", "lark")
    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"blocked import of {name}")
            return None
    sys.meta_path.insert(0, Block())
""")


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + textwrap.dedent(code)],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_fito_recheck_cli_runs_with_solvers_blocked(kit_certificates):
    proc = _run(f"""
        from fito.cli.main import main
        sys.exit(main(["recheck", {str(kit_certificates)!r}]))
    """)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": accepted (") == len(list(kit_certificates.glob("*.json")))


def test_recheck_loads_only_the_kernel(kit_certificates):
    proc = _run(f"""
        import argparse
        from fito.cli.commands import recheck
        args = argparse.Namespace(paths=[{str(kit_certificates)!r}], strict=True, format="text")
        code = recheck.run(args)
        loaded = sorted(m for m in sys.modules if m == "fito" or m.startswith("fito."))
        print("MODULES", " ".join(loaded))
        sys.exit(code)
    """)
    # --strict rejects the one certificate with a trusted obligation, and only that one
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.count(": accepted (") == len(list(kit_certificates.glob("*.json"))) - 1
    assert "rejected: obligation 1 (trusted)" in proc.stdout
    assert "Traceback" not in proc.stderr
    modules = proc.stdout.split("MODULES", 1)[1].split()
    allowed_prefixes = ("fito.proof.kernel",)
    allowed = {
        "fito",
        "fito.display",
        "fito.errors",
        "fito.cli",
        "fito.cli.commands",
        "fito.cli.commands.recheck",
        "fito.proof",
    }
    # fito.proof's public names load on first use: re-checking imports the kernel alone
    stray = [m for m in modules if m not in allowed and not m.startswith(allowed_prefixes)]
    assert stray == []


def test_kernel_modules_import_only_the_standard_library():
    proc = _run("""
        import json
        before = set(sys.modules)
        import fito.proof.kernel.certificate, fito.proof.kernel.checks, fito.proof.kernel.matrix
        import fito.proof.kernel.normal, fito.proof.kernel.poly, fito.proof.kernel.expr
        import fito.proof.kernel.linear
        third = sorted(m for m in set(sys.modules) - before
                       if m.split(".")[0] not in sys.stdlib_module_names
                       and not m.startswith("fito"))
        print(json.dumps(third))
    """)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_kernel_sources_import_nothing_outside_the_kernel():
    import ast

    kernel_dir = ROOT / "fito" / "proof" / "kernel"
    for path in sorted(kernel_dir.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert (
                    top == "__future__"
                    or top in sys.stdlib_module_names
                    or name.startswith("fito.proof.kernel")
                ), f"{path.name} imports {name}"
