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
    ('<p a="&copy=1">x&copy;', "x©"),
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


@pytest.mark.parametrize(
    "unit, text",
    [
        ("<x ", "a"),  # each "<x " opened a tag that the next one could not close: quadratic
        ("<!--", "a"),  # a comment never closed, searched for again from each "<!--"
        ('<a b="', "a"),  # a quoted value never closed
        ("</b ", "a"),
        ("<![CDATA[", "a"),
        ("<!x", "a"),
    ],
)
def test_html_constructs_that_were_quadratic_are_read_once(unit, text):
    # 200,000 repeats: minutes each on Python 3.11's html.parser, milliseconds here.
    assert html_to_text("<p>a</p>" + unit * 200_000) == text
    assert extract(("<p>a</p>" + unit * 200_000).encode(), name="x.html").text == text


def test_text_after_a_script_end_tag_with_attributes_is_kept(tmp_path):
    from chunker.cli._main import run

    path = tmp_path / "page.html"
    path.write_text(
        "<p>Intro.</p><script>var a = 1;</script foo><p>Body text.</p>"
        "<style>p {}</style x><p>More text.</p><script>x</script/><p>End.</p>"
    )
    out, err = io.StringIO(), io.StringIO()
    assert run(["extract", str(path)], io.StringIO(""), out, err) == 0
    assert out.getvalue().split() == "Intro. Body text. More text. End.".split()


def cli(*args):
    from chunker.cli._main import run

    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "charset",
    ["rot13", "base64", "hex", "zlib", "uu", "undefined", "unicode_escape", "raw_unicode_escape", "idna", "utf-7", "cp500"],
)
def test_a_meta_charset_that_is_not_a_text_encoding_is_one_line(charset, tmp_path):
    page = f'<meta charset="{charset}"><p>C:\\new\\table, caf\xe9</p>'.encode("latin-1")
    with pytest.raises(
        ChunkerError,
        match=rf'^bad.html declares charset "{charset}", which is not a '
        r"text encoding: fix its <meta> tag",
    ):
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


@pytest.mark.parametrize(
    "data",
    [
        bytes(range(256)) * 40,  # random-looking bytes
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(400),  # a picture renamed
        b"<html><p>x</p>" + b"\x01\x02\x03\x04\x05\x06" * 200,  # markup, then binary
    ],
)
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
    assert html_to_text("<table><tr><th colspan=2>A<th>B<tr><td>1</table>") == "| A |  | B |\n|---|---|---|\n| 1 |  |  |"


def test_nav_and_footer_are_dropped_as_boilerplate():
    page = (
        "<body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
        "<main><h1>Title</h1><p>Body.</p></main><footer>© 2025 Example Ltd</footer></body>"
    )
    assert html_to_text(page) == "# Title\n\nBody."
    # One left open ends with the body, so the rest of the page is not lost with it.
    assert html_to_text("<body><nav>Menu</body><p>After.</p>") == "After."


# -- Word ------------------------------------------------------------------------------------

