"""The reader's own embedding model in the page: picked as its folder or its three files, held
in the page's memory only, and used by the semantic strategy and by the retrieval check's dense
and hybrid retrievers, with the numbers of the library and the command line; and a built site
that bundles a model (serve.py --build DIR --model PATH) offering it without the picker.

The models are made here by model2vec's own save (tests/embedding_fixtures.py), from random
vectors over a small trained WordPiece vocabulary: nothing is downloaded.
"""

from __future__ import annotations

import functools
import http.server
import io
import json
import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import ROOT, Page, PlainHandler, paste

import chunker
import chunker.embeddings
from chunker.cli._main import run
from tests import embedding_fixtures, hf_fixtures
from tests.pagekit import page_fixtures, params, text_of
from tests.test_page import PROSE, SAMPLE
from tests.test_page_offline import STORED
from tests.test_page_questions import _holds_the_command_lines_numbers

pytestmark = pytest.mark.browser

site, app = page_fixtures()

QUESTIONS = ROOT / "app" / "sample_questions.jsonl"
DIM = 16
MARKER = "model-a-3f9c1e7d-never-stored"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Two different models in folders of one name (a model is known by its content, never by
    its folder's name), and a folder that is not a model."""
    tok = hf_fixtures.wordpiece(True)
    rows = embedding_fixtures.vocab_size(tok)
    made = {}
    for key, seed in (("a", 1), ("b", 2)):
        vectors = np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32)
        made[key] = embedding_fixtures.save(tmp_path_factory.mktemp(key) / "model", vectors, tok, normalize=True)
    config = made["a"] / "config.json"  # a text found nowhere else, to look for in the page's storage
    config.write_text(json.dumps({**json.loads(config.read_text(encoding="utf-8")), "note": MARKER}), encoding="utf-8")
    notes = tmp_path_factory.mktemp("notes") / "notes"
    notes.mkdir()
    (notes / "tokenizer.json").write_text(tok, encoding="utf-8")
    (notes / "README.md").write_text("not a model\n", encoding="utf-8")
    made["notes"] = notes
    return made


def pick(app, folder, *, as_folder: bool) -> str:
    """Pick a model in the page (its folder, or its three files); returns its identity once the
    page has chunked with it."""
    before = app.page.input_value("#embedding-model")
    if as_folder:
        action = lambda: app.page.set_input_files("#model-folder", str(folder))
    else:
        action = lambda: app.page.set_input_files("#model-files", [str(folder / n) for n in chunker.embeddings.FILES])
    app.act(action)
    app.page.wait_for_function(f"document.getElementById('embedding-model').value !== {json.dumps(before)}")
    app.wait_idle()
    return app.page.input_value("#embedding-model")


def assert_chunks(app, **settings) -> chunker.ChunkResult:
    """The page's chunks (their offsets on the cards, their texts in the document view) are
    chunker.chunk's at the controls' settings and `settings`."""
    expected = chunker.chunk(SAMPLE, **app.controls(), **settings)
    n = len(expected.chunks)
    assert text_of(app, "#summary") == f"{n:,} chunk{'' if n == 1 else 's'}"
    for card in app.cards():
        chunk = expected.chunks[card["index"]]
        assert (card["start"], card["end"]) == (chunk.start_char, chunk.end_char)
    assert app.view_texts() == {str(c.index): c.text for c in expected.chunks}
    return expected


