"""How fast documents become text (chunker/documents), on documents made here.

- PDF: a 200-page text PDF typeset with reportlab (headings, running header and footer, one
  paragraph flowing over many pages), read by pypdf alone (``page.extract_text()``) and by
  ``extract()`` (pypdf with its text visitor, then our layout pass): pages per second.
- DOCX: a Word document of headings, paragraphs, lists and tables written with python-docx,
  through mammoth and our HTML converter: MB of .docx per second.
- HTML: a page of the same structure, through ``html.parser`` and our converter: MB/s.

CPython, one process; median of 3 runs after a warm-up. Needs pypdf, mammoth, reportlab and
python-docx (the test requirements and bench/requirements.txt have them). Run:
``python bench/run.py --documents``, which adds the same documents opened on the page
(bench/browser.py), or ``python bench/extract.py`` for the CPython figures alone.
"""

from __future__ import annotations

import io
import platform
import statistics
import sys
import time
import zipfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `chunker` and `tests` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chunker.documents import extract
from tests import documents as docs

RUNS = 3


def timed(fn) -> tuple[float, float]:
    """Median wall and CPU seconds of `fn()` (the machine is shared: a gap means neighbours)."""
    fn()  # warm-up
    wall, cpu = [], []
    for _ in range(RUNS):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def pdf_of_pages(pages: int) -> bytes:
    """Exactly `pages` pages: enough sections typeset in one go, the surplus pages cut off."""
    import pypdf

    def book(sections: int) -> bytes:
        return docs.typeset(
            [(f"Chapter {n} of the harbour", docs.sentences_for(n, 80)) for n in range(sections)],
            header="Harbour Board Annual",
            footer="Page {page} of {pages}",
        ).pdf

    per_section = len(pypdf.PdfReader(io.BytesIO(book(1))).pages)
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(book(-(-pages // per_section)))))
    while len(writer.pages) > pages:
        writer.remove_page(len(writer.pages) - 1)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def word_document(sections: int) -> bytes:
    blocks: list[tuple[str, object]] = []
    for n in range(sections):
        blocks.append(("h1" if n % 5 == 0 else "h2", f"Part {n} of the harbour"))
        blocks.extend(("p", s) for s in docs.sentences_for(n, 8))
        blocks.extend(("bullet", s) for s in docs.sentences_for(n + 1, 3))
        blocks.append(("table", [["Item", "Cost"], *[[f"thing {i}", str(i * 7)] for i in range(5)]]))
    return docs.word_document(blocks)


def html_page(sections: int) -> bytes:
    parts = ["<!DOCTYPE html><html><head><title>Bench</title><style>p{margin:0}</style></head><body>"]
    for n in range(sections):
        parts.append(f"<h{1 + n % 3}>Part {n} of the harbour</h{1 + n % 3}>")
        parts.extend(f"<p>{s} &amp; <b>more</b> of it.</p>" for s in docs.sentences_for(n, 8))
        parts.append("<ul>" + "".join(f"<li>{s}</li>" for s in docs.sentences_for(n + 1, 3)) + "</ul>")
        parts.append(
            "<table><tr><th>Item</th><th>Cost</th></tr>"
            + "".join(f"<tr><td>thing {i}</td><td>{i * 7}</td></tr>" for i in range(5))
            + "</table>"
        )
        parts.append("<pre>code  kept\n  as is</pre><script>var x = 1;</script>")
    parts.append("</body></html>")
    return "".join(parts).encode()


def main() -> None:
    import pypdf

    print(
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"pypdf {pypdf.__version__}, median of {RUNS} runs"
    )
    pdf = pdf_of_pages(200)
    pages = len(pypdf.PdfReader(io.BytesIO(pdf)).pages)

    def pypdf_alone() -> None:
        for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
            page.extract_text()

    bare, bare_cpu = timed(pypdf_alone)
    ours, ours_cpu = timed(lambda: extract(pdf))
    print(f"PDF  {pages} pages, {len(pdf) / 1e6:.2f} MB:")
    print(f"     pypdf alone (extract_text) {pages / bare:6.1f} pages/s wall, {pages / bare_cpu:6.1f} per CPU s")
    print(f"     extract()                  {pages / ours:6.1f} pages/s wall, {pages / ours_cpu:6.1f} per CPU s")

    for label, data, name in (("DOCX", word_document(200), "bench.docx"), ("HTML", html_page(2000), "bench.html")):
        seconds, cpu = timed(lambda data=data, name=name: extract(data, name=name))
        chars = len(extract(data, name=name).text)
        unpacked = ""
        if label == "DOCX":
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                xml = z.getinfo("word/document.xml").file_size
            unpacked = f" ({xml / 1e6:.2f} MB of document.xml: {xml / 1e6 / seconds:.2f} MB/s)"
        print(
            f"{label} {len(data) / 1e6:.2f} MB -> {chars / 1e6:.2f} M chars: "
            f"{len(data) / 1e6 / seconds:6.2f} MB/s{unpacked}, {chars / 1e6 / seconds:.2f} M chars/s "
            f"wall; {len(data) / 1e6 / cpu:.2f} MB/s per CPU s"
        )


if __name__ == "__main__":
    main()