_WORD_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def docx(body: str, *, extra: dict[str, str | bytes] | None = None, main: str = "word/document.xml") -> bytes:
    """A .docx zipped by hand: just the parts mammoth needs, and `body` as the document
    (`main` the member _rels/.rels names as the document, there being none by default)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats'
            '.org/package/2006/content-types"><Default Extension="rels" ContentType="applicatio'
            'n/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" Content'
            'Type="application/xml"/></Types>',
        )
        z.writestr(
            "_rels/.rels",
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxm'
            'lformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://sch'
            'emas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target='
            f'"{main}"/></Relationships>',
        )
        z.writestr(
            "word/document.xml",
            f'<?xml version="1.0" encoding="UTF-8"?><w:document {_WORD_NS}><w:body>{body}</w:body></w:document>',
        )
        for name, text in (extra or {}).items():
            z.writestr(name, text)
    return buf.getvalue()


def test_a_docx_is_read_and_a_long_run_is_read_up_to_its_limit():
    from chunker.documents._docx import MAX_TEXT_RUN

    assert extract(docx("<w:p><w:r><w:t>Hello there.</w:t></w:r></w:p>"), name="a.docx").text == "Hello there."
    # A paragraph of 1 MB, past any real one, is still read.
    text = extract(docx("<w:p><w:r><w:t>" + "word " * 200_000 + "</w:t></w:r></w:p>"), name="run.docx").text
    assert len(text) == 1_000_000 - 1 < MAX_TEXT_RUN


def test_a_docx_text_run_past_the_limit_is_one_line():
    # minidom builds one text node by repeated concatenation: 24 MB of text in a 47 KB file
    # took 33 s. The run is refused however it falls across the blocks it is read in.
    from chunker.documents._docx import MAX_TEXT_RUN

    for before in (0, 10, MAX_TEXT_RUN - 5):
        filler = "<w:p/>" * (before // 6)
        run = docx(filler + "<w:p><w:r><w:t>" + "a" * (MAX_TEXT_RUN + 1) + "</w:t></w:r></w:p>")
        with pytest.raises(
            ChunkerError,
            match=r"^run.docx: word/document.xml holds a run of over 1 MB of text between two tags, "
            r"far past any paragraph .*: split it into paragraphs, or save it as .txt$",
        ):
            extract(run, name="run.docx")


def test_a_docx_main_part_not_named_xml_is_measured(monkeypatch):
    # _rels/.rels may name any member as the document: mammoth reads word/body.bin here, and
    # a 53 KB file of this shape unzipped to 1.45 GB past a measure of the .xml parts alone.
    from chunker.documents import _docx

    body = '<?xml version="1.0"?><w:document ' + _WORD_NS + "><w:body>" + "<w:p><w:r><w:t>hi</w:t></w:r></w:p>" * 300
    data = docx(
        "<w:p><w:r><w:t>decoy</w:t></w:r></w:p>", main="word/body.bin", extra={"word/body.bin": body + "</w:body></w:document>"}
    )
    assert extract(data, name="bin.docx").text.startswith("hi\n\nhi")
    monkeypatch.setattr(_docx, "MAX_TAGS", 1_000)
    with pytest.raises(ChunkerError, match=r"^bin.docx holds over 1,000 XML tags"):
        extract(data, name="bin.docx")
    monkeypatch.setattr(_docx, "MAX_UNZIPPED", 10_000)
    with pytest.raises(ChunkerError, match=r"^bin.docx unzips to 0 MB of XML, over the 0 MB limit"):
        extract(data, name="bin.docx")
    # A picture is not XML (expat stops at its first byte), so it does not count.
    monkeypatch.setattr(_docx, "MAX_UNZIPPED", 100_000_000)
    monkeypatch.setattr(_docx, "MAX_TAGS", 500_000)
    picture = b"\x89PNG\r\n\x1a\n" + b"<" * 600_000
    assert extract(docx("<w:p><w:r><w:t>x</w:t></w:r></w:p>", extra={"word/media/a.png": picture}), name="p.docx").text == "x"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "utf-16-be"])
def test_a_docx_part_with_a_dtd_is_one_line(encoding, tmp_path):
    # Three entities of ten references each: 952 bytes took 18 s and 385 MB in mammoth.
    para = "<w:p><w:r><w:t>hello world </w:t></w:r></w:p>"
    dtd = f'<!DOCTYPE w:document [<!ENTITY a "{para * 10}"><!ENTITY b "{"&a;" * 10}"><!ENTITY c "{"&b;" * 10}">]>'
    part = f"{dtd}<w:document {_WORD_NS}><w:body>" + "&c;" * 10 + "</w:body></w:document>"
    data = docx("<w:p/>", extra={"word/footnotes.xml": part.encode(encoding)})
    with pytest.raises(
        ChunkerError,
        match=r"^ent.docx: word/footnotes.xml declares a DTD \(<!DOCTYPE or <!ENTITY\), which Word "
        r"never writes .*: save the document again from Word$",
    ):
        extract(data, name="ent.docx")
    path = tmp_path / "ent.docx"
    path.write_bytes(data)
    code, out, err = cli("extract", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1 and "declares a DTD" in err


def test_a_docx_dtd_split_between_two_read_blocks_is_found():
    from chunker.documents._docx import MAX_TEXT_RUN

    # "<!DOCTYPE" straddles the first block's end (blocks are MAX_TEXT_RUN bytes).
    pad = MAX_TEXT_RUN - len('<?xml version="1.0"?>') - 4
    part = '<?xml version="1.0"?>' + "<!--" + " " * (pad - 7) + "-->" + "<!DOCTYPE x><x/>"
    assert part.index("<!DOCTYPE") < MAX_TEXT_RUN < part.index("<!DOCTYPE") + 9
    with pytest.raises(ChunkerError, match=r"declares a DTD"):
        extract(docx("<w:p/>", extra={"word/endnotes.xml": part}), name="split.docx")


def test_an_encrypted_docx_member_is_one_line(tmp_path):
    data = bytearray(docx("<w:p><w:r><w:t>secret</w:t></w:r></w:p>"))
    # Set the encrypted flag of every member in the zip's central directory.
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        data[at + 8] |= 0x1
        at = data.find(b"PK\x01\x02", at + 4)
    with pytest.raises(
        ChunkerError,
        match=r"^enc.docx: the file is encrypted \(\[Content_Types\].xml needs a password\): "
        r"remove the password in Word",
    ):
        extract(bytes(data), name="enc.docx")
    path = tmp_path / "enc.docx"
    path.write_bytes(bytes(data))
    code, out, err = cli("extract", str(path))
    assert code == 2 and err.count("\n") == 1 and "encrypted" in err and "Traceback" not in err


def test_a_docx_that_unzips_past_the_limit_is_one_line(tmp_path):
    # 101 MB of XML in a zip of about 100 KB: refused before mammoth builds it.
    big = docx("<w:p><w:r><w:t>" + "a" * 101_000_000 + "</w:t></w:r></w:p>")
    assert len(big) < 200_000
    with pytest.raises(
        ChunkerError,
        match=r"^big.docx unzips to 101 MB of XML, over the 100 MB "
        r"limit for one Word document: split it",
    ):
        extract(big, name="big.docx")


def test_a_docx_of_too_many_tags_is_one_line():
    busy = docx("<w:p/>" * 600_000)  # 40 KB zipped; mammoth would take half a minute and GBs
    with pytest.raises(ChunkerError, match=r"^busy.docx holds over 500,000 XML tags"):
        extract(busy, name="busy.docx")
    # The limit counts every part mammoth reads, footnotes included.
    notes = docx("<w:p/>", extra={"word/footnotes.xml": "<w:footnotes/>" + "<x/>" * 600_000})
    with pytest.raises(ChunkerError, match=r"holds over 500,000 XML tags"):
        extract(notes, name="notes.docx")


def test_a_docx_of_many_empty_paragraphs_in_few_bytes_is_one_line():
    """300,000 empty paragraphs zip to about 2 KB: under MAX_TAGS, but no document is packed so
    densely, and mammoth would take a minute on it."""
    dense = docx("<w:p/>" * 300_000)
    with pytest.raises(ChunkerError, match=r"^dense.docx holds 300,\d{3} XML tags in \d+ KB, packed far denser"):
        extract(dense, name="dense.docx")
    import io
    import zipfile

    from chunker.documents import _docx
    from tests.documents import word_document

    # A long report of real paragraphs, past DENSE_TAGS, passes the check (mammoth not run).
    long_report = word_document([("p", "A sentence of an ordinary report, with words in it. " * 3)] * 9_000)
    with zipfile.ZipFile(io.BytesIO(long_report)) as z:
        _docx._measure(z, "report.docx", len(long_report))
        assert sum(z.read(i).count(b"<") for i in z.infolist()) > _docx.DENSE_TAGS


def test_word_column_spans_are_bounded():
    # A first row of 300 cells each spanning 1,000 columns, then rows of one cell: this
    # 1 KB file used to extract to hundreds of millions of characters.
    span = '<w:tc><w:tcPr><w:gridSpan w:val="1000"/></w:tcPr><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc>'
    one = "<w:tr><w:tc><w:p><w:r><w:t>y</w:t></w:r></w:p></w:tc></w:tr>"
    data = docx("<w:tbl><w:tr>" + span * 300 + "</w:tr>" + one * 300 + "</w:tbl>")
    text = extract(data, name="wide.docx").text
    assert text.count("x") == 300 and text.count("y") == 300 and len(text) < 1_000_000


def test_a_word_title_is_a_heading():
    from tests.documents import word_document

    data = word_document([("h0", "The Report"), ("p", "Intro."), ("h1", "Part one"), ("p", "Body.")])
    assert extract(data, name="t.docx").text == "# The Report\n\nIntro.\n\n# Part one\n\nBody."


# -- PDF -------------------------------------------------------------------------------------


def pdf(objects: list[bytes | str]) -> bytes:
    """A PDF written by hand: objects 1.. in order (1 the catalog, 2 the page tree), an xref."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + (body.encode("latin-1") if isinstance(body, str) else body)
        out += b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def pdf_stream(data: str, *, deflate: bool = False) -> bytes:
    raw = data.encode("latin-1")
    if deflate:
        import zlib

        raw = zlib.compress(raw, 9)
    return b"<< /Length %d%s >>\nstream\n" % (len(raw), b" /Filter /FlateDecode" if deflate else b"") + raw + b"\nendstream"


