"""app/render.py in CPython: escaping, UTF-16 offsets, the overlap sweep, cards, advice, code.

The HTML is parsed back with html.parser rather than matched as strings, so the tests check
what a browser would build: which elements exist and what text they hold.
"""

from __future__ import annotations

import doctest
import html
import html.parser
import json
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from app import render
from conftest import ROOT

INJECTIONS = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    '"><svg onload=alert(1)>',
    "'><a href=javascript:alert(1)>x</a>",
    "&lt;already escaped&gt; &amp; <b>bold</b>",
]


class Tree(html.parser.HTMLParser):
    """Collects start tags with their attributes, and all text (entities decoded)."""

    def __init__(self, source: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.stack: list[dict] = []
        self.segments: list[tuple[dict, str]] = []  # (attrs of the innermost span, text)
        self.feed(source)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self.stack.append(dict(attrs))

    def handle_endtag(self, tag):
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)
        self.segments.append((self.stack[-1] if self.stack else {}, data))


def test_module_doctests():
    failures, tried = doctest.testmod(render, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 5 and failures == 0


# ---------------------------------------------------------------- escaping


@pytest.mark.parametrize("payload", INJECTIONS)
def test_markup_in_the_document_stays_text(payload):
    text = f"Intro paragraph.\n\n{payload}\n\nMore text after it. {payload}"
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=20, overlap=5)
    for fragment in (
        render.document_html(text, [(c.start_char, c.end_char) for c in res.chunks]),
        render.cards_html(res.chunks, text, chunker.FLAGS),
        render.view(text, res, chunker.FLAGS, chunker.DEFAULTS)["code"],
    ):
        tree = Tree(fragment)
        assert {tag for tag, _ in tree.tags} <= {"span", "li", "div", "b", "p", "pre", "code", "button"}
        assert not any(k.startswith("on") or "javascript:" in v for _, a in tree.tags for k, v in a.items() if v)
    assert "".join(Tree(render.document_html(text, [(0, len(text))])).text) == text


def test_esc_covers_quotes_and_ampersands():
    assert render.esc("a&b<c>\"d'") == "a&amp;b&lt;c&gt;&quot;d&#x27;"


# ---------------------------------------------------------------- UTF-16


def utf16_reference(text: str, offset: int) -> int:
    return len(text[:offset].encode("utf-16-le")) // 2


@given(st.text(alphabet=st.sampled_from("ab\n é中😀𝒜🎉\U0010fffd"), max_size=60), st.data())
def test_utf16_offsets_match_the_encoding(text, data):
    u16 = render.Utf16(text)
    for offset in range(len(text) + 1):
        assert u16(offset) == utf16_reference(text, offset)


def test_cards_carry_code_point_and_utf16_offsets():
    text = "😀 one. 🎉 two. three 𝒜."
    res = chunker.chunk(text, strategy="sentence", unit="chars", size=0, overlap=0)
    tree = Tree(render.cards_html(res.chunks, text, chunker.FLAGS))
    cards = [a for tag, a in tree.tags if tag == "li"]
    assert [(int(a["data-start"]), int(a["data-end"])) for a in cards] == [(c.start_char, c.end_char) for c in res.chunks]
    js = text.encode("utf-16-le")
    for a, c in zip(cards, res.chunks):
        s16, e16 = int(a["data-start16"]), int(a["data-end16"])
        assert js[2 * s16:2 * e16].decode("utf-16-le") == c.text


# ---------------------------------------------------------------- the sweep and the document view


spans_strategy = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)).map(sorted).map(tuple), max_size=8)


@settings(max_examples=300)
@given(spans_strategy)
def test_sweep_matches_a_per_character_reference(spans):
    length = 45
    segments = render.sweep(spans, length)
    # Segments tile the text with no gap and no overlap.
    assert [a for a, _, _ in segments] == [0] + [b for _, b, _ in segments][:-1]
    assert segments[-1][1] == length
    for a, b, active in segments:
        assert a < b
        for pos in range(a, b):
            assert active == tuple(i for i, (s, e) in enumerate(spans) if s <= pos < e)


