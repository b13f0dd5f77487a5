"""Invariants every strategy keeps, on random text and on slices of real documents."""

from __future__ import annotations

import inspect
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import chunker
from chunker.results._records import FLAGS
from chunker.tokens._tokenizers import get_tokenizer
from tests.texts import real_documents

STRATEGIES = list(chunker.STRATEGIES)

# Text with the structure chunkers care about: words, sentence ends, abbreviations, line and
# paragraph breaks, CRLF, tabs, a BOM, emoji and other astral characters, CJK, markdown.
_atoms = st.sampled_from(
    [
        "word",
        "Word",
        "the",
        "a",
        "chunking",
        "overlap",
        "x" * 37,
        ".",
        "!",
        "?",
        "...",
        "…",
        ",",
        ";",
        ":",
        " ",
        " ",
        " ",
        "  ",
        "\t",
        "\n",
        "\n\n",
        "\r\n",
        "\r\n\r\n",
        "\n \n",
        "Dr.",
        "e.g.",
        "U.S.",
        "3.14",
        '"',
        "”",
        ")",
        "(",
        "# ",
        "## ",
        "- ",
        "1. ",
        "```",
        "```\n",
        "| a | b |\n",
        "|---|---|\n",
        "HEADING LINE",
        "\ufeff",
        "😀",
        "👩‍👩‍👧",
        "𝔘",
        "日本語",
        "。",
        "！",
        "中文",
        "é",
        "e\u0301",
        "<img src=x onerror=alert(1)>",
        "",
    ]
)
random_text = st.lists(_atoms, max_size=120).map("".join) | st.text(max_size=300)


@st.composite
def real_slices(draw):
    docs = real_documents()
    name, doc = draw(st.sampled_from(docs))
    start = draw(st.integers(0, max(0, len(doc) - 1)))
    length = draw(st.integers(0, 4000))
    return doc[start : start + length]


texts = random_text | real_slices()


@st.composite
def options(draw, tokenizers=("approx", "estimate")):
    strategy = draw(st.sampled_from(STRATEGIES))
    unit = draw(st.sampled_from(list(chunker.UNITS)))
    tokenizer = draw(st.sampled_from(list(tokenizers)))
    zero_ok = chunker.STRATEGIES[strategy].size_zero
    size = draw(st.integers(0 if zero_ok else 1, 400))
    if size > 0:
        overlap = draw(st.integers(0, size - 1) | st.sampled_from(["0%", "10%", "15%", "50%"]))
    else:
        overlap = 0
    breaks = draw(st.lists(st.sampled_from(list(chunker.BREAKS)), min_size=1, unique=True))
    # min_size off half the time (today's output), else anything under the size.
    min_size = draw(st.just(0) | st.integers(0, max(0, size - 1)))
    language = draw(st.sampled_from(["auto", "python", "js", "markdown", "html", "latex", "visualbasic6"]))
    return dict(
        strategy=strategy,
        unit=unit,
        size=size,
        overlap=overlap,
        tokenizer=tokenizer,
        breaks=breaks,
        min_size=min_size,
        language=language,
    )