HELVETICA = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
PAGE = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"


def one_page_pdf(
    content: str, *, font: str = HELVETICA, kids: int = 1, deflate: bool = False, extra: tuple[bytes | str, ...] = ()
) -> bytes:
    return pdf(
        [
            "<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{' '.join(['3 0 R'] * kids)}] /Count {kids} >>",
            PAGE,
            pdf_stream(content, deflate=deflate),
            font,
            *extra,
        ]
    )


def test_a_pdf_whose_drawing_inflates_a_thousandfold_is_refused():
    # 8 MB of text operations in a 20 KB file: pypdf would spend about 50 s on them.
    bomb = one_page_pdf("BT /F1 12 Tf 72 700 Td " + "(ab) Tj " * 1_000_000 + "ET", deflate=True)
    assert len(bomb) < 40_000
    with pytest.raises(
        ChunkerError,
        match=r"^bomb.pdf asks for far more reading than a real PDF "
        r"of its size: page 1 of 1 draws more than its \d+ KB",
    ):
        extract(bomb, name="bomb.pdf")
    # The same drawing at an honest size is read.
    assert extract(one_page_pdf("BT /F1 12 Tf 72 700 Td " + "(ab) Tj " * 2_000 + "ET", deflate=True)).text == "ab" * 2_000


