"""The `context` setting: what the embedder reads before each chunk, and how it counts.

Every record's `embed_text` is its context then its text; `embed_tokens` is that text's count
in the chosen tokenizer; `size` bounds the embed text, unless the chunk is flagged oversize;
offsets stay the document's. Held on random and real text for every strategy, with and
without `min_size`, and on real files (the standard library's modules, real Markdown).
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import chunker
from chunker.settings._context import render
from chunker.tokens._tokenizers import get_tokenizer
from tests.test_properties import STRATEGIES, options, texts
from tests.test_tables import reference_tables
from tests.texts import ROOT, sample_document

TEMPLATES = [
    "headings",
    "{headings} {headings} {headings}\n\n",
    "{title} > {headings}\n\n",
    "{source}: ",
    "p. {page} {headings}\n",
    "Document: {title}\n\n",
    "{headings}",
]


def _own(unit: str, tokenizer: str):
    if unit == "chars":
        return len
    if unit == "words":
        return lambda s: len(s.split())
    return get_tokenizer(tokenizer).count


def _pages_of(text: str, cuts: list[int]) -> tuple[int, ...]:
    return tuple(sorted({0, *(c for c in cuts if 0 < c <= len(text))}))


def _header_of(text: str, c: chunker.Chunk) -> str:
    """The header rows a later part of a split table carries (flagged table_continued) at the
    end of its context: its table's header and delimiter rows, as tests/test_tables finds them."""
    if "table_continued" not in c.flags:
        return ""
    (header,) = [text[a:h] + "\n" for a, h, e, _ in reference_tables(text) if h <= c.start_char < e]
    return header


def check_context(text: str, opts: dict, *, source: str | None = None, pages: tuple[int, ...] = ()):
    doc = chunker.Document(text, source=source, pages=pages)
    try:
        res = doc.chunk(**opts)
    except chunker.ChunkerError as e:
        # A context the size cannot hold, or an overlap it leaves no room for: one line, said.
        message = str(e)
        assert "\n" not in message
        assert "context" in message, message
        assume(False)
    size, unit = res.settings.size, res.settings.unit
    own = _own(unit, opts["tokenizer"])
    count = get_tokenizer(opts["tokenizer"]).count
    for c in res:
        assert text[c.start_char : c.end_char] == c.text, "offsets index the document"
        assert c.embed_text == c.context + c.text
        page = c.page_start
        rendered = render(res.settings.context, c.headings, title=doc.title, source=source or "", page=page)
        assert c.context == rendered + _header_of(text, c), "the setting's context, then a split table's header"
        assert c.embed_tokens == count(c.embed_text)
        if size > 0:
            assert ("oversize" in c.flags) == (own(c.embed_text) > size), "oversize is judged on the embed text"
        assert ("tiny" in c.flags) == (own(c.text) < res.settings.min_size)
        limit = res.settings.model_tokens
        if limit is not None:
            assert ("truncated" in c.flags) == (c.embed_tokens > limit), "truncated is judged on the embed text"
    assert res.stats.embedding_tokens == sum(c.embed_tokens for c in res)
    if opts["strategy"] == "markdown":
        # Split again section by section, a chunk still has the heading path in force at its end.
        paths = heading_paths(text)
        for c in res:
            assert c.headings == paths(c.end_char), (c.text[:60], c.headings)
    return doc, res


def heading_paths(text: str):
    """The markdown heading path in force at each position: every heading before it, by level."""
    import bisect

    from chunker.strategies.markdown import blocks

    starts, found, stack = [], [], []
    for b in blocks(text):
        if b.kind == "heading":
            while stack and stack[-1][0] >= b.level:
                stack.pop()
            stack.append((b.level, b.title))
            starts.append(b.start)
            found.append(tuple(t for _, t in stack))
    return lambda end: found[bisect.bisect_left(starts, end) - 1] if bisect.bisect_left(starts, end) else ()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(texts, options(), st.sampled_from(TEMPLATES), st.sampled_from([None, "notes.md", "guide.txt"]), st.data())
