"""`fito lattice`: the epoch lattice E^k and P(atomic) under the three models of paper A."""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING, Any

from fito.diagnostics import UsageError

if TYPE_CHECKING:  # imported where used: building `fito --help` imports this module
    from fractions import Fraction

HELP = "epoch lattice sizes, mixed fraction and P(atomic) under three probability models"
MAX_DOMAINS = 10_000
EXACT_UP_TO = 2_000  # exact probabilities up to this many domains; floats beyond
ENUMERATE_UP_TO = 200_000  # lattices this small are also counted element by element


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--domains",
        "-k",
        type=int,
        required=True,
        metavar="K",
        help="number of persistence domains k (>= 1)",
    )
    parser.add_argument(
        "--epochs",
        "-n",
        type=int,
        required=True,
        metavar="N",
        help="the newest epoch n: E = {0..n} (>= 0)",
    )
    parser.add_argument(
        "--p",
        default="1/2",
        metavar="P",
        help="independent model: P(a domain is at the newest epoch), 0 <= P <= 1, "
        "a decimal or a fraction (default 1/2)",
    )
    parser.add_argument(
        "--rate-ratio",
        default="1",
        metavar="R",
        help="random-crash model: r = lambda/mu > 0 (default 1)",
    )
    parser.add_argument(
        "--mu-tau",
        default="1",
        metavar="X[,X...]",
        help="fixed-delay model: mu_d * tau, one value for every domain or one "
        "per domain, each > 0 (default 1)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")


MAX_EPOCHS = 10**18  # the newest epoch: an 18-digit integer, as in specs
PARAMETER_DIGITS = 30  # numerator and denominator of --p, --rate-ratio, --mu-tau
EXACT_DIGITS = 4_000  # exact values longer than this: float and log10 only (str() of
#                             longer ints is refused by Python, and quadratic)


def _fraction(text: str, option: str) -> Fraction:
    """A finite decimal or fraction whose numerator and denominator have at most
    PARAMETER_DIGITS digits (so that exact arithmetic on it stays small)."""
    from fractions import Fraction  # lazy-import: start-up of every command

    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError, OverflowError):
        raise UsageError(f"{option}: {text!r} is not a number (write 0.25 or 1/4)") from None
    limit = 10**PARAMETER_DIGITS
    if abs(value.numerator) >= limit or value.denominator >= limit:
        raise UsageError(
            f"{option}: {text!r} has too many digits or too large an exponent "
            f"(numerator and denominator of at most {PARAMETER_DIGITS} digits)"
        )
    return value


def _parameters(args: argparse.Namespace) -> tuple[Fraction, Fraction, tuple[Fraction, ...]]:
    if not 1 <= args.domains <= MAX_DOMAINS:
        raise UsageError(f"--domains must be in 1..{MAX_DOMAINS}, not {args.domains}")
    if not 0 <= args.epochs <= MAX_EPOCHS:
        raise UsageError(f"--epochs must be in 0..{MAX_EPOCHS:,}, not {args.epochs}")
    p = _fraction(args.p, "--p")
    if not 0 <= p <= 1:
        raise UsageError(f"--p must lie in [0, 1], not {args.p}")
    r = _fraction(args.rate_ratio, "--rate-ratio")
    if r <= 0:
        raise UsageError(f"--rate-ratio must be positive, not {args.rate_ratio}")
    mu_tau = tuple(_fraction(x, "--mu-tau") for x in args.mu_tau.split(","))
    if any(x <= 0 for x in mu_tau):
        raise UsageError(f"--mu-tau values must be positive, not {args.mu_tau}")
    if len(mu_tau) == 1:
        mu_tau *= args.domains
    elif len(mu_tau) != args.domains:
        raise UsageError(f"--mu-tau has {len(mu_tau)} values for {args.domains} domains")
    return p, r, mu_tau


def run(args: argparse.Namespace) -> int:
    p, r, mu_tau = _parameters(args)
    report = build_report(args.domains, args.epochs, p, r, mu_tau)
    if args.format == "json":
        print(json.dumps(report, indent=1))
    else:
        print(render_text(report))
    return 0


