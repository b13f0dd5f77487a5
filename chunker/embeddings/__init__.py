"""Static embedding models in model2vec's format, in pure Python (numpy, when installed, is a
faster path to the same vectors).

A model is a folder of three files: ``model.safetensors`` (the ``embeddings`` matrix, one row
per token id; with vocabulary quantization also ``mapping``, token id -> row, and ``weights``,
one per token id), ``tokenizer.json`` (read by chunker's own tokenizer.json reader) and
``config.json`` (``normalize``, ``max_length``). `load` reads one; a loaded model is known by
the content of its files (``m2v:`` and a prefix of their SHA-256), never by its path, so
settings that name it keep meaning it, and two copies of one model are one model.

>>> import chunker.embeddings as emb
>>> model = emb.load_example()
>>> model.encode(["tide tables", "harbour"], numpy=False)[1].tolist()
[0.0, 1.0]
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import threading
from collections.abc import Mapping
from typing import Any

from .._errors import ChunkerError
from ..tokens._hf import parse_tokenizer
from ._model import DEFAULT_MAX_LENGTH, EmbeddingModel, similarity
from ._safetensors import read_safetensors

__all__ = ["EmbeddingModel", "load", "get_model", "use_model", "similarity", "FILES", "CONTENT_PREFIX", "MODEL_MAX_BYTES"]

FILES = ("model.safetensors", "tokenizer.json", "config.json")
"""The files of a model2vec folder."""

CONTENT_PREFIX = "m2v:"

MODEL_MAX_BYTES = 1 << 31
"""The largest model.safetensors read (2 GiB): a static model of a 500,000-token vocabulary in
1,024 float32 dimensions fits."""

_HINT = "a model2vec model is a folder holding model.safetensors, tokenizer.json and config.json"

_lock = threading.Lock()
_MODELS: dict[str, EmbeddingModel] = {}


def content_key(files: Mapping[str, bytes]) -> str:
    """A model's identity: ``m2v:`` and 16 hex digits of the SHA-256 of its three files."""
    h = hashlib.sha256()
    for name in FILES:
        data = files[name]
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return CONTENT_PREFIX + h.hexdigest()[:16]


def _read_folder(path: str) -> tuple[dict[str, bytes], str]:
    if not os.path.isdir(path):
        if os.path.basename(path) in FILES and os.path.isdir(os.path.dirname(path) or "."):
            path = os.path.dirname(path) or "."
        elif not os.path.exists(path):
            raise ChunkerError(f"embedding model {path!r} does not exist: {_HINT}; pass its folder")
        else:
            raise ChunkerError(f"embedding model {path!r} is a file, not a folder: {_HINT}; pass the folder")
    missing = [n for n in FILES if not os.path.isfile(os.path.join(path, n))]
    label = os.path.basename(os.path.abspath(path)) or path
    if missing:
        raise ChunkerError(f"{label} is not a model2vec model: it has no {' and no '.join(missing)} ({_HINT})")
    files: dict[str, bytes] = {}
    for name in FILES:
        full = os.path.join(path, name)
        try:
            size = os.path.getsize(full)
            if size > MODEL_MAX_BYTES:
                raise ChunkerError(f"{label}/{name} is {size:,} bytes, more than the {MODEL_MAX_BYTES:,} read")
            with open(full, "rb") as f:
                files[name] = f.read()
        except OSError as e:
            raise ChunkerError(f"cannot read {full!r} ({e.strerror}); pass a readable model folder") from None
    return files, label


def load(source: str | os.PathLike[str] | Mapping[str, bytes], *, label: str | None = None) -> EmbeddingModel:
    """A model2vec model from its folder's path, or from its three files' bytes by name
    (``{"model.safetensors": ..., "tokenizer.json": ..., "config.json": ...}``, as the page
    holds a picked folder). Loaded once per content: a second load of the same files gives the
    same object. Anything that is not such a model raises one ChunkerError line naming what
    is missing."""
    if isinstance(source, Mapping):
        files = {os.path.basename(str(k)): v for k, v in source.items()}
        missing = [n for n in FILES if n not in files]
        if missing:
            raise ChunkerError(
                f"{label or 'the model given'} is not a model2vec model: it has no {' and no '.join(missing)} ({_HINT})"
            )
        files = {n: bytes(files[n]) for n in FILES}
        shown = label or "model"
    else:
        files, shown = _read_folder(os.fspath(source))
        shown = label or shown
    key = content_key(files)
    with _lock:
        known = _MODELS.get(key)
    if known is not None:
        return known
    model = _build(files, key, shown)
    with _lock:
        return _MODELS.setdefault(key, model)


def _config(data: bytes, label: str) -> tuple[bool, int | None]:
    try:
        config = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ChunkerError(f"{label}/config.json is not JSON: {_HINT}") from None
    if not isinstance(config, dict):
        raise ChunkerError(f"{label}/config.json is not a JSON object: {_HINT}")
    normalize = config.get("normalize", False)
    if normalize is None:
        normalize = False
    if not isinstance(normalize, bool):
        raise ChunkerError(f"{label}/config.json's normalize is {normalize!r}: it must be true or false")
    limit = config.get("max_length", DEFAULT_MAX_LENGTH)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ChunkerError(f"{label}/config.json's max_length is {str(limit)[:40]!r}: it must be a whole number or null")
    return normalize, limit