def test_embed_text_fits_the_size_unless_flagged(text, opts, template, source, data):
    pages = _pages_of(text, data.draw(st.lists(st.integers(0, max(0, len(text))), max_size=4)))
    model_max = data.draw(st.none() | st.integers(1, 300))
    doc, res = check_context(text, {**opts, "context": template, "model_max": model_max}, source=source, pages=pages)
    # The same split with no context: offsets, texts and headings are what a context adds to.
    plain = doc.chunk(**opts)
    count = get_tokenizer(opts["tokenizer"]).count
    for c in plain:
        assert c.context == _header_of(text, c), "no context but a split table's header rows"
        assert c.embed_text == c.context + c.text and c.embed_tokens == count(c.embed_text)
    if all(not c.context for c in res):
        assert [c.text for c in res] == [c.text for c in plain]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(texts, options(tokenizers=("o200k",)), st.sampled_from(TEMPLATES))
def test_embed_tokens_exact_in_an_exact_tokenizer(text, opts, template):
    check_context(text, {**opts, "context": template}, source="notes.md")


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("unit", ["tokens", "chars", "words"])
def test_every_strategy_fits_a_long_context_on_the_sample(strategy, unit):
    """A context as long as a third of the size: every chunk's embed text fits the size."""
    text = sample_document()
    size = {"tokens": 120, "chars": 500, "words": 90}[unit]
    opts = dict(strategy=strategy, unit=unit, size=size, overlap=0, tokenizer="o200k")
    _, res = check_context(text, {**opts, "context": "{title} > {headings}\n\n"}, source="sample.md")
    own = _own(unit, "o200k")
    bare = chunker.chunk(text, **opts)
    assert all("oversize" in c.flags or own(c.embed_text) <= size for c in res)
    # Oversize only where the text was so with no context (a paragraph never split, a heading).
    assert sum("oversize" in c.flags for c in res) <= sum("oversize" in c.flags for c in bare) + 0
    with_min = chunker.Document(text, source="sample.md").chunk(**opts, context="headings", min_size=size // 4)
    assert all("oversize" in c.flags or own(c.embed_text) <= size for c in with_min)


def test_none_is_todays_output():
    text = sample_document()
    a = chunker.chunk(text, strategy="markdown", size=200, overlap=20)
    b = chunker.chunk(text, strategy="markdown", size=200, overlap=20, context="none")
    assert chunker.to_jsonl(a) == chunker.to_jsonl(b)
    assert "embed_text" not in chunker.to_jsonl(a)
    assert all(c.embed_text is c.text and c.embed_tokens == c.tokens for c in a)


def test_headings_context_on_real_markdown():
    text = sample_document()
    res = chunker.chunk(text, strategy="markdown", size=200, overlap=0, tokenizer="o200k", context="headings")
    count = get_tokenizer("o200k").count
    for c in res:
        if c.headings:
            assert c.embed_text.startswith(" > ".join(c.headings) + "\n\n")
        assert c.embed_tokens <= 200 or "oversize" in c.flags
        assert c.embed_tokens == count(c.embed_text)
    assert any(len(c.headings) > 1 for c in res)


def test_code_paths_as_context_on_stdlib_modules():
    import textwrap

    source = inspect.getsource(textwrap)
    res = chunker.chunk(source, source="textwrap.py", strategy="code", size=150, overlap=0, context="{source} {headings}\n")
    assert any("TextWrapper > " in c.context for c in res), [c.context for c in res][:10]
    for c in res:
        assert source[c.start_char : c.end_char] == c.text
        assert c.context.startswith("textwrap.py ")
        assert c.embed_tokens <= 150 or "oversize" in c.flags


def test_title_is_the_first_heading_else_the_name():
    assert chunker.Document("intro\n\n# Real Title\n\nbody", source="x.md").title == "Real Title"
    assert chunker.Document("no headings here", source="dir/notes.txt").title == "notes"
    # A comment in a code file is no heading: the title is the file's stem.
    assert chunker.Document("# a comment\nx = 1\n", source="src/tool.py").title == "tool"
    assert chunker.Document("plain").title == ""
    assert chunker.Document("# A\n", title="Given").title == "Given"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("{heading}", "unknown field {heading}"),
        ("{title", "not a template"),
        ("oops }", "not a template"),
        ("heading", "has no field"),
        ("{page!r}", "conversion or format spec"),
        (3, "must be text"),
        # A field's name as written: its line break broke the one line, and a long one filled it.
        ("{tit\nle}", "unknown field {tit\\nle}"),
        ("{" + "x" * 5000 + "}", "unknown field {" + "x" * 40 + "…}"),
    ],
)
def test_a_bad_template_is_one_line_naming_the_fields(value, said):
    with pytest.raises(chunker.ChunkerError) as e:
        chunker.chunk("text", context=value)
    message = str(e.value)
    assert said in message and "\n" not in message and len(message) < 300
    if isinstance(value, str):
        assert "{headings}, {title}, {source}, {page}" in message


