"""The pickle-free tree codec keeps values and types exactly, for any nesting (property)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fito.runtime import tree

arrays = hnp.arrays(
    dtype=st.sampled_from(
        [np.float32, np.float64, np.int8, np.int64, np.uint16, np.bool_, np.complex64]
    ),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
)
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=8)
    | st.binary(max_size=8)
    | arrays
    | st.sampled_from([np.float32(1.5), np.int16(-3), np.bool_(True)])
)
keys = st.text(max_size=5) | st.integers(-5, 5)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(keys, inner, max_size=4)
    ),
    max_leaves=20,
)


def same(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and bool(a == b or (np.isnan(a) and np.isnan(b)))
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


@settings(max_examples=100, deadline=None)
@given(values)
def test_round_trip(value: object) -> None:
    text, found = tree.encode(value)
    if found:
        sink = _Buffer()
        tree.write_npz(sink, text, found)
        back = tree.decode_npz(bytes(sink.data))
    else:
        back = tree.decode_json(text.encode())
    assert same(value, back)


class _Buffer:
    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, b: bytes | memoryview) -> int:
        self.data += b
        return len(b)
