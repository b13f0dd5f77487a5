"""Untrusted PDF, Word and HTML files: bounded, linear, the same text on every Python, and every
failure one line (issue 29). Each adversarial file is built here, by hand."""

from __future__ import annotations

import html.parser
import io
import zipfile

import pytest

from chunker import ChunkerError
from chunker.documents import extract
from chunker.documents._html import html_to_text

# -- HTML: read as Python 3.14's html.parser reads it, on every Python --------------------------

# What Python 3.14's html.parser (the page's, in Pyodide) makes of malformed markup; the
# parser of Python 3.11 and of 3.12 / 3.13 before their 2025 fixes gives other text (shown in
# the comment), or raises.
MALFORMED = [
    ("<p>a</p><x", "a"),  # 3.11: "a\n\n<x"
    ("<p>a<b", "a"),  # "a<b"
    ("a<!-- c", "a"),  # "a<!-- c"
    ("a<!-- c -", "a"),
    ("a</b", "a"),
    ("a<?pi b", "a"),
    ("a<!b", "a"),
    ("<p>a<!DOCTYPE x", "a"),
    ("<p a='b>c", ""),  # an attribute value the file ends inside
    ("<p>x<!--->y", "xy"),  # "x<!--->y"
    ("<p>x<!-->y", "xy"),
    ("<p>x<!--a--!>y", "xy"),
    ("<xmp><b>x</b></xmp>", "<b>x</b>"),  # "x"
    ("<noembed><p>x</p></noembed>y", "y"),
    ("<p>a<script>x</script/>b", "ab"),  # item 4: "a", the rest lost
    ("a<script>x</script foo>b", "ab"),
    ("<style>x</style x>c", "c"),  # ""
    ("<![foo[x]]>b", "b"),  # item 12: AssertionError
    ("<p a=\"&copy=1\">x&copy;", "x©"),
]


@pytest.mark.parametrize("markup, text", MALFORMED)
def test_malformed_html_reads_as_the_fixed_parser_reads_it(markup, text):
    assert html_to_text(markup) == text


def test_html_does_not_go_through_the_pythons_own_html_parser(monkeypatch):
    # The parser of the Python at hand differs by version (and is quadratic before 3.13.4):
    # the text must not depend on it.
    def refuse(self, end):
        raise AssertionError("html.parser was used")

    monkeypatch.setattr(html.parser.HTMLParser, "goahead", refuse)
    assert html_to_text("<h1>T</h1><p>x</p>") == "# T\n\nx"


@pytest.mark.parametrize("unit, text", [
    ("<x ", "a"),  # each "<x " opened a tag that the next one could not close: quadratic
    ("<!--", "a"),  # a comment never closed, searched for again from each "<!--"
    ('<a b="', "a"),  # a quoted value never closed
    ("</b ", "a"),
    ("<![CDATA[", "a"),
    ("<!x", "a"),
])
def test_html_constructs_that_were_quadratic_are_read_once(unit, text):
    # 200,000 repeats: minutes each on Python 3.11's html.parser, milliseconds here.
    assert html_to_text("<p>a</p>" + unit * 200_000) == text
    assert extract(("<p>a</p>" + unit * 200_000).encode(), name="x.html").text == text


def test_text_after_a_script_end_tag_with_attributes_is_kept(tmp_path):
    from chunker.cli._main import run

    path = tmp_path / "page.html"
    path.write_text("<p>Intro.</p><script>var a = 1;</script foo><p>Body text.</p>"
                    "<style>p {}</style x><p>More text.</p><script>x</script/><p>End.</p>")
    out, err = io.StringIO(), io.StringIO()
    assert run(["extract", str(path)], io.StringIO(""), out, err) == 0
    assert out.getvalue().split() == "Intro. Body text. More text. End.".split()


