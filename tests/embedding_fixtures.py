"""Static embedding models for the tests and bench/, made on the machine (nothing is downloaded).

- `save` writes a folder with model2vec's own `StaticModel(...).save_pretrained`, from vectors
  the caller makes: every variant model2vec saves (float32, float16, int8 or float64
  embeddings, vocabulary quantization's `mapping` and `weights`, normalize on or off).
- `trained` is a small real model: positive pointwise mutual information of the tokens of a
  trained WordPiece tokenizer, co-occurring within a window in the Python documentation's
  prose (Debian's python3.11-doc, through bench/corpus.py), reduced to `dim` dimensions by a
  randomized truncated SVD (its first, common component dropped) and weighted by token frequency (SIF, a / (a + p)), as static
  models are: frequent tokens weigh little in a mean. Saved in model2vec's format.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import corpus  # noqa: E402
from tests import hf_fixtures  # noqa: E402

CACHE = ROOT / ".cache" / "embedding-fixtures"
RECIPE = 2  # bump when `trained` changes, so a cached model is remade


def save(folder: Path, vectors, tokenizer_json: str, *, normalize: bool, weights=None, mapping=None, max_length=512) -> Path:
    """A model2vec folder written by model2vec itself."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    model = StaticModel(
        vectors=vectors,
        tokenizer=Tokenizer.from_str(tokenizer_json),
        normalize=normalize,
        weights=weights,
        token_mapping=mapping,
        max_length=max_length,
    )
    model.save_pretrained(folder)
    return folder


def vocab_size(tokenizer_json: str) -> int:
    from tokenizers import Tokenizer

    return Tokenizer.from_str(tokenizer_json).get_vocab_size(with_added_tokens=True)


@functools.cache
def english_pages() -> tuple[tuple[str, str], ...]:
    """(page, prose) of the Python documentation, as bench/corpus.py selects plain prose (read
    once a process: megabytes of JSON)."""
    return tuple((name, text) for name, text in corpus._english_docs())


def _train(dim: int, window: int) -> dict[str, bytes]:
    import numpy as np
    from tokenizers import Tokenizer

    tok_json = hf_fixtures.wordpiece(True)
    tok = Tokenizer.from_str(tok_json)
    n = tok.get_vocab_size(with_added_tokens=True)
    texts = [t for _, t in english_pages()]
    ids = np.concatenate(
        [np.array(enc.ids + [-1] * window, dtype=np.int64) for enc in tok.encode_batch(texts, add_special_tokens=False)]
    )
    freq = np.bincount(ids[ids >= 0], minlength=n).astype(np.float64)
    pairs = np.zeros(n * n, dtype=np.float64)
    for k in range(1, window + 1):  # pages are apart by `window` fillers: no pair spans two
        a, b = ids[:-k], ids[k:]
        keep = (a >= 0) & (b >= 0)
        pairs += np.bincount(a[keep] * n + b[keep], minlength=n * n)
    counts = pairs.reshape(n, n)
    counts = counts + counts.T
    total = counts.sum()
    row = counts.sum(axis=1, keepdims=True)
    col = counts.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(counts * total / (row * col))
    ppmi = np.where(np.isfinite(pmi) & (pmi > 0), pmi, 0.0)
    # A randomized truncated SVD (Halko et al.): a Gaussian sketch, one power iteration.
    rng = np.random.default_rng(0)
    sketch = ppmi @ rng.standard_normal((n, dim + 17))
    sketch = ppmi @ (ppmi.T @ sketch)
    q, _ = np.linalg.qr(sketch)
    u, s, _ = np.linalg.svd(q.T @ ppmi, full_matrices=False)
    # The first component is what every token shares (how common it is), not what it means:
    # dropped, as SIF drops the common component of sentence vectors.
    vectors = (q @ u[:, 1 : dim + 1]) * np.sqrt(s[1 : dim + 1])
    p = freq / max(freq.sum(), 1.0)
    sif = 1e-4 / (1e-4 + p)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = np.where(norms > 0, vectors / np.maximum(norms, 1e-12), 0.0) * sif[:, None]
    with tempfile.TemporaryDirectory() as tmp:
        folder = save(Path(tmp) / "m", vectors.astype(np.float32), tok_json, normalize=True)
        return {name: (folder / name).read_bytes() for name in ("model.safetensors", "tokenizer.json", "config.json")}


@functools.cache
def trained(dim: int = 64, window: int = 5) -> Path:
    """The folder of the trained model (kept under .cache/, made once per machine)."""
    import hashlib

    pages = english_pages()
    key = hashlib.sha1(repr((RECIPE, dim, window, len(pages), sum(len(t) for _, t in pages))).encode()).hexdigest()[:10]
    folder = CACHE / f"ppmi-{dim}-{key}"
    if (folder / "config.json").is_file():
        return folder
    files = _train(dim, window)
    tmp = CACHE / f".tmp-{os.getpid()}-{key}"
    tmp.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    try:
        os.replace(tmp, folder)  # atomic: another xdist worker never reads half a folder
    except OSError:  # made by another worker meanwhile
        pass
    return folder


def config_of(folder: Path) -> dict:
    return json.loads((folder / "config.json").read_text(encoding="utf-8"))
