"""The `code` strategy on real code (this interpreter's own standard library) and on the cases
its syntax-tree cuts must get right: decorators, docstrings, comments, line ends, UTF-8."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys

import pytest

import chunker
from chunker.strategies._languages import LANGUAGES, language_of
from chunker.strategies.code import python_tree

_LINE_END = re.compile(r"\r\n|\r|\n")


def definitions(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """Every function and class of `text` (Python) as (start, end, qualified path): from its
    first decorator to the end of its last line, trimmed. Written apart from the strategy:
    positions come from the line table and str methods alone."""
    tree = python_tree(text)
    if tree is None:
        return []
    starts = [0, *(m.end() for m in _LINE_END.finditer(text))]

    def line(k):
        a = starts[k - 1]
        b = starts[k] if k < len(starts) else len(text)
        return a, len(text[a:b].rstrip("\r\n")) + a

    out = []

    def walk(node, path):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                a, b = line(first)
                a += len(text[a:b]) - len(text[a:b].lstrip())
                c, d = line(child.end_lineno)
                out.append((a, c + len(text[c:d].rstrip()), (*path, child.name)))
                walk(child, (*path, child.name))
            else:
                walk(child, path)

    walk(tree, ())
    return out


def stdlib_sources():
    import argparse
    import dataclasses
    import difflib
    import json.decoder
    import textwrap
    import typing

    return [(m.__name__, inspect.getsource(m)) for m in (argparse, dataclasses, difflib, json.decoder, textwrap, typing)]


@pytest.mark.parametrize("unit,size,overlap", [("chars", 600, 0), ("chars", 2000, 200), ("tokens", 150, 15), ("words", 300, 0)])
def test_no_cut_inside_a_definition_that_fits_on_the_standard_library(unit, size, overlap):
    measure = {"chars": len, "words": lambda s: len(s.split()), "tokens": chunker.get_tokenizer("estimate").count}[unit]
    fitting = 0
    for name, text in stdlib_sources():
        res = chunker.chunk(text, strategy="code", unit=unit, size=size, overlap=overlap)
        chunks = list(res)
        for start, end, path in definitions(text):
            if measure(text[start:end]) > size:
                continue
            fitting += 1
            holders = [c for c in chunks if c.start_char <= start and end <= c.end_char]
            assert holders, (name, path)
            # A chunk holding the definition lies in its scope: its path is a prefix of the definition's.
            assert all(path[: len(c.headings)] == c.headings for c in holders), (name, path)
        for c in chunks:
            assert text[c.start_char : c.end_char] == c.text
            if "oversize" in c.flags:
                assert len(c.text) == 1
            else:
                assert measure(c.text) <= size, (name, c.index)
    assert fitting > 100


def test_each_chunk_carries_its_qualified_path():
    import textwrap

    text = inspect.getsource(textwrap)
    paths = {path: (a, b) for a, b, path in definitions(text)}
    res = chunker.chunk(text, strategy="code", unit="chars", size=1500, overlap=0)
    seen = {c.headings for c in res}
    assert ("TextWrapper", "_wrap_chunks") in seen and ("dedent",) in seen
    for c in res:
        if c.headings:
            a, b = paths[c.headings]
            assert a <= c.start_char and c.end_char <= b, "inside the definition its path names"
    small = chunker.chunk(text, strategy="code", unit="chars", size=300, overlap=0)
    split = [c for c in small if c.headings == ("TextWrapper", "_split")]
    assert split and split[0].text.startswith("def _split(self, text):")


SAMPLE = '''\
"""A module."""

import os  # the one import


# Helpers come first.
# They are small.
@staticmethod
@other(
    arg=1,
)
def helper(x):
    """Docstring of helper."""
    return x


class Shape:
    """A shape.

    Long enough to be a header of its own.
    """

    sides = 0

    # The area, in square units.
    def area(self):
        return 0
        # nothing more

    async def grow(self, by):
        if by:
            self.sides += by
        else:
            pass
'''


def test_decorators_docstrings_and_comments_stay_with_their_definition():
    res = chunker.chunk(SAMPLE, strategy="code", unit="chars", size=160, overlap=0)
    texts = [c.text for c in res]
    helper = next(t for t in texts if "def helper" in t)
    assert helper.startswith("# Helpers come first.\n# They are small.\n@staticmethod\n@other(")
    assert helper.endswith("return x")
    head = next(c for c in res if c.text.startswith("class Shape:"))
    assert '"""A shape.' in head.text and head.headings == ("Shape",)
    area = next(c for c in res if "def area" in c.text)
    assert area.text.startswith("# The area, in square units.\n    def area(self):")
    assert area.text.endswith("# nothing more") and area.headings == ("Shape", "area")
    grow = next(c for c in res if "async def grow" in c.text)
    assert grow.headings == ("Shape", "grow") and grow.text.endswith("pass")
    assert all(SAMPLE[c.start_char : c.end_char] == c.text for c in res)


