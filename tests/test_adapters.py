"""The LangChain and LlamaIndex adapters cut exactly where `chunker.chunk` does.

Each adapter is held to `chunker.chunk` itself: the same spans, ``text[start:end]`` equal to
each chunk, on the repository's README and on Hypothesis-generated texts made of repeated
passages, where searching for a chunk's text (what LangChain's ``add_start_index`` and
LlamaIndex's node post-processing do) finds an earlier copy of it.

Nothing is fetched. LlamaIndex could download NLTK data or tiktoken files on first use; its
tests point NLTK_DATA, TIKTOKEN_CACHE_DIR and LLAMA_INDEX_CACHE_DIR at empty folders and check
they stay empty, and one run in a subprocess fails on any attempt to open a network
connection. (Ray Data's adapter has tests/test_ray.py: it needs a local cluster.)
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_text_splitters import RecursiveCharacterTextSplitter, TextSplitter
from llama_index.core import Document as LlamaDocument
from llama_index.core.ingestion import IngestionCache, IngestionPipeline
from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode

import chunker
from chunker._adapters import METADATA_KEYS
from chunker.langchain import ChunkerSplitter
from chunker.llama_index import ChunkerNodeParser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
STRATEGIES = list(chunker.STRATEGIES)

# README settings: every strategy, each unit, an exact tokenizer and a percentage overlap.
README_SETTINGS = [
    {},
    {"strategy": "markdown", "size": 120, "overlap": 0, "tokenizer": "o200k"},
    {"strategy": "sentence", "unit": "words", "size": 60, "overlap": "10%"},
    {"strategy": "paragraph", "unit": "chars", "size": 800, "overlap": 0},
    {"strategy": "fixed", "unit": "tokens", "size": 100, "overlap": 25, "tokenizer": "cl100k"},
    {"strategy": "langchain", "unit": "chars", "size": 500, "overlap": 50},
    {"strategy": "recursive", "unit": "tokens", "size": 80, "overlap": "15%", "tokenizer": "estimate"},
]


def spans(res):
    return [(c.start_char, c.end_char) for c in res.chunks]


# ------------------------------------------------------------------- texts that repeat


_passage = st.lists(
    st.sampled_from(["the", "cat", "sat", "Dr.", "Lee", "ran", "on", "😀", "日本", "ab", "x"]), min_size=1, max_size=6
).map(" ".join)
_joint = st.sampled_from([" ", ". ", "\n", "\n\n", "\r\n", ""])


@st.composite
def repeated_texts(draw):
    """A few passages, each used many times over, joined by spaces, line and paragraph breaks."""
    pool = draw(st.lists(_passage, min_size=1, max_size=3))
    parts = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=40))
    return "".join(p + draw(_joint) for p in parts)


@st.composite
def chunk_settings(draw):
    strategy = draw(st.sampled_from(STRATEGIES))
    unit = draw(st.sampled_from(list(chunker.UNITS)))
    size = draw(st.integers(1, 40))
    overlap = draw(st.integers(0, size - 1) | st.sampled_from(["0%", "20%", "50%"]))
    return {
        "strategy": strategy,
        "unit": unit,
        "size": size,
        "overlap": overlap,
        "tokenizer": draw(st.sampled_from(["approx", "estimate"])),
    }


_HYPOTHESIS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------- LangChain


@pytest.mark.parametrize("options", README_SETTINGS, ids=lambda o: ",".join(map(str, o.values())) or "defaults")
def test_langchain_splitter_cuts_the_readme_as_chunk_does(options):
    res = chunker.chunk(README, **options)
    splitter = ChunkerSplitter(metadata=True, **options)
    assert splitter.split_text(README) == [c.text for c in res.chunks]
    meta = {"source": "README.md", "tags": ["docs"]}
    docs = splitter.create_documents([README], metadatas=[meta])
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in docs] == spans(res)
    for d, c in zip(docs, res.chunks):
        assert d.page_content == README[d.metadata["start_index"] : d.metadata["end_index"]] == c.text
        assert d.metadata == {
            **meta,
            "start_index": c.start_char,
            "end_index": c.end_char,
            "tokens": c.tokens,
            "flags": list(c.flags),
            "headings": list(c.headings),
        }
    assert meta == {"source": "README.md", "tags": ["docs"]}  # the caller's dict is untouched


@_HYPOTHESIS
@given(text=repeated_texts(), options=chunk_settings())
def test_langchain_offsets_are_right_on_repeated_text(text, options):
    splitter = ChunkerSplitter(metadata=True, **options)
    res = chunker.chunk(text, **options)
    docs = splitter.split_documents([Document(page_content=text, metadata={"n": 1})])
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in docs] == spans(res)
    assert all(d.page_content == text[d.metadata["start_index"] : d.metadata["end_index"]] for d in docs)
    assert all(d.metadata["n"] == 1 for d in docs)


def _misses_text(text, starts, pieces):
    """Whether the spans leave out a character that is not whitespace: a recursive splitter
    drops only whitespace, so such spans cannot be where the pieces came from."""
    covered = [False] * len(text)
    for s, piece in zip(starts, pieces):
        covered[s : s + len(piece)] = [True] * len(piece)
    return any(not ok and not ch.isspace() for ch, ok in zip(text, covered))


def test_langchain_own_start_index_goes_wrong_where_ours_does_not():
    """LangChain finds each chunk with str.find from the previous start: on repeated text it
    lands on an earlier copy. Hypothesis finds such a text; our offsets for the same pieces
    (strategy "langchain" gives LangChain's very chunks) leave nothing out."""

    def wrong(text):
        lc = RecursiveCharacterTextSplitter(chunk_size=12, chunk_overlap=4, add_start_index=True)
        docs = lc.create_documents([text])
        return _misses_text(text, [d.metadata["start_index"] for d in docs], [d.page_content for d in docs])

    text = find(repeated_texts(), wrong, settings=settings(max_examples=2000, database=None))
    ours = ChunkerSplitter(strategy="langchain", unit="chars", size=12, overlap=4, metadata=True).create_documents([text])
    theirs = RecursiveCharacterTextSplitter(chunk_size=12, chunk_overlap=4).split_text(text)
    assert [d.page_content for d in ours] == theirs
    assert not _misses_text(text, [d.metadata["start_index"] for d in ours], theirs)
    assert all(text[d.metadata["start_index"] : d.metadata["end_index"]] == d.page_content for d in ours)


def test_textsplitter_own_create_documents_would_be_wrong_for_our_chunks():
    """Why create_documents is overridden: TextSplitter's version subtracts the overlap (in the
    unit, not in characters) and searches, and lands on the wrong copy."""
    text = "The cat sat. " * 12
    options = {"strategy": "sentence", "unit": "words", "size": 6, "overlap": 3}
    splitter = ChunkerSplitter(add_start_index=True, **options)
    theirs = [d.metadata["start_index"] for d in TextSplitter.create_documents(splitter, [text])]
    ours = [d.metadata["start_index"] for d in splitter.create_documents([text])]
    assert ours == [c.start_char for c in chunker.chunk(text, **options)] == list(range(0, 131, 13))
    # A 3-word overlap taken as 3 characters skips every other copy, then finds none (-1).
    assert theirs == [0, 26, 52, 78, 104, 130, -1, 26, 52, 78, 104]


@pytest.mark.parametrize(
    "bad,message",
    [
        ({"size": 0}, "size must be a positive number, got 0"),
        ({"overlap": 600}, "overlap 600 must be smaller than the size 500"),
        ({"strategy": "neural"}, "unknown strategy 'neural'"),
        ({"chunk_size": 200, "size": 100}, "ChunkerSplitter has both 'chunk_size' and 'size': give one of them"),
        ({"chunk_size": 0}, "size must be a positive number, got 0"),
        ({"max_chunk_chars": -1}, r"max_chunk_chars must be a whole number \(0: no limit\) or None"),
        ({"max_chunk_chars": 2.5}, r"max_chunk_chars must be a whole number .*got 2.5"),
    ],
)
def test_langchain_bad_settings_fail_at_construction(bad, message):
    with pytest.raises(chunker.ChunkerError, match=message):
        ChunkerSplitter(**bad)


def test_max_chunk_chars_zero_lifts_the_limit_in_the_adapters_as_in_chunk():
    text = "word " * 800  # windows a character apart repeat it 1,000 times: past the default limit
    options = {"strategy": "fixed", "unit": "chars", "size": 1000, "overlap": 999}
    with pytest.raises(chunker.ChunkerError, match="past the limit of 2,000,000"):
        chunker.chunk(text, **options)
    want = [c.text for c in chunker.chunk(text, max_chunk_chars=0, **options).chunks]
    assert ChunkerSplitter(max_chunk_chars=0, **options).split_text(text) == want
    assert ChunkerNodeParser(max_chunk_chars=0, **options).split_text(text) == want
    with pytest.raises(chunker.ChunkerError, match="past the limit of 2,000,000"):
        ChunkerSplitter(**options).split_text(text)


def test_langchain_takes_its_own_chunk_size_and_every_option_of_the_table():
    # chunk_size and chunk_overlap are LangChain's names for size and overlap (in our unit);
    # model_max is an option of the table, so every adapter takes it.
    splitter = ChunkerSplitter(chunk_size=200, chunk_overlap=20, model_max=128)
    assert splitter.settings["size"] == 200 and splitter.settings["overlap"] == 20
    assert splitter.settings["model_max"] == 128 and splitter._chunk_size == 200
    text = "A sentence of several words here. " * 200
    want = chunker.chunk(text, size=200, overlap=20, model_max=128)
    assert splitter.split_text(text) == [c.text for c in want.chunks]
    assert ChunkerSplitter(chunk_size=200, model_max=128).settings["size"] == 200
    docs = ChunkerSplitter(size=200, overlap=0, model_max=10, metadata=["flags"]).create_documents([text])
    assert all("truncated" in d.metadata["flags"] for d in docs)
    assert ChunkerNodeParser(size=200, model_max="minilm").settings["model_max"] == "minilm"
    with pytest.raises(chunker.ChunkerError, match="unknown model limit .nope."):
        ChunkerSplitter(model_max="nope")


def test_langchain_tokenizer_constructors_are_refused_before_any_download():
    # TextSplitter.from_tiktoken_encoder would load tiktoken's encoding (a download) first.
    with pytest.raises(chunker.ChunkerError, match="pass unit='tokens' and tokenizer='o200k' or 'cl100k'"):
        ChunkerSplitter.from_tiktoken_encoder(encoding_name="cl100k_base", chunk_size=100)
    with pytest.raises(chunker.ChunkerError, match="instead of from_huggingface_tokenizer"):
        ChunkerSplitter.from_huggingface_tokenizer(object())
    with pytest.raises(chunker.ChunkerError, match="no setting 'length_function': use unit and tokenizer"):
        ChunkerSplitter(length_function=len)


@pytest.mark.parametrize("options", [{}, {"unit": "words"}, {"tokenizer": "o200k", "overlap": "10%"}])
def test_splitter_and_parser_pickle_with_their_settings(options):
    """Both go to worker processes (multiprocessing, Ray, Spark) by pickle."""
    splitter = pickle.loads(pickle.dumps(ChunkerSplitter(**options)))
    assert splitter.split_text(README) == [c.text for c in chunker.chunk(README, **options).chunks]
    parser = pickle.loads(pickle.dumps(ChunkerNodeParser(**options)))
    assert {k: parser.settings[k] for k in options} == options


def test_langchain_metadatas_must_match_the_texts():
    with pytest.raises(chunker.ChunkerError, match="metadatas has 1 entries for 2 texts"):
        ChunkerSplitter().create_documents(["a", "b"], metadatas=[{}])


@pytest.mark.parametrize("meta", [None, "source.md", ["k", "v"]])
def test_langchain_metadata_that_is_not_a_dict_is_one_line(meta):
    # LangChain's own splitters refuse it as well (a pydantic ValidationError, or a TypeError
    # with add_start_index); ours said AttributeError: 'NoneType' object has no attribute 'update'.
    with pytest.raises((TypeError, ValueError)):
        RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0).create_documents(["One two."], [meta])
    with pytest.raises(chunker.ChunkerError, match=r"^metadatas\[1\] is \w+, not a dict: give a dict"):
        ChunkerSplitter().create_documents(["One.", "Two."], [{}, meta])


