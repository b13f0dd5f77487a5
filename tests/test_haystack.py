"""chunker.haystack.ChunkerSplitter in real Haystack pipelines, beside Haystack's DocumentSplitter."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
haystack = pytest.importorskip("haystack")
from haystack import Document, Pipeline  # noqa: E402
from haystack.components.preprocessors import DocumentSplitter  # noqa: E402
from haystack.components.writers import DocumentWriter  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402

import chunker  # noqa: E402
from chunker._errors import ChunkerError  # noqa: E402
from chunker.haystack import ChunkerSplitter  # noqa: E402
from tests.texts import real_documents  # noqa: E402

README = dict(real_documents())["README.md"]
HAYSTACK_KEYS = {"source_id", "split_id", "split_idx_start", "page_number"}


def run_pipeline(component, documents):
    pipe = Pipeline()
    pipe.add_component("splitter", component)
    return pipe.run({"splitter": {"documents": documents}})["splitter"]["documents"]


@pytest.mark.parametrize(
    "options",
    [{"strategy": "markdown", "size": 120, "overlap": 0}, {"strategy": "sentence", "unit": "words", "size": 50, "overlap": 5}],
    ids=str,
)
def test_a_pipeline_gives_the_chunks_of_chunk(options):
    doc = Document(content=README, meta={"file_name": "README.md", "lang": "en"})
    out = run_pipeline(ChunkerSplitter(**options), [doc])
    res = chunker.chunk(README, source="README.md", **options)
    assert [d.content for d in out] == [c.text for c in res.chunks]
    for i, (d, c) in enumerate(zip(out, res.chunks)):
        assert d.meta["source_id"] == doc.id and d.meta["split_id"] == i
        assert d.meta["split_idx_start"] == c.start_char
        assert README[c.start_char : c.start_char + len(d.content)] == d.content
        assert d.meta["file_name"] == "README.md" and d.meta["lang"] == "en"


def test_the_metadata_keys_are_document_splitters():
    doc = Document(content=README, meta={"k": 1})
    theirs = run_pipeline(DocumentSplitter(split_by="word", split_length=60, split_overlap=0), [doc])
    ours = run_pipeline(ChunkerSplitter(unit="words", size=60, overlap=0), [doc])
    assert set(ours[0].meta) == set(theirs[0].meta) == HAYSTACK_KEYS | {"k"}
    assert list(ours[0].meta)[-4:] == list(theirs[0].meta)[-4:]


def test_overlap_information_has_document_splitters_shape():
    text = " ".join(f"w{i}" for i in range(200))
    doc = Document(content=text)
    theirs = run_pipeline(DocumentSplitter(split_by="word", split_length=40, split_overlap=10), [doc])
    ours = run_pipeline(ChunkerSplitter(strategy="fixed", unit="words", size=40, overlap=10), [doc])
    for docs in (theirs, ours):
        middle = docs[1].meta["_split_overlap"]
        assert [o["doc_id"] for o in middle] == [docs[0].id, docs[2].id]
    # Ours is exact: the range of the previous chunk is this chunk's start.
    for before, this in zip(ours, ours[1:]):
        (start, end) = this.meta["_split_overlap"][0]["range"]
        assert before.content[start:end] == this.content[: end - start]


def test_page_numbers_count_form_feeds_as_haystack_does():
    pages = ["Page one has words. " * 20, "Page two follows. " * 20, "", "Page four, after a blank page. " * 10]
    text = "\f".join(pages)
    ours = run_pipeline(ChunkerSplitter(strategy="sentence", unit="words", size=30, overlap=0), [Document(content=text)])
    for d in ours:
        start = d.meta["split_idx_start"]
        assert d.meta["page_number"] == 1 + text.count("\f", 0, start)
    assert {d.meta["page_number"] for d in ours} == {1, 2, 4}
    theirs = run_pipeline(DocumentSplitter(split_by="word", split_length=30, split_overlap=0), [Document(content=text)])
    assert {d.meta["page_number"] for d in theirs} >= {1, 2, 4}


@settings(max_examples=40)
@given(st.lists(st.sampled_from(["Same words here. ", "Same words here. ", "Other. ", "\n\n"]), min_size=1, max_size=60))
def test_offsets_are_right_on_repeated_text(parts):
    text = "".join(parts)
    out = ChunkerSplitter(strategy="sentence", unit="words", size=5, overlap=2).run(documents=[Document(content=text)])
    res = chunker.chunk(text, strategy="sentence", unit="words", size=5, overlap=2)
    assert [(d.meta["split_idx_start"], d.content) for d in out["documents"]] == [(c.start_char, c.text) for c in res.chunks]


def test_empty_documents_skipped_or_kept():
    docs = [Document(content=""), Document(content="Some text.")]
    assert [d.content for d in ChunkerSplitter(size=50, overlap=0).run(documents=docs)["documents"]] == ["Some text."]
    kept = ChunkerSplitter(size=50, overlap=0, skip_empty_documents=False).run(documents=docs)["documents"]
    assert [d.content for d in kept] == ["", "Some text."]
    assert kept[0].meta["split_idx_start"] == 0 and kept[0].meta["page_number"] == 1


def test_bad_settings_and_input_are_one_line():
    with pytest.raises(ChunkerError, match="has no setting 'split_length'") as e:
        ChunkerSplitter(split_length=10)
    assert "\n" not in str(e.value)
    with pytest.raises(ChunkerError, match="size must be"):
        ChunkerSplitter(size=-1)
    with pytest.raises(ChunkerError, match="has no text content"):
        ChunkerSplitter().run(documents=[Document(content=None, blob=None)])
    with pytest.raises(TypeError, match="list of Haystack Documents"):
        ChunkerSplitter().run(documents="text")


def test_a_pipeline_with_it_round_trips_through_yaml_and_writes_to_a_store():
    store = InMemoryDocumentStore()
    pipe = Pipeline()
    pipe.add_component("splitter", ChunkerSplitter(strategy="sentence", tokenizer="cl100k", size=80, overlap=10))
    pipe.add_component("writer", DocumentWriter(document_store=store))
    pipe.connect("splitter.documents", "writer.documents")
    # Haystack loads classes only from modules it is told to trust.
    again = Pipeline.loads(pipe.dumps(), allowed_modules=["chunker.haystack"])
    assert again.get_component("splitter").settings == pipe.get_component("splitter").settings
    result = again.run({"splitter": {"documents": [Document(content=README, id="readme")]}})
    written = store.filter_documents()
    assert result["writer"]["documents_written"] == len(written) > 5
    assert {d.meta["source_id"] for d in written} == {"readme"}


def test_a_pasted_splitter_runs_in_haystack():
    line = "RecursiveCharacterTextSplitter(chunk_size=400, chunk_overlap=40)"
    out = run_pipeline(ChunkerSplitter(splitter=line), [Document(content=README)])
    assert [d.content for d in out] == [c.text for c in chunker.chunk(README, splitter=line).chunks]


def _python(code):
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(chunker.__path__[0].rsplit("/", 1)[0])}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_without_haystack_the_import_fails_in_one_line_and_the_core_never_needs_it():
    done = _python("import sys; sys.modules['haystack'] = None; import chunker.haystack")
    assert done.stderr.strip().splitlines()[-1] == "ImportError: chunker.haystack needs Haystack: pip install 'chunker[haystack]'"
    done = _python("import sys, chunker; chunker.chunk('a b c', size=2, overlap=0); print('haystack' in sys.modules)")
    assert done.stdout.strip() == "False", done.stderr