def check_invariants(text, opts):
    res = chunker.chunk(text, **opts)
    again = chunker.chunk(text, **opts)
    assert res == again, "the same input must give the same output"
    chunks = res.chunks
    prev = None
    covered = [False] * len(text)
    # Every size is judged on the record's own text, as the pipeline will see it.
    unit = opts["unit"]
    own = len if unit == "chars" else (lambda s: len(s.split())) if unit == "words" else get_tokenizer(opts["tokenizer"]).count
    overlap = res.settings.overlap_count
    for i, c in enumerate(chunks):
        assert c.index == i
        assert text[c.start_char : c.end_char] == c.text
        assert c.text.strip() or opts["strategy"] == "langchain", "no chunk is only whitespace"
        assert c.chars == len(c.text) and c.words == len(c.text.split())
        if prev is not None:
            if opts["strategy"] == "langchain":
                # LangChain itself can return "0" then "00" for " 00" at size 2: same start.
                assert c.start_char >= prev.start_char, "starts never go back"
            else:
                assert c.start_char > prev.start_char, "starts ascend"
                assert c.end_char >= prev.end_char
            assert c.overlap_chars == max(0, min(prev.end_char, c.end_char) - c.start_char)
            if c.start_char < prev.end_char and opts["strategy"] != "langchain":
                assert own(text[c.start_char : prev.end_char]) <= overlap, "overlap within ask"
        if res.settings.size > 0 and "oversize" not in c.flags:
            # The size bounds what is embedded: a table part's header rows count against it.
            assert own(c.embed_text) <= res.settings.size
        assert ("tiny" in c.flags) == (own(c.text) < res.settings.min_size)
        assert c.flags == tuple(f for f in FLAGS if f in c.flags), "flags once each, in the table's order"
        for k in range(c.start_char, c.end_char):
            covered[k] = True
        prev = c
    missing = [k for k, ch in enumerate(text) if not covered[k] and not ch.isspace()]
    assert not missing, f"non-whitespace at {missing[:5]} is in no chunk"
    stats = res.stats
    assert stats.chunks == len(chunks)
    assert stats.embedding_tokens == sum(c.embed_tokens for c in chunks)
    # Every count is the chunk's own, as if it were tokenized alone (the exact measure answers
    # from the document's single encoding; this is the reference).
    count = get_tokenizer(opts["tokenizer"]).count
    assert [c.tokens for c in chunks] == [count(c.text) for c in chunks]
    assert [c.embed_tokens for c in chunks] == [count(c.embed_text) for c in chunks]
    if chunks:
        assert stats.document_tokens == count(text)
    duplicated, covered_to = 0, None
    for c in chunks:
        if covered_to is not None and c.start_char < covered_to:
            duplicated += count(text[c.start_char : min(covered_to, c.end_char)])
        covered_to = c.end_char if covered_to is None else max(covered_to, c.end_char)
    assert stats.duplicated_tokens == duplicated
    return res


# -- exact tokenizers at their edges -----------------------------------------------------------
# The exact measure counts from one encoding of the document; a chunk is embedded alone. The
# two differ where a span's edge falls inside a pre-token: "xyz," at the start of an overlap is
# two tokens alone and one in the document (" xyz" holds the space before it). These texts put
# such edges everywhere, at sizes where one token matters.

_phrase_atoms = st.sampled_from(
    [
        "xyz",
        "abc",
        "de",
        "The",
        "e.g.",
        ",",
        ", ",
        ".",
        ". ",
        "!",
        "?",
        ";",
        ":",
        "'",
        '"',
        "(",
        ")",
        "-",
        "--",
        "1",
        "12",
        "2024",
        "…",
        "é",
        "日本語",
        "😀",
        " ",
        "\n",
        "\n\n",
        "\t",
        "'s",
        "n't",
    ]
)


@st.composite
def repeated_phrases(draw):
    """A short phrase with punctuation, repeated with a separator: 'xyz, abc xyz, abc'."""
    phrase = "".join(draw(st.lists(_phrase_atoms, min_size=1, max_size=5)))
    sep = draw(st.sampled_from(["", " ", ", ", "\n", ". ", "\n\n", " - "]))
    return sep.join([phrase] * draw(st.integers(1, 12)))


# Runs with no forced token boundary inside (no space before a word): the exact count of a
# piece cut from one is the piece's own encoding, which may differ from the document's.
_run_atoms = st.sampled_from(
    [
        "x" * 50,
        "x" * 137,
        "abc ",
        "日本語" * 11,
        "日本語のテキスト",
        "😀" * 7,
        "👩‍👩‍👧",
        "1234567890" * 5,
        "é" * 20,
        "𝔘" * 9,
        "—",
        "中文",
        " ",
        "\n",
        "\n\n",
        ".",
        ", ",
        "ab",
        "Ωmega",
        "\u200b",
        "ü" * 3,
    ]
)
unspaced_runs = st.lists(_run_atoms, min_size=1, max_size=12).map("".join)
edge_texts = repeated_phrases() | unspaced_runs | st.lists(_phrase_atoms | _run_atoms, max_size=40).map("".join)


@st.composite
def small_token_options(draw):
    strategy = draw(st.sampled_from(STRATEGIES))
    size = draw(st.integers(1, 8))
    overlap = draw(st.integers(0, size - 1) | st.sampled_from(["0%", "25%", "50%"]))
    return dict(
        strategy=strategy,
        unit="tokens",
        size=size,
        overlap=overlap,
        tokenizer=draw(st.sampled_from(["o200k", "cl100k"])),
        breaks=["paragraph", "line", "sentence"],
    )


