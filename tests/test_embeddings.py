"""chunker.embeddings against model2vec itself: folders written by model2vec's own save, in
every variant it saves, from vectors made here, encoded by both (numpy and pure Python)."""

from __future__ import annotations

import json
import shutil
import struct

import numpy as np
import pytest

import chunker
from chunker import ChunkerError
from chunker import embeddings as E
from chunker.embeddings._floats import pairwise_sum_f32
from chunker.embeddings._safetensors import read_safetensors
from tests import embedding_fixtures as fx
from tests import hf_fixtures

TOKENIZERS = {
    "wordpiece": lambda: hf_fixtures.wordpiece(True),
    "unigram": hf_fixtures.unigram_metaspace,
    "bytelevel": hf_fixtures.bytelevel_bpe,
}


def _texts() -> list[str]:
    texts = hf_fixtures.short_texts(60, seed=3)
    return texts + [
        "",
        "   ",
        "\u2603\u2603 \U0001f600",  # unknown to most vocabularies: dropped, maybe nothing left
        "The harbour opens at six. " * 200,  # past max_length: cut as model2vec cuts
        "tide",
    ]


def _vectors(rng, rows: int, dim: int, dtype: str):
    v = rng.standard_normal((rows, dim)).astype(np.float32)
    if dtype == "int8":
        return np.clip(np.rint(v * 40), -127, 127).astype(np.int8)
    return v.astype(dtype)


VARIANTS = [
    # (dtype, normalize, quantized: None | "weights" | "mapping" | "both", max_length)
    ("float32", False, None, 512),
    ("float32", True, None, 512),
    ("float16", False, None, 512),
    ("float16", True, None, 512),
    ("int8", False, None, 512),
    ("int8", True, None, 512),
    ("float64", True, None, 512),
    ("float32", True, "both", 512),
    ("float16", True, "both", 512),
    ("int8", False, "both", 512),
    ("float32", False, "mapping", 512),
    ("float16", False, "weights", 512),
    ("float32", True, None, 8),
    ("float32", True, None, None),
]


def _make(folder, tok_json: str, dtype: str, normalize: bool, quant: str | None, max_length, seed: int = 0):
    rng = np.random.default_rng(seed)
    n = fx.vocab_size(tok_json)
    dim = 24
    weights = mapping = None
    if quant in ("mapping", "both"):
        clusters = 97
        vectors = _vectors(rng, clusters, dim, dtype)
        mapping = rng.integers(0, clusters, size=n).astype(np.int64)
    else:
        vectors = _vectors(rng, n, dim, dtype)
    if quant in ("weights", "both"):
        weights = rng.uniform(0.1, 2.0, size=n).astype(np.float32)
    return fx.save(folder, vectors, tok_json, normalize=normalize, weights=weights, mapping=mapping, max_length=max_length)


def _reference(folder, texts):
    from model2vec import StaticModel

    return StaticModel.from_pretrained(str(folder)).encode(texts)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(map(str, v)))
def test_encode_matches_model2vec_in_every_variant(tmp_path, variant):
    dtype, normalize, quant, max_length = variant
    texts = _texts()
    folder = _make(tmp_path / "m", TOKENIZERS["wordpiece"](), dtype, normalize, quant, max_length)
    want = _reference(folder, texts)
    model = E.load(folder)
    assert model.dtype == dtype and model.normalize is normalize and model.max_length == max_length
    got = model.encode(texts)
    assert isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=1e-5)
    rows = model.encode(texts, numpy=False)
    assert all(r.typecode == "f" and len(r) == model.dim for r in rows)
    np.testing.assert_allclose(np.array(rows, dtype=np.float64), want.astype(np.float64), rtol=0, atol=1e-5)


@pytest.mark.parametrize("kind", ["unigram", "bytelevel"])
def test_encode_matches_model2vec_with_other_tokenizer_models(tmp_path, kind):
    texts = _texts()
    for n, (dtype, normalize) in enumerate([("float32", True), ("float16", False)]):
        folder = _make(tmp_path / f"m{n}", TOKENIZERS[kind](), dtype, normalize, None, 512, seed=n)
        want = _reference(folder, texts)
        model = E.load(folder)
        np.testing.assert_allclose(model.encode(texts).astype(np.float64), want.astype(np.float64), rtol=0, atol=1e-5)
        rows = model.encode(texts, numpy=False)
        np.testing.assert_allclose(np.array(rows, dtype=np.float64), want.astype(np.float64), rtol=0, atol=1e-5)


def test_a_real_model_trained_here_matches_model2vec():
    folder = fx.trained()
    texts = [t[:400] for _, t in fx.english_pages()[:40]]
    want = _reference(folder, texts)
    model = E.load(folder)
    np.testing.assert_allclose(model.encode(texts), want, rtol=0, atol=1e-5)
    np.testing.assert_allclose(np.array(model.encode(texts, numpy=False)), want, rtol=0, atol=1e-5)


