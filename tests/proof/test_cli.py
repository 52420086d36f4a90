"""`fito prove` and `fito recheck` on the command line: tables, JSON, exit statuses, diagnostics."""

from __future__ import annotations

import json
import shutil

from tests.proof.proof_helpers import DATA, KIT, run_cli


def test_prove_kit_all_proved_and_rechecked(capsys, tmp_path):
    certs = tmp_path / "certs"
    code, out, err = run_cli(capsys, "prove", str(KIT), "--certificates", str(certs))
    assert code == 0, out + err
    lines = out.splitlines()
    assert lines[0].split() == ["claim", "method", "verdict", "seconds", "checked", "by"]
    files = sorted(p.stem for p in certs.glob("*.json"))
    ids = [ln.split()[0] for ln in lines[1:-1]]
    assert files == sorted(ids) and len(ids) >= 10
    assert f"{len(ids)} claims: {len(ids)} proved, 0 refuted, 0 unknown" in lines[-1]
    assert "trusted: sympy" in out  # the limit claim shows its trust tag
    code, out, err = run_cli(capsys, "recheck", str(certs))
    assert code == 0, out
    assert out.count(": accepted (") == len(ids)
    code, out, _ = run_cli(capsys, "recheck", "--strict", str(certs))
    assert code == 1
    assert (
        "kit.compound-interest-limit.json: rejected: obligation 1 (trusted): trusted: sympy" in out
    )


def test_prove_json_shape(capsys, tmp_path):
    code, out, _ = run_cli(
        capsys,
        "prove",
        str(KIT),
        "--format",
        "json",
        "--only",
        "kit.square*",
        "--only",
        "kit.triangle-region-*",
        "--certificates",
        str(tmp_path),
    )
    assert code == 0
    data = json.loads(out)
    assert [c["id"] for c in data["claims"]] == [
        "kit.square-of-sum",
        "kit.triangle-region-empty",
        "kit.triangle-region-nonempty",
    ]
    for c in data["claims"]:
        assert {"id", "title", "verdict", "method", "seconds", "certificate"} <= set(c)
        assert c["verdict"] == "proved" and c["certificate"].endswith(f"{c['id']}.json")
        with open(c["certificate"], encoding="utf-8") as fh:
            assert json.load(fh)["id"] == c["id"]


def test_refuted_claims_exit_1_with_replayable_counterexamples(capsys, tmp_path):
    code, out, _ = run_cli(
        capsys, "prove", str(DATA / "demo_refuted.py"), "--certificates", str(tmp_path)
    )
    assert code == 1, out
    assert "3 claims: 0 proved, 3 refuted, 0 unknown" in out
    code, out, _ = run_cli(capsys, "recheck", str(tmp_path))
    assert code == 0 and out.count(": accepted (") == 3
    cert = json.loads((tmp_path / "demo.freshman-square.json").read_text())
    assert cert["verdict"] == "refuted" and cert["obligations"][0]["kind"] == "counterexample"


def test_unknown_claims_exit_3_never_proved(capsys, tmp_path):
    (tmp_path / "demo.raises.json").write_text("stale")
    code, out, err = run_cli(
        capsys,
        "prove",
        str(DATA / "demo_unknown.py"),
        "--certificates",
        str(tmp_path),
        "--format",
        "json",
    )
    assert code == 3
    claims = {c["id"]: c for c in json.loads(out)["claims"]}
    assert all(c["verdict"] == "unknown" and c["certificate"] is None for c in claims.values())
    assert claims["demo.raises"]["reason"].startswith("ZeroDivisionError")
    assert claims["demo.sleeps"]["reason"] == "timeout after 0.5 s"
    assert "not an Outcome" in claims["demo.wrong-type"]["reason"]
    assert "kernel rejected" in claims["demo.bogus-proof"]["reason"]
    assert claims["demo.solver-unknown"]["reason"] == "z3 unknown: timeout"
    assert not list(tmp_path.glob("*.json"))  # the stale certificate was removed
    assert "Traceback" not in err


def test_refuted_wins_over_unknown(capsys, tmp_path):
    code, _, _ = run_cli(
        capsys,
        "prove",
        str(DATA / "demo_unknown.py"),
        str(DATA / "demo_refuted.py"),
        "--no-certificates",
        "--only",
        "demo.raises",
        "--only",
        "demo.freshman-square",
    )
    assert code == 1