def test_a_large_definition_is_cut_at_its_statements_and_branches():
    res = chunker.chunk(SAMPLE, strategy="code", unit="chars", size=40, overlap=0)
    texts = [c.text for c in res]
    assert "else:\n            pass" in texts  # a branch keeps its else:
    assert all(len(t) <= 40 or "oversize" in c.flags for t, c in zip(texts, res))
    assert {c.headings for c in res} >= {("Shape", "grow"), ("Shape",), ("helper",)}


def test_overlap_is_whole_trailing_units():
    text = "".join(f"x{i} = {i}\n" for i in range(30))
    res = chunker.chunk(text, strategy="code", unit="chars", size=40, overlap=15)
    for a, b in zip(res.chunks, res.chunks[1:]):
        if b.start_char < a.end_char:
            repeated = text[b.start_char : a.end_char]
            assert repeated.endswith(a.text.splitlines()[-1]) and re.fullmatch(r"(x\d+ = \d+\n?)+", repeated)


def test_many_statements_on_one_line_are_one_unit():
    # Each statement sharing the line copied the unit's statements so far: 400 KB of "x=1;"
    # took over 30 s, quadratic; now parsing it is most of the cost. (Speed is measured, not
    # asserted: this checks what the in-place append gives, one unit of them all.)
    from chunker.strategies.code import _units

    n = 20_000
    tree = python_tree("x=1;" * n + "\ny = 2\n")
    assert tree is not None
    units = _units(tree.body)
    assert [(a, b, len(nodes)) for a, b, nodes in units] == [(1, 1, n), (2, 2, 1)]
    assert units[0][2] == tree.body[:n]


def test_a_long_elif_chain_that_parses_is_cut_at_separators_with_a_note():
    # Each elif is an `if` in the orelse of the one before: 600 branches parse, and splitting
    # them branch into branch raised RecursionError out of chunk().
    text = "if x == 0:\n    y = 0\n" + "".join(f"elif x == {i}:\n    y = {i}\n" for i in range(1, 600))
    assert python_tree(text) is not None
    res = chunker.chunk(text, strategy="code", language="python", unit="chars", size=40, overlap=0)
    assert all(text[c.start_char : c.end_char] == c.text and c.chars <= 40 for c in res)
    assert " ".join(c.text for c in res).split() == text.split()
    (note,) = res.notes
    assert "nested too deeply" in note and "\n" not in note
    # A short chain still follows the tree.
    short = chunker.chunk(
        text[: text.index("elif x == 5:")], strategy="code", language="python", unit="chars", size=40, overlap=0
    )
    assert short.notes == ()