def test_document_view_tints_chunks_and_stripes_overlap():
    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=24, overlap=8)
    spans = [(c.start_char, c.end_char) for c in res.chunks]
    tree = Tree(render.document_html(text, spans))
    assert "".join(tree.text) == text
    per_chunk: dict[int, str] = {}
    for attrs, data in tree.segments:
        chunk_ids = [int(i) for i in attrs.get("data-c", "").split()]
        classes = attrs.get("class", "").split()
        assert ("o" in classes) == (len(chunk_ids) > 1)
        if chunk_ids:
            assert f"t{chunk_ids[0] % render.PALETTE}" in classes
        for i in chunk_ids:
            per_chunk[i] = per_chunk.get(i, "") + data
    assert per_chunk == {c.index: c.text for c in res.chunks}
    starts = [a["id"] for t, a in tree.tags if "id" in a]
    assert starts == [f"chunk-{c.index}" for c in res.chunks]
    assert any("o" in a.get("class", "").split() for _, a in tree.tags)


def test_document_view_leaves_uncovered_text_bare():
    tree = Tree(render.document_html("aa  bb", [(0, 2), (4, 6)]))
    assert tree.segments[1] == ({}, "  ")


# ---------------------------------------------------------------- cards, stats, compare


def test_card_shows_sizes_preview_flags_and_explanations():
    text = "word " * 200
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=150, overlap=0)
    first = res.chunks[0]
    tree = Tree(render.card_html(first, render.Utf16(text), chunker.FLAGS))
    joined = "".join(tree.text)
    assert f"≈{first.tokens} tokens" in joined and f"{first.chars} chars" in joined
    assert render.preview(first.text) in joined and render.preview(first.text).endswith("…")
    assert len(render.preview(first.text)) == render.PREVIEW + 1
    for flag in first.flags:
        assert chunker.FLAGS[flag] in joined
        badge = next(a for t, a in tree.tags if a.get("data-flag") == flag)
        assert badge["tabindex"] == "0"  # the explanation also shows on keyboard focus


def test_long_lists_render_in_batches():
    text = "Short sentence. " * 600
    res = chunker.chunk(text, strategy="sentence", unit="chars", size=0, overlap=0)
    first = Tree(render.cards_html(res.chunks, text, chunker.FLAGS))
    cards = [a for t, a in first.tags if t == "li" and "data-chunk-index" in a]
    assert len(cards) == render.CARD_PAGE
    more = next(a for t, a in first.tags if a.get("id") == "more-cards")
    rest = Tree(render.cards_html(res.chunks, text, chunker.FLAGS, int(more["data-next"])))
    indices = [int(a["data-chunk-index"]) for t, a in rest.tags if "data-chunk-index" in a]
    assert indices[0] == render.CARD_PAGE and len(indices) == min(render.CARD_PAGE, len(res.chunks) - render.CARD_PAGE)


def test_stats_mark_estimates_and_not_exact_counts():
    text = "Plain text. " * 40
    approx = "".join(Tree(render.stats_html(chunker.chunk(text, size=30, overlap=5).stats)).text)
    exact = "".join(Tree(render.stats_html(chunker.chunk(text, size=30, overlap=5, tokenizer="cl100k").stats)).text)
    assert "≈" in approx and "≈" not in exact
    stats = chunker.chunk(text, size=30, overlap=5, tokenizer="cl100k").stats
    assert f"{stats.embedding_tokens:,}" in exact and f"{round(stats.duplicated_pct, 1):g}%" in exact


def test_compare_table_has_a_row_per_strategy():
    text = (ROOT / "app" / "sample.md").read_text(encoding="utf-8")
    rows = {name: chunker.chunk(text, strategy=name, size=120, overlap=10).stats for name in chunker.STRATEGIES}
    rows["fixed"] = "size must be a positive number"
    tree = Tree(render.compare_html(rows, "markdown", chunker.FLAGS))
    names = [a["data-strategy"] for t, a in tree.tags if "data-strategy" in a]
    assert sorted(names) == sorted(chunker.STRATEGIES)
    text_all = "".join(tree.text)
    assert "size must be a positive number" in text_all
    assert str(rows["markdown"].chunks) in text_all


# ---------------------------------------------------------------- advice


def messages(res, text, limit=None):
    return " ".join(m for _, m in render.advice(res, text, limit))


