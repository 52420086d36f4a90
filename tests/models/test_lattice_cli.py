"""`fito lattice`: exact values in JSON, the decay contrast in text, one-line usage errors."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from fito.cli.main import main


def run_json(capsys, *args: str) -> dict:
    assert main(["lattice", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def models(report: dict) -> dict:
    return {m["model"]: m for m in report["models"]}


@pytest.mark.parametrize("k,n,p,r", [(3, 2, "1/3", "1/2"), (5, 1, "0.25", "2"), (1, 0, "1", "3/7")])
def test_json_values_are_exact(capsys, k: int, n: int, p: str, r: str) -> None:
    out = run_json(capsys, "--domains", str(k), "--epochs", str(n), "--p", p, "--rate-ratio", r)
    lat = out["lattice"]
    assert lat["size"]["exact"] == str((n + 1) ** k)
    assert lat["consistent"]["exact"] == str(n + 1)
    assert Fraction(lat["mixed_fraction"]["exact"]) == 1 - Fraction(n + 1) ** (1 - k)
    assert lat["crash_window"]["mixed"]["exact"] == str(2**k - 2)
    assert lat["enumerated"] is True
    pp, rr = Fraction(p), Fraction(r)
    m = models(out)
    assert Fraction(m["independent"]["p_atomic"]["exact"]) == pp**k
    assert Fraction(m["independent"]["p_mixed"]["exact"]) == 1 - pp**k - (1 - pp) ** k
    product = math.prod(Fraction(j) / (j + rr) for j in range(1, k + 1))
    assert Fraction(m["random-crash"]["p_atomic"]["exact"]) == product
    assert Fraction(m["random-crash"]["p_all_old"]["exact"]) == rr / (k + rr)
    assert Fraction(m["random-crash"]["ratio"]["exact"]) == Fraction(k + 1) / (k + 1 + rr)
    fixed = m["fixed-delay"]["p_atomic"]
    assert fixed["exact"] is None and fixed["float"] == pytest.approx((1 - math.exp(-1)) ** k)
    assert m["independent"]["decay"] in ("exponential", "none")
    assert m["random-crash"]["decay"] == "polynomial"


def test_per_domain_rates_and_decay_table(capsys) -> None:
    out = run_json(capsys, "-k", "3", "-n", "1", "--mu-tau", "1/2,1,2", "--rate-ratio", "2")
    fixed = models(out)["fixed-delay"]
    assert fixed["p_atomic"]["float"] == pytest.approx(
        (1 - math.exp(-0.5)) * (1 - math.exp(-1)) * (1 - math.exp(-2))
    )
    rows = out["decay"]
    assert [row["k"] for row in rows] == [2**i for i in range(len(rows))]
    for row in rows:
        paper = math.gamma(row["k"] + 1) * math.gamma(3) / math.gamma(row["k"] + 3)
        assert row["random_crash"] == pytest.approx(paper, rel=1e-9)
        assert row["independent"] == pytest.approx(0.5 ** row["k"])
    assert rows[-1]["random_crash"] > rows[-1]["independent"]


def test_large_k_gives_floats_with_logs(capsys) -> None:
    out = run_json(capsys, "-k", "3000", "-n", "1", "--p", "0.5")
    ind = models(out)["independent"]["p_atomic"]
    assert ind["exact"] is None and ind["log10"] == pytest.approx(3000 * math.log10(0.5))
    assert out["lattice"]["size"]["exact"] == str(2**3000)
    assert out["lattice"]["size"]["float"] is None


def test_text_shows_both_decays(capsys) -> None:
    assert main(["lattice", "--domains", "4", "--epochs", "2"]) == 0
    text = capsys.readouterr().out
    assert "mixed fraction  = 1 - (n + 1)**(1 - k) = 26/27" in text  # 1 - 3^(1-4)
    assert "exponential decay" in text and "polynomial" in text
    assert "P(atomic) = p**k = 1/16" in text


@pytest.mark.parametrize(
    "args",
    [
        ["--domains", "0", "--epochs", "1"],
        ["--domains", "2", "--epochs", "-1"],
        ["--domains", "2", "--epochs", "1", "--p", "1.5"],
        ["--domains", "2", "--epochs", "1", "--p", "x"],
        ["--domains", "2", "--epochs", "1", "--p", "1/0"],
        ["--domains", "2", "--epochs", "1", "--rate-ratio", "0"],
        ["--domains", "2", "--epochs", "1", "--mu-tau", "1,2,3"],
        ["--domains", "2", "--epochs", "1", "--mu-tau", "-1"],
        ["--domains", "two", "--epochs", "1"],
        ["--epochs", "1"],
        ["--domains", "2", "--epochs", "1", "--format", "xml"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, args: list[str]) -> None:
    assert main(["lattice", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[C001 bad-usage]" in err and "Traceback" not in err
