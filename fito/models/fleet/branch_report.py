"""What `fito returnmap` reports about a branch: map, spectrum, region, witness, cross-check."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from fito.models.fleet.branches import enumerate_branches
from fito.models.fleet.crosscheck import agrees
from fito.models.fleet.linear import (
    Constraint,
    inequality_text,
    irredundant,
    normalized,
    to_fraction,
)
from fito.models.fleet.maps import (
    determinant,
    eigenvalues,
    expanding_directions,
    gap_map,
    gap_values,
    region_in_gaps,
)
from fito.models.fleet.oscillators import Fleet
from fito.models.fleet.returnmap import (
    Branch,
    Derivation,
    derive,
    overlapping,
    parse_branch,
    setting_from_fleet,
    staggered,
    symbolic_setting,
)
from fito.models.fleet.solve import SAT, RegionSolver

TEMPLATES = {"overlapping": overlapping, "staggered": staggered}


def setting_for(fleet: Fleet, symbolic: bool):
    """The model's exact numbers, or symbols in the same cap regime (identical jobs)."""
    if not symbolic:
        return setting_from_fleet(fleet)
    cap = int(fleet.capacity) if fleet.capacity is not None and fleet.is_capped else None
    return symbolic_setting(
        fleet.jobs,
        "general",
        cap_floor=cap,
        volumes="identical" if fleet.is_identical else "per-job",
    )


def branches_for(name: str, fleet: Fleet) -> list[Branch] | None:
    """The named template's branch, a custom branch, or None for an enumeration."""
    if name in TEMPLATES:
        return [TEMPLATES[name](fleet.jobs)]
    if name in ("pairwise", "all"):
        return None
    return [parse_branch(name, fleet.jobs)]


def describe(der: Derivation, fleet: Fleet, check: bool = True) -> dict[str, Any]:
    """The JSON report of one derived branch."""
    K, m, setting = der.K, der.m, der.setting
    xs = [f"x{j}" for j in range(1, setting.jobs)]
    out: dict[str, Any] = {
        "branch": der.branch.name,
        "events": [str(e) for e in der.branch.events],
        "section": {
            "fires": "job 0",
            "modes": list(der.branch.modes),
            "state": [
                f"x{j}: remaining {mode} of job {j}"
                for j, mode in enumerate(der.branch.modes[1:], start=1)
            ],
        },
        "return_map": der.is_return_map,
    }
    F, e = der.state_matrix()
    out["state_map"] = {"matrix": _matrix(F, K), "offset": [_s(v, K) for v in e]}
    gm = gap_map(der)
    solver = RegionSolver(setting, m)
    verdict = solver.check(der.constraints)
    if gm is not None:
        out.update(_gap_report(gm, K))
        names = [f"a{i}" for i in range(1, setting.jobs)]
        out["region"] = _region(region_in_gaps(gm), names, K)
    else:
        out["gap_map"] = None
        out["region"] = _region(tuple(c.form for c in der.constraints), xs, K)
    out["region"]["nonempty"] = verdict.status == SAT if verdict.status != "unknown" else None
    if verdict.status == SAT:
        point = verdict.point or ()
        wit = {x: str(v) for x, v in zip(xs, point)}
        if gm is not None and not setting.symbols:
            wit.update({f"a{i}": str(v) for i, v in enumerate(gap_values(gm, point), start=1)})
        out["region"]["witness"] = wit
        if verdict.params:
            out["region"]["witness_parameters"] = {k: str(v) for k, v in verdict.params}
        if check and not setting.symbols:
            ok, message = agrees(der, fleet, point)
            out["simulator_check"] = {"agrees": ok, "detail": message}
    return out


def _gap_report(gm, K) -> dict[str, Any]:
    values = eigenvalues(gm)
    return {
        "gaps": [
            f"a{i} = t(job {j}) - t(job {p})"
            for i, (j, p) in enumerate(_pairs(gm.derivation), start=1)
        ],
        "gap_map": {
            "matrix": _matrix(gm.M, K),
            "offset": [_s(v, K) for v in gm.d],
            "linear": gm.is_linear,
            "diagonal": gm.is_diagonal(),
        },
        "eigenvalues": [str(v) for v in values],
        "moduli": [_modulus(v) for v in values],
        "determinant": str(determinant(gm.M, K)),
        "expanding_directions": expanding_directions(values),
    }


def _pairs(der: Derivation) -> list[tuple[int, int]]:
    order = [0] + list(der.firing_order())
    return list(zip(order[1:], order))


def _modulus(v: Any) -> float | None:
    return abs(complex(v)) if v.is_number else None


def _matrix(rows, K) -> list[list[str]]:
    return [[_s(v, K) for v in row] for row in rows]


def _s(v: Any, K: Any) -> str:
    return str(K.to_sympy(v))


def _region(forms, names, K) -> dict[str, Any]:
    forms = [normalized(f, K) for f in forms]
    if K.is_Numerical:
        forms = irredundant(forms, len(names), K)
    texts = []
    for form in forms:
        text = inequality_text(form, names, K)
        if text not in texts:
            texts.append(text)
    return {"variables": list(names), "inequalities": texts}


def enumerate_report(fleet: Fleet, symbolic: bool, check: bool = True) -> list[dict[str, Any]]:
    """Every feasible one-cycle branch of a small fleet, each described."""
    setting = setting_for(fleet, symbolic)
    result = enumerate_branches(setting, cycles=1)
    reports = []
    for i, leaf in enumerate(result.leaves, start=1):
        der = derive(setting, replace(leaf.branch(), name=f"enumerated-{i}"))
        reports.append(describe(der, fleet, check))
    return reports


def fraction(v: Any, K: Any) -> Fraction:
    return to_fraction(v, K)


__all__ = ["Constraint", "branches_for", "describe", "enumerate_report", "setting_for"]
