"""Documents in: PDF, .docx and HTML to one text whose offsets the chunks index.

The PDFs and Word files are made here (tests/documents.py), so every test knows the truth: the
page each sentence was typeset on, the headings, the tables. Real PDFs that Debian packages
ship are a smoke test when installed.
"""

from __future__ import annotations

import io
import logging
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker import ChunkerError
from chunker.documents import MAX_BYTES, Extracted, detect_kind, extract
from chunker.documents._html import escape_block_start, html_to_text
from chunker.documents._layout import PAGE_BREAK, PAGE_CONTINUES, Line, lines_to_text
from tests import documents as docs
from tests.texts import ROOT

STRATEGIES = tuple(chunker.STRATEGIES)


def assert_offsets(doc: Extracted) -> None:
    """Every chunk of every strategy is the text at its offsets."""
    for strategy in STRATEGIES:
        for c in chunker.chunk(doc.text, strategy=strategy, unit="chars", size=300, overlap=0).chunks:
            assert doc.text[c.start_char : c.end_char] == c.text, (strategy, c.index)


def sentence_chunks(text: str):
    return chunker.chunk(text, strategy="sentence", size=0).chunks


# -- kinds and plain text ----------------------------------------------------------------------


def test_kind_comes_from_the_content_before_the_name():
    pdf = docs.draw_lines([["Hello."]])
    assert detect_kind(pdf, "report.txt") == "pdf"
    assert detect_kind(b"  <!doctype html><title>x</title>") == "html"
    assert detect_kind(b"\xef\xbb\xbf<html><body>x") == "html"
    assert detect_kind(b"<p>A paragraph</p>", None) == "html"
    assert detect_kind(b"<p>A paragraph</p>", "README.md") == "text"
    assert detect_kind(b"x < y and <b> is bold", None) == "text"
    assert detect_kind(b"Anything at all", "page.htm") == "html"
    assert detect_kind(docs.word_document([("p", "Hi.")]), "upload.bin") == "docx"
    assert detect_kind(b"junk\n%PDF-1.4\n", "scan.pdf") == "pdf"
    assert detect_kind(b"A PDF starts with %PDF-1.7, as here.", "notes.md") == "text"


@pytest.mark.parametrize(
    "data, name, words",
    [
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "memo.doc", "save it as .docx"),
        (b"PK\x03\x04" + bytes(100), "sheet.xlsx", "not a Word .docx"),
        (b"<html>not really</html>", "report.pdf", "is not a PDF"),
        (b"plain words", "letter.docx", "is not a Word document"),
    ],
)
def test_unsupported_or_mislabelled_files_say_what_to_do(data, name, words):
    with pytest.raises(ChunkerError, match=re.escape(words)) as e:
        extract(data, name=name)
    assert name in str(e.value) and "\n" not in str(e.value)


def test_text_is_decoded_strictly_and_kept_as_is():
    raw = "\ufeffTitle\r\n\r\nBody – café.\r\n".encode()
    doc = extract(raw, name="notes.txt")
    assert (doc.kind, doc.text, doc.pages) == ("text", raw.decode("utf-8"), ())
    assert doc.page_range(0, 5) is None
    with pytest.raises(ChunkerError, match=r"notes.txt: not UTF-8 text \(bad byte at offset 6\)"):
        extract(b"hello \xff", name="notes.txt")


def test_files_over_the_limit_are_refused_with_the_limit_named():
    assert MAX_BYTES == 50_000_000
    with pytest.raises(ChunkerError, match=r"big.pdf is 2 MB, over the 1.5 MB limit"):
        extract(b"%PDF-1.7" + bytes(2_000_000 - 8), name="big.pdf", max_bytes=1_500_000)
    with pytest.raises(ChunkerError, match="read the file in binary mode"):
        extract("text", name="x.txt")  # type: ignore[arg-type]


