"""chunker.splitters.llamaindex against the installed llama-index-core: the same chunk texts,
character for character, and offsets that index the document.

Each reproduction is held to the class itself (``SentenceSplitter``, ``TokenTextSplitter``,
``MarkdownNodeParser``) over real documents (prose in four languages, Markdown, Python source)
and parameter sweeps, and over Hypothesis texts built from the pieces the splitters cut at.
"""

from __future__ import annotations

import itertools
import logging
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chunker._errors import ChunkerError
from chunker.splitters.llamaindex import (
    CHUNKING_REGEX,
    llama_counter,
    markdown_node_parser,
    sentence_splitter,
    token_text_splitter,
)
from tests.texts import ROOT, real_documents

llama = pytest.importorskip("llama_index.core")
from llama_index.core import Document  # noqa: E402
from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter, TokenTextSplitter  # noqa: E402
from llama_index.core.utils import get_tokenizer  # noqa: E402

# TokenTextSplitter warns of a split over the size with a message its own arguments do not fit
# (logging cannot format it, and pytest's log capture raises on that): its logger is silenced.
logging.getLogger("llama_index.core.node_parser.text.token").disabled = True

DOCS = {name: text[:12000] for name, text in real_documents()}
"""Every real document, its first 12,000 characters (the sweeps run each many times)."""


def framework_texts(text, pieces):
    """What the framework's chunks are, from ours: the slice, or the text carried beside it."""
    return [p.embed if p.embed is not None else text[p.start : p.end] for p in pieces]


def assert_offsets(text, pieces):
    """Every piece indexes the document: its slice is the chunk, or covers it (the chunk's
    first and last characters are the slice's, and its characters are in the slice in order)."""
    for p in pieces:
        assert 0 <= p.start <= p.end <= len(text)
        if p.embed is None:
            continue
        covered = text[p.start : p.end]
        assert covered != p.embed
        assert covered[:1] == p.embed[:1] and covered[-1:] == p.embed[-1:]
        if len(covered) == len(p.embed):  # a character rewritten: whitespace for whitespace
            assert all(a == b or (a.isspace() and b.isspace()) for a, b in zip(covered, p.embed))
        else:  # characters skipped
            it = iter(covered)
            assert all(c in it for c in p.embed), "the chunk's characters are not in its span, in order"


def assert_same(text, pieces, expected):
    got = framework_texts(text, pieces)
    if got != expected:
        k = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
        pytest.fail(f"chunk {k} of {len(expected)} ({len(got)} here) differs: {got[k : k + 1]!r} != {expected[k : k + 1]!r}")
    assert_offsets(text, pieces)


# ---------------------------------------------------------------- SentenceSplitter

SENTENCE_QUICK = [
    {},
    {"chunk_size": 128, "chunk_overlap": 20},
    {"chunk_size": 48, "chunk_overlap": 10, "paragraph_separator": "\n\n", "separator": "\n"},
]
SENTENCE_SWEEP = [
    {"chunk_size": size, "chunk_overlap": overlap, **extra}
    for size, overlap in itertools.product((24, 100, 1024), (0, 50))
    if overlap <= size
    for extra in (
        {},
        {"secondary_chunking_regex": None},
        {"paragraph_separator": "\n\n", "separator": "\n"},
        {"secondary_chunking_regex": r"[^\n]+\n?|\n"},
        {"secondary_chunking_regex": r"\w+[.,]?"},  # skips characters: chunks that are no slice
        {"secondary_chunking_regex": r"(\S+)\s*"},  # one group: findall gives the group
    )
]


def _sentence_case(name, kw):
    text = DOCS[name]
    try:
        expected = SentenceSplitter(**kw).split_text(text)
    except ValueError as e:
        assert "Single token exceeded chunk size" in str(e)
        with pytest.raises(ChunkerError, match="Single token exceeded chunk size"):
            sentence_splitter(text, **kw)
        return
    assert_same(text, sentence_splitter(text, **kw), expected)


@pytest.mark.parametrize("kw", SENTENCE_QUICK, ids=str)
@pytest.mark.parametrize("name", list(DOCS))
def test_sentence_splitter_matches(name, kw):
    _sentence_case(name, kw)