def test_advice_warns_about_heavy_overlap_and_model_limits():
    text = (ROOT / "app" / "sample.md").read_text(encoding="utf-8")
    res = chunker.chunk(text, strategy="fixed", size=300, overlap="60%")
    assert "over 50%" in messages(res, text)
    over = sum(c.tokens > 256 for c in res.chunks)
    assert over and f"{over} of {len(res.chunks)} chunks exceed the 256-token" in messages(res, text, "minilm")
    assert "exceed" not in messages(res, text, "openai")


def test_advice_suggests_structure_for_many_mid_sentence_cuts():
    text = (ROOT / "app" / "sample.md").read_text(encoding="utf-8")
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=200, overlap=0)
    assert "end mid-sentence" in messages(res, text) and "markdown" in messages(res, text)
    calm = chunker.chunk(text, strategy="markdown", size=400, overlap=0)
    assert "mid-sentence" not in messages(calm, text)


# ---------------------------------------------------------------- copy as code


def code_for(**options):
    text = (ROOT / "app" / "sample.md").read_text(encoding="utf-8")
    res = chunker.chunk(text, **options)
    return text, res, render.snippets(res.settings, chunker.DEFAULTS, filename="doc.md")


@pytest.mark.parametrize("options", [
    dict(strategy="recursive", unit="tokens", size=120, overlap="15%", tokenizer="approx"),
    dict(strategy="sentence", unit="chars", size=400, overlap=40, breaks=("paragraph", "clause")),
    dict(strategy="fixed", unit="words", size=50, overlap=5, tokenizer="estimate"),
])
def test_python_snippet_reproduces_the_view(options, tmp_path, monkeypatch):
    text, res, snips = code_for(**options)
    (tmp_path / "doc.md").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    code = snips["python"].replace("print(", "(lambda *a: None)(")
    exec(compile(code, "snippet", "exec"), scope)
    assert scope["result"].chunks == res.chunks