def test_import_and_text_and_html_need_neither_pypdf_nor_mammoth():
    code = (
        "import sys, chunker\nfrom chunker.documents import extract\n"
        "extract(b'plain'); extract(b'<h1>T</h1><p>x</p>')\n"
        "print(sorted(m for m in ('pypdf', 'mammoth', 'cobble', 'html.parser', 'zipfile')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]"]  # HTML is read by chunker.documents._tags, not html.parser
    code = "import sys, chunker, chunker.documents\nprint('html.parser' in sys.modules, 'pypdf' in sys.modules)"
    bare = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert bare.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    "module, data, name",
    [
        ("pypdf", b"%PDF-1.4\n%%EOF", "a.pdf"),
        ("mammoth", docs.word_document([("p", "x")]), "a.docx"),
    ],
)
def test_a_missing_optional_package_names_the_install(monkeypatch, module, data, name):
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    with pytest.raises(ChunkerError, match=re.escape("pip install 'chunkscope[documents]'")):
        extract(data, name=name)


# -- HTML ------------------------------------------------------------------------------------

PAGE = """<!DOCTYPE html>
<html><head><title>Not body text</title>
<style>p { color: red }</style><script>var s = "<p>never</p>";</script></head>
<body><noscript>Turn on scripts</noscript><template><p>hidden</p></template>
<h1>Fish &amp; Chips</h1>
<p>Cod,   haddock
 and&nbsp;plaice &lt;fresh&gt; &eacute;t&#233; &#x2014; daily.</p>
<ul><li>Batter<ul><li>flour</li><li>water<ol start="3"><li>whisk</li><li>rest</li></ol></li></ul></li>
<li><p>Oil</p><p>kept hot</p></li></ul>
<table><caption>Prices</caption>
<thead><tr><th>Dish</th><th>Price | net</th></tr></thead>
<tbody><tr><td>Cod<br>large</td><td>9</td></tr><tr><td colspan="2">Sides extra</td></tr></tbody></table>
<h2>Recipe</h2>
<pre><code class="language-python">
def fry(fish):
    return fish  # ```  kept   verbatim
</code></pre>
<p># not a heading</p>
<p>Line one<br>line two</p>
</body></html>"""

PAGE_TEXT = """# Fish & Chips

Cod, haddock and plaice <fresh> été — daily.

- Batter
  - flour
  - water
    3. whisk
    4. rest
- Oil
  kept hot

Prices

| Dish | Price \\| net |
|---|---|
| Cod large | 9 |
| Sides extra |  |

## Recipe

````python
def fry(fish):
    return fish  # ```  kept   verbatim
````

\\# not a heading

Line one
line two"""


def test_html_becomes_markdown_flavoured_text():
    doc = extract(PAGE.encode(), name="fish.html")
    assert doc.kind == "html" and doc.pages == ()
    assert doc.text == PAGE_TEXT
    assert_offsets(doc)
    headings = {c.headings for c in chunker.chunk(doc.text, strategy="markdown", unit="chars", size=200, overlap=0).chunks}
    assert ("Fish & Chips", "Recipe") in headings


def test_html_charset_from_meta_and_fallback():
    assert extract('<meta charset="windows-1252"><p>caf\xe9 \x93q\x94</p>'.encode("latin-1")).text == "café “q”"
    assert extract(b"<html><p>caf\xe9</p>").text == "café"  # not UTF-8: read as Windows-1252


@given(
    st.text(
        alphabet=st.characters(blacklist_characters="<&#`~\x00\r", blacklist_categories=("Cs", "Zl", "Zp", "Cc"))
        | st.sampled_from(" \t\n"),
        max_size=200,
    )
)
@settings(max_examples=200, deadline=None)
def test_html_text_without_markup_is_its_words(text):
    # html.parser reads text as is (no tags, no entities): only whitespace is normalised.
    expected = " ".join(re.split(r"[ \t\n\r\f\xa0]+", text.strip(" \t\n\r\f\xa0")))
    got = html_to_text(f"<p>{text}</p>")
    assert got == escape_block_start(expected)


