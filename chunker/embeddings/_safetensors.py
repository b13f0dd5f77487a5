"""The safetensors format, read with the standard library.

A file is an 8-byte little-endian header length N, N bytes of JSON (each tensor's dtype,
shape and [begin, end) byte offsets into the data that follows, and an optional
``__metadata__`` of strings), then the data. Everything a header claims is checked before a
byte of data is read as a number: the header's length is capped, every shape's size must be
exactly its byte range, and every range must lie inside the file, so a damaged or hostile file
costs one line of error, never a huge allocation. A float tensor holding NaN or an infinity
is refused too: no arithmetic on it means anything (the fixed-point sums of `_model` cannot
even hold it).
"""

from __future__ import annotations

import json
import struct
import sys
from dataclasses import dataclass
from math import isfinite, prod
from typing import Any

from .._errors import ChunkerError

__all__ = ["DTYPES", "HEADER_MAX", "Tensor", "read_safetensors"]

HEADER_MAX = 100_000_000
"""The largest header accepted, the same bound the safetensors library itself sets."""

DTYPES = {"F64": 8, "F32": 4, "F16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1}
"""The dtypes read, with their sizes in bytes (safetensors' names)."""

LITTLE = sys.byteorder == "little"

_SAVED = "pass the model.safetensors model2vec saves"


@dataclass(frozen=True)
class Tensor:
    """One tensor: its dtype (safetensors' name), shape, and its bytes (little-endian)."""

    dtype: str
    shape: tuple[int, ...]
    data: memoryview

    @property
    def size(self) -> int:
        return prod(self.shape)


def read_safetensors(data: bytes | memoryview, label: str = "model.safetensors") -> dict[str, Tensor]:
    """Every tensor of a safetensors file's bytes, by name; a malformed file raises ChunkerError.

    >>> import json, struct
    >>> head = json.dumps({"x": {"dtype": "I8", "shape": [2], "data_offsets": [0, 2]}}).encode()
    >>> t = read_safetensors(struct.pack("<Q", len(head)) + head + bytes([1, 255]))["x"]
    >>> t.dtype, t.shape, bytes(t.data)
    ('I8', (2,), b'\\x01\\xff')
    """
    view = memoryview(data).cast("B")
    if len(view) < 8:
        raise ChunkerError(f"{label} is not a safetensors file ({len(view)} bytes, shorter than its header length)")
    n = int.from_bytes(view[:8], "little")
    if n > HEADER_MAX or 8 + n > len(view):
        raise ChunkerError(
            f"{label} is not a safetensors file (its header claims {n:,} bytes of the file's {len(view):,}): "
            "pass the model.safetensors model2vec saves"
        )
    try:
        header = json.loads(bytes(view[8 : 8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ChunkerError(f"{label} is not a safetensors file (its header is not JSON): {_SAVED}") from None
    if not isinstance(header, dict):
        raise ChunkerError(f"{label} is not a safetensors file (its header is not a JSON object)")
    body = view[8 + n :]
    out: dict[str, Tensor] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        out[name] = _tensor(name, entry, body, label)
    return out


def _tensor(name: str, entry: Any, body: memoryview, label: str) -> Tensor:
    where = f"{label}'s tensor {name[:60]!r}"
    if not isinstance(entry, dict):
        raise ChunkerError(f"{where} is not described by an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if dtype not in DTYPES:
        raise ChunkerError(
            f"{where} has dtype {str(dtype)[:20]!r}, which is not supported: model2vec saves F32, F16, I8 or F64 embeddings"
        )
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise ChunkerError(f"{where} has no valid shape (a list of whole numbers)")
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
        or not 0 <= offsets[0] <= offsets[1] <= len(body)
    ):
        raise ChunkerError(f"{where} has byte offsets {str(offsets)[:60]} outside the file's {len(body):,} bytes of data")
    begin, end = offsets
    if prod(shape) * DTYPES[dtype] != end - begin:
        raise ChunkerError(
            f"{where} has shape {shape[:4]} of {dtype}, which is not its {end - begin:,} bytes: the file is damaged"
        )
    tensor = Tensor(dtype, tuple(shape), body[begin:end])
    _finite(tensor, where)
    return tensor


# Per float dtype: its size, and the bits of a value's last (high) byte that are all set in a
# NaN or an infinity (the top bits of the exponent). Scanning only those bytes (a C-speed slice
# and translate) clears a model in milliseconds; the few values past 2**127 (float32) that
# share them are looked at one by one.
_HIGH = {"F64": (8, 0x7F), "F32": (4, 0x7F), "F16": (2, 0x7C)}
_MAYBE = {dtype: bytes(int(b & mask == mask) for b in range(256)) for dtype, (_, mask) in _HIGH.items()}
_FORMAT = {"F64": "d", "F32": "f", "F16": "e"}


def _finite(t: Tensor, where: str) -> None:
    if t.dtype not in _HIGH or not t.size:
        return
    size = _HIGH[t.dtype][0]
    if 1 not in bytes(t.data[size - 1 :: size]).translate(_MAYBE[t.dtype]):
        return
    for i, x in enumerate(struct.unpack(f"<{t.size}{_FORMAT[t.dtype]}", t.data)):
        if not isfinite(x):
            at = f"row {i // t.shape[-1]:,}, column {i % t.shape[-1]:,}" if len(t.shape) == 2 else f"value {i:,}"
            raise ChunkerError(
                f"{where} holds {x} at {at}: every value must be a finite number; the file is damaged, "
                "or the model overflowed when it was made (make or save it again)"
            )