def test_sentence_splitter_sweep():
    for name, kw in itertools.product(DOCS, SENTENCE_SWEEP):
        _sentence_case(name, kw)


def test_sentence_splitter_defaults_are_llama_indexs():
    s = SentenceSplitter()
    assert (s.chunk_size, s.chunk_overlap, s.separator, s.paragraph_separator) == (1024, 200, " ", "\n\n\n")
    assert s.secondary_chunking_regex == CHUNKING_REGEX


def test_a_regex_that_skips_characters_carries_llama_indexs_text():
    text = "alpha, beta; gamma delta, " * 40  # one sentence: cut by the regex
    kw = {"chunk_size": 20, "chunk_overlap": 0, "secondary_chunking_regex": r"\w+"}
    pieces = sentence_splitter(text, **kw)
    assert_same(text, pieces, SentenceSplitter(**kw).split_text(text))
    assert any(p.embed is not None for p in pieces)


def test_empty_and_blank_texts():
    assert SentenceSplitter().split_text("") == [""]
    assert framework_texts("", sentence_splitter("")) == [""]
    assert SentenceSplitter().split_text(" \n ") == [] == sentence_splitter(" \n ")


def test_metadata_reserve_is_split_text_metadata_aware():
    text = DOCS["sample.md"]
    splitter = SentenceSplitter(chunk_size=128, chunk_overlap=100)
    meta = "file_name: sample.md\ntitle: The playground's sample document, with a long title for the test"
    reserve = len(get_tokenizer()(meta))
    pieces = sentence_splitter(text, chunk_size=128, chunk_overlap=100, reserve=reserve)
    assert_same(text, pieces, splitter.split_text_metadata_aware(text, meta))
    with pytest.raises(ChunkerError, match="metadata measures 128 tokens"):
        sentence_splitter(text, chunk_size=128, chunk_overlap=0, reserve=128)


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"chunk_size": 0}, "chunk_size must be a whole number above 0"),
        ({"chunk_size": 10, "chunk_overlap": 11}, "chunk_overlap 11 is larger than chunk_size 10"),
        ({"separator": ""}, "separator must be a string"),
        ({"paragraph_separator": 3}, "paragraph_separator must be a string"),
        ({"secondary_chunking_regex": "(a)(b)"}, "2 capturing groups"),
        ({"secondary_chunking_regex": "("}, "not a valid regular expression"),
    ],
)
def test_bad_parameters_are_one_line(kw, message):
    with pytest.raises(ChunkerError, match=re.escape(message)) as e:
        sentence_splitter("Some text.", **kw)
    assert "\n" not in str(e.value)


def test_a_character_over_the_size_is_refused_as_llama_index_refuses_it():
    text = "😀" * 10
    with pytest.raises(ValueError, match="Single token exceeded chunk size"):
        SentenceSplitter(chunk_size=1, chunk_overlap=0).split_text(text)
    with pytest.raises(ChunkerError, match="Single token exceeded chunk size"):
        sentence_splitter(text, chunk_size=1, chunk_overlap=0)


# ---------------------------------------------------------------- tokens as LlamaIndex counts them


@pytest.mark.parametrize(
    "text",
    ["", "plain words", "a <|endoftext|> b", "<|fim_prefix|><|fim_suffix|>x<|endofprompt|>", "<|notspecial|> <|endoftext"],
)
def test_counts_are_llama_indexs_default_tokenizer(text):
    count = llama_counter(text)
    tokenizer = get_tokenizer()
    for a in range(len(text) + 1):
        for b in range(a, len(text) + 1, 3):
            assert count(a, b) == len(tokenizer(text[a:b])), (a, b)


def test_special_tokens_text_is_one_token_in_a_chunk():
    text = ("word " * 30 + "<|endoftext|> ") * 20
    kw = {"chunk_size": 40, "chunk_overlap": 5}
    assert_same(text, sentence_splitter(text, **kw), SentenceSplitter(**kw).split_text(text))
    assert_same(text, token_text_splitter(text, **kw), TokenTextSplitter(**kw).split_text(text))