def unsplittable(strategy: str, text: str) -> bool:
    """Whether a chunk's text is one that no cut may split to fit the size: one character; a
    whole paragraph for the paragraph strategy (it never splits one, and a fenced code block with
    blank lines inside is one paragraph); for markdown, a chunk of
    nothing but heading lines (a heading is never cut, and a heading that fills the size stands
    alone)."""
    from chunker.strategies._pack import glue_fences
    from chunker.strategies.markdown import blocks
    from chunker.text._segments import Fences, paragraph_spans

    if len(text) == 1:
        return True
    if strategy == "paragraph":
        return len(glue_fences(paragraph_spans(text), Fences.of(text))) == 1
    if strategy == "markdown":
        return all(b.kind == "heading" for b in blocks(text))
    return False


def check_fit(text, opts):
    """Every chunk over the size is one no cut could make fit (and is flagged oversize)."""
    res = check_invariants(text, opts)
    if opts["strategy"] == "langchain":  # LangChain's own output, chunk for chunk
        return res
    size, unit = res.settings.size, res.settings.unit
    for c in res:
        measured = c.tokens if unit == "tokens" else c.chars if unit == "chars" else c.words
        if size and measured > size:
            assert "oversize" in c.flags
            assert unsplittable(opts["strategy"], c.text), (c.text, measured, size)
    return res


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, options())
def test_invariants_estimated_tokenizers(text, opts):
    check_fit(text, opts)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts | edge_texts, options(tokenizers=("o200k", "cl100k")))
def test_invariants_exact_tokenizers(text, opts):
    check_fit(text, opts)


@settings(max_examples=150, deadline=None)
@given(texts, st.sampled_from(["fixed", "sentence", "recursive"]), st.sampled_from(["chars", "words"]), st.integers(1, 300))
def test_structure_splitters_never_oversize_in_chars_and_words(text, strategy, unit, size):
    # Only an exact tokenizer (counting a chunk on its own, not within the document) or an
    # unsplittable unit (paragraph, markdown block glued to its heading) can overshoot.
    res = chunker.chunk(text, strategy=strategy, unit=unit, size=size, overlap=0)
    assert all("oversize" not in c.flags for c in res)


@settings(max_examples=100, deadline=None)
@given(texts, st.integers(1, 200), st.integers(0, 199))
def test_fixed_chars_windows_are_exact(text, size, overlap):
    assume(overlap < size and text.strip())
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=size, overlap=overlap)
    for a, b in zip(res.chunks, res.chunks[1:]):
        if b.start_char - a.start_char == size - overlap:
            assert a.chars == size
    last = res.chunks[-1].end_char
    assert last == len(text.rstrip()) or text[last:].isspace() or last == len(text)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_empty_and_blank_input_give_no_chunks(strategy):
    for text in ("", "   \n\n\t "):
        res = chunker.chunk(text, strategy=strategy)
        assert res.chunks == () and res.stats.chunks == 0
        assert chunker.to_json(res) == "[]\n" and chunker.to_jsonl(res) == ""


@pytest.mark.parametrize("tokenizer", ["o200k", "cl100k"])
@pytest.mark.parametrize("strategy", ["recursive", "sentence", "markdown"])
def test_exact_token_chunks_fit_on_real_documents(strategy, tokenizer):
    # Packing decides with the document's one encoding, but what counts is each chunk encoded
    # on its own: no chunk may exceed the size when the text can be split to fit.
    for name, doc in real_documents():
        for size in (64, 200, 512):
            res = chunker.chunk(doc, strategy=strategy, unit="tokens", size=size, overlap=size // 8, tokenizer=tokenizer)
            over = [(c.index, c.tokens) for c in res if "oversize" in c.flags]
            assert not over, (name, size, over[:3])
            assert all(c.tokens <= size for c in res)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(" \t\n\u2028\xa0x"), max_size=200))
def test_stripped_length_is_the_length_of_strip(text):
    # Runs of whitespace past the 64 characters looked at one by one included.
    from chunker.text._segments import stripped_length

    assert stripped_length(text) == len(text.strip())
    assert stripped_length(" " * 100 + text + "\n" * 70) == len(text.strip())
    long = "x" * (1 << 16)
    assert stripped_length(text + long + text) == len((text + long + text).strip())
    assert stripped_length(" " * 100 + long + "\n" * 70) == len(long)


