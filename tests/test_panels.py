"""app/panels.py and app/view.py in CPython: the stats strip, the comparison, the advice list,
the records preview, the controls drawn from the registries, and a whole view."""

from __future__ import annotations

import html
import json

import pytest

import chunker
from app import panels, view
from tests.htmltree import INJECTIONS, Tree, harmless
from tests.texts import sample_document


def test_stats_mark_estimates_and_not_exact_counts():
    text = "Plain text. " * 40
    est = chunker.chunk(text, size=30, overlap=5)
    exact = chunker.chunk(text, size=30, overlap=5, tokenizer="cl100k")
    shown_est = Tree(panels.stats_html(est.stats, est.settings)).joined()
    shown_exact = Tree(panels.stats_html(exact.stats, exact.settings)).joined()
    assert "≈" in shown_est and "≈" not in shown_exact
    assert f"{exact.stats.embedding_tokens:,}" in shown_exact and f"{round(exact.stats.duplicated_pct, 1):g}%" in shown_exact


def test_stats_show_the_overlap_asked_and_achieved():
    text = sample_document()
    res = chunker.chunk(text, strategy="markdown", size=200, overlap=30)
    shown = Tree(panels.stats_html(res.stats, res.settings)).joined()
    assert f"30 / ≈{res.stats.avg_overlap:g} tokens" in shown and res.stats.avg_overlap < 15


def test_compare_table_has_a_row_per_strategy_in_registry_order():
    text = sample_document()
    doc = chunker.Document(text)
    rows = doc.compare(chunker.Settings(size=120, overlap=10))
    rows["fixed"] = chunker.ChunkerError("size must be a positive number")
    tree = Tree(panels.compare_html(rows, "markdown", chunker.FLAGS, list(chunker.STRATEGIES)))
    names = [a["data-strategy"] for t, a in tree.tags if "data-strategy" in a]
    assert names == list(chunker.STRATEGIES)
    assert "size must be a positive number" in tree.joined()
    assert str(rows["markdown"].chunks) in tree.joined()


def test_advice_list_renders_the_librarys_tips_with_apply_buttons():
    text = sample_document()
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=200, overlap=0)
    advice = chunker.advise(text, res, limit="minilm")
    tree = Tree(panels.advice_html(advice))
    assert [a["data-code"] for t, a in tree.tags if t == "li"] == [t.code for t in advice.tips]
    applied = [json.loads(a["data-apply"]) for t, a in tree.tags if t == "button"]
    assert applied == [t.apply for t in advice.tips if t.apply]
    assert Tree(panels.advice_html(None)).joined().startswith("Paste some text to start")


@pytest.mark.parametrize("payload", INJECTIONS)
def test_markup_in_advice_and_errors_stays_text(payload):
    text = f"{payload}\n\n" * 30
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=20, overlap=15)
    made = panels.advice_html(chunker.advise(text, res, limit="minilm"))
    made += panels.compare_html({"fixed": payload}, payload, [payload], ["fixed", payload])
    assert harmless(made, {"ul", "li", "span", "button", "table", "caption", "thead", "tr", "th", "tbody", "td"})


def test_records_preview_is_the_start_of_the_json_export():
    res = chunker.chunk(sample_document(), strategy="markdown", size=200, overlap=0)
    shown = html.unescape(panels.records_preview(res))
    assert json.loads(shown) == json.loads(chunker.to_json(res))[:3]


def test_controls_are_drawn_from_the_registries():
    c = panels.controls()
    for name, registry in (("strategy", chunker.STRATEGIES), ("unit", chunker.UNITS), ("tokenizer", chunker.TOKENIZERS)):
        assert [a["value"] for t, a in Tree(c[name]).tags if t == "option"] == list(registry)
    assert [a["value"] for t, a in Tree(c["limit"]).tags] == ["", *chunker.MODEL_LIMITS]
    assert [a["value"] for t, a in Tree(c["breaks"]).tags if t == "input"] == list(chunker.BREAKS)
    assert [a["data-format"] for t, a in Tree(c["exports"]).tags] == list(chunker.FORMATS)
    rows = Tree(c["presets"])
    assert [json.loads(a["data-apply"])["size"] for t, a in rows.tags if t == "button"] == [
        p.size for p in chunker.PRESETS.values()
    ]
    assert c["help"]["strategy"] == {s.name: s.description for s in chunker.STRATEGIES.values()}
    assert c["defaults"]["tokenizer"] == chunker.PLAYGROUND_DEFAULTS["tokenizer"] == chunker.DEFAULTS["tokenizer"]
    json.dumps(c)


def test_a_view_is_json_ready_and_whole():
    doc = chunker.Document(sample_document())
    res = doc.chunk(strategy="markdown", size=200, overlap=0)
    shown, rest = view.view(doc, res, doc.advise(res, limit="bge"), chunker.FLAGS)
    json.dumps(shown)  # crosses to the main thread as plain data
    assert shown["ok"] and shown["chunks"] == len(res.chunks)
    assert shown["summary"] == f"{len(res.chunks)} chunks"
    assert Tree(shown["doc"] + "".join(rest)).joined() == doc.text