def test_cli_line_reproduces_the_export(tmp_path):
    text, res, snips = code_for(strategy="sentence", unit="chars", size=300, overlap="10%",
                                breaks=("paragraph", "sentence"))
    (tmp_path / "doc.md").write_text(text, encoding="utf-8")
    args = snips["cli"].split()
    assert args[:3] == ["python", "-m", "chunker"]
    out = subprocess.run([sys.executable, *args[1:]], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == chunker.to_jsonl(res)


def test_langchain_snippet_matches_the_strategy(monkeypatch):
    pytest.importorskip("langchain_text_splitters")
    tiktoken = pytest.importorskip("tiktoken")
    from chunker._tokenizers import tiktoken_encoding

    # from_tiktoken_encoder would download the vocabulary; hand it the bundled one instead.
    monkeypatch.setattr(tiktoken, "get_encoding", tiktoken_encoding)
    for options in (dict(unit="chars", size=300, overlap=30), dict(unit="tokens", size=80, overlap="10%", tokenizer="cl100k"),
                    dict(unit="words", size=60, overlap=6)):
        text, res, snips = code_for(strategy="langchain", **options)
        assert "langchain" in snips
        scope = {"open": lambda *a, **k: _Reader(text)}
        exec(compile(snips["langchain"], "snippet", "exec"), scope)
        assert scope["chunks"] == [c.text for c in res.chunks], options


class _Reader:
    def __init__(self, text):
        self.text = text

    def read(self):
        return self.text


def test_view_is_json_ready():
    text = (ROOT / "app" / "sample.md").read_text(encoding="utf-8")
    res = chunker.chunk(text, strategy="markdown", size=200, overlap=0)
    view = render.view(text, res, chunker.FLAGS, chunker.DEFAULTS, "bge")
    json.dumps(view)  # crosses to the main thread as plain data
    assert view["ok"] and view["chunks"] == len(res.chunks)


# ---------------------------------------------------------------- content types and pitfalls


@pytest.mark.parametrize("text, kind", [
    ("User: my invoice is wrong\nAssistant: which one?\nUser: March\nAssistant: fixed\n", "chat"),
    ("How do I reset it?\nHold the button.\nWhere is the log?\nIn /var/log.\nCan I export?\nYes.\n", "faq"),
    ((ROOT / "app" / "sample.md").read_text(encoding="utf-8"), "technical"),
    ("A plain paragraph of prose. It has sentences.\n\nAnother paragraph follows here.", "general"),
    ("   \n", ""),
])
def test_content_type_picks_a_starting_point(text, kind):
    assert render.content_type(text) == kind


def test_advice_offers_the_starting_point_for_the_content_type():
    text = "User: hi\nAssistant: hello\nUser: refund?\nAssistant: done\nUser: thanks\n"
    res = chunker.chunk(text, size=100, overlap=0)
    tree = Tree(render.advice_html(res, text))
    button = next(a for t, a in tree.tags if t == "button")
    assert button["data-apply"] == render.CONTENT_TYPES["chat"][1]
    assert "chat history" in "".join(tree.text)
    empty = "".join(Tree(render.advice_html(chunker.chunk("", size=100, overlap=0), "")).text)
    assert empty.startswith("Paste some text to start")


def test_pitfalls_are_detected():
    import inspect

    def said(text):
        return " ".join(m for _, m in render.pitfalls(text))

    assert "JSON" in said(json.dumps([{"id": i, "body": "text " * 5} for i in range(20)]))
    assert "CSV" in said("id,name,price\n" + "".join(f"{i},item {i},{i}.5\n" for i in range(30)))
    assert "source code" in said(inspect.getsource(subprocess))
    assert "byte-order mark" in said("\ufeffTitle\n\nBody.")
    assert "2 invisible" in said("no\u00a0break and zero\u200bwidth")
    assert said((ROOT / "app" / "sample.md").read_text(encoding="utf-8")) == ""


def test_records_preview_is_the_start_of_the_json_export():
    text = (ROOT / "app" / "sample.md").read_text(encoding="utf-8")
    res = chunker.chunk(text, strategy="markdown", size=200, overlap=0)
    shown = html.unescape(render.records_preview(res))
    assert json.loads(shown) == json.loads(chunker.to_json(res))[:3]


@settings(max_examples=200)
@given(st.text(alphabet=st.sampled_from("ab \n<&😀"), max_size=80), spans_strategy, st.integers(1, 12))
def test_a_sliced_document_view_keeps_text_chunks_and_line_ends(text, spans, every):
    spans = [(min(a, len(text)), min(b, len(text))) for a, b in spans]
    tree = Tree(render.document_html(text, spans, every=every))
    assert "".join(tree.text) == text
    # Blocks are cut only just after a newline, so the lines break exactly as in one flow.
    blocks = render.document_html(text, spans, every=every).split('</div><div class="slice">')
    for block in blocks[:-1]:
        assert html.unescape(re.sub("<[^>]*>", "", block)).endswith("\n")
    per_chunk: dict[int, str] = {}
    for attrs, data in tree.segments:
        for i in attrs.get("data-c", "").split():
            per_chunk[int(i)] = per_chunk.get(int(i), "") + data
    assert per_chunk == {i: text[a:b] for i, (a, b) in enumerate(spans) if b > a}
    ids = [a["id"] for t, a in tree.tags if "id" in a]
    assert len(ids) == len(set(ids))  # a span cut in two keeps its id on the first piece only


def test_a_long_document_view_comes_in_slices():
    text = ("A line of text that goes on for a while.\n" * 200)
    view = render.document_html(text, [(0, len(text))])
    assert view.count('<div class="slice">') == len(render.slice_ends(text)) > 2
    assert render.document_html("short\ntext", [(0, 4)]).count("slice") == 0


@settings(max_examples=200)
@given(st.text(alphabet=st.sampled_from("ab\n<"), max_size=80), spans_strategy,
       st.integers(1, 6), st.integers(1, 20), st.integers(1, 20))
def test_document_parts_join_to_the_view_and_are_counted_in_advance(text, spans, every, part, first):
    spans = [(min(a, len(text)), min(b, len(text))) for a, b in spans]
    parts = render.document_parts(text, spans, every, part, first)
    assert "".join(parts) == render.document_html(text, spans, every)
    assert len(parts) == render.count_parts(text, every, part, first)
    assert all(parts[1:])  # no empty part after the first