def test_a_template_with_a_lone_surrogate_is_refused_in_one_line():
    # What a command line makes of undecodable bytes: it would reach every embed_text, which
    # the JSON Lines writer cannot encode (a traceback, before this check).
    with pytest.raises(chunker.ChunkerError) as e:
        chunker.chunk("# H\n\nbody", strategy="markdown", context="\udcff{title}")
    message = str(e.value)
    assert "lone surrogate (U+DCFF) at offset 0" in message and "\n" not in message


def test_a_context_longer_than_the_size_says_how_long():
    text = "# A very long heading that fills the budget on its own\n\nShort body here.\n"
    with pytest.raises(chunker.ChunkerError) as e:
        chunker.chunk(text, strategy="markdown", unit="chars", size=40, overlap=0, context="headings")
    message = str(e.value)
    assert "is 54 chars, and the size is 40" in message, message
    with pytest.raises(chunker.ChunkerError, match="is 31 chars, and the size is 20"):
        chunker.chunk("body text", unit="chars", size=20, overlap=0, context="{title}" + "x" * 30, source="t")
    with pytest.raises(chunker.ChunkerError, match="overlap 15 must be smaller than what the context leaves"):
        chunker.chunk("body " * 40, unit="chars", size=20, overlap=15, context="[{source}] ", source="abcd")