@given(
    st.lists(
        st.sampled_from(
            [
                "<p>",
                "</p>",
                "<ul>",
                "</ul>",
                "<li>",
                "<ol>",
                "</ol>",
                "<table>",
                "</table>",
                "<tr>",
                "<td>",
                "</td>",
                "<th>",
                "<pre>",
                "</pre>",
                "<h2>",
                "</h2>",
                "<br>",
                "<script>",
                "</script>",
                "<caption>",
                "word",
                " ",
                "\n",
                "a|b",
                "&amp;",
            ]
        ),
        max_size=40,
    )
)
@settings(max_examples=300, deadline=None)
def test_html_converter_takes_any_tag_soup(pieces):
    text = html_to_text("".join(pieces))
    # Blank lines are one between blocks; inside a <pre> (a fenced block) they are the page's own.
    outside = re.sub(r"(?ms)^```\n.*?^```$", "```", text)
    assert "\n\n\n" not in outside and text == text.strip()


# -- Word ------------------------------------------------------------------------------------

WORD = [
    ("h1", "Annual Review"),
    ("p", "The harbour reopened in spring."),
    ("h2", "Finances"),
    ("p", "Costs fell for the third year."),
    ("table", [["Item", "Cost | net"], ["Rope\nand chain", "120"], ["Paint", "80"]]),
    ("h3", "Outlook"),
    ("bullet", "More ferries"),
    ("bullet", "A new quay"),
    ("number", "Survey the pier"),
    ("h2", "Staff"),
    ("p", "# Nine keepers, two new."),
]


def test_docx_headings_lists_and_tables():
    doc = extract(docs.word_document(WORD), name="review.docx")
    assert doc.kind == "docx" and doc.pages == ()
    assert (
        doc.text
        == """# Annual Review

The harbour reopened in spring.

## Finances

Costs fell for the third year.

| Item | Cost \\| net |
|---|---|
| Rope and chain | 120 |
| Paint | 80 |

### Outlook

- More ferries
- A new quay

1. Survey the pier

## Staff

\\# Nine keepers, two new."""
    )
    assert_offsets(doc)


def test_docx_headings_reach_markdown_heading_paths():
    doc = extract(docs.word_document(WORD), name="review.docx")
    chunks = chunker.chunk(doc.text, strategy="markdown", unit="chars", size=200, overlap=0).chunks

    def path_of(phrase: str) -> tuple[str, ...]:
        (found,) = [c.headings for c in chunks if phrase in c.text]
        return found

    assert path_of("harbour reopened") == ("Annual Review",)
    assert path_of("Costs fell") == ("Annual Review", "Finances")
    assert path_of("A new quay") == ("Annual Review", "Finances", "Outlook")
    assert path_of("Nine keepers") == ("Annual Review", "Staff")