def test_semantic_chunks_with_the_picked_model_and_each_model_keeps_its_own(app, models):
    # A folder that is not a model: the loader's own line, and no model.
    with pytest.raises(chunker.ChunkerError) as said:
        chunker.embeddings.load(models["notes"])
    app.page.set_input_files("#model-folder", str(models["notes"]))
    app.page.wait_for_function("!document.getElementById('error').hidden")
    shown = text_of(app, "#error")
    assert shown == str(said.value) and "\n" not in shown and "Traceback" not in shown
    assert shown.startswith("notes is not a model2vec model: it has no model.safetensors and no config.json")
    assert app.page.input_value("#embedding-model") == "" and not app.console_errors
    app.select("strategy", "semantic")
    app.act(
        lambda: (
            app.page.fill("#opt-breakpoint_percentile", "60"),
            app.page.dispatch_event("#opt-breakpoint_percentile", "change"),
        )
    )
    words = assert_chunks(app, breakpoint_percentile=60)  # no model: the words are compared
    # A model as its three files: the semantic strategy embeds with it.
    first = pick(app, models["a"], as_folder=False)
    assert first == chunker.embeddings.load(models["a"]).name and first.startswith("m2v:")
    with_a = assert_chunks(app, breakpoint_percentile=60, embedding_model=str(models["a"]))
    # The link names it by its content; copy as code by its folder, as a path there.
    link = params(app)
    assert link["embedding_model"] == first and link["breakpoint_percentile"] == "60"
    assert 'embedding_model="model"' in text_of(app, "#snip-python")
    assert "--embedding-model model --breakpoint-percentile 60" in text_of(app, "#snip-cli")
    # Another model in a folder of the same name, picked as the folder: another identity, its
    # own chunks; and the first one, chosen again, gives its own again.
    second = pick(app, models["b"], as_folder=True)
    assert second == chunker.embeddings.load(models["b"]).name != first
    with_b = assert_chunks(app, breakpoint_percentile=60, embedding_model=str(models["b"]))
    assert len({tuple(r.chunks) for r in (words, with_a, with_b)}) == 3  # the test can tell them apart
    app.select("embedding-model", first)
    assert assert_chunks(app, breakpoint_percentile=60, embedding_model=str(models["a"])).chunks == with_a.chunks
    # The comparison lists semantic, with this model's numbers.
    app.wait_compare()
    row = app.page.evaluate(
        "[...document.querySelectorAll('#compare-table tr')].find(r => r.querySelector('[data-strategy=semantic]'))"
        ".querySelectorAll('td')[0].textContent"
    )
    assert row == str(len(with_a.chunks))
    # Nothing was stored: the models lived in the page's memory only.
    # (Everything the origin stored is searched for a text only model a's config.json holds.)
    stored = app.page.evaluate(STORED, MARKER)
    assert stored["found"] == ["control"], stored["found"]  # the search finds what is there