def test_exports_carry_embed_text_when_a_context_is_set():
    text = sample_document()
    res = chunker.chunk(text, strategy="markdown", size=200, overlap=0, context="headings")
    lines = [json.loads(line) for line in chunker.to_jsonl(res).splitlines()]
    assert [r["embed_text"] for r in lines] == [c.embed_text for c in res]
    assert [r["embed_tokens"] for r in lines] == [c.embed_tokens for c in res]
    # The fast JSON Lines writer and the records agree, character for character.
    assert chunker.to_jsonl(res) == "".join(json.dumps(c.to_dict(embed=True), ensure_ascii=False) + "\n" for c in res)
    assert json.loads(chunker.to_json(res))[0]["embed_text"] == res.chunks[0].embed_text
    assert "embedded" in chunker.to_text(res).splitlines()[0]


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chunker", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_cli_gives_the_library_embed_text():
    path = ROOT / "app" / "sample.md"
    out = _cli(str(path), "--strategy", "markdown", "--size", "150", "--overlap", "0", "--context", "{title} > {headings}\\n\\n")
    assert out.returncode == 0, out.stderr
    got = [json.loads(line) for line in out.stdout.splitlines()]
    want = chunker.Document.open(path).chunk(strategy="markdown", size=150, overlap=0, context="{title} > {headings}\n\n")
    assert [r["embed_text"] for r in got] == [c.embed_text for c in want]
    bad = _cli(str(path), "--context", "{nope}")
    assert bad.returncode == 2 and "unknown field {nope}" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_the_retrieval_check_ranks_the_embedded_text_when_asked_and_says_so():
    from chunker.retrieval._questions import Question, Reference

    text = ANIMALS
    at = text.index("They graze")
    questions = [Question("zebras grass", [Reference(at, at + 28, text[at : at + 28])])]
    opts = dict(strategy="markdown", unit="words", size=8, overlap=0, context="headings")
    plain = chunker.Document(text).chunk(**opts)
    assert plain.chunks[1].embed_text == "Zebras\n\nThey graze on grass all day."
    by_text = chunker.evaluate(text, plain, questions, top_k=1)
    by_embed = chunker.evaluate(text, plain, questions, top_k=1, index="embedded")
    assert (by_text.index, by_embed.index) == ("text", "embedded")
    assert by_embed.to_dict()["index"] == "embedded"
    # "zebras" is in the first chunk's text; the answer's chunk has it in its context only.
    assert by_text.per_question[0].retrieved == (0,)
    assert by_embed.per_question[0].retrieved == (1,)
    assert by_embed.recall == 1.0 and by_text.recall == 0.0
    rows = list(
        chunker.sweep(
            text,
            questions,
            strategies=["markdown"],
            sizes=[8],
            unit="words",
            overlap=0,
            context="headings",
            index="embedded",
            top_k=1,
        )
    )
    assert [r.recall for r in rows] == [1.0]
    assert [r.to_dict()["index"] for r in rows] == ["embedded"]
    with pytest.raises(chunker.ChunkerError, match="index must be text or embedded"):
        chunker.evaluate(text, plain, questions, index="context")


ANIMALS = "# Zebras\n\nStripes help them hide.\n\nThey graze on grass all day.\n\n# Lions\n\nLions sleep on grass.\n"


def test_cli_eval_takes_the_index_setting(tmp_path):
    text = ANIMALS
    doc = tmp_path / "animals.md"
    doc.write_text(text, encoding="utf-8")
    at = text.index("They graze")
    qs = tmp_path / "q.jsonl"
    qs.write_text(json.dumps({"question": "zebras grass", "references": [{"start_index": at, "end_index": at + 28}]}) + "\n")
    common = ["eval", str(doc), str(qs), "--strategy", "markdown", "--unit", "words", "--size", "8", "--overlap", "0"]
    out = _cli(*common, "--context", "headings", "--index", "embedded", "--top-k", "1")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["index"] == "embedded" and report["per_question"][0]["retrieved"] == [1]


@pytest.mark.parametrize("template", ["headings", "{title} > {headings}\n\n", "[{source}] ", "{headings}: "])
def test_llama_index_embed_mode_text_is_embed_text(template):
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.schema import MetadataMode

    from chunker.llama_index import ChunkerNodeParser

    text = sample_document()
    parser = ChunkerNodeParser(strategy="markdown", size=120, overlap=0, tokenizer="o200k", context=template)
    doc = LlamaDocument(text=text, metadata={"file_name": "sample.md", "author": "someone"})
    nodes = parser.get_nodes_from_documents([doc])
    want = chunker.Document(text, source="sample.md").chunk(**parser.settings)
    assert len(nodes) == len(want)
    for node, c in zip(nodes, want):
        assert (node.start_char_idx, node.end_char_idx, node.text) == (c.start_char, c.end_char, c.text)
        assert node.get_content(metadata_mode=MetadataMode.EMBED) == c.embed_text.strip()
        assert node.metadata["author"] == "someone"  # the input's metadata is kept, not embedded
        if c.context:
            assert node.metadata["context"] == c.context.strip()
    assert any(c.context for c in want)
    # Chunks are trimmed and no context here starts with whitespace: LlamaIndex's strip of the
    # whole text takes nothing away, the two are equal exactly.
    assert all(c.embed_text == c.embed_text.strip() for c in want)


