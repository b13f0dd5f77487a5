"""`python -m chunker` on PDF, Word and HTML files: extracted, chunked with page numbers, and
every failure one line with exit status 2."""

from __future__ import annotations

import io
import json

import pytest

import chunker
from chunker.cli._main import run
from tests.documents import encrypted_pdf, image_only_pdf, sentences_for, typeset, word_document


def cli(*args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    # Section 2 runs over two pages, so one of its sentences crosses a page break.
    sections = [(f"Section {i}", sentences_for(i, 70 if i == 2 else 14)) for i in range(1, 5)]
    made = typeset(sections, footer="Quarterly report, page {page} of {pages}")
    path = tmp_path_factory.mktemp("docs") / "report.pdf"
    path.write_bytes(made.pdf)
    return path, made


def test_a_pdf_is_extracted_and_its_records_carry_pages(report):
    path, made = report
    code, text, _ = cli("extract", str(path))
    assert code == 0 and text == chunker.Document.open(path).text
    assert "Quarterly report" not in text  # running footers dropped by default
    for _page, heading in made.headings:  # each page's own heading stays, a heading of the text
        assert f"# {heading}\n" in text
    assert text.count("\f") == max(max(p) for p in made.sentences.values()) - 1
    code, out, err = cli(str(path), "--strategy", "sentence", "--size", "0")
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    for r in records:
        assert text[r["start_char"] : r["end_char"]] == r["text"]
        assert 1 <= r["page_start"] <= r["page_end"]
    # Every sentence is on the page it was typeset on.
    for sentence, pages in made.sentences.items():
        found = [r for r in records if r["text"].replace("\n", " ").replace("\f", " ").split() == sentence.split()]
        if found:
            assert set(range(found[0]["page_start"], found[0]["page_end"] + 1)) == pages, sentence
    assert any(len(pages) > 1 for pages in made.sentences.values())
    assert sum(1 for r in records if r["page_start"] != r["page_end"]) >= 1  # it is one chunk
    code, kept, _ = cli("extract", str(path), "--keep-running")
    assert "Quarterly report" in kept


def test_headings_of_a_word_file_reach_the_markdown_strategy(tmp_path):
    path = tmp_path / "guide.docx"
    path.write_bytes(
        word_document(
            [
                ("h1", "Guide"),
                ("p", "Intro text."),
                ("h2", "Install"),
                ("p", "Run the installer."),
                ("table", [["Key", "Value"], ["a", "1"]]),
            ]
        )
    )
    code, out, err = cli(str(path), "--strategy", "markdown", "--size", "20", "--overlap", "0")
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert any(r["headings"] == ["Guide", "Install"] for r in records)
    assert all("page_start" not in r for r in records)  # only a PDF has pages
    code, text, _ = cli("extract", str(path))
    assert "| Key | Value |" in text and "# Guide" in text


def test_raw_reads_html_as_text(tmp_path):
    path = tmp_path / "page.html"
    path.write_text("<h1>Title</h1><p>Body &amp; soul.</p>", encoding="utf-8")
    assert cli("extract", str(path))[1] == "# Title\n\nBody & soul."
    code, out, _ = cli(str(path), "--raw", "--unit", "chars", "--size", "100")
    assert code == 0 and json.loads(out)["text"] == "<h1>Title</h1><p>Body &amp; soul.</p>"


@pytest.mark.parametrize(
    "make, needle",
    [
        (lambda rep: encrypted_pdf(rep, user_password="secret"), "is encrypted"),
        (lambda rep: image_only_pdf(), "looks scanned"),
        (lambda rep: rep[: len(rep) // 2], "truncated"),
        (lambda rep: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "old binary Word .doc"),
    ],
)
def test_documents_that_cannot_be_read_are_one_line(report, tmp_path, make, needle):
    path, _ = report
    bad = tmp_path / ("bad.doc" if "doc" in needle else "bad.pdf")
    bad.write_bytes(make(path.read_bytes()))
    for args in ((str(bad),), ("extract", str(bad))):
        code, out, err = cli(*args)
        assert (code, out) == (2, "") and needle in err and err.count("\n") == 1, err
        assert "Traceback" not in err


def test_a_file_over_the_limit_is_one_line(tmp_path, monkeypatch):
    from chunker import documents as _extract

    monkeypatch.setattr(_extract, "MAX_BYTES", 1000)
    path = tmp_path / "big.txt"
    path.write_text("word " * 400, encoding="utf-8")
    code, out, err = cli(str(path))
    assert (code, out) == (2, "") and "over the 1,000" not in err and "limit" in err and err.count("\n") == 1


def test_the_text_format_names_the_pages(report):
    path, _ = report
    code, out, _ = cli(str(path), "--format", "txt", "--size", "200", "--overlap", "0")
    assert code == 0 and (", p. 1 ---" in out or ", pp. 1–" in out)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_legacy_encoding_is_named_and_read_with_encoding(tmp_path, jobs):
    """A Windows-1252 or Latin-1 file is refused with the encoding it likely is, and read exactly
    with --encoding; a name that is no text encoding is one line before any file is read."""
    menu, other = tmp_path / "menu.txt", tmp_path / "other.txt"
    menu.write_bytes("Café crème, 3 €.\n\nThé glacé.".encode("cp1252"))
    other.write_bytes("Naïve façade.".encode("cp1252"))
    out, err = io.StringIO(), io.StringIO()
    assert run([str(menu)], None, out, err) == 2 and out.getvalue() == ""
    assert err.getvalue() == (
        f"chunker: error: {menu}: not UTF-8 text (bad byte at offset 3); it may be Windows-1252 "
        '(Western European): pass --encoding cp1252 (encoding="cp1252"), or convert it to UTF-8\n'
    )
    out, err = io.StringIO(), io.StringIO()
    assert (
        run([str(menu), str(other), "--encoding", "cp1252", "--jobs", jobs, "--size", "5", "--overlap", "0"], None, out, err) == 0
    ), err.getvalue()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    texts = {r["source"]: "" for r in records}
    for r in records:
        texts[r["source"]] += r["text"]
    assert "€" in texts[str(menu)] and "façade" in texts[str(other)]
    assert chunker.Document.open(menu, encoding="cp1252").text == "Café crème, 3 €.\n\nThé glacé."
    err = io.StringIO()
    assert run([str(menu), "--encoding", "rot13"], None, io.StringIO(), err) == 2
    assert err.getvalue().count("\n") == 1 and "'rot13' is not a text encoding" in err.getvalue()


def test_which_encoding_is_suggested():
    from chunker.documents import decode_text

    def said(data: bytes) -> str:
        with pytest.raises(chunker.ChunkerError) as e:
            decode_text(data, label="f")
        return str(e.value)

    assert "it may be UTF-16: pass --encoding utf-16" in said("hé".encode("utf-16"))
    assert "it may be Latin-1" in said(b"caf\xe9 \x81")  # 0x81 is no Windows-1252 character
    assert "it may be" not in said("fine UTF-8 é, then a cut: é".encode()[:-1])  # UTF-8 with a fault
