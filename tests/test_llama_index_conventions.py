"""ChunkerNodeParser keeps LlamaIndex's node-parser conventions, measured against SentenceSplitter.

The cases restate what LlamaIndex's own splitter tests hold SentenceSplitter to (paragraphs and
sentences kept whole, node offsets that span the node's text, chunk plus metadata within the
size, metadata too long refused, an empty document, split_text and split_texts, the CHUNKING
callback event) and hold ChunkerNodeParser, with the sentence strategy counted in cl100k (what
SentenceSplitter counts in), to the same, side by side with SentenceSplitter itself.
"""

from __future__ import annotations

import pytest

from chunker._errors import ChunkerError
from tests.texts import real_documents

pytest.importorskip("llama_index.core")
from llama_index.core import Document
from llama_index.core.callbacks import CallbackManager, CBEventType, LlamaDebugHandler
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import MetadataMode
from llama_index.core.utils import get_tokenizer

from chunker.llama_index import ChunkerNodeParser

TOKENS = get_tokenizer()  # LlamaIndex's own: cl100k, special tokens allowed
FOO, BAR = " ".join(["foo"] * 15), " ".join(["bar"] * 15)
# chunker's sentence detector reads a lowercase word after a full stop as the same sentence (as
# after an abbreviation), where untrained Punkt breaks: a capital starts the second sentence.
CAPITAL = "Bar " + " ".join(["bar"] * 14)
README = dict(real_documents())["README.md"]


def ours(**settings):
    return ChunkerNodeParser(strategy="sentence", tokenizer="cl100k", **settings)


def test_paragraphs_stay_whole():
    text = FOO + "\n\n\n" + BAR
    assert (
        ours(size=20, overlap=0).split_text(text)
        == [FOO, BAR]
        == SentenceSplitter(chunk_size=20, chunk_overlap=0).split_text(text)
    )


def test_sentences_stay_whole():
    text = FOO + ". " + CAPITAL
    assert ours(size=20, overlap=0).split_text(text) == [FOO + ".", CAPITAL]
    assert SentenceSplitter(chunk_size=20, chunk_overlap=0).split_text(text) == [FOO + ".", CAPITAL]
    # SentenceSplitter's own cut, lowercase second sentence and all, through the splitter setting.
    text = FOO + ". " + BAR
    pasted = ChunkerNodeParser(splitter="SentenceSplitter(chunk_size=20, chunk_overlap=0)")
    assert pasted.split_text(text) == [FOO + ".", BAR] == SentenceSplitter(chunk_size=20, chunk_overlap=0).split_text(text)


def test_node_offsets_span_the_node_text():
    document = Document(text=FOO + "\n\n\n" + BAR)
    for parser in (ours(size=2, overlap=1), SentenceSplitter(chunk_size=2, chunk_overlap=1)):
        nodes = parser.get_nodes_from_documents([document])
        assert len(nodes) > 2
        for n in nodes:
            content = n.get_content(metadata_mode=MetadataMode.NONE)
            assert n.end_char_idx - n.start_char_idx == len(content)
    for n in ours(size=2, overlap=1).get_nodes_from_documents([document]):
        assert document.text[n.start_char_idx : n.end_char_idx] == n.text  # and they are the node's


def test_split_texts_singleton_and_several():
    one, two = FOO + "\n\n\n" + BAR, BAR + "\n\n\n" + FOO
    parser = ours(size=20, overlap=0)
    assert parser.split_texts([one]) == [FOO, BAR]
    assert parser.split_texts([one, two]) == [FOO, BAR, BAR, FOO]