def test_offsets_are_code_points_past_non_ascii_and_every_line_end():
    # ast's columns are UTF-8 bytes within a line; the strategy cuts at lines, so none is used
    # as an offset. Lines end at \n, \r\n and \r only, as Python's tokenizer has them; \f,
    # \x85 and U+2028 inside a string do not end a line.
    text = (
        "\ufeffs = 'é日本😀'; t = 'ü'\r\n\r\ndef café(x):\r    '''Doc \u2028 with\x85 odd\x0c ends.'''\r"
        "    return 'π' * x\r\n\r\nclass Ä:\n    def ñ(self):\n        return '😀😀'\n"
    )
    assert python_tree(text) is not None
    for size in (20, 40, 80, 400):
        res = chunker.chunk(text, strategy="code", unit="chars", size=size, overlap=0)
        for c in res:
            assert text[c.start_char : c.end_char] == c.text
        if size == 80:
            assert any(
                c.text.startswith("def café(x):") and c.text.endswith("return 'π' * x") and c.headings == ("café",) for c in res
            )
            assert any(c.text.startswith("class Ä:") and c.headings == ("Ä",) for c in res)
        elif size == 40:
            assert any(c.text == "def ñ(self):\n        return '😀😀'" and c.headings == ("Ä", "ñ") for c in res)


def test_a_file_that_does_not_parse_is_cut_at_pythons_separators():
    text = "def broken(:\n    return 1\n\n\ndef fine():\n    return 2\n"
    assert python_tree(text) is None
    res = chunker.chunk(text, strategy="code", unit="chars", size=30, overlap=0)
    assert [c.text for c in res] == ["def broken(:\n    return 1", "def fine():\n    return 2"]
    assert all(c.headings == () for c in res)


def test_the_language_comes_from_the_setting_or_the_extension():
    js = "function a() {\n  return 1;\n}\n\nconst b = 2;\nlet c = 3;\n"
    by_name = chunker.chunk(js, strategy="code", unit="chars", size=20, overlap=0, source="src/app.js")
    by_setting = chunker.chunk(js, strategy="code", unit="chars", size=20, overlap=0, language="js")
    assert [c.text for c in by_name] == [c.text for c in by_setting]
    assert language_of("auto", "a/b.PY") == "python" and language_of("auto", None) == "python"
    assert language_of("auto", "notes.unknown") == "python" and language_of("rust", "x.py") == "rust"
    with pytest.raises(chunker.ChunkerError, match="unknown language 'klingon': choose one of auto, python"):
        chunker.chunk(js, strategy="code", language="klingon")


def test_the_separators_are_langchains_for_every_language():
    splitters = pytest.importorskip("langchain_text_splitters")
    names = set()
    for lang in splitters.Language:
        try:
            expected = splitters.RecursiveCharacterTextSplitter.get_separators_for_language(lang)
        except ValueError:  # Perl: LangChain has none, and neither has this table
            assert lang.value not in LANGUAGES
            continue
        names.add(lang.value)
        assert LANGUAGES[lang.value].separators == tuple(expected), lang
    assert names == set(LANGUAGES)


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_language_keeps_offsets_and_the_size(lang):
    text = inspect.getsource(re) + "\n\n" + (chunker.__doc__ or "")
    res = chunker.chunk(text[:20000], strategy="code", language=lang, unit="chars", size=300, overlap=30)
    covered = bytearray(len(text))
    for c in res:
        assert text[c.start_char : c.end_char] == c.text and (c.chars <= 300 or "oversize" in c.flags)
        covered[c.start_char : c.end_char] = b"\x01" * len(c.text)
    assert not [k for k, ch in enumerate(text[:20000].rstrip()) if not ch.isspace() and not covered[k]]


def test_the_cli_reads_the_language_from_the_file_name(tmp_path):
    path = tmp_path / "app.js"
    js = "function a() {\n  return 1;\n}\nconst b = 2;\nfunction c() {\n  return 3;\n}\n"
    path.write_text(js, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "chunker", str(path), *"--strategy code --unit chars --size 40 --overlap 0 --format json".split()],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    import json

    got = [c["text"] for c in json.loads(out)]
    assert got == [c.text for c in chunker.chunk(js, strategy="code", unit="chars", size=40, overlap=0, language="js")]
    assert got != [c.text for c in chunker.chunk(js, strategy="code", unit="chars", size=40, overlap=0, language="python")]