def test_llama_index_without_context_is_as_before():
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.schema import MetadataMode

    from chunker.llama_index import ChunkerNodeParser

    doc = LlamaDocument(text=sample_document(), metadata={"author": "someone"})
    nodes = ChunkerNodeParser(strategy="markdown", size=120, overlap=0).get_nodes_from_documents([doc])
    assert all("context" not in n.metadata for n in nodes)
    assert nodes[0].get_content(metadata_mode=MetadataMode.EMBED) == "author: someone\n\n" + nodes[0].text


def test_cards_show_the_context_muted_and_escaped_and_the_embedded_view_in_full():
    from app.cards import card_html, embedded_html
    from app.html import Utf16

    text = "# <b>Tags</b> & more\n\nBody with <script>alert(1)</script> in it.\n"
    res = chunker.chunk(text, strategy="markdown", unit="chars", size=200, overlap=0, context="headings")
    (c,) = res.chunks
    card = card_html(c, Utf16(text), chunker.FLAGS)
    assert '<span class="ctx"' in card and "&lt;b&gt;Tags&lt;/b&gt; &amp; more⏎⏎" in card
    assert "<b>Tags" not in card and "<script>" not in card
    assert f"{c.embed_tokens} embedded" in card
    view = embedded_html(res.chunks)
    assert '<pre class="embed"><span class="ctx">&lt;b&gt;Tags&lt;/b&gt; &amp; more\n\n</span># &lt;b&gt;' in view
    bare = chunker.chunk(text, strategy="markdown", unit="chars", size=200, overlap=0)
    assert 'class="ctx"' not in card_html(bare.chunks[0], Utf16(text), chunker.FLAGS)


BROKEN_PYTHON = "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n\n\nclass Later:\n    x = 1\n"


def test_a_python_file_that_does_not_parse_is_cut_at_separators_with_a_note(tmp_path):
    res = chunker.chunk(BROKEN_PYTHON, source="broken.py", strategy="code", unit="chars", size=30, overlap=0)
    (note,) = res.notes
    assert note.startswith("not Python that parses (") and "line 5" in note and "separators" in note
    assert all(BROKEN_PYTHON[c.start_char : c.end_char] == c.text for c in res)
    assert not chunker.chunk("def fine():\n    return 1\n", strategy="code", size=30, overlap=0).notes
    assert not chunker.chunk("a = 1\n", strategy="recursive", size=30, overlap=0).notes
    path = tmp_path / "broken.py"
    path.write_text(BROKEN_PYTHON, encoding="utf-8")
    out = _cli(str(path), "--strategy", "code", "--unit", "chars", "--size", "30", "--overlap", "0")
    assert out.returncode == 0 and out.stdout
    assert out.stderr == f"chunker: note: {path.name}: {note}\n" or out.stderr == f"chunker: note: {path}: {note}\n", out.stderr
    jobs = _cli(str(path), str(path), "--jobs", "2", "--strategy", "code", "--unit", "chars", "--size", "30", "--overlap", "0")
    assert jobs.returncode == 0 and jobs.stderr.count("chunker: note: ") == 2


def test_the_page_view_shows_the_note():
    from app.view import view

    doc = chunker.Document(BROKEN_PYTHON, name="broken.py")
    res = doc.chunk(strategy="code", unit="chars", size=30, overlap=0)
    shown, _ = view(doc, res, doc.advise(res), chunker.FLAGS)
    assert shown["notes"].startswith('<p class="note">Note: not Python that parses (')
    ok = chunker.Document("x = 1\n", name="ok.py")
    fine = ok.chunk(strategy="code", unit="chars", size=30, overlap=0)
    assert view(ok, fine, ok.advise(fine), chunker.FLAGS)[0]["notes"] == ""


