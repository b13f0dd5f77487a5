"""The chonkie export: chonkie's chunk records, one a line, offsets into the document."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.results._export import FORMATS, to_chonkie
from tests.texts import ROOT, sample_document

# chonkie 1.x's `Chunk.to_dict()` (what its JSONPorter writes a line of, and what
# `Chunk.from_dict` reads back): these keys, in this order.
CHONKIE_KEYS = ["id", "text", "start_index", "end_index", "token_count", "context", "embedding"]


def lines(res):
    return [json.loads(line) for line in to_chonkie(res).splitlines()]


def test_records_have_chonkies_shape_and_index_the_document():
    text = sample_document()
    res = chunker.chunk(text, strategy="markdown", size=120, overlap=10)
    recs = lines(res)
    assert len(recs) == len(res.chunks)
    for r, c in zip(recs, res.chunks):
        assert list(r) == CHONKIE_KEYS
        assert r["id"].startswith("chnk_") and len(r["id"]) == 5 + 32
        assert (r["text"], r["start_index"], r["end_index"], r["token_count"]) == (c.text, c.start_char, c.end_char, c.tokens)
        assert text[r["start_index"] : r["end_index"]] == r["text"]
        assert r["context"] is None and r["embedding"] is None
    assert len({r["id"] for r in recs}) == len(recs)


def test_ids_are_the_chunks_identity():
    text = "Same. Same. Same. Other text here."
    a = lines(chunker.chunk(text, strategy="sentence", size=0))
    b = lines(chunker.chunk(text, strategy="sentence", size=0))
    assert [r["id"] for r in a] == [r["id"] for r in b]
    assert len({r["id"] for r in a}) == len(a)  # the same text at another place is another chunk


def test_several_results_carry_their_source():
    one = chunker.chunk("First file.", size=50, overlap=0, source="a.txt")
    two = chunker.chunk("Second file.", size=50, overlap=0, source="b.txt")
    recs = [json.loads(x) for x in to_chonkie([one, two]).splitlines()]
    assert [r["source"] for r in recs] == ["a.txt", "b.txt"]
    assert list(recs[0])[: len(CHONKIE_KEYS)] == CHONKIE_KEYS


@settings(max_examples=50)
@given(st.text(max_size=300))
def test_any_text_is_one_line_a_chunk(text):
    res = chunker.chunk(text, strategy="recursive", unit="chars", size=40, overlap=5)
    out = FORMATS["chonkie"].write(res)
    assert out.count("\n") == len(res.chunks)
    for line, c in zip(out.splitlines(), res.chunks):
        r = json.loads(line)
        assert text[r["start_index"] : r["end_index"]] == r["text"] == c.text


def test_the_command_line_writes_it(tmp_path):
    path = tmp_path / "doc.md"
    path.write_text(sample_document(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "chunker", str(path), "--format", "chonkie", "--size", "100", "--overlap", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    recs = [json.loads(x) for x in done.stdout.splitlines()]
    assert recs and all(list(r)[: len(CHONKIE_KEYS)] == CHONKIE_KEYS for r in recs)


def test_a_chunks_context_is_its_context():
    # The records were made from `Chunk.to_dict`, which holds the context only inside
    # embed_text: every chunk's context was null, even with context="headings".
    doc = "# Install\n\nRun the installer.\n\n## Linux\n\nUse the package manager.\n"
    res = chunker.chunk(doc, strategy="markdown", size=16, overlap=0, context="headings", source="guide.md")
    recs = lines(res)
    assert [r["context"] for r in recs] == [c.context for c in res.chunks] == ["Install\n\n", "Install > Linux\n\n"]
    assert all(r["context"] + r["text"] == c.embed_text and r["source"] == "guide.md" for r, c in zip(recs, res.chunks))
    assert all(r["context"] is None for r in lines(chunker.chunk(doc, strategy="markdown", size=16, overlap=0)))