# Every whitespace character Python knows, some ASCII, CJK, astral and lone surrogates.
_SPACES = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
_CHECKED = st.text(alphabet=st.sampled_from(_SPACES + "ab—é日😀\ud800\udfff"), max_size=120)


@settings(max_examples=300, deadline=None)
@given(_CHECKED, st.booleans())
def test_word_counts_and_text_checks_read_every_character(text, long):
    """count_words and check_text look only at the text's non-ASCII characters (see
    non_ascii): they must still see each one, also past non_ascii's first megabyte step."""
    from chunker.text._segments import check_text, checked_text, count_words, has_wide_space, non_ascii

    pad = "x " * (1 << 19) if long else ""  # 2**20 characters: `text` starts the second step
    doc = pad + text
    assert non_ascii(doc) == "".join(c for c in text if not c.isascii())
    assert count_words(doc) == len(pad.split()) + len(text.split())
    lone = next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)

    class Text(str):  # stored otherwise, and sized and encoded its own way: neither decides
        def encode(self, encoding="utf-8", errors="strict"):
            return str.encode(self, "utf-8", "surrogatepass")  # never refuses a surrogate

        def __sizeof__(self):
            raise RuntimeError("a size no check should ask for")

    # One, two and four bytes a character (the alphabet's é, 日 and 😀) take different checks.
    for value in (doc, Text(doc)):
        if lone is None:
            checked, wide = checked_text(value)
            assert checked is value and check_text(value) is value
            assert wide is None or wide == has_wide_space(doc)  # None: not looked for
        else:
            with pytest.raises(
                chunker.ChunkerError, match=rf"lone surrogate \(U\+{ord(text[lone]):04X}\) at offset {len(pad) + lone},"
            ):
                check_text(value)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edge_texts, small_token_options())
def test_exact_tokens_at_their_edges(text, opts):
    check_fit(text, opts)


@pytest.mark.parametrize("tokenizer", ["o200k", "cl100k"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_exact_token_repros(strategy, tokenizer):
    # The reported cases, every strategy: an overlap of two tokens where one was asked; an
    # 11-token chunk of a run that could be cut to 10; 6-token windows of CJK at size 5.
    check_fit("xyz, abc xyz, abc", dict(strategy=strategy, unit="tokens", size=5, overlap=1, tokenizer=tokenizer))
    check_fit("abc " + "x" * 300 + "\n", dict(strategy=strategy, unit="tokens", size=10, overlap=0, tokenizer=tokenizer))
    for overlap in (0, 2):
        check_fit("日本語" * 33 + "\n", dict(strategy=strategy, unit="tokens", size=5, overlap=overlap, tokenizer=tokenizer))
    # A token holding a space and the first bytes of the character after it (" 𝔘" in cl100k):
    # at sizes under that token's run, the space and the character are cut apart.
    for size, overlap in ((1, 0), (2, 0), (2, 1), (3, 1)):
        check_fit(", 𝔘𝔘𝔘…", dict(strategy=strategy, unit="tokens", size=size, overlap=overlap, tokenizer=tokenizer))


# -- min_size, pages, code -----------------------------------------------------------------------


def _own_count(opts):
    unit = opts["unit"]
    return len if unit == "chars" else (lambda s: len(s.split())) if unit == "words" else get_tokenizer(opts["tokenizer"]).count


def _table_parts_apart(text, a, b) -> bool:
    """Whether chunks a and b (a first) both lie in one table: two such chunks are parts of a
    table split by rows, which are kept apart as a heading keeps sections apart."""
    from chunker.text._tables import find_tables

    return any(t.start <= a.start_char and b.end_char <= t.end for t in find_tables(text))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, options(), st.integers(1, 400))
def test_min_size_only_merges_neighbours_and_never_breaks_the_size(text, opts, min_size):
    """With min_size every chunk is a run of neighbouring chunks made without it (from the first
    one's start to the last one's end); none is over the size unless it was so already; a chunk
    left tiny could join neither neighbour within the size, with the context the first of the two
    carries (or a section starts between)."""
    assume(opts["size"] > 1)
    base = chunker.chunk(text, **{**opts, "min_size": 0}).chunks
    opts = {**opts, "min_size": min(min_size, opts["size"] - 1)}
    res = check_fit(text, opts)
    own, size = _own_count(opts), res.settings.size
    k = 0
    for c in res:
        assert base[k].start_char == c.start_char, "a merged chunk starts where a chunk started"
        last = k
        while base[last].end_char != c.end_char:
            last += 1
        while last + 1 < len(base) and base[last + 1].end_char == c.end_char:  # fixed windows can share an end
            last += 1
        if last > k:  # a merge: it fits
            assert own(c.text) <= size
        else:
            # The same flags, but for tiny, in the order of the flag table.
            wanted = {f for f in base[k].flags if f != "tiny"} | ({"tiny"} & set(c.flags))
            assert c.flags == tuple(f for f in FLAGS if f in wanted)
        k = last + 1
    assert k == len(base)
    if opts["strategy"] in ("markdown", "page"):
        return  # a heading or a page between two chunks also keeps them apart
    chunks = list(res)
    for i, c in enumerate(chunks):
        if "tiny" in c.flags:
            for j in (i - 1, i + 1):
                if 0 <= j < len(chunks):
                    a, b = sorted((chunks[i], chunks[j]), key=lambda x: x.start_char)
                    if _table_parts_apart(text, a, b):
                        continue  # two parts of a split table never share a chunk
                    # Merged, the two would carry the first one's context (a split table's later
                    # part: its header rows, as test_context checks), and fit the size with it.
                    held = own(a.context) if a.context else 0
                    assert own(text[a.start_char : b.end_char]) + held > size, "a tiny chunk that could merge"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.data())