# ---------------------------------------------------------------- the report
def _exact(value: Fraction) -> dict[str, Any]:
    """The exact value and its float; past EXACT_DIGITS digits, the float and log10 only."""
    bits = max(abs(value.numerator).bit_length(), value.denominator.bit_length())
    if bits * math.log10(2) > EXACT_DIGITS:
        out: dict[str, Any] = {"exact": None, "float": _float(value)}
        if value > 0:
            out["log10"] = _log10(value)
        return out
    text = (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )
    return {"exact": text, "float": _float(value)}


def _log10(value: Fraction) -> float:
    """log10 of a positive fraction of any size (through the bit lengths, no float overflow)."""

    def log10_int(n: int) -> float:
        shift = max(0, n.bit_length() - 64)
        return math.log10(n >> shift) + shift * math.log10(2)

    return log10_int(value.numerator) - log10_int(value.denominator)


def _float(value: Fraction) -> float | None:
    """The nearest float; None when it overflows (JSON has no infinity)."""
    try:
        return float(value)
    except OverflowError:
        return None


def _lattice_part(k: int, n: int) -> dict[str, Any]:
    from fractions import Fraction  # lazy-import: start-up of every command

    from fito.models.epochs import lattice as lat  # lazy-import: start-up of every command

    forms = lat.closed_forms()
    values = forms.evaluate(k, n)
    part: dict[str, Any] = {
        "size": _exact(values["size"]),
        "consistent": _exact(values["consistent"]),
        "mixed": _exact(values["size"] - values["consistent"]),
        "mixed_fraction": _exact(values["mixed_fraction"]),
        "closed_forms": {
            "size": str(forms.size),
            "consistent": str(forms.consistent),
            "mixed_fraction": str(forms.mixed_fraction),
        },
        "crash_window": {
            "vectors": _exact(Fraction(2) ** k),
            "mixed": _exact(values["mixed_in_window"]),
            "closed_form": str(forms.mixed_in_window),
        },
    }
    if values["size"] <= ENUMERATE_UP_TO:  # small enough: count the elements too
        counted = lat.count(lat.EpochLattice(k, n))
        part["enumerated"] = (
            counted.size == values["size"] and counted.consistent == values["consistent"]
        )
    return part


def _probability(
    exact: Fraction | None, value: float, expression: Any, log10: float | None = None
) -> dict[str, Any]:
    """An exact value (and its float), or a float; log10 when the float underflows."""
    out = (
        {**_exact(exact), "expression": str(expression)}
        if exact is not None
        else {"exact": None, "float": value, "expression": str(expression)}
    )
    if out["float"] == 0.0 and log10 is not None and math.isfinite(log10):
        out["log10"] = log10
    return out


def _independent(k: int, p: Fraction) -> dict[str, Any]:
    from fito.models.epochs import atomicity as at  # lazy-import: start-up of every command

    d = at.derive_independent()
    if k <= EXACT_UP_TO:
        v = at.independent_values(k, p)
        values = {name: _probability(v[name], 0.0, getattr(d, name)) for name in v}
    else:
        new, old = float(p) ** k, float(1 - p) ** k
        values = {
            "atomic": _probability(None, new, d.atomic, _log10_power(p, k)),
            "all_old": _probability(None, old, d.all_old, _log10_power(1 - p, k)),
            "mixed": _probability(None, 1 - new - old, d.mixed),
        }
    return {
        "model": "independent",
        "assumption": at.ASSUMPTIONS["independent"],
        "parameters": {"p": _exact(p)["exact"]},
        **{f"p_{name}": v for name, v in values.items()},
        "ratio": {"expression": str(d.ratio), **_exact(p)},
        "decay": "exponential" if 0 < p < 1 else "none",
    }


