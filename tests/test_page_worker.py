"""app/worker.py in CPython: the functions the page calls, without a browser.

The worker module only needs the browser for its Blob exports; everything else is plain Python,
so its protocol (the document kept between calls, settings as typed, one-line errors, the
compare cache) is checked here cheaply.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import ROOT

import chunker
from app import worker

SAMPLE = (ROOT / "app" / "sample.md").read_text(encoding="utf-8")
SETTINGS = {
    "strategy": "recursive",
    "unit": "tokens",
    "size": "150",
    "overlap": "10%",
    "tokenizer": "estimate",
    "breaks": ["paragraph", "line", "sentence"],
    "limit": "",
}


class JsNull:
    """Stands in for Pyodide's `jsnull`: what the main thread's None becomes in the worker."""


class JsObject:
    """Stands in for a JsProxy of the page's ``{text: ...}`` object."""

    def __init__(self, text):
        self.text = text


def run(doc, **changes):
    return worker.run(doc, json.dumps(dict(SETTINGS, **changes)))


@pytest.fixture(autouse=True)
def fresh_worker(monkeypatch):
    monkeypatch.setattr(worker, "S", worker.Session())


def test_hello_hands_over_the_controls_drawn_from_the_registries():
    info = worker.hello()
    controls = json.loads(info["controls"])
    assert controls["order"] == list(chunker.STRATEGIES)
    assert controls["flags"] == chunker.FLAGS
    assert info["version"] == chunker.__version__


def test_the_worker_imports_only_chunkers_public_names():
    import ast

    for path in (ROOT / "app").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("chunker._"), (path.name, node.module)
                assert node.module != "chunker" or all(not a.name.startswith("_") for a in node.names)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "chunker":
                assert not node.attr.startswith("_") or node.attr == "__version__", (path.name, node.attr)


@pytest.mark.parametrize("doc", [SAMPLE, {"text": SAMPLE}, JsObject(SAMPLE)])
def test_run_accepts_the_document_in_each_wrapping(doc):
    view = run(doc)
    assert view["ok"] and view["chunks"] == len(chunker.chunk(SAMPLE, size=150, overlap="10%").chunks)
    assert view["doc_chars"] == len(SAMPLE)


@pytest.mark.parametrize("same", [None, JsNull(), JsObject(None)])
def test_anything_but_text_keeps_the_previous_document(same):
    run(SAMPLE)
    view = run(same, size="80")
    assert view["chunks"] == len(chunker.chunk(SAMPLE, size=80, overlap="10%").chunks)


@pytest.mark.parametrize(
    "changes, fragment",
    [
        ({"size": "abc"}, "size must be a whole number"),
        ({"size": ""}, "size is empty"),
        ({"strategy": "neural"}, "unknown strategy 'neural'"),
        ({"overlap": "150"}, "must be smaller than the size"),
        ({"breaks": []}, "breaks is empty"),
    ],
)
def test_bad_settings_come_back_as_one_line(changes, fragment):
    view = run(SAMPLE, **changes)
    assert view["ok"] is False and fragment in view["error"] and "\n" not in view["error"]
    field = next(iter(changes))
    assert view["field"] == (field if field in ("size", "overlap") else "")  # shown next to its field
    assert view["counts"].startswith(f"{len(SAMPLE):,} chars")  # the counts still update