def test_one_page_listed_50000_times_is_refused_before_reading():
    many = one_page_pdf("BT /F1 12 Tf 72 700 Td (Same) Tj ET", kids=50_000)
    assert len(many) < 400_000
    with pytest.raises(
        ChunkerError,
        match=r"^many.pdf asks for far more reading than a real PDF of "
        r"its size: 50,000 pages in \d+ KB",
    ):
        extract(many, name="many.pdf")


def test_pages_that_all_repeat_the_same_text_are_kept(tmp_path):
    from tests.documents import draw_lines

    same = draw_lines([["Terms and conditions apply."]] * 5)
    doc = extract(same, name="same.pdf")
    assert doc.text.count("Terms and conditions apply.") == 5 and len(doc.pages) == 5
    # Running lines around a body are still dropped.
    body = draw_lines([["Acme report", f"Page {n} body text is its own."] for n in range(1, 6)])
    assert "Acme report" not in extract(body).text
    path = tmp_path / "same.pdf"
    path.write_bytes(same)
    code, out, err = cli(str(path))
    assert code == 0 and out.count("\n") >= 1


def test_an_aes_encrypted_pdf_says_it_needs_cryptography():
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import DictionaryObject, NameObject, NumberObject

    pytest.importorskip("pypdf")
    try:
        import cryptography  # noqa: F401

        pytest.skip("cryptography is installed: the file opens")
    except ImportError:
        pass
    # RC4-128 keys (the empty user password opens them), declared as AESV2 (V 4, R 4): the key
    # checks out, and the streams then need AES.
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(one_page_pdf("BT /F1 12 Tf 72 700 Td (Hi) Tj ET"))))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    entry = writer._encrypt_entry
    assert entry is not None
    entry[NameObject("/V")], entry[NameObject("/R")] = NumberObject(4), NumberObject(4)
    entry[NameObject("/CF")] = DictionaryObject(
        {
            NameObject("/StdCF"): DictionaryObject(
                {
                    NameObject("/CFM"): NameObject("/AESV2"),
                    NameObject("/AuthEvent"): NameObject("/DocOpen"),
                    NameObject("/Length"): NumberObject(16),
                }
            )
        }
    )
    entry[NameObject("/StmF")] = entry[NameObject("/StrF")] = NameObject("/StdCF")
    buf = io.BytesIO()
    writer.write(buf)
    with pytest.raises(
        ChunkerError,
        match=r"^aes.pdf is encrypted with AES: even without a password, "
        r"opening it needs the cryptography package",
    ):
        extract(buf.getvalue(), name="aes.pdf")


