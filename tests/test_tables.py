"""Tables kept by rows (docs/tables.md): markdown and recursive split a long pipe table between
its rows, every later part carries the header rows as its context, and a chunk ends inside a
row only when that row was cut (flagged row_cut). Checked against a reference reading of the
tables written here, on generated Markdown, on real Markdown, HTML and Word files."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.cli._main import run
from chunker.text._segments import Fences, count_words
from chunker.text._tables import Table, find_tables
from tests.texts import ROOT

BY_ROWS = ("markdown", "recursive")

# ---------------------------------------------------------------- a reference reading of tables

_REF_DELIM = re.compile(r" {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*")


def _ref_cells(line: str) -> int:
    s = re.sub(r"\\.", "x", line.strip())
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") else s
    return s.count("|") + 1


def reference_tables(doc: str) -> list[tuple[int, int, int, list[tuple[int, int]]]]:
    """(start, header end, end, rows) of every pipe table, read line by line: a header line and
    a delimiter row with as many cells, then the lines that are not blank and hold a pipe;
    nothing between code fences. Rows are trimmed lines."""
    lines = []
    pos = 0
    for raw in doc.split("\n"):
        lines.append((pos, pos + len(raw)))
        pos += len(raw) + 1
    out = []
    fenced = False
    i = 1
    text_of = [doc[a:b] for a, b in lines]
    while i < len(lines):
        if text_of[i - 1].lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        line, head = text_of[i], text_of[i - 1]
        if (
            not fenced
            and "|" in line
            and "|" in head
            and head.strip()
            and _REF_DELIM.fullmatch(line.rstrip("\r"))
            and _ref_cells(head) == _ref_cells(line)
        ):
            rows = [_trim(doc, *lines[i - 1]), _trim(doc, *lines[i])]
            j = i + 1
            while j < len(lines) and "|" in text_of[j] and text_of[j].strip():
                rows.append(_trim(doc, *lines[j]))
                j += 1
            out.append((rows[0][0], rows[1][1], rows[-1][1], rows))
            i = j + 1
            continue
        i += 1
    return out


def _trim(doc: str, a: int, b: int) -> tuple[int, int]:
    piece = doc[a:b]
    return a + len(piece) - len(piece.lstrip()), a + len(piece.rstrip())


def _size_of(text: str, unit: str, tokens: int) -> int:
    return len(text) if unit == "chars" else count_words(text) if unit == "words" else tokens


def _repeated(header: str, s: chunker.Settings, tok: chunker.TokenizerLike) -> bool:
    """Whether a split table's header rows are repeated: they leave a quarter of the size."""
    return _size_of(header, s.unit, tok.count(header)) <= s.size - max(s.size // 4, 1)


def check(doc: str, res: chunker.ChunkResult) -> dict[str, int]:
    """Every table invariant on one result; how many chunks were continued and cut."""
    s = res.settings
    tables = reference_tables(doc)
    seen = {"table_continued": 0, "row_cut": 0}
    tok = chunker.get_tokenizer(s.tokenizer)
    for start, head_end, end, _ in tables:
        # A table longer than the size, whose header rows leave its rows a quarter of the size,
        # is split and its header repeated: a later part exists.
        header = doc[start:head_end] + "\n"
        whole = doc[start:end]
        if (
            s.strategy in BY_ROWS
            and s.context == "none"
            and _size_of(whole, s.unit, tok.count(whole)) > s.size
            and _repeated(header, s, tok)
        ):
            assert any("table_continued" in c.flags and start < c.start_char < end for c in res.chunks), whole[:80]
    for c in res.chunks:
        assert doc[c.start_char : c.end_char] == c.text
        assert c.embed_text.endswith(c.text)
        for f in seen:
            seen[f] += f in c.flags
        if s.size and _size_of(c.embed_text, s.unit, c.embed_tokens) > s.size:
            assert "oversize" in c.flags, (c.index, c.embed_text[:80])
        for start, head_end, end, rows in tables:
            header = doc[start:head_end] + "\n"
            inside = [r for r in rows if r[0] < c.end_char < r[1]]
            if inside:
                assert "row_cut" in c.flags, (c.index, doc[inside[0][0] : inside[0][1]][:60])
            if head_end <= c.start_char < end and s.context == "none" and s.strategy in BY_ROWS:
                # Header rows that leave a quarter of the size are repeated on every later part.
                if _repeated(header, s, tok):
                    assert "table_continued" in c.flags, (c.index, c.text[:60])
            if "table_continued" in c.flags and head_end <= c.start_char < end:
                # The setting's context (if any), then the header rows, then the text.
                assert c.embed_text == c.context + c.text and c.context.endswith(header), (c.index, c.embed_text[:80])
                if s.context == "none":
                    assert c.embed_text.startswith(header)
        if "table_continued" in c.flags:
            assert any(h <= c.start_char < e for _, h, e, _ in tables), c.index
    return seen


# ---------------------------------------------------------------- the finder


def test_tables_are_found_as_gfm_has_them():
    doc = "Prices:\n\n| item | cost |\n|:--|--:|\n| tea | 2 |\n| cake | 3 |\n\nAfter | this."
    table = Table(doc.index("| item"), doc.index("--:|") + 4, doc.index("| 3 |") + 5)
    assert find_tables(doc) == [table]
    assert [t[:3] for t in reference_tables(doc)] == [table]
    # No leading pipes: still a table; a row may hold an escaped pipe.
    doc = "a | b\n--|--\n1 \\| x | 2\n3 | 4"
    assert find_tables(doc) == [Table(0, 11, len(doc))]
    # Not tables: a cell count that differs, a rule with no pipe, a table in a code fence.
    assert find_tables("| a | b |\n|---|\n| 1 | 2 |") == []
    assert find_tables("a | b\n---\nc") == []
    fenced = "```\n| a | b |\n|---|---|\n```\n"
    assert find_tables(fenced, fences=Fences.of(fenced)) == []
    assert find_tables("no pipe at all\n---") == []


def _table(rows: int, cols: int = 3, cell: str = "cell") -> str:
    head = "| " + " | ".join(f"column {k}" for k in range(cols)) + " |"
    delim = "|" + "---|" * cols
    body = ["| " + " | ".join(f"{cell} {r}.{k}" for k in range(cols)) + " |" for r in range(rows)]
    return "\n".join([head, delim, *body])


DOC = "# Stock\n\nThe stock on hand, by shelf.\n\n" + _table(60) + "\n\nCounted on Monday.\n\n## Notes\n\nNone.\n"


@pytest.mark.parametrize("strategy", BY_ROWS)
@pytest.mark.parametrize(
    "unit, size, tokenizer", [("chars", 300, "estimate"), ("words", 60, "estimate"), ("tokens", 90, "o200k")]
)
def test_a_long_table_is_split_between_rows_with_its_header_on_every_later_part(strategy, unit, size, tokenizer):
    res = chunker.chunk(DOC, strategy=strategy, unit=unit, size=size, overlap=size // 10, tokenizer=tokenizer)
    seen = check(DOC, res)
    assert seen["table_continued"] >= 3 and seen["row_cut"] == 0
    header = "| column 0 | column 1 | column 2 |\n|---|---|---|\n"
    parts = [c for c in res.chunks if "table_continued" in c.flags]
    for c in parts:
        assert c.embed_text == header + c.text and c.context.endswith(header)
        assert c.text.startswith("| cell ") and c.text.endswith(" |")
        assert "oversize" not in c.flags
        if unit == "tokens":
            assert c.embed_tokens == chunker.get_tokenizer("o200k").count(c.embed_text) <= size


def test_a_table_that_fits_is_one_piece_and_text_without_tables_is_untouched():
    small = "Intro.\n\n" + _table(3) + "\n\nOutro."
    for strategy in BY_ROWS:
        res = chunker.chunk(small, strategy=strategy, unit="chars", size=1000, overlap=0)
        assert [c.text for c in res.chunks] == [small]
        assert all(not c.context for c in res.chunks)
        res = chunker.chunk(small, strategy=strategy, unit="chars", size=len(_table(3)) + 2, overlap=0)
        assert _table(3) in [c.text for c in res.chunks]


def test_a_row_longer_than_the_size_is_cut_and_flagged():
    doc = _table(4) + "\n| " + "word " * 120 + "| x | y |\n" + "| a | b | c |"
    for strategy in BY_ROWS:
        res = chunker.chunk(doc, strategy=strategy, unit="chars", size=200, overlap=0)
        seen = check(doc, res)
        assert seen["row_cut"] >= 2
        cut = [c for c in res.chunks if "row_cut" in c.flags]
        assert all("split_sentence" not in c.flags for c in cut)  # a row is no sentence


def test_header_rows_longer_than_the_size_are_not_repeated():
    wide = "| " + " | ".join(f"a long column title {k}" for k in range(8)) + " |\n" + "|---" * 8 + "|\n"
    doc = wide + "\n".join("| " + " | ".join(str(r) for _ in range(8)) + " |" for r in range(30))
    res = chunker.chunk(doc, strategy="markdown", unit="chars", size=150, overlap=0)
    check(doc, res)
    assert not any(c.context for c in res.chunks)


@pytest.mark.parametrize("unit", ["chars", "words"])
def test_header_rows_that_leave_the_rows_less_than_a_quarter_are_not_repeated(unit):
    # A header of 35 characters and 7 words: repeated at sizes that leave a quarter, not above.
    head = "| code | name | amount |\n|---|---|---|\n"
    doc = head + "\n".join(f"| {r} | n{r} | {r * 7} |" for r in range(40))
    cost = len(head) if unit == "chars" else len(head.split())
    for size in range(cost, cost * 2):
        for strategy in BY_ROWS:
            res = chunker.chunk(doc, strategy=strategy, unit=unit, size=size, overlap=0)
            check(doc, res)
            assert "oversize" not in res.stats.flag_counts, (size, strategy)
            repeated = any(c.context for c in res.chunks)
            assert repeated == (cost <= size - max(size // 4, 1)), (size, strategy)


def test_min_size_merges_a_small_last_part_and_keeps_its_context_within_the_size():
    doc = _table(21)
    for strategy in BY_ROWS:
        plain = chunker.chunk(doc, strategy=strategy, unit="chars", size=400, overlap=0)
        merged = chunker.chunk(doc, strategy=strategy, unit="chars", size=400, overlap=0, min_size=150)
        check(doc, merged)
        assert len(merged.chunks) <= len(plain.chunks)
        for c in merged.chunks:
            assert len(c.embed_text) <= 400 or "oversize" in c.flags


def test_the_context_setting_comes_before_the_header_rows():
    res = chunker.chunk(DOC, strategy="markdown", unit="chars", size=300, overlap=0, context="headings")
    parts = [c for c in res.chunks if "table_continued" in c.flags]
    assert parts
    for c in parts:
        assert c.embed_text.endswith("| column 0 | column 1 | column 2 |\n|---|---|---|\n" + c.text)
        assert c.embed_text.startswith("Stock") and len(c.embed_text) <= 300


def test_langchain_and_the_other_strategies_do_not_look_for_tables():
    for strategy in ("langchain", "fixed", "sentence", "paragraph"):
        res = chunker.chunk(DOC, strategy=strategy, unit="chars", size=300, overlap=0)
        assert not any("table_continued" in c.flags or c.context for c in res.chunks)
        advice = chunker.advise(DOC, res)
        tip = next(t for t in advice.tips if t.code == "tables")
        assert "1 table" in tip.message and tip.suggest == {"strategy": BY_ROWS}


def test_the_advice_names_the_table_parts():
    res = chunker.chunk(DOC, strategy="markdown", unit="chars", size=300, overlap=0)
    codes = {t.code: t for t in chunker.advise(DOC, res).tips}
    assert "table_parts" in codes and "tables" not in codes
    assert "header rows" in codes["table_parts"].message
    wide = _table(4) + "\n| " + "word " * 120 + "| x | y |"
    res = chunker.chunk(wide, strategy="recursive", unit="chars", size=200, overlap=0)
    assert "row_cut" in {t.code for t in chunker.advise(wide, res).tips}


# ---------------------------------------------------------------- generated Markdown

_word = st.sampled_from(["tea", "cake", "Price", "total", "x" * 30, "3.50", "é", "日本", "😀", "a\\|b", "**bold**"])
_cell = st.lists(_word, min_size=0, max_size=6).map(" ".join)


@st.composite
def _gen_table(draw: st.DrawFn) -> str:
    cols = draw(st.integers(1, 5))
    lead = draw(st.booleans())

    def line(cells: list[str]) -> str:
        body = " | ".join(cells)
        return f"| {body} |" if lead else body + (" |" if cols == 1 else "")

    head = line([draw(_cell) or "h" for _ in range(cols)])
    delim = line([draw(st.sampled_from(["---", ":--", "--:", ":-:"])) for _ in range(cols)])
    rows = [line([draw(_cell) for _ in range(cols)]) for _ in range(draw(st.integers(0, 25)))]
    return "\n".join([head, delim, *rows])


_block = st.one_of(
    _gen_table(),
    st.lists(_word, min_size=1, max_size=40).map(lambda ws: " ".join(ws) + "."),
    st.sampled_from(["# Title", "## Section", "Some text | with a pipe", "- item\n- item"]),
)
markdown_with_tables = st.tuples(st.lists(_block, min_size=1, max_size=8), st.sampled_from(["\n\n", "\n", "\r\n\r\n"])).map(
    lambda bs: bs[1].join(bs[0])
)


@settings(max_examples=150, deadline=None)
@given(
    doc=markdown_with_tables,
    strategy=st.sampled_from(BY_ROWS),
    unit=st.sampled_from(["chars", "words", "tokens"]),
    size=st.integers(8, 400),
    overlap_pct=st.integers(0, 30),
    min_size=st.sampled_from([0, 0, 10, 40]),
    tokenizer=st.sampled_from(["o200k", "cl100k", "estimate", "approx"]),
    context=st.sampled_from(["none", "none", "headings"]),
)
def test_tables_are_kept_by_rows_on_generated_markdown(doc, strategy, unit, size, overlap_pct, min_size, tokenizer, context):
    if unit == "words":
        size = max(2, size // 6)
    try:
        res = chunker.chunk(
            doc,
            strategy=strategy,
            unit=unit,
            size=size,
            overlap=size * overlap_pct // 100,
            min_size=min(min_size, size // 2),
            tokenizer=tokenizer,
            context=context,
        )
    except chunker.ChunkerError as e:
        assert "context" in str(e)  # a heading path longer than the size: the one error allowed
        return
    check(doc, res)


# ---------------------------------------------------------------- real files

REAL_MARKDOWN = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


@pytest.mark.parametrize("path", REAL_MARKDOWN, ids=lambda p: p.name)
def test_real_markdown_tables(path: Path):
    doc = path.read_text(encoding="utf-8")
    if not reference_tables(doc):
        pytest.skip("no pipe table")
    assert [t[:3] for t in reference_tables(doc)] == [tuple(t) for t in find_tables(doc, fences=Fences.of(doc))]
    for strategy in BY_ROWS:
        for unit, size in (("chars", 400), ("tokens", 120), ("words", 40)):
            res = chunker.chunk(doc, strategy=strategy, unit=unit, size=size, overlap=size // 8, tokenizer="o200k")
            check(doc, res)  # every table longer than the size has its later parts flagged


PYTHON_HTML = Path("/usr/share/doc/python3.11/html/library")


@pytest.mark.parametrize("name", ["stdtypes.html", "datetime.html", "string.html"])
def test_real_html_tables(name: str):
    path = PYTHON_HTML / name
    if not path.exists():
        pytest.skip("python3.11-doc is not installed")
    d = chunker.Document.open(path)
    tables = find_tables(d.text)
    assert tables, "the HTML reader writes <table> as pipe tables"
    continued = 0
    for strategy in BY_ROWS:
        res = d.chunk(strategy=strategy, unit="tokens", size=200, overlap=20, tokenizer="o200k")
        continued += check(d.text, res)["table_continued"]
    assert continued


def _docx(rows: int) -> bytes:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_heading("Harbour fees", level=1)
    document.add_paragraph("The fees the harbour master charges, by boat length, from April.")
    table = document.add_table(rows=rows + 1, cols=3)
    for k, title in enumerate(("Length", "Fee per night", "Notes")):
        table.cell(0, k).text = title
    for r in range(1, rows + 1):
        table.cell(r, 0).text = f"{r + 4} m"
        table.cell(r, 1).text = f"{r * 3} EUR"
        table.cell(r, 2).text = "Water and power included" if r % 2 else "Water only"
    document.add_paragraph("Fees are paid at the office before noon.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_word_tables_are_kept_by_rows():
    d = chunker.Document.from_bytes(_docx(80), name="fees.docx")
    (table,) = find_tables(d.text)
    assert d.text[table.start : table.head_end] == "| Length | Fee per night | Notes |\n|---|---|---|"
    for strategy in BY_ROWS:
        for unit, size in (("chars", 500), ("tokens", 100)):
            res = d.chunk(strategy=strategy, unit=unit, size=size, overlap=0, tokenizer="o200k")
            seen = check(d.text, res)
            assert seen["table_continued"] >= 3 and seen["row_cut"] == 0


def test_the_cli_gives_the_librarys_records(tmp_path):
    path = tmp_path / "fees.docx"
    path.write_bytes(_docx(40))
    md = tmp_path / "stock.md"
    md.write_text(DOC, encoding="utf-8")
    for file in (path, md):
        for strategy in BY_ROWS:
            args = [str(file), "--strategy", strategy, "--unit", "chars", "--size", "300", "--overlap", "20"]
            out, err = io.StringIO(), io.StringIO()
            assert run(args, io.StringIO(""), out, err) == 0, err.getvalue()
            res = chunker.Document.open(file).chunk(strategy=strategy, unit="chars", size=300, overlap=20)
            assert out.getvalue() == chunker.FORMATS["jsonl"].write(res)
            records = [json.loads(line) for line in out.getvalue().splitlines()]
            assert [r["flags"] for r in records] == [list(c.flags) for c in res.chunks]
            parts = [r for r in records if "table_continued" in r["flags"]]
            assert len(parts) >= 2
            assert all(r["embed_text"].startswith("| ") and r["embed_text"].endswith(r["text"]) for r in parts)
