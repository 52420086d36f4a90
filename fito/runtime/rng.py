"""The RNG domain: capture and restore the global random states a training step consumes.

Python's `random`, numpy's legacy global generator and, when torch is already imported,
torch's CPU generator (and CUDA generators when present). The captured value holds only
ints, lists, tuples and (for torch) byte tensors, so every codec can store it.
"""

from __future__ import annotations

import random
import sys
from typing import Any


def capture_rng() -> dict[str, Any]:
    """The current global RNG states, as a value any shard codec can hold."""
    import numpy as np  # lazy-import: numpy is slow to load

    state: dict[str, Any] = {"python": random.getstate()}
    legacy = np.random.get_state(legacy=False)
    state["numpy"] = {
        "bit_generator": legacy["bit_generator"],
        "key": [int(k) for k in legacy["state"]["key"]],
        "pos": int(legacy["state"]["pos"]),
        "has_gauss": int(legacy["has_gauss"]),
        "gauss": float(legacy["gauss"]),
    }
    torch = sys.modules.get("torch")
    if torch is not None:
        state["torch"] = torch.get_rng_state()
        if torch.cuda.is_available():
            state["torch_cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict[str, Any]) -> None:
    """Put back global RNG states captured by `capture_rng`."""
    import numpy as np  # lazy-import: numpy is slow to load

    random.setstate(_as_tuple(state["python"]))
    n = state["numpy"]
    np.random.set_state(
        {
            "bit_generator": n["bit_generator"],
            "state": {"key": np.asarray(n["key"], dtype=np.uint32), "pos": n["pos"]},
            "has_gauss": n["has_gauss"],
            "gauss": n["gauss"],
        }
    )
    if "torch" in state:
        import torch  # lazy-import: torch is optional and slow to load

        torch.set_rng_state(state["torch"])
        if "torch_cuda" in state and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["torch_cuda"])


def _as_tuple(value: Any) -> Any:
    """random.setstate wants tuples all the way down."""
    if isinstance(value, (list, tuple)):
        return tuple(_as_tuple(v) for v in value)
    return value