def _fixed_delay(mu_tau: tuple[Fraction, ...]) -> dict[str, Any]:
    from fito.models.epochs import atomicity as at  # lazy-import: start-up of every command

    d, v = at.derive_fixed_delay(), at.fixed_delay_values(mu_tau)
    total = (
        " + ".join(_exact(x)["exact"] for x in mu_tau) if len(mu_tau) <= 16 else "sum_d mu_d tau"
    )
    same = len(set(mu_tau)) == 1
    logs = [math.log10(-math.expm1(-float(x))) for x in mu_tau]  # log10 of each 1 - exp(-mu_d tau)
    return {
        "model": "fixed-delay",
        "assumption": at.ASSUMPTIONS["fixed-delay"],
        "parameters": {
            "mu_tau": _exact(mu_tau[0])["exact"] if same else [_exact(x)["exact"] for x in mu_tau]
        },
        "p_atomic": _probability(None, v["atomic"], _fixed_expr(mu_tau), math.fsum(logs)),
        "p_all_old": _probability(
            None, v["all_old"], f"exp(-({total}))", -float(sum(mu_tau)) / math.log(10)
        ),
        "p_mixed": _probability(None, v["mixed"], d.mixed),
        "ratio": {"expression": str(d.ratio)},
        "decay": "exponential",
    }


def _random_crash(k: int, r: Fraction) -> dict[str, Any]:
    from fito.models.epochs import atomicity as at  # lazy-import: start-up of every command

    d, s = at.derive_random_crash(), at.symbols()
    if k <= EXACT_UP_TO:
        v = at.random_crash_values(k, r)
        values = {name: _probability(v[name], 0.0, getattr(d, name)) for name in v}
    else:
        log_new = at.random_crash_log(k, float(r))
        new = math.exp(log_new)
        old = float(_fraction_of(d.all_old.subs({s["k"]: k, s["r"]: _sym(r)})))
        values = {
            "atomic": _probability(None, new, d.atomic, log_new / math.log(10)),
            "all_old": _probability(None, old, d.all_old),
            "mixed": _probability(None, 1 - new - old, d.mixed),
        }
    ratio = _fraction_of(d.ratio.subs({s["k"]: k, s["r"]: _sym(r)}))
    return {
        "model": "random-crash",
        "assumption": at.ASSUMPTIONS["random-crash"],
        "parameters": {"r": _exact(r)["exact"]},
        **{f"p_{name}": v for name, v in values.items()},
        "ratio": {"expression": str(d.ratio), **_exact(ratio)},
        "asymptotic": {
            "expression": str(at.leading_term()),
            "float": _finite(at.leading_term_value(k, r)),
        },
        "decay": "polynomial",
    }


def _finite(x: float) -> float | None:
    """x, or None where it is not finite (JSON has no infinity)."""
    return x if math.isfinite(x) else None


def _sym(x: Fraction) -> Any:
    import sympy  # lazy-import: sympy is slow to load

    return sympy.Rational(x.numerator, x.denominator)


def _fraction_of(expr: Any) -> Fraction:
    from fractions import Fraction  # lazy-import: start-up of every command

    import sympy  # lazy-import: sympy is slow to load

    q = sympy.simplify(expr)
    if not q.is_Rational:  # nsimplify only when needed (it can mangle an exact rational)
        q = sympy.nsimplify(q)
    return Fraction(int(q.p), int(q.q))


def _fixed_expr(mu_tau: tuple[Fraction, ...]) -> str:
    from fito.models.epochs import atomicity as at  # lazy-import: start-up of every command

    if len(mu_tau) > 16:
        return "prod_(d=1..k) (1 - exp(-mu_d*tau))"
    s = at.symbols()
    expr = at.derive_fixed_delay().atomic.subs(s["k"], len(mu_tau)).doit()
    rates = {s["mu_d"][i + 1]: _sym(x) for i, x in enumerate(mu_tau)}
    return str(expr.subs(rates).subs(s["tau"], 1))


def _decay_table(k: int, p: Fraction, r: Fraction) -> list[dict[str, Any]]:
    """P(atomic) of the independent and random-crash models for k = 1, 2, 4, ..., as floats."""
    from fito.models.epochs import atomicity as at  # lazy-import: start-up of every command

    top = 1 << max(6, (k - 1).bit_length())
    rows, size = [], 1
    while size <= top:
        rows.append(
            {
                "k": size,
                "independent": float(p) ** size,
                "random_crash": at.random_crash_float(size, float(r)),
                "asymptotic": _finite(at.leading_term_value(size, r)),
            }
        )
        size *= 2
    return rows