def test_an_internal_failure_is_a_message_not_a_traceback(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(worker.views, "view", broken)
    view = run(SAMPLE)
    assert view == {
        "ok": False,
        "error": "Internal error (RuntimeError: boom). Details are in the browser console.",
        "field": "",
        "counts": view["counts"],
    }
    assert "Traceback" in capsys.readouterr().out  # the details go to the console


def test_compare_fills_one_row_per_call_and_resets_on_change():
    run(SAMPLE)
    first = worker.compare("fixed")
    assert first.count("computing…") == len(chunker.STRATEGIES) - 1
    for name in chunker.STRATEGIES:
        table = worker.compare(name)
    assert "computing…" not in table
    run(None, size="90")  # new settings: the rows start over
    assert worker.compare("fixed").count("computing…") == len(chunker.STRATEGIES) - 1


def test_any_range_of_cards_is_at_hand():
    text = "Short sentence. " * 500
    run(text, strategy="sentence", size="0", unit="chars", overlap="0")
    more = worker.cards(200, 30)["cards"]
    assert more.count("<li") == 30
    assert 'data-chunk-index="200"' in more and 'data-chunk-index="199"' not in more


def test_a_long_document_view_arrives_in_parts_that_join_to_the_whole():
    from app import docview

    text = "\n".join(f"Line {i}: <tag> & more text for the view." for i in range(6000))
    view = run({"text": text}, size="60")
    assert view["ok"] and view["doc_parts"] > 1 and "doc_rest" not in view
    parts = [view["doc"]] + [worker.more_doc(k)["doc"] for k in range(1, view["doc_parts"])]
    res = chunker.chunk(text, size=60, overlap="10%")
    assert "".join(parts) == docview.document_html(text, res.chunks.spans())
    assert all(p.startswith('<div class="slice">') and p.endswith("</div>") for p in parts)
    assert worker.more_doc(view["doc_parts"]) == {"doc": ""}


def test_runs_keep_the_documents_measure_and_give_chunks_records(monkeypatch):
    first = True
    for changes in (
        {"tokenizer": "o200k"},
        {"tokenizer": "o200k", "size": "90"},
        {"tokenizer": "o200k", "strategy": "sentence"},
        {"tokenizer": "o200k", "strategy": "langchain"},
        {"tokenizer": "estimate", "unit": "chars", "size": "700"},
    ):
        view = run(SAMPLE if first else None, **changes)
        if first:
            measured = worker.S.document._measure
        elif changes["tokenizer"] == "o200k":
            assert worker.S.document._measure is measured  # the document was not encoded again
        first = False
        assert view["ok"]
        settings, _ = worker._settings(json.dumps(dict(SETTINGS, **changes)))
        assert worker.S.result == chunker.chunk(SAMPLE, **settings.to_dict())


def test_a_half_typed_setting_does_not_count_the_document_again(monkeypatch):
    good = run(SAMPLE, tokenizer="o200k")
    from chunker.tokens._tokenizers import get_tokenizer

    with monkeypatch.context() as m:
        # The document remembers its count: a bad setting does not encode it again.
        m.setattr(get_tokenizer("o200k"), "count", lambda *a: pytest.fail("counted again"))
        bad = run(None, tokenizer="o200k", size="")
    assert bad["ok"] is False and bad["counts"] == good["counts"]
    # Another tokenizer has not counted this document yet: that one is counted.
    other = run(None, tokenizer="cl100k", size="")
    expected = chunker.count_tokens(SAMPLE, "cl100k")
    assert other["ok"] is False and f"{expected:,} tokens" in other["counts"]


def test_the_langchain_strategy_with_a_loaded_tokenizer_json_renders(monkeypatch):
    """A model's own tokenizer.json with the langchain strategy: the view and its LangChain
    snippet, not 'Internal error (KeyError: ...)'."""
    from tests.hf_fixtures import minilm_path

    loaded = worker.use_tokenizer(JsObject(minilm_path().read_text(encoding="utf-8")), "tokenizer.json")
    assert loaded["ok"] and loaded["name"].startswith("hf:")
    out = run(JsObject(SAMPLE), strategy="langchain", tokenizer=loaded["name"])
    assert out.get("ok", True) and "error" not in out, out.get("error")
    shown = json.dumps(out)
    assert "Internal error" not in shown and "KeyError" not in shown
    assert "RecursiveCharacterTextSplitter" in shown  # the LangChain equivalent is offered


def test_the_code_strategy_reads_the_language_from_the_file_name_as_the_command_line_does(tmp_path):
    import subprocess
    import sys

    js = "function a() {\n  return 1;\n}\nconst b = 2;\nfunction c() {\n  return 3;\n}\n"
    changes = {"strategy": "code", "unit": "chars", "size": "40", "overlap": "0", "min_size": "20"}
    view = run({"text": js, "name": "app.js"}, **changes)
    assert view["ok"]
    path = tmp_path / "app.js"
    path.write_text(js, encoding="utf-8")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "chunker",
            "app.js",
            *"--strategy code --unit chars --size 40 --overlap 0 --min-size 20 --format json".split(),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout
    # The same records, the file's source and the ids that hash it included (run beside the file).
    assert chunker.records(worker.S.result) == json.loads(out)
    # Without the name the language is not JavaScript, and the cut is another.
    assert [c.text for c in worker.S.result.chunks] != [
        c.text for c in chunker.chunk(js, strategy="code", unit="chars", size=40, overlap=0, min_size=20).chunks
    ]
    view = run(None, **changes, language="python")  # the setting wins over the name
    assert [c.text for c in worker.S.result.chunks] == [
        c.text for c in chunker.chunk(js, strategy="code", unit="chars", size=40, overlap=0, min_size=20).chunks
    ]


def test_hello_offers_the_language_and_min_size_fields():
    controls = json.loads(worker.hello()["controls"])
    fields = {f["key"] for f in controls["fields"]}
    assert {"min_size", "language"} <= fields
    assert 'value="visualbasic6"' in controls["more"] and "Min size" in controls["more"]


@pytest.mark.parametrize("text", ["app/sample.md", "hello\n" * 10_000, "", '{"hidden_size": 768}'])
def test_a_wrong_tokenizer_file_is_one_short_line_naming_it(text):
    """Whatever a file picked as tokenizer.json holds is its content, never a path to read (a
    file holding "app/sample.md" is not the worker's sample), and the answer is one line."""
    out = worker.use_tokenizer(JsObject(text), "notes.txt")
    assert out["ok"] is False and out["error"].startswith("notes.txt is not a tokenizer.json"), out["error"][:300]
    assert "\n" not in out["error"] and len(out["error"]) < 200


# ---------------------------------------------------------------- the reader's embedding model


def _model_files(tmp_path, seed: int) -> dict[str, bytes]:
    import numpy as np

    from tests import embedding_fixtures, hf_fixtures

    tok = hf_fixtures.wordpiece(True)
    vectors = np.random.default_rng(seed).standard_normal((embedding_fixtures.vocab_size(tok), 8)).astype(np.float32)
    folder = embedding_fixtures.save(tmp_path / f"m{seed}", vectors, tok, normalize=True)
    return {key: (folder / name).read_bytes() for key, name in worker.MODEL_KEYS.items()}


def test_a_model_from_the_pages_bytes_is_known_by_its_content_and_ranks_as_evaluate(tmp_path):
    files = _model_files(tmp_path, 1)
    first = worker.use_model({**files, "name": "model"})
    assert first["ok"] and first["name"].startswith("m2v:") and first["label"] == "model"
    # The same bytes under another name: the same model; other bytes under the same name: another.
    assert worker.use_model({**files, "name": "copy"})["name"] == first["name"]
    other = worker.use_model({**_model_files(tmp_path, 2), "name": "model"})
    assert other["ok"] and other["name"] != first["name"]
    run({"text": SAMPLE}, strategy="semantic", embedding_model=first["name"])
    assert worker.S.result.settings.embedding_model == first["name"]
    dense = worker.q_view(5, "text", "dense")
    expected = chunker.evaluate(SAMPLE, worker.S.result, worker.S.questions, top_k=5, retriever="dense")
    assert dense["ok"] and 'data-retriever="dense"' in dense["evaluation"]
    assert f'<span class="value">{100 * expected.recall:.1f}%</span>' in dense["evaluation"]
    assert expected.per_question != chunker.evaluate(SAMPLE, worker.S.result, worker.S.questions, top_k=5).per_question
    # Without a model the panel ranks with BM25 (the page offers dense only with one).
    run(None, strategy="semantic", embedding_model="")
    assert 'data-retriever="bm25"' in worker.q_view(5, "text", "dense")["evaluation"]


@pytest.mark.parametrize("missing", ["safetensors", "config"])
def test_a_folder_that_is_not_a_model_is_the_loaders_one_line(tmp_path, missing):
    files = _model_files(tmp_path, 1)
    del files[missing]
    out = worker.use_model({**files, "name": "notes"})
    name = worker.MODEL_KEYS[missing]
    assert out["ok"] is False and out["error"].startswith(f"notes is not a model2vec model: it has no {name}")
    assert "\n" not in out["error"]
    damaged = worker.use_model({**_model_files(tmp_path, 1), "config": b"not json", "name": "notes"})
    assert damaged["ok"] is False and damaged["error"].startswith("notes/config.json is not JSON")