@pytest.mark.parametrize("size", [64, 128, 256])
def test_chunk_and_metadata_fit_the_size(size):
    # LlamaIndex's test: chunk text plus the metadata string within the size, and more chunks
    # than without metadata. Here on the README with a long metadata string, for both parsers.
    metadata = {"file_name": "README.md", "summary": "word " * 30}
    with_meta = Document(text=README, metadata=metadata)
    bare = Document(text=README)
    theirs = SentenceSplitter(chunk_size=size, chunk_overlap=0)
    mine = ours(size=size, overlap=0)
    meta_str = with_meta.get_metadata_str(mode=MetadataMode.EMBED)
    for parser in (theirs, mine):
        nodes = parser.get_nodes_from_documents([with_meta])
        assert len(nodes) > len(parser.get_nodes_from_documents([bare]))
        for n in nodes:
            assert len(TOKENS(n.text)) + len(TOKENS(meta_str)) <= size
            # The embedded text (metadata, a blank line, the chunk) stays within a token of it.
            assert len(TOKENS(n.get_content(MetadataMode.EMBED))) <= size + 1


def test_metadata_longer_than_the_size_is_refused_in_one_line():
    document = Document(text=README, metadata={"summary": "word " * 60})
    measured = len(TOKENS(document.get_metadata_str(mode=MetadataMode.EMBED)))
    with pytest.raises(ValueError, match=f"Metadata length \\({measured}\\) is longer than chunk size"):
        SentenceSplitter(chunk_size=50, chunk_overlap=0).get_nodes_from_documents([document])
    with pytest.raises(ChunkerError, match=f"measures {measured} tokens, as much as the size 50 or more") as e:
        ours(size=50, overlap=0).get_nodes_from_documents([document])
    assert "\n" not in str(e.value)


def test_metadata_the_embedding_leaves_out_is_measured_as_llamaindex_measures_it():
    # The longer of the embed and LLM metadata strings counts: a key hidden from one is still
    # measured through the other.
    document = Document(text=README, metadata={"summary": "word " * 40}, excluded_embed_metadata_keys=["summary"])
    size = 100
    theirs = SentenceSplitter(chunk_size=size, chunk_overlap=0).get_nodes_from_documents([document])
    mine = ours(size=size, overlap=0).get_nodes_from_documents([document])
    llm_meta = len(TOKENS(document.get_metadata_str(mode=MetadataMode.LLM)))
    for nodes in (theirs, mine):
        assert max(len(TOKENS(n.text)) for n in nodes) <= size - llm_meta


def test_an_overlap_the_metadata_leaves_no_room_for_is_brought_under_the_size():
    document = Document(text=README, metadata={"summary": "word " * 30})
    nodes = ours(size=40, overlap=35).get_nodes_from_documents([document])
    assert nodes and all(len(TOKENS(n.text)) <= 40 - 30 for n in nodes)


def test_an_empty_document_is_one_empty_node_as_in_sentence_splitter():
    for parser in (SentenceSplitter(), ours()):
        nodes = parser.get_nodes_from_documents([Document(text="")])
        assert [(n.text, n.start_char_idx, n.end_char_idx) for n in nodes] == [("", 0, 0)]
        assert parser.split_text("") == [""]
        # Whitespace alone gives no node in either.
        assert parser.get_nodes_from_documents([Document(text=" \n ")]) == []


def _events(parser, documents):
    debug = LlamaDebugHandler()
    parser.callback_manager = CallbackManager([debug])
    nodes = parser.get_nodes_from_documents(documents)
    return nodes, debug.get_event_pairs(CBEventType.CHUNKING)


def test_the_chunking_event_is_raised_as_llamaindex_raises_it():
    documents = [Document(text=FOO + ". " + CAPITAL), Document(text=""), Document(text=README[:3000])]
    for parser in (SentenceSplitter(chunk_size=20, chunk_overlap=0), ours(size=20, overlap=0)):
        nodes, pairs = _events(parser, documents)
        # One event per non-empty text, carrying the text in and the chunk texts out.
        assert len(pairs) == 2
        start, end = pairs[0]
        assert start.payload["chunks"] == [documents[0].text]
        assert end.payload["chunks"] == [FOO + ".", CAPITAL]
        assert [n.text for n in nodes][:2] == [FOO + ".", CAPITAL]


def test_split_text_is_chunk_without_metadata():
    import chunker

    parser = ChunkerNodeParser(strategy="markdown", size=60, overlap=0, tokenizer="o200k")
    assert parser.split_text(README) == [c.text for c in chunker.chunk(README, **parser.settings).chunks]
