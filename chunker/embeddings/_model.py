"""A static embedding model (model2vec's format): tokenize, look up each token's row, average.

What a text becomes, step for step as model2vec's `StaticModel.encode` makes it:

1. With a length limit (config.json's ``max_length``, 512 when it says nothing), the text is
   first cut to limit x the vocabulary's median token length characters;
2. it is tokenized without special tokens and the ids cut to the limit;
3. the unknown token's id is dropped (a word-level vocabulary gives it for every word it
   lacks, and its row would pull every text towards one point);
4. the rows of the remaining ids (through ``mapping`` when the vocabulary was quantized, times
   ``weights`` when there are weights) are averaged; a text left with no token is zeros;
5. with ``normalize`` the mean is divided by its norm (plus 1e-32).

Precision follows numpy's, so the vectors are model2vec's to the bit (`_floats`): a float16
model's vectors are float16 values; int8 rows give float32 vectors.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from math import fsum, isfinite, sqrt
from operator import add, mul
from typing import Any

from .._errors import ChunkerError
from ..tokens._hf import HFTokenizer
from ._floats import normalized_f32, to_f16, to_f32
from ._safetensors import LITTLE, Tensor

__all__ = ["EmbeddingModel", "DEFAULT_MAX_LENGTH"]

DEFAULT_MAX_LENGTH = 512
"""model2vec's limit in tokens when a model's config.json gives none."""

_FLOAT = {"F16": "f16", "F32": "f32", "F64": "f64", "I8": "i8"}
# numpy's promotion of the two operands of emb * weights, by precision rank
_RANK = {"i8": 0, "f16": 1, "f32": 2, "f64": 3}
_HALF = 1 << 31
_INTS = {"I64": "q", "I32": "i", "I16": "h", "I8": "b", "U8": "B"}


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # the page, and a plain install: the standard library does it all
        return None
    return numpy


def _floats(t: Tensor) -> array[float]:
    """A float tensor's values as an array of doubles or floats (exact: every value fits)."""
    if t.dtype == "F32":
        out = array("f")
        out.frombytes(t.data)
    elif t.dtype == "F64":
        out = array("d")
        out.frombytes(t.data)
    elif t.dtype == "F16":
        import struct

        return array("f", struct.unpack(f"<{t.size}e", t.data))
    elif t.dtype in _INTS:
        ints = _ints(t)
        return array("f" if t.dtype in ("I8", "U8", "I16") else "d", ints)
    else:  # pragma: no cover - read_safetensors admits only the dtypes above
        raise ChunkerError(f"tensor dtype {t.dtype} is not supported")
    if not LITTLE:
        out.byteswap()
    return out


def _ints(t: Tensor) -> array[int]:
    out = array(_INTS[t.dtype])
    out.frombytes(t.data)
    if not LITTLE:
        out.byteswap()
    return out