def test_broken_docx_files():
    data = docs.word_document(WORD)
    for cut in (len(data) // 2, len(data) - 10, 40):
        with pytest.raises(ChunkerError, match=r"review.docx is a damaged or truncated .docx"):
            extract(data[:cut], name="review.docx")
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("word/other.xml", "<x/>")
    with pytest.raises(ChunkerError, match="without word/document.xml"):
        extract(other.getvalue(), name="odd.docx")


# -- PDF -------------------------------------------------------------------------------------

SECTIONS = [("Alpha apples", 12), ("Beta bridges", 70), ("Gamma gardens", 9), ("Delta docks", 55)]


@pytest.fixture(scope="module")
def book() -> docs.Typeset:
    """Four sections, each opening a page with a heading; the second and fourth run on to
    more pages, with sentences crossing the page breaks. Running header and footer."""
    return docs.typeset(
        [(f"Section {title}", docs.sentences_for(n, count)) for n, (title, count) in enumerate(SECTIONS)],
        header="Harbour Board Quarterly",
        footer="Page {page} of {pages}",
    )


def test_pdf_pages_and_headings(book):
    calls = []
    doc = extract(book.pdf, name="book.pdf", progress=lambda done, total: calls.append((done, total)))
    pages = max(p for where in book.sentences.values() for p in where)
    assert doc.kind == "pdf" and len(doc.pages) == pages and doc.pages[0] == 0
    assert calls == [(n, pages) for n in range(1, pages + 1)]
    # Each page starts right after its one form feed, and page texts hold none of their own.
    assert doc.text.count("\f") == pages - 1
    for number, start in enumerate(doc.pages):
        assert doc.text.count("\f", 0, start) == number
    for page, title in book.headings:
        line = f"# {title}"
        assert line in doc.text.split("\n")
        at = doc.text.index(line)
        assert doc.page_range(at, at + len(line)) == (page, page)
    assert_offsets(doc)


def test_pdf_sentences_land_on_the_pages_they_were_typeset_on(book):
    doc = extract(book.pdf, name="book.pdf")
    seen = {}
    for c in sentence_chunks(doc.text):
        if c.text.startswith("#"):
            continue
        sentence = " ".join(c.text.split())  # a sentence crossing a page holds "\f\n"
        assert sentence in book.sentences, sentence
        seen[sentence] = doc.page_range(c.start_char, c.end_char)
    assert seen.keys() == book.sentences.keys()
    crossing = 0
    for sentence, where in book.sentences.items():
        assert seen[sentence] == (min(where), max(where)), sentence
        crossing += len(where) > 1
    assert crossing >= 2  # the test means something only if sentences do cross pages


def test_a_paragraph_running_on_to_the_next_page_stays_one_paragraph(book):
    doc = extract(book.pdf, name="book.pdf")
    assert PAGE_CONTINUES in doc.text and PAGE_BREAK in doc.text
    paragraphs = chunker.chunk(doc.text, strategy="paragraph", size=0).chunks
    crossing = [c for c in paragraphs if "\f" in c.text]
    assert crossing and all(c.text.count("\f") == 1 and "\n\n" not in c.text for c in crossing)


def test_running_headers_and_footers_are_dropped_unless_kept(book):
    doc = extract(book.pdf, name="book.pdf")
    assert "Harbour Board Quarterly" not in doc.text and "Page 2 of" not in doc.text
    kept = extract(book.pdf, name="book.pdf", keep_running=True)
    pages = len(kept.pages)
    assert kept.text.count("Harbour Board Quarterly") == pages
    for n in range(1, pages + 1):
        assert f"Page {n} of {pages}" in kept.text
        start = kept.text.index(f"Page {n} of {pages}")
        assert kept.page_range(start, start + 5) == (n, n)


def test_a_short_pdf_keeps_lines_that_repeat_on_only_two_pages():
    data = docs.draw_lines([["Same line", "First page text."], ["Same line", "Second page text."]])
    assert extract(data).text.count("Same line") == 2


def test_page_numbers_alone_are_dropped_even_on_few_pages():
    words = ["Apples grow here.", "Pears ripen late.", "Plums fall early."]
    pages = [[line, str(n)] for n, line in enumerate(words, 1)]
    text = extract(docs.draw_lines(pages)).text
    assert text == "Apples grow here.\n\n\f\n\nPears ripen late.\n\n\f\n\nPlums fall early."


def test_hyphenated_words_join_only_when_known():
    full = "This line is long enough to count as a full line of justified body text, so"
    pages = [
        [
            full + " the extrac-",
            "tion goes on here and the word extraction is written whole in another place.",
            "",
            full + " a well-",
            "known case keeps its hyphen because well-known is written so elsewhere too.",
            "",
            full + " an unhea-",
            "rd word stays hyphenated since the joined form is found nowhere else at all.",
        ]
    ]
    text = extract(docs.draw_lines(pages)).text
    assert "the extraction goes on" in text
    assert "a well-known case" in text
    assert "an unhea-rd word" in text


def test_encrypted_pdfs(book):
    locked = docs.encrypted_pdf(book.pdf, user_password="s3cret")
    with pytest.raises(ChunkerError, match=r"^book.pdf is encrypted: it needs a password"):
        extract(locked, name="book.pdf")
    # Encrypted only against copying (an empty user password): it opens, as in any viewer.
    restricted = docs.encrypted_pdf(book.pdf, user_password="")
    assert extract(restricted).text == extract(book.pdf).text


def test_a_scanned_pdf_says_no_text_layer_and_no_ocr():
    with pytest.raises(ChunkerError, match=r"scan.pdf has no text layer \(it looks scanned.*OCR is not done here"):
        extract(docs.image_only_pdf(), name="scan.pdf")


def test_truncated_and_damaged_pdfs(book, capfd):
    for cut in (len(book.pdf) // 2, len(book.pdf) - 20, 100):
        with pytest.raises(ChunkerError, match=r"^book.pdf looks truncated"):
            extract(book.pdf[:cut], name="book.pdf")
    junk = b"%PDF-1.7\n" + bytes(range(256)) * 20 + b"\n%%EOF\n"
    with pytest.raises(ChunkerError, match=r"^junk.pdf is not a readable PDF \(.+\): it may be damaged"):
        extract(junk, name="junk.pdf")
    # The middle of the file overwritten: pypdf logs warnings while it repairs; none may show.
    middle = len(book.pdf) // 2
    broken = book.pdf[:middle] + b"\x00" * 400 + book.pdf[middle + 400 :]
    try:
        extract(broken, name="broken.pdf")
    except ChunkerError as e:
        assert "\n" not in str(e)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert logging.getLogger("pypdf").propagate and not logging.getLogger("pypdf").handlers


# -- the layout rules on their own -------------------------------------------------------------

_WORD = st.text(alphabet="abcXY19.-•#\xad ", min_size=1, max_size=12)
_LINE = st.builds(
    Line,
    st.lists(_WORD, min_size=1, max_size=6).map(" ".join),
    st.sampled_from([None, 10.0, 10.0, 10.0, 16.0]),
    st.sampled_from([None, 72.0, 90.0]),
    st.integers(0, 700).map(float),
)


def _letters(text: str) -> str:
    return re.sub(r"[\s#\-•\xad\\]", "", text)


@given(st.lists(st.lists(_LINE, max_size=8), min_size=1, max_size=6))
@settings(max_examples=300, deadline=None)
def test_layout_loses_no_text_and_marks_every_page(pages):
    text, starts = lines_to_text(pages, keep_running=True)
    assert len(starts) == len(pages) and starts[0] == 0
    assert text.count("\f") == len(pages) - 1
    for number, start in enumerate(starts):
        assert text.count("\f", 0, start) == number
    # Rejoining lines only moves whitespace, hyphens, bullets and heading marks.
    assert _letters(text) == _letters("".join(ln.text for page in pages for ln in page))


def test_layout_without_geometry_still_makes_paragraphs():
    page = [
        Line("A first paragraph line that is long enough to be full and goes on"),
        Line("to end here."),
        Line("Short one:"),
        Line("• an item"),
        Line("• another"),
    ]
    text, _ = lines_to_text([page])
    assert text == (
        "A first paragraph line that is long enough to be full and goes on to end here.\n\nShort one:\n\n- an item\n- another"
    )


# -- real PDFs that Debian packages ship ---------------------------------------------------------

DEBIAN_PDFS = [
    Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"),
]


@pytest.mark.parametrize("path", DEBIAN_PDFS, ids=lambda p: p.name)
def test_real_pdfs_from_debian_packages(path):
    if not path.is_file():
        pytest.skip(f"{path} is not installed (Debian package libtasn1-doc / shared-mime-info)")
    import pypdf

    data = path.read_bytes()
    doc = extract(data, name=path.name)
    assert len(doc.pages) == len(pypdf.PdfReader(io.BytesIO(data)).pages)
    assert doc.text.count("\f") == len(doc.pages) - 1
    assert_offsets(doc)
    lines = doc.text.split("\n")
    assert sum(ln.startswith("#") for ln in lines) >= 10  # headings found from font sizes
    # The running header of the spec ("Shared MIME-info Database" on every page) is gone but
    # for the title page.
    if "shared-mime" in path.name:
        assert doc.text.count("Shared MIME-info Database") <= 2
        assert "Shared MIME-info Database" in extract(data, keep_running=True).text.split("\n\n\f\n\n")[5]
    for c in sentence_chunks(doc.text)[::25]:
        first, last = doc.page_range(c.start_char, c.end_char) or (0, 0)
        assert 1 <= first <= last <= min(first + 1, len(doc.pages))