def cli_eval(*args: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    assert run(["eval", str(ROOT / "app" / "sample.md"), str(QUESTIONS), *args], None, out, err) == 0, err.getvalue()
    return json.loads(out.getvalue()) if "--sweep" not in args else [json.loads(line) for line in out.getvalue().splitlines()]


def test_dense_and_hybrid_retrieval_give_the_command_lines_numbers(app, models):
    app.page.wait_for_function("document.getElementById('q-count').textContent === '12'")
    # Without a model only BM25 can rank, and the page says why.
    assert app.page.evaluate("[...document.getElementById('q-retriever').options].map(o => [o.value, o.disabled])") == [
        ["bm25", False],
        ["dense", True],
        ["hybrid", True],
    ]
    assert "embedding model" in text_of(app, "#q-retriever-help")
    pick(app, models["a"], as_folder=True)
    s = app.controls()
    common = ["--strategy", s["strategy"], "--size", str(s["size"]), "--overlap", str(s["overlap"])]
    common += ["--tokenizer", s["tokenizer"], "--embedding-model", str(models["a"])]
    for retriever in ("dense", "hybrid"):
        app.page.select_option("#q-retriever", retriever)
        app.page.wait_for_selector(f"#q-eval .stats[data-retriever={retriever}]")
        _holds_the_command_lines_numbers(app, cli_eval(*common, "--retriever", retriever))
    assert "hybrid retrieval (BM25 and model" in text_of(app, "#q-eval .help")
    # The sweep ranks with the model too: each row as the command line's, with its interval.
    app.page.select_option("#q-retriever", "dense")
    app.page.wait_for_selector("#q-eval .stats[data-retriever=dense]")
    app.page.fill("#q-topk", "2")
    app.page.dispatch_event("#q-topk", "change")
    app.page.wait_for_function("document.querySelector('#q-eval .help').textContent.startsWith('The top 2 of')")
    app.page.click("#q-sweep")
    app.page.wait_for_function("document.body.dataset.sweep === 'done'", timeout=120_000)
    assert app.page.locator("#q-sweep-out [data-retriever=dense]").count() == 1
    rows = app.page.evaluate("""() => [...document.querySelectorAll('#q-sweep-out tbody tr')].map(r =>
        [r.dataset.strategy, +r.dataset.size, ...[...r.querySelectorAll('td')].map(td => td.textContent)])""")
    expected = cli_eval(
        "--sweep", "--tokenizer", s["tokenizer"], "--top-k", "2", "--embedding-model", str(models["a"]), "--retriever", "dense"
    )
    assert [(r[0], r[1]) for r in rows] == [(e["strategy"], e["size"]) for e in expected]
    for r, e in zip(rows, expected):
        assert r[4] == f"{100 * e['recall']:.1f}%" and r[6] == f"{100 * e['iou']:.1f}%"
    intervals = sum(1 for e in expected for m in ("recall", "iou") if m in e["versus_best"])
    assert app.page.locator("#q-sweep-out svg.chart path.ci").count() == intervals > 0
    # No model chosen again: BM25, and dense is not offered.
    app.select("embedding-model", "")
    app.page.wait_for_selector("#q-eval .stats[data-retriever=bm25]")
    assert app.page.input_value("#q-retriever") == "bm25"


def test_a_built_site_bundles_a_model_and_offers_it_without_the_picker(chromium, runtime, models, tmp_path):
    out = tmp_path / "_site"
    done = subprocess.run(
        [sys.executable, str(ROOT / "serve.py"), "--build", str(out), "--model", str(models["b"])],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    handler = functools.partial(PlainHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page = Page(chromium, f"http://127.0.0.1:{server.server_address[1]}/")
    try:
        # (A short patience for stale work, for the worker restarted below; no comparison meanwhile.)
        page.page.add_init_script("window.chunkerStaleSeconds = 0.5; window.chunkerCompareAutoChars = 1")
        page.open("?strategy=semantic")
        page.page.wait_for_function("document.getElementById('embedding-model').value.startsWith('m2v:')")
        page.wait_idle()
        bundled = chunker.embeddings.load(models["b"])
        assert page.page.input_value("#embedding-model") == bundled.name
        assert "model" in text_of(page, "#embedding-model-help")
        assert assert_chunks(page, embedding_model=str(models["b"])).chunks
        # Semantic chunks of a long text keep the worker busy; a newer size meanwhile stops it,
        # and the worker started again is given the model again: the chunks are still its.
        big = (PROSE + "\n\n") * (1_000_000 // (len(PROSE) + 2))
        page.act(lambda: paste(page.page, big))
        page.page.evaluate("""() => {
            const size = document.getElementById('size');
            for (const value of ['120', '121']) {
                size.value = value;
                size.dispatchEvent(new Event('input', {bubbles: true}));
            }
        }""")
        page.page.wait_for_function("document.body.dataset.restarts === '1'", timeout=120_000)
        page.wait_idle()
        expected = chunker.chunk(big, **page.controls(), embedding_model=bundled.name)
        assert page.controls()["size"] == 121 and text_of(page, "#summary") == f"{len(expected.chunks):,} chunks"
        assert [(c["start"], c["end"]) for c in page.cards()] == [
            (c.start_char, c.end_char) for c in expected.chunks[: len(page.cards())]
        ]
        assert not page.foreign_requests() and not page.console_errors and page.page.is_hidden("#error")
    finally:
        page.close()
        server.shutdown()
        server.server_close()