def test_single_text_gives_one_vector(tmp_path):
    folder = _make(tmp_path / "m", TOKENIZERS["wordpiece"](), "float32", True, None, 512)
    model = E.load(folder)
    assert model.encode("tide tables").shape == (model.dim,)
    assert len(model.encode("tide tables", numpy=False)) == model.dim


def test_pairwise_sum_is_numpys_order():
    rng = np.random.default_rng(1)
    for n in [0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 100, 127, 128, 129, 255, 256, 300, 777, 1024]:
        x = (rng.standard_normal(n) * rng.uniform(0.1, 1e4, n)).astype(np.float32)
        assert pairwise_sum_f32(x.tolist()) == float(np.add.reduce(x)), n


def test_identity_is_the_content_not_the_path(tmp_path):
    tok = TOKENIZERS["wordpiece"]()
    a = _make(tmp_path / "a", tok, "float32", True, None, 512)
    b = tmp_path / "copy"
    shutil.copytree(a, b)
    c = _make(tmp_path / "c", tok, "float32", True, None, 512, seed=5)
    ma, mb, mc = E.load(a), E.load(b), E.load(c)
    assert ma is mb and ma.name == mb.name and ma.name.startswith("m2v:")
    assert mc.name != ma.name
    files = {n: (a / n).read_bytes() for n in E.FILES}
    assert E.load(files) is ma
    assert E.get_model(ma.name) is ma


def _one_line(excinfo) -> str:
    msg = str(excinfo.value)
    assert "\n" not in msg and len(msg) < 300, msg
    return msg


def test_not_a_model_says_what_is_missing(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ChunkerError) as e:
        E.load(tmp_path / "empty")
    msg = _one_line(e)
    assert "model.safetensors" in msg and "tokenizer.json" in msg and "config.json" in msg
    folder = _make(tmp_path / "m", TOKENIZERS["wordpiece"](), "float32", True, None, 512)
    (folder / "config.json").unlink()
    with pytest.raises(ChunkerError) as e:
        E.load(folder)
    assert "no config.json" in _one_line(e) and "tokenizer.json" not in str(e.value).split("(")[0]
    with pytest.raises(ChunkerError) as e:
        E.load(tmp_path / "nowhere")
    assert "does not exist" in _one_line(e)
    with pytest.raises(ChunkerError) as e:
        E.load({"model.safetensors": b"", "config.json": b"{}"})
    assert "no tokenizer.json" in _one_line(e)


def _files(tmp_path) -> dict[str, bytes]:
    folder = _make(tmp_path / "m", TOKENIZERS["wordpiece"](), "float32", False, None, 512)
    return {n: (folder / n).read_bytes() for n in E.FILES}


def _tensors(header: dict, body: bytes) -> bytes:
    head = json.dumps(header).encode()
    return struct.pack("<Q", len(head)) + head + body