def test_langchain_metadata_may_be_any_mapping():
    from types import MappingProxyType

    docs = ChunkerSplitter(add_start_index=True).create_documents(["One."], [MappingProxyType({"k": "v"})])
    assert docs[0].metadata["k"] == "v" and docs[0].metadata["start_index"] == 0


def test_langchain_transform_documents_and_size_zero():
    splitter = ChunkerSplitter(strategy="sentence", size=0, add_start_index=True)  # one chunk per sentence
    docs = splitter.transform_documents([Document(page_content="One. Two. One.", metadata={"k": "v"})])
    assert [(d.page_content, d.metadata["start_index"]) for d in docs] == [("One.", 0), ("Two.", 5), ("One.", 10)]


# ------------------------------------------------------------------- the one-line ImportError


def _import_in_subprocess(code, *, extra_path=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [extra_path, str(ROOT)])))
    return subprocess.run(
        [sys.executable, "-c", code], cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize(
    "module,hidden,message",
    [
        (
            "langchain",
            "langchain_text_splitters",
            "chunker.langchain needs LangChain's text splitters: pip install 'chunkscope[langchain]'",
        ),
        (
            "langchain",
            "langchain_core",
            "chunker.langchain needs LangChain's text splitters: pip install 'chunkscope[langchain]'",
        ),
        ("llama_index", "llama_index", "chunker.llama_index needs llama-index-core: pip install 'chunkscope[llama-index]'"),
        ("ray", "ray", "chunker.ray needs Ray Data: pip install 'chunkscope[ray]'"),
        ("ray", "pyarrow", "chunker.ray needs Ray Data: pip install 'chunkscope[ray]'"),
        ("arrow", "pyarrow", "chunker.arrow needs pyarrow: pip install pyarrow (the 'ray' extra brings it)"),
    ],
)
def test_adapter_without_its_framework_fails_in_one_line(module, hidden, message):
    done = _import_in_subprocess(f"import sys; sys.modules[{hidden!r}] = None; import chunker.{module}")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == "ImportError: " + message
    assert "During handling" not in done.stderr and "ModuleNotFoundError" not in done.stderr


def test_a_broken_framework_keeps_its_own_error(tmp_path):
    """A LangChain that is there but cannot import (a dependency of its own missing) is not
    reported as missing: its own error comes through."""
    fake = tmp_path / "langchain_text_splitters"
    fake.mkdir()
    (fake / "__init__.py").write_text("import a_dependency_that_is_not_there\n", encoding="utf-8")
    done = _import_in_subprocess("import chunker.langchain", extra_path=str(tmp_path))
    assert "No module named 'a_dependency_that_is_not_there'" in done.stderr
    assert "pip install 'chunkscope[langchain]'" not in done.stderr


def test_the_core_imports_none_of_the_frameworks():
    done = _import_in_subprocess(
        "import sys, chunker; chunker.chunk('a b c', size=2, overlap=0); "
        "print(sorted(m for m in ('langchain_core', 'langchain_text_splitters', 'llama_index', 'ray', "
        "'pyarrow', 'pydantic') if m in sys.modules))"
    )
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


# ------------------------------------------------------------------- LlamaIndex

# Where llama-index-core would keep what it downloads: NLTK's stopwords and punkt_tab (bundled
# in its wheel under llama_index/core/_static, looked for first in $NLTK_DATA), tiktoken's
# vocabulary files ($TIKTOKEN_CACHE_DIR, bundled too) and its own cache ($LLAMA_INDEX_CACHE_DIR).
_LLAMA_CACHES = ("NLTK_DATA", "TIKTOKEN_CACHE_DIR", "LLAMA_INDEX_CACHE_DIR")


@pytest.fixture
def llama_offline(tmp_path, monkeypatch):
    """Every place LlamaIndex could download into is an empty folder, and stays empty."""
    folders = {name: tmp_path / name.lower() for name in _LLAMA_CACHES}
    for name, folder in folders.items():
        folder.mkdir()
        monkeypatch.setenv(name, str(folder))
    yield
    for name, folder in folders.items():
        assert not any(folder.iterdir()), f"LlamaIndex wrote into ${name}: {sorted(folder.iterdir())}"


def _node_spans(nodes):
    return [(n.start_char_idx, n.end_char_idx) for n in nodes]


@pytest.mark.parametrize("options", README_SETTINGS, ids=lambda o: ",".join(map(str, o.values())) or "defaults")
def test_llama_index_parser_cuts_the_readme_as_chunk_does(llama_offline, options):
    doc = LlamaDocument(text=README, metadata={"source": "README.md"})
    # As SentenceSplitter does, the size holds the metadata string too: chunk() gets what is left.
    settings = chunker.Settings(**options)
    meta = doc.get_metadata_str(mode=MetadataMode.EMBED)
    used = {"chars": len(meta), "words": len(meta.split())}.get(settings.unit) or chunker.count_tokens(meta, settings.tokenizer)
    res = chunker.chunk(README, **{**options, "size": settings.size - used})
    nodes = ChunkerNodeParser(**options).get_nodes_from_documents([doc])
    assert [n.text for n in nodes] == [c.text for c in res.chunks]
    assert _node_spans(nodes) == spans(res)
    # A result with a context (the README's long tables: their later parts carry the header
    # rows) embeds each node as exactly its context and text, the context held as metadata.
    with_context = any(c.context for c in res.chunks)
    for i, (n, c) in enumerate(zip(nodes, res.chunks)):
        assert README[n.start_char_idx : n.end_char_idx] == n.text
        assert n.metadata == {
            "source": "README.md",
            "start_index": c.start_char,
            "end_index": c.end_char,
            "tokens": c.tokens,
            "flags": list(c.flags),
            "headings": list(c.headings),
            **({"context": c.context.strip()} if with_context else {}),
        }
        assert n.relationships[NodeRelationship.SOURCE].node_id == doc.id_
        assert (NodeRelationship.PREVIOUS in n.relationships) == (i > 0)
        assert (NodeRelationship.NEXT in n.relationships) == (i < len(nodes) - 1)
        if i:
            assert n.relationships[NodeRelationship.PREVIOUS].node_id == nodes[i - 1].node_id
        # What is embedded: the input's own metadata and the chunk, none of the keys we add
        # (LlamaIndex strips the joined text).
        if with_context:
            assert n.get_content(MetadataMode.EMBED) == c.embed_text.strip()
        else:
            assert n.get_content(MetadataMode.EMBED) == f"source: README.md\n\n{n.text}".strip()
        assert set(METADATA_KEYS) <= set(n.excluded_llm_metadata_keys)


@_HYPOTHESIS
@given(text=repeated_texts(), options=chunk_settings())
def test_llama_index_offsets_are_right_on_repeated_text(text, options):
    nodes = ChunkerNodeParser(**options).get_nodes_from_documents([LlamaDocument(text=text)])
    assert _node_spans(nodes) == spans(chunker.chunk(text, **options))
    assert all(text[n.start_char_idx : n.end_char_idx] == n.text for n in nodes)


def test_node_parser_own_post_processing_would_move_the_offsets():
    """Why the post-processing is overridden: NodeParser's own searches the document for each
    node's text from the previous node's start, and finds an earlier copy."""
    text = "ab " * 20
    options = {"strategy": "fixed", "unit": "chars", "size": 9, "overlap": 3}
    doc = LlamaDocument(text=text)
    parser = ChunkerNodeParser(**options)
    theirs = NodeParser._postprocess_parsed_nodes(parser, parser._parse_nodes([doc]), {doc.id_: doc})
    ours = parser.get_nodes_from_documents([doc])
    assert _node_spans(ours) == spans(chunker.chunk(text, **options))
    assert [n.start_char_idx for n in ours][:4] == [0, 6, 12, 18]
    assert [n.start_char_idx for n in theirs][:4] == [0, 3, 6, 9]


def test_llama_index_options_of_node_parser_still_work():
    doc = LlamaDocument(text="One. Two. Three.", metadata={"k": "v"})
    plain = ChunkerNodeParser(
        strategy="sentence", size=0, include_metadata=False, include_prev_next_rel=False, id_func=lambda i, d: f"{d.id_}-{i}"
    )
    nodes = plain.get_nodes_from_documents([doc])
    assert [n.node_id for n in nodes] == [f"{doc.id_}-{i}" for i in range(3)]
    assert "k" not in nodes[0].metadata and nodes[0].metadata["start_index"] == 0
    assert NodeRelationship.NEXT not in nodes[0].relationships
    # A node (not a Document) is cut too; its offsets index its own text.
    node = TextNode(text="Alpha. Beta.", metadata={"from": "node"})
    (_, second) = ChunkerNodeParser(strategy="sentence", size=0)([node])
    assert (second.start_char_idx, second.text, second.metadata["from"]) == (7, "Beta.", "node")
    assert second.relationships[NodeRelationship.SOURCE].node_id == node.node_id


def test_llama_index_bad_settings_are_a_chunker_error_not_a_validation_error():
    for bad, message in (
        ({"size": -5}, "size must be a positive number"),
        ({"chunk_overlap": 10}, "no setting 'chunk_overlap': use overlap"),
        ({"breaks": ["comma"]}, "unknown break point 'comma'"),
    ):
        with pytest.raises(chunker.ChunkerError, match=message):
            ChunkerNodeParser(**bad)


def test_llama_index_settings_are_fields_so_the_pipeline_cache_tells_them_apart(llama_offline):
    doc = LlamaDocument(text=README, id_="readme")
    cache = IngestionCache()
    small = IngestionPipeline(transformations=[ChunkerNodeParser(size=100, overlap=0)], cache=cache)
    large = IngestionPipeline(transformations=[ChunkerNodeParser(size=400, overlap=0)], cache=cache)
    assert [n.text for n in small.run(documents=[doc])] == [c.text for c in chunker.chunk(README, size=100, overlap=0)]
    assert [n.text for n in large.run(documents=[doc])] == [c.text for c in chunker.chunk(README, size=400, overlap=0)]
    dumped = ChunkerNodeParser(size=100, overlap="10%").to_dict()
    assert {k: dumped[k] for k in ("size", "overlap", "strategy")} == {"size": 100, "overlap": "10%", "strategy": "recursive"}


_NO_NETWORK = textwrap.dedent("""
    import socket, sys
    def guard(event, args):
        if event in ("socket.connect", "socket.getaddrinfo", "urllib.Request"):
            if event == "socket.connect" and args[0].family == socket.AF_UNIX:
                return
            raise RuntimeError(f"network use: {event} {args!r}")
    sys.addaudithook(guard)
    from llama_index.core import Document
    from chunker.llama_index import ChunkerNodeParser
    text = open("README.md", encoding="utf-8").read()
    nodes = ChunkerNodeParser(size=200, overlap="10%", tokenizer="cl100k").get_nodes_from_documents(
        [Document(text=text, metadata={"source": "README.md"})])
    assert all(text[n.start_char_idx:n.end_char_idx] == n.text for n in nodes)
    print(len(nodes))
""")


def test_llama_index_opens_no_connection(tmp_path):
    """Importing llama-index-core and parsing with caches pointing at empty folders: any
    attempt at the network (a download of NLTK data or tiktoken files) raises in the hook."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **{name: str(tmp_path / name.lower()) for name in _LLAMA_CACHES})
    done = subprocess.run(
        [sys.executable, "-c", _NO_NETWORK], cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    from llama_index.core import Document

    from chunker.llama_index import ChunkerNodeParser

    # The same nodes as parsing here, where the caches are the machine's (the metadata's
    # tokens come off the size, as in SentenceSplitter).
    here = ChunkerNodeParser(size=200, overlap="10%", tokenizer="cl100k").get_nodes_from_documents(
        [Document(text=README, metadata={"source": "README.md"})]
    )
    assert int(done.stdout) == len(here)
    assert not any(tmp_path.iterdir())


def test_the_adapters_read_the_code_language_from_the_documents_file_name():
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document as LCDocument

    from chunker.langchain import ChunkerSplitter

    js = "function a() {\n  return 1;\n}\nconst b = 2;\nfunction c() {\n  return 3;\n}\n"
    want = [c.text for c in chunker.chunk(js, strategy="code", unit="chars", size=40, overlap=0, language="js")]
    splitter = ChunkerSplitter(strategy="code", unit="chars", size=40, overlap=0)
    got = splitter.split_documents([LCDocument(page_content=js, metadata={"source": "src/app.js"})])
    assert [d.page_content for d in got] == want
    llama = pytest.importorskip("llama_index.core")
    from chunker.llama_index import ChunkerNodeParser

    # The size holds the metadata string too ("file_name: app.js"): 40 characters are left for the text.
    meta = "file_name: app.js"
    nodes = ChunkerNodeParser(strategy="code", unit="chars", size=40 + len(meta), overlap=0).get_nodes_from_documents(
        [llama.Document(text=js, metadata={"file_name": "app.js"})]
    )
    assert [n.text for n in nodes] == want


def test_every_keyword_argument_of_chunk_is_taken_by_the_adapters():
    # chunk() takes retriever (a result carries it to evaluate()); every adapter refused it
    # ("has no setting 'retriever'"), so settings written for chunk() failed in a pipeline.
    import inspect

    import pyarrow as pa
    from haystack import Document as HaystackDocument

    from chunker.arrow import chunk_table
    from chunker.haystack import ChunkerSplitter as HaystackSplitter

    names = [p for p in inspect.signature(chunker.chunk).parameters if p not in ("text", "source")]
    assert "retriever" in names
    text = "# Tides\n\nThe tide is high. The harbour is busy.\n\nBoats moor at the east quay."
    options = {"strategy": "markdown", "unit": "words", "size": 6, "overlap": 1, "retriever": "bm25"}
    want = [(c.start_char, c.end_char) for c in chunker.chunk(text, **options).chunks]
    docs = ChunkerSplitter(metadata=True, **options).create_documents([text])
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in docs] == want
    nodes = ChunkerNodeParser(**options).get_nodes_from_documents([LlamaDocument(text=text)])
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == want
    split = HaystackSplitter(**options).run([HaystackDocument(content=text)])["documents"]
    assert [(d.meta["split_idx_start"], d.meta["split_idx_start"] + len(d.content)) for d in split] == want
    rows = chunk_table(pa.table({"text": [text]}), **options).to_pylist()
    assert [(r["start_char"], r["end_char"]) for r in rows] == want
    # Checked as chunk() checks it, at once.
    for make in (ChunkerSplitter, ChunkerNodeParser, HaystackSplitter):
        with pytest.raises(chunker.ChunkerError, match="the dense retriever needs an embedding model"):
            make(retriever="dense")
