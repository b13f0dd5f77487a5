"""Untrusted PDF, Word and HTML files: bounded, linear, the same text on every Python, and every
failure one line (issue 29). Each adversarial file is built here, by hand."""

from __future__ import annotations

import html.parser
import io

import pytest

from chunker.documents import extract
from chunker.documents._html import html_to_text

# -- HTML: read as Python 3.14's html.parser reads it, on every Python --------------------------

# What Python 3.14's html.parser (the page's, in Pyodide) makes of malformed markup; the
# parser of Python 3.11 and of 3.12 / 3.13 before their 2025 fixes gives other text (shown in
# the comment), or raises.
MALFORMED = [
    ("<p>a</p><x", "a"),  # 3.11: "a\n\n<x"
    ("<p>a<b", "a"),  # "a<b"
    ("a<!-- c", "a"),  # "a<!-- c"
    ("a<!-- c -", "a"),
    ("a</b", "a"),
    ("a<?pi b", "a"),
    ("a<!b", "a"),
    ("<p>a<!DOCTYPE x", "a"),
    ("<p a='b>c", ""),  # an attribute value the file ends inside
    ("<p>x<!--->y", "xy"),  # "x<!--->y"
    ("<p>x<!-->y", "xy"),
    ("<p>x<!--a--!>y", "xy"),
    ("<xmp><b>x</b></xmp>", "<b>x</b>"),  # "x"
    ("<noembed><p>x</p></noembed>y", "y"),
    ("<p>a<script>x</script/>b", "ab"),  # item 4: "a", the rest lost
    ("a<script>x</script foo>b", "ab"),
    ("<style>x</style x>c", "c"),  # ""
    ("<![foo[x]]>b", "b"),  # item 12: AssertionError
    ("<p a=\"&copy=1\">x&copy;", "x©"),
]


@pytest.mark.parametrize("markup, text", MALFORMED)
def test_malformed_html_reads_as_the_fixed_parser_reads_it(markup, text):
    assert html_to_text(markup) == text


def test_html_does_not_go_through_the_pythons_own_html_parser(monkeypatch):
    # The parser of the Python at hand differs by version (and is quadratic before 3.13.4):
    # the text must not depend on it.
    def refuse(self, end):
        raise AssertionError("html.parser was used")

    monkeypatch.setattr(html.parser.HTMLParser, "goahead", refuse)
    assert html_to_text("<h1>T</h1><p>x</p>") == "# T\n\nx"


@pytest.mark.parametrize("unit, text", [
    ("<x ", "a"),  # each "<x " opened a tag that the next one could not close: quadratic
    ("<!--", "a"),  # a comment never closed, searched for again from each "<!--"
    ('<a b="', "a"),  # a quoted value never closed
    ("</b ", "a"),
    ("<![CDATA[", "a"),
    ("<!x", "a"),
])
def test_html_constructs_that_were_quadratic_are_read_once(unit, text):
    # 200,000 repeats: minutes each on Python 3.11's html.parser, milliseconds here.
    assert html_to_text("<p>a</p>" + unit * 200_000) == text
    assert extract(("<p>a</p>" + unit * 200_000).encode(), name="x.html").text == text


def test_text_after_a_script_end_tag_with_attributes_is_kept(tmp_path):
    from chunker.cli._main import run

    path = tmp_path / "page.html"
    path.write_text("<p>Intro.</p><script>var a = 1;</script foo><p>Body text.</p>"
                    "<style>p {}</style x><p>More text.</p><script>x</script/><p>End.</p>")
    out, err = io.StringIO(), io.StringIO()
    assert run(["extract", str(path)], io.StringIO(""), out, err) == 0
    assert out.getvalue().split() == "Intro. Body text. More text. End.".split()