def test_bad_claims_files_exit_2_with_diagnostic(capsys, tmp_path):
    code, out, err = run_cli(
        capsys, "prove", str(DATA / "bad_import.py"), "--certificates", str(tmp_path)
    )
    assert code == 2 and out == ""
    assert (
        "bad_import.py:3:1: error: import failed: RuntimeError: broken claims file"
        " [K003 claims-file-error]" in err
    )
    code, _, err = run_cli(capsys, "prove", str(DATA / "duplicate_ids.py"), "--no-certificates")
    assert code == 2 and "duplicate claim id 'dup.same'" in err
    code, _, err = run_cli(capsys, "prove", str(tmp_path / "missing.py"))
    assert code == 2 and "no such file" in err
    code, _, err = run_cli(capsys, "prove", str(KIT), "--only", "nothing.*")
    assert code == 2 and "no claims matching" in err
    code, _, err = run_cli(capsys, "prove", str(KIT), "--timeout", "0")
    assert code == 2 and "C001" in err


def test_recheck_reports_rejected_and_unreadable(capsys, tmp_path, kit_certificates):
    shutil.copy(kit_certificates / "kit.square-of-sum.json", tmp_path / "good.json")
    bad = json.loads((kit_certificates / "kit.square-of-sum.json").read_text())
    bad["statement"] += "!"
    (tmp_path / "edited.json").write_text(json.dumps(bad))
    code, out, _ = run_cli(capsys, "recheck", str(tmp_path))
    assert code == 1
    assert "edited.json: rejected: sha256 mismatch" in out and "good.json: accepted" in out
    (tmp_path / "garbage.json").write_text("{not json")
    code, out, _ = run_cli(capsys, "recheck", str(tmp_path), "--format", "json")
    assert code == 2
    status = {
        row["path"].rsplit("/", 1)[-1]: row["status"] for row in json.loads(out)["certificates"]
    }
    assert status == {
        "edited.json": "rejected",
        "garbage.json": "unreadable",
        "good.json": "accepted",
    }
    code, out, _ = run_cli(capsys, "recheck", str(tmp_path / "nope.json"))
    assert code == 2 and "unreadable: no such file" in out
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, _ = run_cli(capsys, "recheck", str(empty))
    assert code == 2 and "no certificate files" in out


def test_certificates_are_deterministic(capsys, tmp_path):
    """Rerunning rewrites the certificates byte for byte, whatever --jobs is (claims finish
    in another order with 2 jobs than with 1)."""
    a, b = tmp_path / "a", tmp_path / "b"
    for d, jobs in ((a, "1"), (b, "2")):
        assert (
            run_cli(
                capsys, "prove", str(KIT), "--certificates", str(d), "--jobs", jobs, "--no-progress"
            )[0]
            == 0
        )
    written = sorted(a.glob("*.json"))
    assert len(written) == 10
    for p in written:
        assert p.read_bytes() == (b / p.name).read_bytes()


def test_unwritable_certificate_directory_is_a_diagnostic(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run_cli(
        capsys, "prove", str(KIT), "--only", "kit.square-of-sum", "--certificates", str(blocker)
    )
    assert code == 2 and "cannot write certificates" in err and "Traceback" not in err


def test_trivial_certificates_are_refused(capsys):
    """An identity whose two sides SymPy already made equal re-checks nothing: the kernel
    refuses it, so the claim is not proved."""
    code, out, _ = run_cli(capsys, "prove", str(DATA / "demo_trivial.py"), "--no-certificates")
    assert code == 3
    assert "trivial: lhs and rhs are the same expression" in out
    code, out, _ = run_cli(
        capsys, "prove", str(DATA / "demo_trivial.py"), "--no-certificates", "--format", "json"
    )
    claim = json.loads(out)["claims"][0]
    assert claim["verdict"] == "unknown" and "trivial" in claim["reason"]


def test_progress_on_a_terminal(capsys, monkeypatch):
    """On a terminal, standard error shows claim n of m, the claim, its verdict and time."""
    import sys

    capsys.readouterr()
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    few = ("--only", "kit.square-of-sum", "--only", "kit.transitivity", "--only", "kit.pairs*")
    code, out, err = run_cli(capsys, "prove", str(KIT), *few, "--no-certificates", "--jobs", "2")
    assert code == 0
    assert "claim 1 of 3: kit." in err and "claim 3 of 3: kit." in err
    assert " proved in " in err and " s so far)" in err and "\r" in err
    assert "claim 1 of" not in out
    code, _, err = run_cli(capsys, "prove", str(KIT), *few, "--no-certificates", "--no-progress")
    assert code == 0 and "claim 1 of" not in err