# ---------------------------------------------------------------- TokenTextSplitter

TOKEN_QUICK = [{}, {"chunk_size": 64, "chunk_overlap": 8}, {"chunk_size": 20, "chunk_overlap": 4, "keep_whitespaces": True}]
TOKEN_SWEEP = [
    {"chunk_size": size, "chunk_overlap": overlap, **extra}
    for size, overlap in itertools.product((16, 200), (0, 10))
    if overlap <= size
    for extra in (
        {},
        {"keep_whitespaces": True},
        {"separator": "\n", "backup_separators": [" "]},
        {"backup_separators": ["\n\n", ".", "\n"]},
    )
]


def _token_case(name, kw):
    text = DOCS[name]
    assert_same(text, token_text_splitter(text, **kw), TokenTextSplitter(**kw).split_text(text))


@pytest.mark.parametrize("kw", TOKEN_QUICK, ids=str)
@pytest.mark.parametrize("name", list(DOCS))
def test_token_text_splitter_matches(name, kw):
    _token_case(name, kw)


def test_token_text_splitter_sweep():
    for name, kw in itertools.product(DOCS, TOKEN_SWEEP):
        _token_case(name, kw)


def test_token_text_splitter_defaults_and_metadata_reserve():
    s = TokenTextSplitter()
    assert (s.chunk_size, s.chunk_overlap, s.separator, s.keep_whitespaces) == (1024, 20, " ", False)
    text = DOCS["README.md"]
    meta = "source: README.md"
    splitter = TokenTextSplitter(chunk_size=60, chunk_overlap=10)
    reserve = len(get_tokenizer()(meta)) + 2  # the class keeps two tokens for the format
    pieces = token_text_splitter(text, chunk_size=60, chunk_overlap=10, reserve=reserve)
    assert_same(text, pieces, splitter.split_text_metadata_aware(text, meta))
    assert framework_texts("", token_text_splitter("")) == TokenTextSplitter().split_text("") == [""]
    kw = {"chunk_size": 24, "chunk_overlap": 4, "backup_separators": []}  # no line breaks: words, then characters
    assert_same(text, token_text_splitter(text, **kw), TokenTextSplitter(**kw).split_text(text))


# ---------------------------------------------------------------- MarkdownNodeParser

MARKDOWN_CASES = [
    "",
    "no heading at all\n\nstill none",
    "# Title\nIntro.\n## Part\nBody.\n### Deep\nDeeper.\n## Next\nLast.",
    "#\tTabbed heading\nbody\n#  two spaces\nbody",
    "```\n# not a heading\n```\n# Real\ntext\n   ```python\n## in fence\n   ```\n## After",
    "# A\r\nwindows\r\n## B\r\nlines\r\n",
    "####### seven\ntext\n#\n# \n#x not a heading\n   # indented is not one either",
    "\n\n  # late\n\n\n",
    "# One\n# One\n# One\n",
]


def _markdown_case(text, separator="/"):
    nodes = MarkdownNodeParser(header_path_separator=separator).get_nodes_from_documents([Document(text=text)])
    pieces = markdown_node_parser(text, header_path_separator=separator)
    assert_same(text, pieces, [n.text for n in nodes])
    joined = [separator.join(p.headings) for p in pieces]
    paths = [separator + j + separator if j else separator for j in joined]
    assert paths == [n.metadata["header_path"] for n in nodes]
    return pieces


@pytest.mark.parametrize("text", MARKDOWN_CASES)
def test_markdown_node_parser_cases(text):
    _markdown_case(text)


@pytest.mark.parametrize("name", list(DOCS))
def test_markdown_node_parser_matches(name):
    _markdown_case(DOCS[name])
    _markdown_case(DOCS[name], " > ")


def test_a_tabbed_heading_is_covered_and_carries_llama_indexs_text():
    pieces = _markdown_case("#\tTabbed\nbody")
    assert pieces[0].embed == "# Tabbed\nbody"


# ---------------------------------------------------------------- generated texts