class EmbeddingModel:
    """A model2vec static model, loaded (see `chunker.embeddings.load`).

    `name` is its identity in settings and caches (``m2v:`` and a prefix of the SHA-256 of its
    three files), `label` what a person is shown (the folder's name). `dim` is the vectors'
    length, `dtype` the embedding's precision ("float32", "float16", "int8", "float64").
    """

    def __init__(
        self,
        *,
        name: str,
        label: str,
        tokenizer: HFTokenizer,
        embeddings: Tensor,
        weights: Tensor | None,
        mapping: Tensor | None,
        normalize: bool,
        max_length: int | None,
        vocab: dict[str, int],
    ) -> None:
        self.name = name
        self.label = label
        self.tokenizer = tokenizer
        self.normalize = normalize
        self.max_length = max_length
        self.rows, self.dim = embeddings.shape
        self._emb = embeddings
        self._weights_t = weights
        self._mapping_t = mapping
        self.dtype = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8"}[_FLOAT[embeddings.dtype]]
        self._kind = _FLOAT[embeddings.dtype]
        lengths = sorted(len(t) for t in vocab)
        mid = len(lengths) // 2
        # numpy's median of the token lengths (the mean of the middle two), truncated as int() does
        self.median_token_length = int(lengths[mid] if len(lengths) % 2 else (lengths[mid - 1] + lengths[mid]) / 2)
        self.unk_id: int | None = getattr(tokenizer.model, "unk_id", None)
        self._lead, self._tail = len(tokenizer.before), len(tokenizer.after)
        # what the pure-Python path reads, made when first needed
        self._row_list: list[array[float]] | None = None
        self._map_list: array[int] | None = None
        self._w_list: array[float] | None = None
        self._np: tuple[Any, ...] | None = None
        self._packed: list[int | None] | None = None
        self._scale = 1.0

    def __repr__(self) -> str:
        return f"<EmbeddingModel {self.label} {self.name} {self.rows}x{self.dim} {self.dtype}>"

    # ------------------------------------------------------------------ tokens

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's token ids as model2vec keeps them (limit applied, unknowns dropped)."""
        limit = self.max_length
        cut = None if limit is None else limit * self.median_token_length
        encode, lead, tail, unk = self.tokenizer.encode, self._lead, self._tail, self.unk_id
        out = []
        for text in texts:
            if cut is not None:
                text = text[:cut]
            ids = encode(text)
            ids = ids[lead : len(ids) - tail]  # no special tokens
            if limit is not None:
                ids = ids[:limit]
            if unk is not None:
                ids = [i for i in ids if i != unk]
            out.append(ids)
        return out

    # ------------------------------------------------------------------ vectors

    def encode(self, texts: str | Sequence[str], *, numpy: bool | None = None) -> Any:
        """The texts' vectors, as model2vec's ``StaticModel.encode(texts)`` gives them.

        With numpy installed (or `numpy` true) a numpy array, one row per text (one vector for
        a single str, as model2vec); else (or `numpy` false) a list of ``array("f")`` rows.
        """
        single = isinstance(texts, str)
        items: Sequence[str] = [texts] if isinstance(texts, str) else texts
        if not all(isinstance(t, str) for t in items):
            bad = next(t for t in items if not isinstance(t, str))
            raise ChunkerError(f"encode takes str texts, got a {type(bad).__name__}")
        ids = self.tokenize(items)
        np = _numpy() if numpy is None or numpy else None
        if numpy and np is None:
            raise ChunkerError("numpy=True needs numpy installed: pip install 'chunker[embeddings]', or pass numpy=False")
        if np is not None:
            arr = self._encode_numpy(np, ids)
            return arr[0] if single else arr
        rows = self.encode_ids(ids)
        return rows[0] if single else rows

    def encode_ids(self, id_lists: Sequence[Sequence[int]]) -> list[array[float]]:
        """The pure-Python vectors of texts already tokenized (`tokenize`)."""
        self._check_ids(id_lists)
        rows = self._rows()
        mapping = self._map_list
        weights = self._w_list
        out_kind = "f32" if self._kind == "i8" else self._kind
        plain = mapping is None and weights is None
        if plain:
            sum_kind = "f64" if self._kind in ("i8", "f64") else "f32"
        else:
            w_kind = _FLOAT[self._weights_t.dtype] if self._weights_t is not None else self._kind
            prod_kind = max(self._kind, w_kind, key=_RANK.__getitem__)
            sum_kind = "f64" if prod_kind in ("i8", "f64") else "f32"
        zero = array("f", bytes(4 * self.dim))
        out: list[array[float]] = []
        for ids in id_lists:
            if not ids:
                out.append(array("f", zero))
                continue
            picked: list[Sequence[float]] = [rows[mapping[i]] for i in ids] if mapping is not None else [rows[i] for i in ids]
            if weights is not None:
                picked = [self._weighted(r, weights[i], prod_kind) for r, i in zip(picked, ids)]
            out.append(self._mean(picked, sum_kind, out_kind))
        if self.normalize:
            out = [self._finish(normalized_f32(v), out_kind) for v in out]
        return out

    # Sums of many rows, fast: each row as one Python int holding every dimension in a 64-bit
    # field (fixed point, offset to be positive), so adding two rows is one integer addition,
    # not one per dimension. Fields never carry into each other: each holds a sum of fewer
    # than 2**32 values below 2**32. Exact to 2**-30 of the model's largest value.

    def packed(self, token: int) -> int:
        """Token `token`'s row (mapped and weighted) as one int of fixed-point fields."""
        cache = self._packed
        if cache is None:
            rows = self._rows()
            top = max((max(map(abs, r)) for r in rows), default=0.0)
            if self._w_list is not None:
                top *= max(map(abs, self._w_list), default=0.0)
            # The file's values are finite (read_safetensors), but float64 rows times float64
            # weights can still overflow, and infinity has no fixed-point field.
            if not isfinite(top):
                raise ChunkerError(
                    f"{self.label}/model.safetensors's embeddings times its weights overflow float64: "
                    "scale the model's values down (make or save it again)"
                )
            self._scale = (1 << 30) / top if top > 0 else 1.0
            cache = self._packed = [None] * self.vocab_size
        got = cache[token]
        if got is None:
            row: Sequence[float] = self._row_list[self._map_list[token] if self._map_list is not None else token]  # type: ignore[index]
            if self._w_list is not None:
                w = self._w_list[token]
                row = [x * w for x in row]
            scale = self._scale
            fields = array("Q", [_HALF + round(x * scale) for x in row])
            if not LITTLE:
                fields.byteswap()
            got = cache[token] = int.from_bytes(fields.tobytes(), "little")
        return got

    def fixed(self, total: int, count: int) -> list[int]:
        """The sum of `count` rows in fixed point (`unpacked` times the model's scale), exact,
        from the sum of their `packed` ints."""
        fields = array("Q")
        fields.frombytes(total.to_bytes(8 * self.dim, "little"))
        if not LITTLE:
            fields.byteswap()
        offset = count * _HALF
        return [f - offset for f in fields]

    def unpacked(self, total: int, count: int) -> list[float]:
        """The sum of `count` rows, from the sum of their `packed` ints."""
        scale = self._scale
        return [f / scale for f in self.fixed(total, count)]

    def directions(self, texts: Sequence[str]) -> list[list[float]]:
        """Each text's mean vector scaled to length 1 (empty for a text with no known token),
        from packed sums, with exact integer sums and one correctly rounded square root: the
        same floats on every Python, the page's included, so rankings by them agree everywhere."""
        out: list[list[float]] = []
        for ids in self.tokenize(texts):
            if not ids:
                out.append([])
                continue
            # The sum's direction from its exact fixed-point fields (the mean and the scale only
            # stretch it): the floats of `unpacked` would overflow when squared for values past
            # 1e154 (a float64 model), giving NaN scores.
            v = self.fixed(sum(map(self.packed, ids)), len(ids))
            norm = sqrt(sum(x * x for x in v))
            out.append([x / norm for x in v] if norm else [])
        return out

    def _weighted(self, row: Sequence[float], w: float, kind: str) -> Sequence[float]:
        scaled = [x * w for x in row]
        if kind == "f32":
            return to_f32(scaled)
        if kind == "f16":
            return to_f16(scaled)
        return scaled

    @staticmethod
    def _finish(v: Sequence[float], kind: str) -> array[float]:
        return array("f", to_f16(v)) if kind == "f16" else v if isinstance(v, array) else array("f", v)

    def _mean(self, picked: list[Sequence[float]], sum_kind: str, out_kind: str) -> array[float]:
        n = len(picked)
        if sum_kind == "f32":
            acc: Any = array("f", picked[0])
            for r in picked[1:]:
                acc = array("f", map(add, acc, r))
            mean: Sequence[float] = array("f", [x / n for x in acc])
        else:
            acc = list(picked[0])
            for r in picked[1:]:
                acc = list(map(add, acc, r))
            mean = [x / n for x in acc]
        return self._finish(mean, out_kind)

    def _rows(self) -> list[array[float]]:
        if self._row_list is None:
            flat = _floats(self._emb)
            d = self.dim
            self._row_list = [flat[i : i + d] for i in range(0, len(flat), d)] if d else [array("f")] * self.rows
            if self._mapping_t is not None:
                self._map_list = _ints(self._mapping_t)
            if self._weights_t is not None:
                self._w_list = _floats(self._weights_t)
        return self._row_list

    def _check_ids(self, id_lists: Sequence[Sequence[int]]) -> None:
        top = max((max(ids) for ids in id_lists if ids), default=-1)
        limit = self.vocab_size
        if top >= limit:
            raise ChunkerError(
                f"the tokenizer gave id {top}, past the model's {limit:,} rows: its tokenizer.json and "
                "model.safetensors are of different models"
            )

    @property
    def vocab_size(self) -> int:
        """How many token ids have a vector."""
        if self._mapping_t is not None:
            n = self._mapping_t.size
        else:
            n = self.rows
        if self._weights_t is not None:
            n = min(n, self._weights_t.size)
        return n

    # ------------------------------------------------------------------ numpy

    def _arrays(self, np: Any) -> tuple[Any, Any, Any]:
        if self._np is None:

            def as_np(t: Tensor | None) -> Any:
                if t is None:
                    return None
                dtype = {
                    "F64": "<f8",
                    "F32": "<f4",
                    "F16": "<f2",
                    "I64": "<i8",
                    "I32": "<i4",
                    "I16": "<i2",
                    "I8": "i1",
                    "U8": "u1",
                }
                return np.frombuffer(t.data, dtype=dtype[t.dtype]).reshape(t.shape)

            self._np = (as_np(self._emb), as_np(self._weights_t), as_np(self._mapping_t))
        return self._np

    def _encode_numpy(self, np: Any, id_lists: Sequence[Sequence[int]]) -> Any:
        self._check_ids(id_lists)
        emb, weights, mapping = self._arrays(np)
        out = np.zeros((len(id_lists), self.dim), dtype=np.float32 if emb.dtype == np.int8 else emb.dtype.newbyteorder("="))
        if mapping is None and weights is None:
            # Texts of one length are looked up as one matrix, and averaged along it.
            by_length: dict[int, list[int]] = {}
            for i, ids in enumerate(id_lists):
                if ids:
                    by_length.setdefault(len(ids), []).append(i)
            for at in by_length.values():
                matrix = np.array([id_lists[i] for i in at], dtype=np.int64)
                out[at] = emb[matrix].mean(axis=1)
        else:
            for i, ids in enumerate(id_lists):
                if ids:
                    picked = emb[mapping[list(ids)]] if mapping is not None else emb[list(ids)]
                    if weights is not None:
                        picked = picked * weights[list(ids)][:, None]
                    out[i] = picked.mean(axis=0)
        if self.normalize:
            as32 = out.astype(np.float32)
            norm = np.linalg.norm(as32, axis=1, keepdims=True) + 1e-32
            out = (as32 / norm).astype(out.dtype)
        return out


def similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two vectors (0 when either is all zeros)."""
    dot = fsum(map(mul, a, b))
    na = fsum(map(mul, a, a))
    nb = fsum(map(mul, b, b))
    return dot / (na * nb) ** 0.5 if na and nb else 0.0
