"""Documents the extraction tests make for themselves: PDFs drawn with reportlab, .docx
written with python-docx. Every sentence here is made up for the tests.

`typeset` lays out sections like a word processor would (a heading opens each page, words wrap
at a fixed width, paragraphs flow on to the next page) and records the page each sentence's
words landed on, so a test can check the page the extracted text says against the truth.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

PAGE_W, PAGE_H = 612, 792
LEFT, TOP, BOTTOM = 72, 720, 90
BODY, LEADING, HEAD = 11, 14, 18
WIDTH = 430  # points of text per line


@dataclass
class Typeset:
    pdf: bytes
    sentences: dict[str, set[int]] = field(default_factory=dict)  # sentence -> its pages (1-based)
    headings: list[tuple[int, str]] = field(default_factory=list)  # (page, heading)


def sentences_for(section: int, count: int) -> list[str]:
    """Made-up sentences, each distinct, of varied length."""
    nouns = ["harbour", "orchard", "archive", "lantern", "glacier", "meadow", "workshop", "tunnel"]
    verbs = ["measures", "describes", "follows", "records", "outlines", "compares"]
    out = []
    for i in range(count):
        n, v = nouns[(section * 3 + i) % len(nouns)], verbs[(section + i) % len(verbs)]
        extra = " and the quiet routine of its keepers" * (i % 3)
        out.append(f"Note {section}.{i + 1} {v} the {n} of section {section}{extra}.")
    return out


def typeset(sections: list[tuple[str, list[str]]], *, header: str | None = None, footer: str | None = None) -> Typeset:
    """A PDF with one section per page start: a heading, then its sentences as one flowing
    paragraph, wrapped and carried over to further pages when the page is full. `header`
    and `footer` are drawn on every page; "{page}" and "{pages}" in them are filled in."""
    from reportlab.pdfbase.pdfmetrics import stringWidth  # type: ignore[import-untyped]
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    # Lay out first: lines with their page, so the page count is known for the footers.
    pages: list[list[tuple[str, float, str]]] = []  # per page: (font, size, text) lines
    where: dict[str, set[int]] = {}
    headings: list[tuple[int, str]] = []
    for title, sentences in sections:
        pages.append([("Helvetica-Bold", HEAD, title)])
        headings.append((len(pages), title))
        y = TOP - 2 * LEADING
        line: list[str] = []
        owners: list[str] = []
        words = [(w, s) for s in sentences for w in s.split()]
        for _i, (word, sentence) in enumerate(words + [("", "")]):
            trial = " ".join(line + [word]) if word else ""
            if word and stringWidth(trial, "Helvetica", BODY) <= WIDTH:
                line.append(word)
                owners.append(sentence)
                continue
            if y < BOTTOM:  # the page is full: the paragraph goes on overleaf
                pages.append([])
                y = TOP
            pages[-1].append(("Helvetica", BODY, " ".join(line)))
            for owner in owners:
                where.setdefault(owner, set()).add(len(pages))
            y -= LEADING
            line, owners = [word], [sentence]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H), invariant=1)
    for number, lines in enumerate(pages, 1):
        if header:
            c.setFont("Helvetica", 9)
            c.drawString(LEFT, PAGE_H - 40, header.format(page=number, pages=len(pages)))
        y = TOP
        for font, size, text in lines:
            c.setFont(font, size)
            c.drawString(LEFT, y, text)
            y -= 2 * LEADING if size == HEAD else LEADING
        if footer:
            c.setFont("Helvetica", 9)
            c.drawString(LEFT, 40, footer.format(page=number, pages=len(pages)))
        c.showPage()
    c.save()
    return Typeset(buf.getvalue(), where, headings)


def draw_lines(pages: list[list[str]], *, size: float = BODY) -> bytes:
    """A PDF with exactly these lines on each page, one under the other."""
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H), invariant=1)
    for lines in pages:
        c.setFont("Helvetica", size)
        y = TOP
        for text in lines:
            c.drawString(LEFT, y, text)
            y -= LEADING
        c.showPage()
    c.save()
    return buf.getvalue()


def image_only_pdf(pages: int = 2) -> bytes:
    """Pages holding nothing but a picture, as a scanner makes them."""
    from PIL import Image
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    picture = Image.new("L", (200, 100), 255)
    for x in range(20, 180):
        picture.putpixel((x, 50), 0)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H), invariant=1)
    for _ in range(pages):
        c.drawInlineImage(picture, LEFT, 400, width=400, height=200)
        c.showPage()
    c.save()
    return buf.getvalue()


def encrypted_pdf(plain: bytes, *, user_password: str) -> bytes:
    """`plain` encrypted with RC4-128, which pypdf reads without any crypto package."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(plain)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def word_document(blocks: list[tuple[str, object]]) -> bytes:
    """A .docx from ("h1".."h6", text), ("p", text), ("bullet", text), ("number", text) and
    ("table", rows) blocks."""
    import docx  # type: ignore[import-untyped]

    d = docx.Document()
    for kind, value in blocks:
        if kind.startswith("h"):
            d.add_heading(str(value), int(kind[1:]))
        elif kind == "p":
            d.add_paragraph(str(value))
        elif kind == "bullet":
            d.add_paragraph(str(value), style="List Bullet")
        elif kind == "number":
            d.add_paragraph(str(value), style="List Number")
        elif kind == "table":
            rows = value
            assert isinstance(rows, list)
            table = d.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for col, text in enumerate(row):
                    table.cell(r, col).text = text
        else:
            raise ValueError(kind)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def corpus_tree(folder) -> None:
    """A small corpus as a data engineer's folder holds one, for the reading-path tests (the
    command line, chunker.arrow, Ray and Spark read it alike): nested folders, Markdown, Python
    sources with names starting with ``_`` (``__init__.py``), a name with a space and one with
    a ``%``, HTML, a PDF, a Word file, an empty file, a hidden file (skipped by every path) and
    a file that is not UTF-8 (an error of its own)."""
    from pathlib import Path

    from tests.texts import ROOT, real_documents

    root = Path(folder)
    texts = dict(real_documents())
    files: dict[str, bytes | str] = {
        "README.md": texts["README.md"],
        "guide/sample.md": texts["sample.md"],
        "guide/deep/er/textwrap.py": texts["textwrap.py"],
        "pkg/__init__.py": '"""A package."""\n\nVALUE = 1\n',
        "pkg/_private.md": "# Private\n\nNames starting with an underscore are files too.\n",
        "_top.md": "# Top\n\nA file at the top whose name starts with an underscore.\n",
        "notes/a b.md": "# Spaced\n\nA name with a space in it.\n",
        "notes/50%.md": "# Percent\n\nA name with a per cent sign: 50%20 is not a space.\n",
        "web/page.html": "<!doctype html><html><head><title>Notes</title><script>var x = 1;</script></head>"
        "<body><h1>Notes</h1><p>First <b>bold</b> point &amp; more.</p><ul><li>one</li><li>two</li></ul>"
        "<h2>Later</h2><p>" + "Plain words in a paragraph. " * 40 + "</p></body></html>",
        "docs/handbook.pdf": (ROOT / "docs" / "examples" / "handbook.pdf").read_bytes(),
        "docs/policy.docx": word_document(
            [
                ("h1", "Travel policy"),
                ("p", "Book trains when the trip is under four hours."),
                ("h2", "Expenses"),
                ("bullet", "Keep every receipt."),
                ("table", [["Item", "Limit"], ["Hotel", "120 a night"]]),
            ]
        ),
        "empty.md": "",
        ".hidden.md": "Skipped: names starting with a dot are not inputs.",
        "legacy.txt": "Caf\xe9 cr\xe8me".encode("cp1252"),
    }
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8", newline="")
        else:
            path.write_bytes(content)


def corpus_cli(args: list[str], cwd) -> tuple[int, list[dict], str]:
    """`python -m chunker ARGS` run in this process from the folder `cwd`, as the engines'
    tests compare with it: (exit status, the JSON Lines records, stderr)."""
    import json
    import os

    from chunker.cli._main import run

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        status = run(args, None, out, err)
    finally:
        os.chdir(here)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()
