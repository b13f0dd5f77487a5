"""Dense and hybrid retrieval in the check: rankings against model2vec's own vectors and an
independent reciprocal rank fusion, the same numbers from the CLI, the library, and a Python
without numpy (as the page's)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import chunker
from chunker import ChunkerError
from chunker.cli import main
from chunker.retrieval._bm25 import BM25Index
from chunker.retrieval._questions import load_questions
from chunker.retrieval._rankers import RRF_K
from tests import embedding_fixtures as fx
from tests.texts import ROOT, sample_document


@pytest.fixture(scope="module")
def model_dir():
    return str(fx.trained())


def _questions(text):
    return load_questions((ROOT / "app" / "sample_questions.jsonl").read_text(encoding="utf-8"), text)


def _reference_dense(model_dir, chunk_texts, question):
    """The ranking by model2vec's own vectors: cosine, ties to the lower index."""
    from model2vec import StaticModel

    m = StaticModel.from_pretrained(model_dir)
    vecs = m.encode(chunk_texts).astype(np.float64)
    q = m.encode([question]).astype(np.float64)[0]
    norms = np.linalg.norm(vecs, axis=1) * np.linalg.norm(q)
    scores = np.where(norms > 0, vecs @ q / np.where(norms > 0, norms, 1), -np.inf)
    order = sorted(range(len(chunk_texts)), key=lambda i: (-scores[i], i))
    return [i for i in order if np.isfinite(scores[i])], scores


@pytest.mark.parametrize("size", [64, 128, 256])
def test_dense_ranks_as_model2vecs_vectors_do(model_dir, size):
    text = sample_document()
    res = chunker.chunk(text, size=size)
    texts = [c.text for c in res.chunks]
    ev = chunker.evaluate(text, res, _questions(text), top_k=5, retriever="dense", embedding_model=model_dir)
    for q in ev.per_question:
        want, scores = _reference_dense(model_dir, texts, q.question)
        got = list(q.retrieved)
        # Equal up to scores model2vec's float32 cannot tell apart.
        assert [round(scores[i], 5) for i in got] == [round(scores[i], 5) for i in want[:5]], q.question


def test_hybrid_is_reciprocal_rank_fusion(model_dir):
    text = sample_document()
    res = chunker.chunk(text, size=96)
    texts = [c.text for c in res.chunks]
    questions = _questions(text)
    ev = chunker.evaluate(text, res, questions, top_k=4, retriever="hybrid", embedding_model=model_dir)
    bm25 = BM25Index(texts)
    dense = chunker.evaluate(text, res, questions, top_k=len(texts), retriever="dense", embedding_model=model_dir)
    for q, d in zip(ev.per_question, dense.per_question):
        fused = {}
        for ranking in (bm25.search(q.question, len(texts)), d.retrieved):
            for rank, i in enumerate(ranking, 1):
                fused[i] = fused.get(i, 0) + 1 / (RRF_K + rank)
        want = sorted(fused, key=lambda i: (-fused[i], i))[:4]
        assert list(q.retrieved) == want


def test_retriever_comes_from_the_settings(model_dir):
    text = sample_document()
    res = chunker.chunk(text, size=128)
    with_settings = chunker.Document(text).run(chunker.Settings(size=128, retriever="dense", embedding_model=model_dir))
    a = chunker.evaluate(text, with_settings, _questions(text))
    b = chunker.evaluate(text, res, _questions(text), retriever="dense", embedding_model=model_dir)
    assert a.to_dict() == b.to_dict()
    assert chunker.evaluate(text, res, _questions(text)).to_dict() != b.to_dict()  # bm25 by default


def test_cli_library_and_a_python_without_numpy_give_the_same_numbers(model_dir, tmp_path, capsys):
    text = sample_document()
    qpath = ROOT / "app" / "sample_questions.jsonl"
    for retriever in ("dense", "hybrid"):
        code = main(
            [
                "eval",
                str(ROOT / "app" / "sample.md"),
                str(qpath),
                "--size",
                "128",
                "--retriever",
                retriever,
                "--embedding-model",
                model_dir,
            ]
        )
        out = json.loads(capsys.readouterr().out)
        assert code == 0
        lib = chunker.evaluate(
            text, chunker.chunk(text, size=128), _questions(text), retriever=retriever, embedding_model=model_dir
        )
        assert out == json.loads(json.dumps(lib.to_dict()))
        # The page's Python has no numpy: the numbers must not depend on it.
        script = (
            "import sys, json; sys.modules['numpy'] = None; sys.path.insert(0, sys.argv[1]);"
            "import chunker; from chunker.retrieval._questions import load_questions;"
            "text = open(sys.argv[2], encoding='utf-8').read();"
            "qs = load_questions(open(sys.argv[3], encoding='utf-8').read(), text);"
            "ev = chunker.evaluate(text, chunker.chunk(text, size=128), qs, retriever=sys.argv[4], embedding_model=sys.argv[5]);"
            "print(json.dumps(ev.to_dict()))"
        )
        proc = subprocess.run(
            [sys.executable, "-c", script, str(ROOT), str(ROOT / "app" / "sample.md"), str(qpath), retriever, model_dir],
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(proc.stdout) == out


def test_sweep_takes_the_retriever(model_dir):
    text = sample_document()
    rows = list(
        chunker.sweep(text, _questions(text), strategies=["recursive"], sizes=[128], retriever="dense", embedding_model=model_dir)
    )
    one = chunker.evaluate(
        text, chunker.chunk(text, size=128, overlap="10%"), _questions(text), retriever="dense", embedding_model=model_dir
    )
    assert (rows[0].recall, rows[0].mrr) == (one.recall, one.mrr)


def test_bad_retriever_settings_are_one_line(capsys):
    text = sample_document()
    res = chunker.chunk(text, size=128)
    with pytest.raises(ChunkerError) as e:
        chunker.evaluate(text, res, _questions(text), retriever="dense")
    assert "needs an embedding model" in str(e.value)
    with pytest.raises(ChunkerError) as e:
        chunker.evaluate(text, res, _questions(text), retriever="splade")
    assert "bm25, dense, hybrid" in str(e.value)
    code = main(["eval", str(ROOT / "app" / "sample.md"), str(ROOT / "app" / "sample_questions.jsonl"), "--retriever", "x"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "retriever" in err