def _build(files: dict[str, bytes], key: str, label: str) -> EmbeddingModel:
    normalize, max_length = _config(files["config.json"], label)
    try:
        text = files["tokenizer.json"].decode("utf-8")
    except UnicodeDecodeError:
        raise ChunkerError(f"{label}/tokenizer.json is not UTF-8 text: {_HINT}") from None
    tokenizer = parse_tokenizer(text, label=f"{label}/tokenizer.json")
    vocab = dict(tokenizer.model.vocab)
    vocab.update((t.content, t.id) for t in tokenizer.added)
    tensors = read_safetensors(files["model.safetensors"], f"{label}/model.safetensors")
    emb = tensors.get("embeddings", tensors.get("embedding.weight"))
    where = f"{label}/model.safetensors"
    if emb is None:
        held = ", ".join(repr(n[:40]) for n in list(tensors)[:4]) or "nothing"
        raise ChunkerError(f"{where} has no 'embeddings' tensor (it holds {held}): {_HINT}")
    if len(emb.shape) != 2 or emb.dtype not in ("F32", "F16", "I8", "F64"):
        raise ChunkerError(
            f"{where}'s embeddings are {emb.dtype} of shape {list(emb.shape)[:4]}: a model2vec model's are a "
            "matrix (tokens x dimensions) of float32, float16, int8 or float64"
        )
    if not vocab or not emb.shape[1]:
        # No token, or vectors of no dimension: such a model embeds nothing (and the median
        # token length and the fixed-point sums of `_model` have nothing to work on).
        what = "no tokens in its tokenizer.json" if not vocab else f"embeddings of 0 dimensions ({emb.shape[0]:,} rows)"
        raise ChunkerError(f"{label} has {what}, so it embeds nothing: pass the folder of a trained model ({_HINT})")
    mapping, weights = tensors.get("mapping"), tensors.get("weights")
    top = max(vocab.values(), default=-1)
    if mapping is not None:
        if len(mapping.shape) != 1 or mapping.dtype not in ("I64", "I32", "I16", "I8", "U8"):
            raise ChunkerError(
                f"{where}'s mapping is {mapping.dtype} of shape {list(mapping.shape)[:4]}: it must be one integer per token"
            )
        if mapping.size <= top:
            raise ChunkerError(
                f"{where}'s mapping has {mapping.size:,} entries for {top + 1:,} token ids: the files are of different models"
            )
        lo, hi = _int_range(mapping)
        if lo < 0 or hi >= emb.shape[0]:
            raise ChunkerError(
                f"{where}'s mapping points at row {hi if hi >= emb.shape[0] else lo}, outside its {emb.shape[0]:,} rows"
            )
    elif emb.shape[0] != len(vocab):
        raise ChunkerError(
            f"{where} has {emb.shape[0]:,} rows for the tokenizer's {len(vocab):,} tokens (and no mapping): "
            "the files are of different models"
        )
    if weights is not None:
        if len(weights.shape) != 1 or weights.dtype not in ("F32", "F16", "F64"):
            raise ChunkerError(
                f"{where}'s weights are {weights.dtype} of shape {list(weights.shape)[:4]}: they must be one float per token"
            )
        if weights.size <= top:
            raise ChunkerError(
                f"{where} has {weights.size:,} weights for {top + 1:,} token ids: the files are of different models"
            )
    return EmbeddingModel(
        name=key,
        label=label,
        tokenizer=tokenizer,
        embeddings=emb,
        weights=weights,
        mapping=mapping,
        normalize=normalize,
        max_length=max_length,
        vocab=vocab,
    )


def _int_range(t: Any) -> tuple[int, int]:
    from ._model import _ints

    values = _ints(t)
    return (min(values), max(values)) if len(values) else (0, 0)


def use_model(model: EmbeddingModel) -> EmbeddingModel:
    """Make a loaded model known by its identity (settings then name it by `model.name`)."""
    with _lock:
        return _MODELS.setdefault(model.name, model)


def get_model(value: str | os.PathLike[str] | EmbeddingModel) -> EmbeddingModel:
    """A model by identity (``m2v:...``, loaded before in this process), by its folder's
    path, or the model itself."""
    if isinstance(value, EmbeddingModel):
        return use_model(value)
    if isinstance(value, str) and value.startswith(CONTENT_PREFIX):
        with _lock:
            known = _MODELS.get(value)
        if known is not None:
            return known
        if not os.path.isdir(value):
            raise ChunkerError(f"embedding model {value} is not loaded in this process: pass its folder's path")
    if not isinstance(value, (str, os.PathLike)):
        raise ChunkerError(f"embedding_model must be a model folder's path or a loaded model, got {type(value).__name__}")
    return load(value)


def label_of(name: str) -> str:
    """What a person is shown for a model identity: its folder's name."""
    with _lock:
        known = _MODELS.get(name)
    return known.label if known is not None else name


def load_example() -> EmbeddingModel:
    """A two-token model for the docs: 'tide' is [1, 0], 'harbour' [0, 1], normalized."""
    tok = {"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "tide": 1, "harbour": 2}}}
    tok["pre_tokenizer"] = {"type": "Whitespace"}
    body = struct.pack("<6f", 0.0, 0.0, 1.0, 0.0, 0.0, 1.0)
    head = json.dumps({"embeddings": {"dtype": "F32", "shape": [3, 2], "data_offsets": [0, len(body)]}}).encode()
    files = {
        "model.safetensors": struct.pack("<Q", len(head)) + head + body,
        "tokenizer.json": json.dumps(tok).encode(),
        "config.json": b'{"normalize": true}',
    }
    return load(files, label="example")