def cli(*args):
    from chunker.cli._main import run

    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("charset", ["rot13", "base64", "hex", "zlib", "uu", "undefined",
                                     "unicode_escape", "raw_unicode_escape", "idna", "utf-7", "cp500"])
def test_a_meta_charset_that_is_not_a_text_encoding_is_one_line(charset, tmp_path):
    page = f'<meta charset="{charset}"><p>C:\\new\\table, caf\xe9</p>'.encode("latin-1")
    with pytest.raises(ChunkerError, match=rf'^bad.html declares charset "{charset}", which is not a '
                                           r"text encoding: fix its <meta> tag"):
        extract(page, name="bad.html")
    # --keep-going leaves it out and still writes the others.
    (tmp_path / "bad.html").write_bytes(page)
    (tmp_path / "good.html").write_bytes(b"<p>Good text.</p>")
    code, out, err = cli(str(tmp_path / "bad.html"), str(tmp_path / "good.html"), "--keep-going")
    assert code == 1 and "Good text." in out
    assert err.count("\n") == 1 and "not a text encoding" in err and "Traceback" not in err


def test_real_text_encodings_and_unknown_labels_are_read_as_before():
    assert extract('<meta charset="latin1"><p>caf\xe9</p>'.encode("latin-1")).text == "café"
    assert extract('<meta charset="shift_jis"><p>日本</p>'.encode("shift_jis")).text == "日本"
    # A label no browser knows is passed over, as browsers do: UTF-8, then Windows-1252.
    assert extract('<meta charset="x-nonsense"><p>caf\xe9</p>'.encode()).text == "café"
    # unicode_escape would have turned the backslashes into a newline and a tab.
    with pytest.raises(ChunkerError):
        extract(b'<meta charset="unicode_escape"><p>C:\\new\\table</p>')


@pytest.mark.parametrize("data", [
    bytes(range(256)) * 40,  # random-looking bytes
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(400),  # a picture renamed
    b"<html><p>x</p>" + b"\x01\x02\x03\x04\x05\x06" * 200,  # markup, then binary
])
def test_binary_bytes_named_html_are_refused(data, tmp_path):
    with pytest.raises(ChunkerError, match=r"^x.html holds binary data, not HTML or text \(byte 0x"):
        extract(data, name="x.html")
    path = tmp_path / "x.html"
    path.write_bytes(data)
    code, out, err = cli(str(path))
    assert code == 2 and out == "" and "binary data" in err and err.count("\n") == 1
    # A stray control byte in a real page is let through, as is UTF-16 with its mark.
    assert extract(b"<p>one\x01 two</p>" + b"<p>text</p>" * 20, name="y.html").text.startswith("one")
    assert extract("\ufeff<p>wide</p>".encode("utf-16-le"), name="z.html").text == "wide"


def test_nested_lists_indent_at_most_eight_levels():
    # 144 KB of nested lists used to extract to 256 M characters, nearly all indentation.
    markup = "<ul><li>x" * 16_000
    text = html_to_text(markup)
    assert text.count("x") == 16_000
    assert len(text) < 16_000 * 40 and max(len(line) for line in text.split("\n")) <= 8 * 2 + 3
    assert html_to_text("<ul><li>a<ul><li>b<ol><li>c</ol></ul></ul>") == "- a\n  - b\n    1. c"


def test_column_spans_are_bounded_in_a_row_and_a_page():
    # 44 KB of colspan used to extract to 3 GB.
    markup = "<table><tr>" + "<td colspan=1000>x" * 3000 + "<tr><td>y" * 3000 + "</table>"
    text = html_to_text(markup)
    assert text.count("x") == 3000 and text.count("y") == 3000
    assert len(text) < 1_000_000
    # Ordinary spans and short rows still line up.
    assert html_to_text("<table><tr><th colspan=2>A<th>B<tr><td>1</table>") == \
        "| A |  | B |\n|---|---|---|\n| 1 |  |  |"


