"""Guardrails for a restored state: is it consistent, mixed or torn, where to roll back, and
do the optimizer invariants hold on the actual arrays (paper A, claims 2 and 3).

    from fito.models.epochs.guardrail import classify, check_momentum, check_adam
    verdict = classify({"gpu": 7, "host": 7, "nvme": 6})
    verdict.kind, verdict.rollback          # ('mixed', 6)
    check_adam(m, v, step=1000, beta1=0.9, beta2=0.999).holds

Per-domain metadata is an epoch (int), None (missing or unreadable: the domain is torn), or
a collection of epochs, one per piece of the domain (shards, files): pieces that disagree
make the domain torn. The rollback target is the best recovery point of the epoch lattice:
the greatest consistent vector below the durable one, i.e. every domain at the smallest
epoch found. numpy is imported only by the array checks; K_t comes from the SymPy
derivation in `fito.models.epochs.optimizer` (derived once per process, then cached).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fito.models.epochs.lattice import EpochLattice

CONSISTENT, MIXED, TORN = "consistent", "mixed", "torn"


@dataclass(frozen=True, slots=True)
class Classification:
    """The verdict on a restored state's per-domain epochs, and the epoch to roll back to."""

    kind: str  # consistent, mixed or torn
    epochs: tuple[tuple[str, int | None], ...]  # per domain (sorted): its epoch, None if unknown
    rollback: int | None  # the best recovery point's epoch; None if unknown
    torn: tuple[str, ...]  # the torn domains
    reason: str

    @property
    def is_consistent(self) -> bool:
        """True when every domain holds the same, complete epoch."""
        return self.kind == CONSISTENT


def _pieces(domain: str, value: Any) -> tuple[int, ...] | None:
    """The epochs of a domain's pieces; None if the metadata is missing; ValueError if malformed."""
    if value is None:
        return None
    values = (value,) if isinstance(value, int) else tuple(value)
    if not values or not all(
        isinstance(e, int) and not isinstance(e, bool) and e >= 0 for e in values
    ):
        raise ValueError(f"domain {domain!r}: epochs must be integers >= 0, got {value!r}")
    return values


def classify(restored: Mapping[str, Any]) -> Classification:
    """Classify per-domain epoch metadata: consistent, mixed (complete domains at different
    epochs) or torn (a domain with missing metadata or pieces at different epochs)."""
    if not restored:
        raise ValueError("no domains: nothing was restored")
    pieces = {d: _pieces(d, restored[d]) for d in sorted(restored)}
    torn = tuple(d for d, p in pieces.items() if p is None or len(set(p)) > 1)
    epochs = tuple(
        (d, p[0] if p is not None and len(set(p)) == 1 else None) for d, p in pieces.items()
    )
    rollback = _best_recovery_epoch(pieces)
    if torn:
        missing = [d for d in torn if pieces[d] is None]
        why = (
            f"no epoch metadata for {', '.join(missing)}"
            if missing
            else f"pieces at different epochs in {', '.join(torn)}"
        )
        return Classification(TORN, epochs, rollback, torn, why)
    distinct = sorted({e for _, e in epochs if e is not None})
    if len(distinct) == 1:
        return Classification(
            CONSISTENT, epochs, distinct[0], (), f"every domain at epoch {distinct[0]}"
        )
    return Classification(
        MIXED, epochs, rollback, (), f"domains at epochs {', '.join(map(str, distinct))}"
    )


def _best_recovery_epoch(pieces: Mapping[str, tuple[int, ...] | None]) -> int | None:
    """Each piece is a coordinate of the durable vector; its best recovery point is (min, ...)."""
    if any(p is None for p in pieces.values()):
        return None
    vector = tuple(e for p in pieces.values() if p is not None for e in p)
    lattice = EpochLattice(len(vector), max(vector))
    return lattice.best_recovery_point(vector)[0]


def common_epoch(available: Mapping[str, Iterable[int]]) -> int | None:
    """The newest epoch every domain still holds (per-epoch files), or None if there is none."""
    if not available:
        raise ValueError("no domains")
    sets = [set(_pieces(d, list(v)) or ()) for d, v in sorted(available.items())]
    common = set.intersection(*sets)
    return max(common) if common else None


# ---------------------------------------------------------------- optimizer invariants
@dataclass(frozen=True, slots=True)
class InvariantCheck:
    """An invariant checked elementwise on arrays: whether it holds, and the worst element."""

    invariant: str
    holds: bool
    violations: int  # elements outside the tolerance
    worst: float  # largest excess over the tolerance (0 when it holds)
    worst_index: tuple[int, ...] | None
    detail: str