_PIECES = st.sampled_from(
    ["word", "Word", " ", "  ", "\n", "\n\n", "\n\n\n", ".", ". ", "? ", "! ", ",", ";", "。", "！", "Dr.", "J.", "3.",
     "# ", "## ", "\t", "```", "<|endoftext|>", "é", "中文", "😀", "(", ")", '"', "-", "—"]
)  # fmt: skip
_TEXTS = st.lists(_PIECES, max_size=120).map("".join)


@settings(max_examples=150)
@given(_TEXTS, st.integers(4, 40), st.integers(0, 12), st.sampled_from([None, CHUNKING_REGEX, r"\w+", r"[^ ]+ ?"]))
@example("J. Bach. x", 4, 0, None)
def test_generated_sentence_splitter(text, size, overlap, regex):
    kw = {"chunk_size": size, "chunk_overlap": min(overlap, size), "secondary_chunking_regex": regex}
    try:
        expected = SentenceSplitter(**kw).split_text(text)
    except ValueError:
        with pytest.raises(ChunkerError):
            sentence_splitter(text, **kw)
        return
    assert_same(text, sentence_splitter(text, **kw), expected)


@settings(max_examples=150)
@given(_TEXTS, st.integers(1, 40), st.integers(0, 12), st.booleans())
def test_generated_token_text_splitter(text, size, overlap, keep):
    kw = {"chunk_size": size, "chunk_overlap": min(overlap, size), "keep_whitespaces": keep}
    assert_same(text, token_text_splitter(text, **kw), TokenTextSplitter(**kw).split_text(text))


@settings(max_examples=150)
@given(st.lists(st.sampled_from(["# ", "## ", "#\t", "#", "```", "\n", "text", " ", "\r", "x"]), max_size=60).map("".join))
def test_generated_markdown_node_parser(text):
    _markdown_case(text)


# ---------------------------------------------------------------- the splitter setting

import chunker  # noqa: E402

PASTED = [
    ("SentenceSplitter(chunk_size=128, chunk_overlap=20)", SentenceSplitter, {"chunk_size": 128, "chunk_overlap": 20}),
    ("SentenceSplitter.from_defaults(' ', 256, 0)", SentenceSplitter, {"chunk_size": 256, "chunk_overlap": 0}),
    ("SentenceSplitter(chunk_size=60, chunk_overlap=10, secondary_chunking_regex=None)", SentenceSplitter,
     {"chunk_size": 60, "chunk_overlap": 10, "secondary_chunking_regex": None}),
    (
        "from llama_index.core.node_parser import TokenTextSplitter\nTokenTextSplitter(chunk_size=64, chunk_overlap=8)",
        TokenTextSplitter,
        {"chunk_size": 64, "chunk_overlap": 8},
    ),
    ("llama_index:TokenTextSplitter.from_defaults(40, 0, '\\n', [' '])", TokenTextSplitter,
     {"chunk_size": 40, "chunk_overlap": 0, "separator": "\n", "backup_separators": [" "]}),
    ("MarkdownNodeParser(header_path_separator=' > ')", MarkdownNodeParser, {"header_path_separator": " > "}),
]  # fmt: skip


@pytest.mark.parametrize("line, cls, kw", PASTED, ids=[p[0] for p in PASTED])
@pytest.mark.parametrize("name", ["sample.md", "argparse.py", "german"])
def test_pasted_line_gives_llama_indexs_nodes(name, line, cls, kw):
    text = DOCS[name]
    nodes = cls(**kw).get_nodes_from_documents([Document(text=text)])
    res = chunker.chunk(text, splitter=line)
    assert [c.embed_text if c.embed_text is not None else c.text for c in res.chunks] == [n.text for n in nodes]
    for c, node in zip(res.chunks, nodes):
        assert text[c.start_char : c.end_char] == c.text
        # LlamaIndex's own offsets come from str.find: the record says where they differ.
        assert ("framework_offset" in c.flags) == (node.start_char_idx != c.start_char)