def test_nav_and_footer_are_dropped_as_boilerplate():
    page = ("<body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
            "<main><h1>Title</h1><p>Body.</p></main><footer>© 2025 Example Ltd</footer></body>")
    assert html_to_text(page) == "# Title\n\nBody."
    # One left open ends with the body, so the rest of the page is not lost with it.
    assert html_to_text("<body><nav>Menu</body><p>After.</p>") == "After."


# -- Word ------------------------------------------------------------------------------------

_WORD_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def docx(body: str, *, extra: dict[str, str] | None = None) -> bytes:
    """A .docx zipped by hand: just the parts mammoth needs, and `body` as the document."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats'
                   '.org/package/2006/content-types"><Default Extension="rels" ContentType="applicatio'
                   'n/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" Content'
                   'Type="application/xml"/></Types>')
        z.writestr("_rels/.rels",
                   '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxm'
                   'lformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://sch'
                   'emas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target='
                   '"word/document.xml"/></Relationships>')
        z.writestr("word/document.xml", f'<?xml version="1.0" encoding="UTF-8"?><w:document {_WORD_NS}>'
                                        f"<w:body>{body}</w:body></w:document>")
        for name, text in (extra or {}).items():
            z.writestr(name, text)
    return buf.getvalue()


def test_a_docx_is_read_and_a_huge_run_is_linear():
    assert extract(docx("<w:p><w:r><w:t>Hello there.</w:t></w:r></w:p>"), name="a.docx").text == "Hello there."
    text = extract(docx("<w:p><w:r><w:t>" + "word " * 2_000_000 + "</w:t></w:r></w:p>"), name="run.docx").text
    assert len(text) == 10_000_000 - 1


def test_a_docx_that_unzips_past_the_limit_is_one_line(tmp_path):
    # 101 MB of XML in a zip of about 100 KB: refused before mammoth builds it.
    big = docx("<w:p><w:r><w:t>" + "a" * 101_000_000 + "</w:t></w:r></w:p>")
    assert len(big) < 200_000
    with pytest.raises(ChunkerError, match=r"^big.docx unzips to 101 MB of XML, over the 100 MB "
                                           r"limit for one Word document: split it"):
        extract(big, name="big.docx")


def test_a_docx_of_too_many_tags_is_one_line():
    busy = docx("<w:p/>" * 600_000)  # 40 KB zipped; mammoth would take half a minute and GBs
    with pytest.raises(ChunkerError, match=r"^busy.docx holds over 500,000 XML tags"):
        extract(busy, name="busy.docx")
    # The limit counts every part mammoth reads, footnotes included.
    notes = docx("<w:p/>", extra={"word/footnotes.xml": "<w:footnotes/>" + "<x/>" * 600_000})
    with pytest.raises(ChunkerError, match=r"holds over 500,000 XML tags"):
        extract(notes, name="notes.docx")


def test_word_column_spans_are_bounded():
    # A first row of 300 cells each spanning 1,000 columns, then rows of one cell: this
    # 1 KB file used to extract to hundreds of millions of characters.
    span = ('<w:tc><w:tcPr><w:gridSpan w:val="1000"/></w:tcPr><w:p><w:r><w:t>x</w:t></w:r>'
            "</w:p></w:tc>")
    one = "<w:tr><w:tc><w:p><w:r><w:t>y</w:t></w:r></w:p></w:tc></w:tr>"
    data = docx("<w:tbl><w:tr>" + span * 300 + "</w:tr>" + one * 300 + "</w:tbl>")
    text = extract(data, name="wide.docx").text
    assert text.count("x") == 300 and text.count("y") == 300 and len(text) < 1_000_000


def test_a_word_title_is_a_heading():
    from tests.documents import word_document

    data = word_document([("h0", "The Report"), ("p", "Intro."), ("h1", "Part one"), ("p", "Body.")])
    assert extract(data, name="t.docx").text == "# The Report\n\nIntro.\n\n# Part one\n\nBody."
