"""JSON Lines are written from the chunks' columns, in UTF-8 bytes (`_jsonl_utf8`): every line
must be the bytes of ``json.dumps(record, ensure_ascii=False)`` for the record `Chunk.to_dict`
makes (with the rare line separators escaped), whatever the text holds: quotes, backslashes,
control characters, separators, astral characters; with and without a context, a source
and pages."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.results._export import _jsonl_utf8, records

SPECIAL = '"\\\n\r\t\x00\x01\x08\x0b\x0c\x1f\x7f\x85\u2028\u2029 é€😀\U0001f3fd#|-`'
texts = st.lists(
    st.one_of(
        st.sampled_from(SPECIAL), st.characters(blacklist_categories=("Cs",)), st.sampled_from(["word ", "# Title\n", "\n\n"])
    ),
    max_size=150,
).map("".join)
options = st.fixed_dictionaries(
    {
        "strategy": st.sampled_from(["recursive", "markdown", "fixed", "sentence"]),
        "unit": st.sampled_from(["chars", "words"]),
        "size": st.integers(8, 120),
        "overlap": st.integers(0, 6),
        "context": st.sampled_from(["none", "title", "headings"]),
    }
)


def reference(results) -> str:
    """The records as json.dumps writes them, a line each, the separators escaped."""
    out = []
    for r in records(results):
        line = json.dumps(r, ensure_ascii=False)
        for sep, escaped in (("\u2028", "\\u2028"), ("\u2029", "\\u2029"), ("\x85", "\\u0085")):
            line = line.replace(sep, escaped)
        out.append(line + "\n")
    return "".join(out)


def _result(text, opts, source, pages):
    try:
        return chunker.Document(text, source=source, pages=pages).chunk(**opts)
    except chunker.ChunkerError:
        return None  # a context the size cannot hold: said elsewhere


@settings(max_examples=300, deadline=None)
@given(texts, options, st.one_of(st.none(), st.sampled_from(['a "quoted" \\ name.md', "x\u2028y.txt", "plain.md"])), st.data())
def test_jsonl_lines_are_json_dumps_of_the_records(text, opts, source, data):
    pages = ()
    if text and data.draw(st.booleans()):
        pages = tuple(sorted(set(data.draw(st.lists(st.integers(1, len(text)), max_size=3)))))
    res = _result(text, opts, source, pages)
    if res is None:
        return
    want = reference(res)
    assert chunker.to_jsonl(res) == want
    assert b"".join(_jsonl_utf8(res)) == want.encode("utf-8")
    for line in want.splitlines():  # one record a line, to every reader
        assert json.loads(line)["text"] in text


@given(st.lists(texts, min_size=2, max_size=3))
@settings(max_examples=50, deadline=None)
def test_several_named_results_join_as_one_stream(parts):
    results = [chunker.Document(t, source=f"doc{i}.md").chunk(size=40, overlap=5) for i, t in enumerate(parts)]
    assert b"".join(_jsonl_utf8(results)) == reference(results).encode("utf-8")