def test_a_glyph_mapped_to_a_lone_surrogate_reads_as_a_replacement_character(tmp_path):
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def\n"
        "1 begincodespacerange <00> <FF> endcodespacerange\n"
        "2 beginbfchar <41> <0041> <42> <D800> endbfchar endcmap\n"
        "CMapName currentdict /CMap defineresource pop end end"
    )
    data = one_page_pdf(
        "BT /F1 12 Tf 72 700 Td (AB A) Tj ET", font=HELVETICA.replace(">>", "/ToUnicode 6 0 R >>"), extra=(pdf_stream(cmap),)
    )
    doc = extract(data, name="s.pdf")
    assert doc.text == "A\ufffd A"
    path = tmp_path / "s.pdf"
    path.write_bytes(data)
    code, out, err = cli(str(path), "--unit", "chars", "--size", "100")
    assert code == 0, err
    assert '"text": "A\\ufffd A"' in out or '"text": "A\ufffd A"' in out


# -- HTML: pre fences and nested tables, linear ------------------------------------------------


@pytest.mark.parametrize("run", [0, 1, 2, 3, 4, 7])
def test_a_pre_fence_is_one_longer_than_its_longest_backtick_run(run):
    fence = "`" * max(3, run + 1)
    body = "a" + "`" * run + "b ` c"
    assert html_to_text(f"<pre>{body}</pre>") == f"{fence}\n{body}\n{fence}"


def test_a_pre_of_a_long_backtick_run_is_fenced_in_one_pass():
    # The fence grew one backtick at a time, each time searching the body: 320 KB took 115 s.
    assert html_to_text("<pre>" + "`" * 300_000 + "</pre>") == "\n".join(["`" * 300_001, "`" * 300_000, "`" * 300_001])


def test_nested_tables_are_read_in_linear_work(monkeypatch):
    # Each table's close re-read all the text of the tables inside it: 400 KB of
    # "<table><tr><td>word " took 59 s. Count the characters normalised into cells.
    from chunker.documents import _html

    work = 0
    inline = _html._inline

    def counting(pieces):
        nonlocal work
        work += sum(map(len, pieces))
        return inline(pieces)

    monkeypatch.setattr(_html, "_inline", counting)
    markup = "<table><tr><td>word " * 2_000
    text = html_to_text(markup)
    assert text.split().count("word") == 2_000
    assert work < 20 * len(markup)
    # Past eight levels the tables are words of the eighth one's cell, as each inner table
    # already was of its outer cell; shallower nesting reads as before.
    assert html_to_text("<table><tr><td>a<table><tr><td>b<td>c</table></table>") == "| a b c |\n|---|"
    nine = "<table><tr><td>x" * 9 + "<td>y" + "</table>" * 9
    assert html_to_text(nine).split() == ["|", "x", "x", "x", "x", "x", "x", "x", "x", "x", "y", "|", "|---|"]


def test_a_page_naming_many_inflating_forms_is_refused_at_the_first_past_the_budget(monkeypatch):
    """Each form is decoded, then spent: a page naming twenty forms of 5 MB each (a 100 KB file)
    is refused after the first, not after decoding all of them (pypdf keeps each decoded)."""
    import zlib

    import pypdf.generic

    packed = zlib.compress(b" " * 5_000_000, 9)
    form = b"<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed)
    forms = [form + packed + b"\nendstream" for _ in range(20)]
    names = " ".join(f"/X{i} {6 + i} 0 R" for i in range(20))
    page = (
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        f"/Resources << /Font << /F1 5 0 R >> /XObject << {names} >> >> /Contents 4 0 R >>"
    )
    data = pdf(
        [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            page,
            pdf_stream("BT /F1 12 Tf 72 700 Td (Hello) Tj ET"),
            HELVETICA,
            *forms,
        ]
    )
    decoded: list[int] = []
    real = pypdf.generic.EncodedStreamObject.get_data

    def counted(self):
        out = real(self)
        decoded.append(len(out))
        return out

    monkeypatch.setattr(pypdf.generic.EncodedStreamObject, "get_data", counted)
    with pytest.raises(ChunkerError, match=r"page 1 of 1 draws more than its \d+ KB"):
        extract(data, name="forms.pdf")
    assert sum(n >= 5_000_000 for n in decoded) == 1