def _arrays(*xs: Any) -> list[Any]:
    import numpy as np  # lazy-import: numpy is slow to load

    arrays = [np.asarray(x, dtype=np.float64) for x in xs]
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError(f"arrays of different shapes: {[a.shape for a in arrays]}")
    if not all(np.isfinite(a).all() for a in arrays):
        raise ValueError("arrays hold NaN or infinite values")
    return arrays


def _report(name: str, excess: Any, detail: str) -> InvariantCheck:
    import numpy as np  # lazy-import: numpy is slow to load

    bad = excess > 0
    count = int(bad.sum())
    if excess.size == 0:
        return InvariantCheck(name, True, 0, 0.0, None, detail)
    flat = int(np.argmax(excess))
    worst = float(excess.reshape(-1)[flat])
    index = tuple(int(i) for i in np.unravel_index(flat, excess.shape)) if count else None
    return InvariantCheck(name, count == 0, count, max(worst, 0.0), index, detail)


def check_momentum(
    theta_prev: Any, theta: Any, m: Any, lr: float, *, rtol: float = 1e-6, atol: float = 1e-12
) -> InvariantCheck:
    """theta - theta_prev == -lr * m elementwise (momentum: m' = beta m + g), within tolerance."""
    if not lr > 0:
        raise ValueError(f"the learning rate must be positive, not {lr!r}")
    prev, cur, mom = _arrays(theta_prev, theta, m)
    import numpy as np  # lazy-import: numpy is slow to load

    residual = np.abs(cur - prev + lr * mom)
    scale = atol + rtol * np.maximum(np.abs(cur - prev), np.abs(lr * mom))
    return _report(
        "theta_t - theta_(t-1) == -lr m_t",
        residual - scale,
        f"largest residual {float(residual.max()) if residual.size else 0.0:.3g}",
    )


@functools.cache
def _adam_constant() -> Callable[[int, float, float], float]:
    """K(t, beta1, beta2) from the derived c and q: K_t = c (1 - q^t)/(1 - q), or c t when q = 1."""
    import sympy  # lazy-import: sympy is slow to load

    from fito.models.epochs import optimizer as opt  # lazy-import: optimizer loads sympy

    bound, s = opt.adam_bound(), opt.symbols()
    args = (s["beta1"], s["beta2"])
    c, q = (sympy.lambdify(args, e, modules="math") for e in (bound.c, bound.q))

    def K(t: int, b1: float, b2: float) -> float:
        cv, qv = c(b1, b2), q(b1, b2)
        if math.isclose(qv, 1.0, rel_tol=1e-12):
            return cv * t
        try:
            return cv * (1.0 - qv**t) / (1.0 - qv)  # -expm1(t log q) would not help at q > 1
        except OverflowError:
            return math.inf

    return K


def adam_constant(step: int, beta1: float, beta2: float) -> float:
    """K_t of Adam's invariant m_t^2 <= K_t v_t (m_0 = v_0 = 0) at step t >= 1."""
    if isinstance(step, bool) or not isinstance(step, int) or step < 1:
        raise ValueError(f"the step counter must be an integer >= 1, not {step!r}")
    if not (0 < beta1 < 1 and 0 < beta2 < 1):
        raise ValueError(f"betas must lie in (0, 1), got {beta1!r}, {beta2!r}")
    return _adam_constant()(step, beta1, beta2)


def check_adam(
    m: Any,
    v: Any,
    step: int,
    beta1: float = 0.9,
    beta2: float = 0.999,
    *,
    rtol: float = 1e-6,
    atol: float = 1e-30,
) -> InvariantCheck:
    """m^2 <= K_step v elementwise (Adam's moments and its step counter), within tolerance."""
    K = adam_constant(step, beta1, beta2)
    mm, vv = _arrays(m, v)
    import numpy as np  # lazy-import: numpy is slow to load

    if (vv < 0).any():
        bad = vv < 0
        return _report("v >= 0", np.where(bad, -vv, -1.0), "a second moment is negative")
    excess = mm * mm - K * vv * (1 + rtol) - atol
    scale = np.maximum(K * vv, atol)
    return _report(f"m^2 <= K_t v (t = {step}, K_t = {K:.6g})", excess / scale, f"K_t = {K!r}")


def reliable_invariants() -> tuple[Any, ...]:
    """Which checks on a restored optimizer state are sound (see optimizer.invariant_advice)."""
    from fito.models.epochs.optimizer import invariant_advice  # lazy-import: optimizer loads sympy

    return invariant_advice()
