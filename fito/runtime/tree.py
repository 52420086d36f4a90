"""A pickle-free codec for nested Python and numpy state: JSON for the structure, npz for arrays.

Every container is tagged, so decoding gives back the same types: `{"map": {...}}` for a
dict with string keys, `{"items": [[k, v], ...]}` for other keys, `{"tuple": [...]}`,
`{"array": i}` and `{"scalar": i}` for numpy arrays and scalars (stored in the npz as
`a<i>`), `{"bytes": "<base64>"}`; lists, strings, integers, floats, booleans and None are
plain JSON. Loading never unpickles (`np.load(allow_pickle=False)`).
"""

from __future__ import annotations

import base64
import io
import json
from typing import Any

from fito.runtime import boundedjson
from fito.runtime.layout import CheckpointError

TREE_KEY = "__fito_tree__"
MAX_NESTING = 100  # containers inside containers; deeper states are refused at save time


def encode(state: Any) -> tuple[str, list[Any]]:
    """The JSON skeleton of state and the numpy arrays it refers to."""
    arrays: list[Any] = []
    skeleton = _encode(state, arrays, "state", 0)
    return json.dumps(skeleton, separators=(",", ":")), arrays


_PLAIN = frozenset({type(None), bool, int, float, str})


def _encode(value: Any, arrays: list[Any], where: str, depth: int) -> Any:
    if type(value) in _PLAIN or isinstance(value, (int, float, str)):  # subclasses: as JSON does
        return value
    if depth >= MAX_NESTING and isinstance(value, (list, tuple, dict)):
        raise CheckpointError(f"{where}: containers nested more than {MAX_NESTING} deep")
    d = depth + 1
    if isinstance(value, list):
        return [
            v if type(v) in _PLAIN else _encode(v, arrays, f"{where}[{i}]", d)
            for i, v in enumerate(value)
        ]
    if isinstance(value, tuple):
        return {"tuple": [_encode(v, arrays, f"{where}[{i}]", d) for i, v in enumerate(value)]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"map": {k: _encode(v, arrays, f"{where}[{k!r}]", d) for k, v in value.items()}}
        return {
            "items": [
                [_encode(k, arrays, where, d), _encode(v, arrays, f"{where}[{k!r}]", d)]
                for k, v in value.items()
            ]
        }
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": base64.b64encode(bytes(value)).decode("ascii")}
    return _encode_numpy(value, arrays, where)


def _encode_numpy(value: Any, arrays: list[Any], where: str) -> Any:
    import numpy as np  # lazy-import: numpy is slow to load

    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise CheckpointError(
                f"{where}: numpy arrays of Python objects need pickle; "
                "store them as plain lists or numeric arrays"
            )
        arrays.append(value)
        return {"array": len(arrays) - 1}
    if isinstance(value, np.generic):
        arrays.append(np.asarray(value))
        return {"scalar": len(arrays) - 1}
    raise CheckpointError(
        f"{where}: cannot store a {type(value).__name__} without pickle "
        "(supported: dict, list, tuple, str, int, float, bool, None, bytes, "
        "numpy arrays and scalars; torch tensors with the torch codec)"
    )


def write_npz(sink: Any, text: str, arrays: list[Any]) -> None:
    """The npz form: the JSON skeleton as a uint8 array plus one entry per array."""
    import numpy as np  # lazy-import: numpy is slow to load

    entries = {f"a{i}": a for i, a in enumerate(arrays)}
    entries[TREE_KEY] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()  # np.savez wants a seekable file; the sink is append-only
    np.savez(buffer, allow_pickle=False, **entries)
    sink.write(buffer.getbuffer())


def decode_json(payload: bytes | memoryview) -> Any:
    """Decode the JSON form (a state without numpy arrays)."""
    return _decode(_skeleton(payload), [])


def _skeleton(text: bytes | memoryview) -> Any:
    """The JSON skeleton, its nesting bounded (each container is two levels: tag, body)."""
    return boundedjson.loads(text, max_depth=3 * MAX_NESTING, finite=False, int_digits=5000)


def decode_npz(payload: bytes | memoryview) -> Any:
    """Decode the npz form."""
    import numpy as np  # lazy-import: numpy is slow to load

    with np.load(io.BytesIO(payload), allow_pickle=False) as npz:
        skeleton = _skeleton(npz[TREE_KEY].tobytes())
        count = sum(1 for name in npz.files if name != TREE_KEY)
        arrays = [npz[f"a{i}"] for i in range(count)]
    return _decode(skeleton, arrays)


def _decode(node: Any, arrays: list[Any]) -> Any:
    if isinstance(node, list):
        return [v if type(v) in _PLAIN else _decode(v, arrays) for v in node]
    if not isinstance(node, dict):
        return node
    if len(node) != 1:
        raise ValueError("malformed tree node")
    ((tag, body),) = node.items()
    if tag == "map":
        return {k: _decode(v, arrays) for k, v in body.items()}
    if tag == "items":
        return {_decode(k, arrays): _decode(v, arrays) for k, v in body}
    if tag == "tuple":
        return tuple(_decode(v, arrays) for v in body)
    if tag == "array":
        return arrays[body]
    if tag == "scalar":
        return arrays[body][()]
    if tag == "bytes":
        return base64.b64decode(body)
    raise ValueError(f"unknown tree tag {tag!r}")
