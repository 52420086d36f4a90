"""Staging for asynchronous saves: a private copy of a state, taken before training goes on.

Like `torch.distributed.checkpoint.async_save`, the caller's state is copied into memory the
training step does not touch (tensors cloned to the CPU, numpy arrays copied, containers
rebuilt), so that the background writer saves exactly the values of the epoch even while
the next steps update the parameters in place. An object reached twice (tied weights) is
copied once and stays shared.
"""

from __future__ import annotations

import sys
from typing import Any


def snapshot(state: Any) -> Any:
    """A deep copy of state's tensors, arrays and containers; immutable leaves are shared."""
    return _copy(state, {})


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    if isinstance(value, (str, bytes, int, float, complex, bool, type(None))):
        return value
    key = id(value)
    if key in memo:
        return memo[key]
    memo[key] = copied = _copy_new(value, memo)
    return copied


def _copy_new(value: Any, memo: dict[int, Any]) -> Any:
    if type(value) is dict:
        return {k: _copy(v, memo) for k, v in value.items()}
    if isinstance(value, dict):  # OrderedDict (a state_dict, with its _metadata), ...
        out = type(value)()
        out.update((k, _copy(v, memo)) for k, v in value.items())
        out.__dict__.update(getattr(value, "__dict__", {}))
        return out
    if isinstance(value, list):
        return [_copy(v, memo) for v in value]
    if isinstance(value, tuple):
        items = [_copy(v, memo) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, bytearray):
        return bytes(value)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):
        return value.copy()
    return value  # numpy scalars, torch dtypes and sizes...: immutable