def test_page_chunks_never_cross_a_page(text, data):
    assume(text.strip())
    cuts = sorted(set(data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=6))))
    pages = [0] + [c for c in cuts if 0 < c < len(text)]
    opts = data.draw(options())
    opts.update(strategy="page", size=max(opts["size"], 1) if data.draw(st.booleans()) else 0)
    if opts["size"] == 0:
        opts.update(overlap=0, min_size=0)
    elif opts["min_size"] >= opts["size"]:
        opts["min_size"] = 0
    doc = chunker.Document(text, pages=pages)
    res = doc.chunk(**opts)
    own = _own_count(opts)
    bounds = [*pages, len(text)]
    covered = [False] * len(text)
    for c in res:
        assert text[c.start_char : c.end_char] == c.text and c.page_start == c.page_end, "one page each"
        if opts["size"] and "oversize" not in c.flags:
            assert own(c.text) <= opts["size"]
        if "oversize" in c.flags:
            assert len(c.text) == 1
        for k in range(c.start_char, c.end_char):
            covered[k] = True
    assert all(covered[k] or ch.isspace() for k, ch in enumerate(text))
    for p, (a, b) in enumerate(zip(bounds, bounds[1:]), 1):
        page = text[a:b].strip()
        if page and (opts["size"] == 0 or own(page) <= opts["size"]):
            assert [c.text for c in res if c.page_start == p] == [page], "a page that fits is one chunk"


def _python_sources():
    import bisect as m1
    import colorsys as m2
    import fnmatch as m3
    import heapq as m4
    import shlex as m5
    import textwrap as m6

    return [inspect.getsource(m) for m in (m1, m2, m3, m4, m5, m6)]


