"""chunker.text._punkt against nltk's untrained PunktSentenceTokenizer: identical spans."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chunker.text._punkt import punkt_spans, punkt_starts
from tests.texts import PRIMER, PRIMER_SENTENCES, real_documents

punkt = pytest.importorskip("nltk.tokenize.punkt")

NLTK = punkt.PunktSentenceTokenizer()


def nltk_spans(text: str) -> list[tuple[int, int]]:
    return list(NLTK.span_tokenize(text))


@pytest.mark.parametrize("name", [name for name, _ in real_documents()])
def test_real_documents_give_nltks_spans(name):
    text = dict(real_documents())[name]
    assert punkt_spans(text) == nltk_spans(text)


def test_the_primer_is_its_eleven_sentences():
    assert [PRIMER[s:e] for s, e in punkt_spans(PRIMER)] == PRIMER_SENTENCES


# Every rule of the untrained algorithm has a case here: initials and numbers before a
# cased, lowercase or uncased word, ellipses and spaced dots, closing quotes and brackets
# moved back, a candidate followed by a mark, runs of candidates without whitespace, and
# nltk's own quirks (a word before a candidate is looked for back to ASCII whitespace only).
CASES = [
    "",
    "   ",
    "No full stop at all",
    "One. Two",
    "J. Bach wrote it. j. bach did not. J. 1 more.",
    "It was 1. Then 2. then 3. (4.) and 5.? Yes.",
    "Wait... What? Really!! Yes!!! No?! ok.",
    "He said . . . nothing. Then -- quietly -- left.",
    '"Go." She went. (Home.) [Back.] {Out.} \u201cQuoted.\u201d \u00abFrench.\u00bb Next.',
    "A.B.C. Dee. e.g. this. i.e. that. U.S.A. is big.",
    "a.\u2028b. c.\x1cd. e.\x85f. g.\u00a0h.",
    "x.\tY.\x0bz.\x0cW.\rV.\nu.",
    "!!!!! ????? ..... !?!?. .",
    "Line one.\n\nLine two.\n   \nLine three.\n",
    "\u00b2. \u2160. \u24b6. _. \u0301. \u200d. Next",
    "##number##. x ##NUMBER##. Y",
    "\u0130. Stanbul. \u0130stanbul. x",
    "Trailing.   \n\t ",
    "end.--start. end.'' next.",
]


@pytest.mark.parametrize("text", CASES)
def test_cases_give_nltks_spans(text):
    assert punkt_spans(text) == nltk_spans(text)


# Characters unassigned in this interpreter's Unicode are left out: their classes are a matter
# of Unicode version (nltk's engine is newer), and no text of the version this Python knows holds them.
_ASSIGNED = st.characters(codec="utf-8").filter(lambda c: unicodedata.category(c) != "Cn")
_PIECES = st.sampled_from(
    [".", "?", "!", "..", "...", ". . .", " ", "  ", "\n", "\n\n", "\t", '"', "'", ")", "(", "]", "\u201d", "\u00bb",
     ",", ";", ":", "-", "--", "A", "a", "J", "j", "Dr", "U.S.", "1", "12", "3.5", "e.g.", "\u00e9", "\u4e2d", "\u3002",
     "\x1c", "\u2028", "\u00a0", "The", "the", "I", "x"]
)  # fmt: skip


@settings(max_examples=400)
@given(st.lists(st.one_of(_PIECES, _PIECES, _ASSIGNED), max_size=40).map("".join))
@example("A. b. C. 1. d. 2. E.")
def test_generated_text_gives_nltks_spans(text):
    assert punkt_spans(text) == nltk_spans(text)


@settings(max_examples=150)
@given(st.text(_ASSIGNED, max_size=60))
def test_any_text_gives_nltks_spans(text):
    assert punkt_spans(text) == nltk_spans(text)


def test_starts_are_the_spans_starts():
    text = "One. Two. (Three.) Four"
    assert punkt_starts(text) == [s for s, _ in nltk_spans(text)]


def test_long_runs_of_marks_and_dots():
    # Each "!" before another mark ends a sentence; a run of dots is one ellipsis token, and a
    # run with no whitespace is one context for the word before it.
    for run in ("!" * 5000 + " Next", "." * 5000 + " Next. x", "a." * 3000 + " B", "?!" * 2000):
        assert punkt_spans(run) == nltk_spans(run)