def test_title_comes_from_the_readers_metadata():
    import io

    import docx  # type: ignore[import-untyped]
    import pypdf

    from tests import documents

    page = b"<html><head><title> Field &amp; Harbour\n guide </title></head><body><h1>First</h1><p>Body.</p></body></html>"
    assert chunker.Document.from_bytes(page, name="guide.html").title == "Field & Harbour guide"
    assert chunker.Document.from_bytes(b"<h1>Only a heading</h1><p>Body.</p>", name="x.html").title == "Only a heading"

    d = docx.Document()
    d.add_paragraph("Body text of the memo.")
    d.core_properties.title = "Quarterly memo"
    buf = io.BytesIO()
    d.save(buf)
    assert chunker.Document.from_bytes(buf.getvalue(), name="memo.docx").title == "Quarterly memo"
    plain = documents.word_document([("p", "No heading and no title.")])
    assert chunker.Document.from_bytes(plain, name="notes.docx").title == "notes"

    book = documents.typeset([("Harbour rules", ["Boats moor at the east quay."])])
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(book.pdf))
    writer.add_metadata({"/Title": "The harbour handbook"})
    out = io.BytesIO()
    writer.write(out)
    doc = chunker.Document.from_bytes(out.getvalue(), name="handbook.pdf")
    assert doc.title == "The harbour handbook"
    res = doc.chunk(strategy="page", size=0, context="{title}, p. {page}: ")
    assert res.chunks[0].embed_text.startswith("The harbour handbook, p. 1: ")
    # Without a title of its own, a PDF's is its first heading, as its text has it.
    assert chunker.Document.from_bytes(book.pdf, name="handbook.pdf").title == "Harbour rules"
    src = chunker.Document.from_bytes(book.pdf, name="handbook.pdf").chunk(size=200, overlap=0, context="[{source}] ")
    assert src.chunks[0].context == "[handbook.pdf] "


def test_arrow_tables_carry_embed_columns_with_a_context():
    pa = pytest.importorskip("pyarrow")
    from chunker.arrow import CHUNK_SCHEMA, EMBED_SCHEMA, chunk_table

    table = pa.table({"doc": [1, 2], "text": [sample_document(), "# Short\n\nA body.\n"]})
    plain = chunk_table(table, strategy="sentence", size=100, overlap=0)
    assert plain.schema == pa.schema([("doc", pa.int64()), *CHUNK_SCHEMA])
    # markdown may give a split table's later parts its header rows: the columns are there,
    # null where the JSON record has no embed text.
    own = chunk_table(table, strategy="markdown", size=100, overlap=0)
    assert own.schema == pa.schema([("doc", pa.int64()), *EMBED_SCHEMA])
    records = [
        c.to_dict() for t in table.column("text").to_pylist() for c in chunker.chunk(t, strategy="markdown", size=100, overlap=0)
    ]
    assert own.column("embed_text").to_pylist() == [r.get("embed_text") for r in records]
    out = chunk_table(table, strategy="markdown", size=100, overlap=0, context="headings")
    assert out.schema == pa.schema([("doc", pa.int64()), *EMBED_SCHEMA])
    want = [
        c.embed_text
        for t in table.column("text").to_pylist()
        for c in chunker.chunk(t, strategy="markdown", size=100, overlap=0, context="headings")
    ]
    assert out.column("embed_text").to_pylist() == want
    assert chunk_table(table.slice(0, 0), strategy="markdown", size=100, overlap=0, context="headings").num_rows == 0


def test_the_page_takes_a_template_as_typed_and_gives_the_clis_embed_text(tmp_path, monkeypatch):
    from app import worker
    from tests.test_page_worker import SETTINGS

    text = sample_document()
    template = "{title}: \\n"  # a trailing space, and \n typed as the command line takes it
    monkeypatch.setattr(worker, "S", worker.Session())
    view = worker.run({"text": text, "name": "sample.md"}, json.dumps({**SETTINGS, "strategy": "markdown", "context": template}))
    assert view["ok"], view.get("error")
    page = [c.embed_text for c in worker.S.result]
    path = tmp_path / "sample.md"
    path.write_text(text, encoding="utf-8")
    args = ["--strategy", "markdown", "--size", SETTINGS["size"], "--overlap", SETTINGS["overlap"], "--context", template]
    out = _cli(str(path), *args)
    assert out.returncode == 0, out.stderr
    assert page == [json.loads(line)["embed_text"] for line in out.stdout.splitlines()]
    assert page[0].startswith(worker.S.document.title + ": \n")