@st.composite
def python_slices(draw):
    """Whole stdlib modules, or runs of their lines that still parse (a fragment that does not
    is cut at Python's separators: the fallback)."""
    source = draw(st.sampled_from(_python_sources()))
    lines = source.splitlines(keepends=True)
    a = draw(st.integers(0, len(lines)))
    b = draw(st.integers(a, min(len(lines), a + 200)))
    return draw(st.sampled_from([source, "".join(lines[a:b])]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(python_slices(), options())
def test_code_never_cuts_a_definition_that_fits(text, opts):
    from tests.test_code import definitions

    opts.update(strategy="code", language="python", size=max(1, opts["size"]))
    res = check_fit(text, opts)
    own = _own_count(opts)
    for start, end, _ in definitions(text):
        if own(text[start:end]) <= res.settings.size:
            assert any(c.start_char <= start and end <= c.end_char for c in res), text[start:end][:80]


# Paragraphs, fence lines among them, between separators of every kind the level knows
# (blank lines with spaces, CRLF, a lone line break that joins two lines into one paragraph).
paragraph_texts = st.lists(
    st.tuples(
        st.sampled_from(["x", "y z", "```", "~~~~", "```py", "   ```", "x\n```", "\xa0", "\u2028"]),
        st.sampled_from(["\n\n", "\r\n\r\n", "\n \n", "\n", " \n\n\t", ""]),
    ),
    max_size=30,
).map(lambda parts: "".join(p + sep for p, sep in parts))


_SEPARATOR = re.compile(r"\n[^\S\n]*\n\s*")  # a blank line and the whitespace after it


def _paragraphs_one_at_a_time(text, start, end):
    """The reference paragraphs of text[start:end]: the pieces between blank lines, each
    stripped of its whitespace, the empty ones dropped."""
    pieces, pos = [], start
    for m in _SEPARATOR.finditer(text, start, end):
        pieces.append((pos, m.start()))
        pos = m.end()
    pieces.append((pos, end))
    found = []
    for a, b in pieces:
        piece = text[a:b]
        if piece.strip():
            a += len(piece) - len(piece.lstrip())
            found.append((a, a + len(piece.strip())))
    return found


def _glued_one_at_a_time(pieces, fences):
    """The reference glue: a piece that is exactly a fence line joins the piece before it if it
    closes a block (and there is one), else the piece after it (the one before, at the end)."""
    if fences is None:
        return list(pieces)
    found, waiting = [], None
    for a, b in pieces:
        if waiting is not None:
            found.append((waiting[0], b))
            waiting = None
            continue
        closes = fences.line(a, b)
        if closes is None:
            found.append((a, b))
        elif closes and found:
            found[-1] = (found[-1][0], b)
        else:
            waiting = (a, b)
    if waiting is not None:
        if found:
            found[-1] = (found[-1][0], waiting[1])
        else:
            found.append(waiting)
    return found


@settings(max_examples=400, deadline=None)
@given(paragraph_texts, st.data())
def test_the_paragraph_level_on_columns_is_the_one_a_paragraph_at_a_time(text, data):
    """The recursive cascade's paragraph level (paragraph_columns, glue_columns, runs placed
    as array slices) gives the very pieces and hard boundaries of the reference: each
    paragraph found and glued one at a time."""
    from array import array

    from chunker.strategies import _pack
    from chunker.text._segments import Fences, paragraph_columns, paragraph_spans
    from chunker.tokens._measure import CharMeasure, WordMeasure

    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    starts, ends = paragraph_columns(text, start, end, "q")
    reference = _paragraphs_one_at_a_time(text, start, end)
    assert list(zip(starts, ends)) == reference == paragraph_spans(text, start, end)
    fences = Fences.of(text)
    assert list(zip(*_pack.glue_columns(starts, ends, fences))) == _glued_one_at_a_time(reference, fences)

    size = data.draw(st.integers(0, 12))
    measure = data.draw(st.sampled_from([CharMeasure, WordMeasure]))(text)

    def leaves(place):
        got = _pack.Leaves("q")
        place(got)
        return list(got.starts), list(got.ends), bytes(got.cut), sorted(got.hard)

    def reference_place(got):
        # What the cascade did before its paragraph level took columns: a piece at a time.
        for a, b in _glued_one_at_a_time(reference, fences):
            if size and measure.over(a, b, size):
                got.hard.add(len(got.starts))
                _pack.cascade(text, a, b, 1, measure=measure, size=size, leaves=got, fences=fences)
                got.hard.add(len(got.starts))
            else:
                got.add(a, b)

    columns = leaves(lambda got: _pack.cascade(text, start, end, 0, measure=measure, size=size, leaves=got, fences=fences))
    assert columns == leaves(reference_place)
    assert array("q", columns[0]) == array("q", sorted(columns[0]))


def test_paragraph_columns_past_a_batch_of_last_characters():
    # The paragraphs' last characters are read 2**14 at a time: ragged paragraphs (a space, a
    # CR before the blank line) on both sides of the batches' edges are trimmed as one at a time.
    from random import Random

    from chunker.text._segments import paragraph_columns

    rng = Random(7)
    text = "".join(
        rng.choice(["x", "ab", "c ", "d\r", "e\t "]) + rng.choice(["\n\n", "\r\n\r\n", "\n \n"]) for _ in range(40_000)
    )
    for start, end in ((0, len(text)), (5, len(text) - 3), (1 << 16, 1 << 17)):
        starts, ends = paragraph_columns(text, start, end, "i")
        assert list(zip(starts, ends)) == _paragraphs_one_at_a_time(text, start, end)
