"""Float arithmetic as numpy does it, in pure Python, so vectors match model2vec's exactly.

model2vec averages a text's token rows in the embedding's own precision (float32; float16
rows summed in float32 and the mean rounded to float16) and normalises in float32. Python
floats are doubles; a double result rounded to float32 is exactly float32 arithmetic for one
addition, multiplication, division or square root (the double has more than twice the bits),
so each step below is done in doubles and rounded, once, where numpy rounds. Rounding to
float16 is the standard library's half-precision packing (round half to even, as numpy's).

The normalisation sums squares as numpy's `add.reduce` does (pairwise, eight accumulators per
block of 128): a float16 vector rounded at the end can differ in a whole unit of float16 when
the order of the float32 additions differs.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Sequence
from math import sqrt
from operator import add

__all__ = ["to_f32", "to_f16", "pairwise_sum_f32", "normalized_f32"]

_BLOCK = 128  # numpy's PW_BLOCKSIZE


def to_f32(values: Sequence[float]) -> array[float]:
    """Each value rounded to float32."""
    return array("f", values)


def to_f16(values: Sequence[float]) -> list[float]:
    """Each value rounded to float16 (half to even); past float16's range, infinity as numpy."""
    n = len(values)
    try:
        return list(struct.unpack(f"<{n}e", struct.pack(f"<{n}e", *values)))
    except OverflowError:
        return [_one_f16(v) for v in values]


def _one_f16(v: float) -> float:
    try:
        return float(struct.unpack("<e", struct.pack("<e", v))[0])
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def _f32(x: float) -> float:
    return array("f", (x,))[0]


def pairwise_sum_f32(a: Sequence[float], start: int = 0, n: int | None = None) -> float:
    """The float32 sum of a[start:start+n] in numpy's pairwise order."""
    if n is None:
        n = len(a) - start
    if n < 8:
        res = -0.0
        for i in range(start, start + n):
            res = _f32(res + a[i])
        return res
    if n <= _BLOCK:
        r = array("f", a[start : start + 8])
        stop = start + n - (n % 8)
        i = start + 8
        while i < stop:
            r = array("f", map(add, r, a[i : i + 8]))
            i += 8
        res = _f32(_f32(_f32(r[0] + r[1]) + _f32(r[2] + r[3])) + _f32(_f32(r[4] + r[5]) + _f32(r[6] + r[7])))
        for j in range(i, start + n):
            res = _f32(res + a[j])
        return res
    half = n // 2
    half -= half % 8
    return _f32(pairwise_sum_f32(a, start, half) + pairwise_sum_f32(a, start + half, n - half))


def normalized_f32(v: Sequence[float]) -> array[float]:
    """v (float32 values) over its float32 norm plus 1e-32, as model2vec normalises."""
    squares = array("f", [x * x for x in v])
    # add.reduce starts from the identity, 0.0, and adds the pairwise sum to it.
    norm = _f32(sqrt(_f32(0.0 + pairwise_sum_f32(squares))))
    norm = _f32(norm + 1e-32)
    return array("f", [x / norm for x in v])