def build_report(
    k: int, n: int, p: Fraction, r: Fraction, mu_tau: tuple[Fraction, ...]
) -> dict[str, Any]:
    """Everything `fito lattice` prints, as JSON-ready data."""
    return {
        "domains": k,
        "epochs": n,
        "lattice": _lattice_part(k, n),
        "models": [_independent(k, p), _fixed_delay(mu_tau), _random_crash(k, r)],
        "decay": _decay_table(k, p, r),
    }


# ---------------------------------------------------------------- text
def _log10_power(base: Fraction, k: int) -> float | None:
    return k * math.log10(base) if base > 0 else None


def _value(v: dict[str, Any]) -> str:
    if v.get("exact") is not None and len(v["exact"]) <= 40:
        return v["exact"]
    if "log10" in v and v["float"] in (None, 0.0):  # beyond the float range: in logs
        exponent = math.floor(v["log10"])
        return f"{10 ** (v['log10'] - exponent):.4g}e{exponent}"
    approx = "overflows a float" if v["float"] is None else f"{v['float']:.6g}"
    return approx if v.get("exact") is None else f"{approx} (exact: {len(v['exact'])} characters)"


def _g(x: float | None, digits: int) -> str:
    return "overflows" if x is None else f"{x:.{digits}g}"


def render_text(report: dict[str, Any]) -> str:
    """The human-readable form of the report."""
    k, n, lat = report["domains"], report["epochs"], report["lattice"]
    forms, window = lat["closed_forms"], lat["crash_window"]
    lines = [
        f"epoch lattice L = E^k with k = {k} domains, E = {{0..{n}}}",
        f"  |L|             = {forms['size']} = {_value(lat['size'])}",
        f"  consistent      = {forms['consistent']} = {_value(lat['consistent'])}",
        f"  mixed           = {_value(lat['mixed'])}",
        f"  mixed fraction  = {forms['mixed_fraction']} = {_value(lat['mixed_fraction'])}",
        f"  crash while epoch e is written: {{e-1, e}}^k = {_value(window['vectors'])} "
        f"vectors, {window['closed_form']} = {_value(window['mixed'])} mixed",
    ]
    if "enumerated" in lat:
        agrees = "yes" if lat["enumerated"] else "NO"
        lines.append(f"  enumeration agrees with the closed forms: {agrees}")
    lines.append("P(atomic) = P(every domain at the newest epoch), by model:")
    for m in report["models"]:
        params = ", ".join(
            f"{key} = {val if isinstance(val, str) else ','.join(val)}"
            for key, val in m["parameters"].items()
        )
        if m["model"] == "fixed-delay" and isinstance(m["parameters"]["mu_tau"], str):
            params += " for every domain"
        lines.append(f"  {m['model']} ({params}): {m['assumption']}")
        lines.append(f"    P(atomic) = {m['p_atomic']['expression']} = {_value(m['p_atomic'])}")
        lines.append(
            f"    P(all old) = {_value(m['p_all_old'])}, P(mixed) = {_value(m['p_mixed'])}"
        )
        lines.append(f"    P(k+1)/P(k) = {m['ratio']['expression']}: {m['decay']} decay in k")
        if "asymptotic" in m:
            asym = m["asymptotic"]
            lines.append(
                f"    P ~ {asym['expression']} = {_g(asym['float'], 6)} "
                "as k grows: the ratio tends to 1, so the decay is only polynomial"
            )
    lines.append("decay in k (independent: exponential; random crash: polynomial):")
    lines.append(f"  {'k':>6}  {'independent':>12}  {'random crash':>12}  {'Gamma(1+r)k^-r':>14}")
    for row in report["decay"]:
        lines.append(
            f"  {row['k']:>6}  {row['independent']:>12.4g}  {row['random_crash']:>12.4g}"
            f"  {_g(row['asymptotic'], 4):>14}"
        )
    return "\n".join(lines)