def test_damaged_or_unsupported_files_are_one_line(tmp_path):
    files = _files(tmp_path)
    n = fx.vocab_size(files["tokenizer.json"].decode())
    cases = {
        "header claims": struct.pack("<Q", 1 << 40) + b"{}",
        "not JSON": struct.pack("<Q", 3) + b"abc",
        "not a safetensors": b"abc",
        "outside the file": _tensors({"embeddings": {"dtype": "F32", "shape": [n, 4], "data_offsets": [0, n * 16]}}, b""),
        "which is not its": _tensors({"embeddings": {"dtype": "F32", "shape": [n, 4], "data_offsets": [0, 8]}}, bytes(8)),
        "not supported": _tensors({"embeddings": {"dtype": "BF16", "shape": [n, 2], "data_offsets": [0, n * 4]}}, bytes(n * 4)),
        "no 'embeddings'": _tensors({"other": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, bytes(4)),
        "rows for the tokenizer": _tensors({"embeddings": {"dtype": "F32", "shape": [3, 1], "data_offsets": [0, 12]}}, bytes(12)),
        "int8 or float64": _tensors({"embeddings": {"dtype": "I32", "shape": [n, 1], "data_offsets": [0, 4 * n]}}, bytes(4 * n)),
    }
    for needle, data in cases.items():
        with pytest.raises(ChunkerError) as e:
            E.load({**files, "model.safetensors": data})
        assert needle in _one_line(e), (needle, str(e.value))
    for bad, needle in [(b"[1]", "not a JSON object"), (b'{"normalize": 2}', "normalize"), (b"\xff", "not JSON")]:
        with pytest.raises(ChunkerError) as e:
            E.load({**files, "config.json": bad})
        assert needle in _one_line(e)
    with pytest.raises(ChunkerError) as e:
        E.load({**files, "tokenizer.json": b'{"version": "1.0"}'})
    assert "tokenizer.json" in _one_line(e)


def test_safetensors_reader_reads_what_safetensors_writes(tmp_path):
    from safetensors.numpy import save_file

    rng = np.random.default_rng(2)
    tensors = {
        "a": rng.standard_normal((3, 5)).astype(np.float32),
        "b": rng.standard_normal(7).astype(np.float16),
        "c": rng.integers(-100, 100, (2, 2)).astype(np.int8),
        "d": rng.integers(0, 1 << 40, 4).astype(np.int64),
    }
    save_file(tensors, tmp_path / "t.safetensors")
    got = read_safetensors((tmp_path / "t.safetensors").read_bytes())
    for name, want in tensors.items():
        t = got[name]
        assert t.shape == want.shape
        assert bytes(t.data) == want.astype(want.dtype.newbyteorder("<")).tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_a_model_holding_nan_or_infinity_is_refused_when_loaded(tmp_path, dtype, bad):
    # It loaded before, and the first semantic chunking died in a bare ValueError
    # ("cannot convert float NaN to integer") from the fixed-point sums.
    tok = TOKENIZERS["wordpiece"]()
    vectors = _vectors(np.random.default_rng(5), fx.vocab_size(tok), 24, dtype)
    vectors[3, 5] = bad
    folder = fx.save(tmp_path / "m", vectors, tok, normalize=True)
    with pytest.raises(ChunkerError) as e:
        E.load(folder)
    msg = _one_line(e)
    assert "m/model.safetensors's tensor 'embeddings'" in msg and f"holds {bad} at row 3, column 5" in msg
    with pytest.raises(ChunkerError):
        chunker.chunk("The harbour opens at six.\n\nThe tide is low.", strategy="semantic", embedding_model=str(folder))


def test_nan_weights_are_refused_and_large_finite_values_still_load(tmp_path):
    tok = TOKENIZERS["wordpiece"]()
    n = fx.vocab_size(tok)
    weights = np.ones(n, dtype=np.float32)
    weights[-1] = np.nan
    folder = fx.save(tmp_path / "w", _vectors(np.random.default_rng(6), n, 8, "float32"), tok, normalize=True, weights=weights)
    with pytest.raises(ChunkerError) as e:
        E.load(folder)
    assert f"tensor 'weights' holds nan at value {n - 1:,}" in _one_line(e)
    # Values past 2**127 share the high byte of infinity's; finite, they load as before.
    big = np.full((n, 4), np.finfo(np.float32).max, dtype=np.float32)
    big[0, 0] = -big[0, 0]
    model = E.load(fx.save(tmp_path / "big", big, tok, normalize=True))
    assert model.directions(["hello there"])[0]


def test_rows_times_weights_that_overflow_are_one_line(tmp_path):
    files = _files(tmp_path)
    n = fx.vocab_size(files["tokenizer.json"].decode())
    rows = np.full((n, 2), 1e300).tobytes()
    weights = np.full(n, 1e300).tobytes()
    header = {
        "embeddings": {"dtype": "F64", "shape": [n, 2], "data_offsets": [0, len(rows)]},
        "weights": {"dtype": "F64", "shape": [n], "data_offsets": [len(rows), len(rows) + len(weights)]},
    }
    model = E.load({**files, "model.safetensors": _tensors(header, rows + weights)})
    with pytest.raises(ChunkerError) as e:
        model.directions(["hello there", "the tide"])
    assert "weights overflow float64" in _one_line(e)


def test_a_model_of_no_tokens_or_no_dimensions_is_one_line(tmp_path):
    # A 0-dimension matrix loaded, then dense retrieval died in a bare ValueError ("max() arg
    # is an empty sequence"); a tokenizer.json of no tokens died loading, in an IndexError.
    files = _files(tmp_path)
    n = fx.vocab_size(files["tokenizer.json"].decode())
    flat = _tensors({"embeddings": {"dtype": "F32", "shape": [n, 0], "data_offsets": [0, 0]}}, b"")
    with pytest.raises(ChunkerError) as e:
        E.load({**files, "model.safetensors": flat})
    assert f"embeddings of 0 dimensions ({n:,} rows)" in _one_line(e)
    empty = json.dumps({"model": {"type": "BPE", "vocab": {}, "merges": []}}).encode()
    none = _tensors({"embeddings": {"dtype": "F32", "shape": [0, 2], "data_offsets": [0, 0]}}, b"")
    with pytest.raises(ChunkerError) as e:
        E.load({**files, "tokenizer.json": empty, "model.safetensors": none})
    assert "no tokens in its tokenizer.json" in _one_line(e)


def test_rows_whose_sums_overflow_when_squared_still_have_a_direction(tmp_path):
    # Float64 rows of 1e200 are finite, but their sum squared is not: the norm was inf, and
    # the directions NaN (NaN scores rank arbitrarily) or all zeros.
    files = _files(tmp_path)
    n = fx.vocab_size(files["tokenizer.json"].decode())
    rows = np.full((n, 2), 1e200)
    rows[:, 1] *= 2
    header = {"embeddings": {"dtype": "F64", "shape": [n, 2], "data_offsets": [0, rows.nbytes]}}
    model = E.load({**files, "model.safetensors": _tensors(header, rows.tobytes())})
    for v in model.directions(["hello there", "the tide", "hello"]):
        assert v == pytest.approx([5**-0.5, 2 * 5**-0.5])