def test_pasted_line_refused_where_llama_index_refuses_it():
    with pytest.raises(ValueError, match="larger chunk overlap"):
        SentenceSplitter(chunk_size=60)
    with pytest.raises(ChunkerError, match="chunk_overlap 200 is larger than chunk_size 60") as e:
        chunker.chunk("Some text.", splitter="SentenceSplitter(chunk_size=60)")
    assert "\n" not in str(e.value)
    with pytest.raises(ChunkerError, match="backup_separators must be a list"):
        chunker.chunk("x", splitter="llama_index:TokenTextSplitter(backup_separators=None)")


def test_an_empty_document_is_one_empty_node_as_in_llama_index():
    nodes = SentenceSplitter().get_nodes_from_documents([Document(text="")])
    res = chunker.chunk("", splitter="SentenceSplitter()")
    assert [c.text for c in res.chunks] == [n.text for n in nodes] == [""]


def test_repeated_text_offsets_are_right_where_llama_indexs_are_not():
    text = "Alpha beta gamma. " * 60
    line = "SentenceSplitter(chunk_size=20, chunk_overlap=0)"
    nodes = SentenceSplitter(chunk_size=20, chunk_overlap=0).get_nodes_from_documents([Document(text=text)])
    res = chunker.chunk(text, splitter=line)
    assert [c.text for c in res.chunks] == [n.text for n in nodes]
    theirs = [n.start_char_idx for n in nodes]
    ours = [c.start_char for c in res.chunks]
    assert theirs != ours and ours == sorted(set(ours))
    assert [("framework_offset" in c.flags) for c in res.chunks] == [a != b for a, b in zip(theirs, ours)]


def test_two_frameworks_token_text_splitters_are_told_apart_by_their_arguments():
    assert chunker.Settings(splitter="TokenTextSplitter(chunk_size=64, backup_separators=['\\n'])").splitter.startswith(
        "llama_index:"
    )
    assert chunker.Settings(splitter="TokenTextSplitter.from_defaults(64, 8)").splitter.startswith("llama_index:")
    assert chunker.Settings(
        splitter="TokenTextSplitter(encoding_name='cl100k_base', chunk_size=64, chunk_overlap=8)"
    ).splitter.startswith("langchain:")
    with pytest.raises(ChunkerError, match="is both LangChain's and LlamaIndex's"):
        chunker.Settings(splitter="TokenTextSplitter(chunk_size=64)")


@pytest.mark.parametrize(
    "line", [p[0] for p in PASTED] + ["SentenceSplitter(chunk_size=40, chunk_overlap=0, secondary_chunking_regex='\\\\w+')"]
)
def test_the_advice_says_what_llama_indexs_settings_do(line):
    doc = chunker.Document(DOCS["sample.md"])
    advice = doc.advise(doc.chunk(splitter=line))
    codes = [t.code for t in advice.tips]
    assert "splitter_cuts" in codes
    cuts = next(t.message for t in advice.tips if t.code == "splitter_cuts")
    assert cuts.startswith(line.split("\n")[-1].split(":")[-1].split("(")[0])
    for t in advice.tips:
        if t.code == "splitter_start_index":
            assert "LlamaIndex's own start_char_idx" in t.message


@pytest.mark.parametrize("line", [p[0] for p in PASTED], ids=[p[0] for p in PASTED])
def test_copy_as_code_runs_and_gives_the_same_chunks(line):
    import sys

    sys.path.insert(0, str(ROOT))
    from app.snippets import snippets

    settings = chunker.Settings(splitter=line)
    code = snippets(settings, "doc.md")["llama_index"]
    call = line.split("\n")[-1].split(":", 1)[-1] if line.startswith("llama_index:") else line.split("\n")[-1]
    assert f"splitter = {call}" in code
    text = DOCS["sample.md"]
    namespace: dict = {}
    exec(
        code.replace('with open("doc.md", encoding="utf-8", newline="") as f:\n    text = f.read()\n', ""),
        {"text": text},
        namespace,
    )
    res = chunker.chunk(text, splitter=line)
    assert namespace["chunks"] == [c.embed_text if c.embed_text is not None else c.text for c in res.chunks]


# ---------------------------------------------------------------- ChunkerNodeParser with a pasted line