def test_a_strategys_own_context_follows_the_settings_and_counts_in_the_budget(monkeypatch):
    """The interface a strategy uses to add context of its own (a table's header rows before a
    part that continues it): Span.context, after the setting's context, inside the size."""
    from chunker.strategies import STRATEGIES, Span, Strategy

    header = "| a | b |\n|---|---|\n"

    def split(text, *, size, overlap, measure, breaks=()):
        # Lines packed to the size with the header before every part after the first, as a
        # table strategy does: the header counts against the size it is told.
        spans, start, k = [], 0, 0
        lines = [m for m in range(len(text)) if text[m] == "\n"]
        ends = [e + 1 for e in lines] + ([len(text)] if not text.endswith("\n") else [])
        while start < len(text):
            own = header if k else ""
            end = start
            for e in ends:
                if e > start and measure.count(start, e) + len(own) <= size:
                    end = e
            end = max(end, next(e for e in ends if e > start))
            spans.append(Span(start, end, context=own))
            start, k = end, k + 1
        return spans

    monkeypatch.setitem(STRATEGIES, "rows", Strategy("rows", "Lines, a header before each later part.", function=split))
    text = header + "".join(f"| {i} | row {i} |\n" for i in range(30))
    plain = chunker.chunk(text, strategy="rows", unit="chars", size=80, overlap=0)
    assert plain.chunks[0].context == "" and all(c.context == header for c in plain.chunks[1:])
    assert all(c.embed_text == c.context + c.text and len(c.embed_text) <= 80 for c in plain)
    assert json.loads(chunker.to_jsonl(plain).splitlines()[1])["embed_text"].startswith(header)
    framed = chunker.chunk(text, source="t.md", strategy="rows", unit="chars", size=80, overlap=0, context="[{source}] ")
    for c in framed:
        assert c.embed_text == "[t.md] " + ("" if c.index == 0 else header) + c.text
        assert len(c.embed_text) <= 80 and "oversize" not in c.flags
        assert text[c.start_char : c.end_char] == c.text
    merged = chunker.chunk(text, strategy="rows", unit="chars", size=80, overlap=0, min_size=60)
    assert all(len(c.embed_text) <= 80 or "oversize" in c.flags for c in merged)
    assert all(text[c.start_char : c.end_char] == c.text for c in merged)


def test_each_section_is_budgeted_by_its_own_heading_path():
    """A section under a short heading path keeps nearly the whole size; only a section under a
    long one is cut smaller: split alone, each is what the size less its own context gives."""
    short = "# A\n\n" + " ".join(f"Sentence {i} of the first section." for i in range(40)) + "\n\n"
    long_path = "## " + "A much longer heading path " * 3 + "\n\n"
    long = long_path + " ".join(f"Sentence {i} of the second section." for i in range(40)) + "\n"
    text = short + long
    size = 300
    res = chunker.chunk(text, strategy="markdown", unit="chars", size=size, overlap=0, context="headings")
    split_at = len(short)
    costs = {c.context for c in res}
    assert len(costs) == 2
    for c in res:
        assert len(c.embed_text) <= size
        alone = chunker.chunk(text, strategy="markdown", unit="chars", size=size - len(c.context), overlap=0)
        same = [(a.start_char, a.end_char) for a in alone if (a.start_char < split_at) == (c.start_char < split_at)]
        assert (c.start_char, c.end_char) in same, "each section is split with what its own context leaves"
    first = [c for c in res if c.start_char < split_at]
    second = [c for c in res if c.start_char >= split_at]
    assert max(len(c.embed_text) for c in first[:-1]) > size - len(long_path), (
        "the short path's section is not cut for the long one"
    )
    assert len(second) > len(first)