_NODE_LINES = [(line, cls(**kw)) for line, cls, kw in PASTED] + [
    ("SentenceSplitter(chunk_size=20, chunk_overlap=0)", SentenceSplitter(chunk_size=20, chunk_overlap=0)),
    (
        "SentenceSplitter(chunk_size=3, chunk_overlap=0, secondary_chunking_regex='\\\\w+')",
        SentenceSplitter(chunk_size=3, chunk_overlap=0, secondary_chunking_regex="\\w+"),
    ),
    ("llama_index:TokenTextSplitter(chunk_size=5, chunk_overlap=0)", TokenTextSplitter(chunk_size=5, chunk_overlap=0)),
    ("llama_index:TokenTextSplitter(chunk_size=24, chunk_overlap=4)", TokenTextSplitter(chunk_size=24, chunk_overlap=4)),
]
_NODE_TEXTS = [
    DOCS["sample.md"][:4000],
    DOCS["german"][:3000],
    "One sentence here. Two sentence here. Three sentence here. Four sentence here. Five sentence here.",
    "one two three four five six seven eight nine ten",
    "#\tTitle\nBody",
    "one, two; three.",
    "",
]
# None, a file's name, and metadata long enough to leave a small chunk_size little room (or none).
_NODE_METADATA = [{}, {"file_name": "report.txt"}, {"title": "A longer title of a report, " * 3, "page": 7}]


@pytest.mark.parametrize("line, theirs", _NODE_LINES, ids=[line for line, _ in _NODE_LINES])
def test_the_node_parser_with_a_pasted_line_makes_that_classes_nodes(line, theirs):
    """`get_nodes_from_documents` sized with each input's metadata as the class sizes it
    (SentenceSplitter and TokenTextSplitter keep its tokens, TokenTextSplitter two more), the
    framework's own text on every node, an empty document as the class has it, and `split_text`
    the class's own; where LlamaIndex refuses the metadata, so does the parser."""
    from chunker.llama_index import ChunkerNodeParser

    ours = ChunkerNodeParser(splitter=line)
    for text in _NODE_TEXTS:
        if hasattr(theirs, "split_text"):
            assert ours.split_text(text) == theirs.split_text(text), text[:40]
        for meta in _NODE_METADATA:
            docs = [Document(text=text, metadata=meta)]
            try:
                expected = [n.text for n in theirs.get_nodes_from_documents(docs)]
            except ValueError as e:
                assert "Metadata length" in str(e)
                with pytest.raises(ChunkerError, match="the metadata measures"):
                    ours.get_nodes_from_documents(docs)
                continue
            nodes = ours.get_nodes_from_documents(docs)
            assert [n.text for n in nodes] == expected, (text[:40], meta)
            for n in nodes:  # the node's offsets are the slice its text came from
                covered = text[n.start_char_idx : n.end_char_idx]
                assert covered == n.text or (covered[:1], covered[-1:]) == (n.text[:1], n.text[-1:]) or not n.text.strip()


@pytest.mark.parametrize(
    "line",
    [
        "CharacterTextSplitter(separator=' ', chunk_size=3, chunk_overlap=0)",
        "RecursiveCharacterTextSplitter(chunk_size=40, chunk_overlap=5, keep_separator=False)",
    ],
)
def test_the_node_parser_with_a_langchain_line_is_llama_indexs_langchain_node_parser(line):
    """A LangChain class in a LlamaIndex pipeline is LlamaIndex's LangchainNodeParser around it:
    split_text's chunks, the metadata left out of the sizing, nothing for an empty text."""
    langchain_splitters = pytest.importorskip("langchain_text_splitters")
    from llama_index.core.node_parser import LangchainNodeParser

    from chunker.llama_index import ChunkerNodeParser

    reference = LangchainNodeParser(eval(line, vars(langchain_splitters)))
    ours = ChunkerNodeParser(splitter=line)
    for text in ["a  b  c", "", "# A\nx\n\ny", DOCS["sample.md"][:3000]]:
        docs = [Document(text=text, metadata={"title": "t" * 50})]
        assert [n.text for n in ours.get_nodes_from_documents(docs)] == [n.text for n in reference.get_nodes_from_documents(docs)]
