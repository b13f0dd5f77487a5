"""Is the difference real? The retrieval check's spreads, Precision Ω, the paired bootstrap
interval (`chunker eval --compare`, the sweep's intervals against its best row) and the
warning when the top k retrieves most of the chunks.

The bootstrap is held to a reference written the plain way (a loop over the draws, numpy's
percentile); Precision Ω to its definition written with Python sets and to hand-worked
cases; the command line to the library it prints.
"""

from __future__ import annotations

import json
import math
import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.cli._eval import run as eval_cli
from chunker.retrieval._eval import METRICS, SweepRow, _Holders, _union, compare, coverage_warning, evaluate, mark_best, sweep
from chunker.retrieval._questions import Question, Reference, load_questions
from chunker.retrieval._stats import Interval, Resamples, mean_std, paired_bootstrap
from tests.htmltree import INJECTIONS, Tree, harmless
from tests.test_eval import SAMPLE, SAMPLE_QUESTIONS, cli, sample_files

QS = load_questions(SAMPLE_QUESTIONS, SAMPLE)


# ------------------------------------------------------------------ the bootstrap


def reference_interval(a, b, *, resamples=2000, seed=0, confidence=0.95):
    """The paired percentile bootstrap the plain way: every draw in a loop, numpy's percentile."""
    np = pytest.importorskip("numpy")
    rng = random.Random(seed)
    n = len(a)
    d = [y - x for x, y in zip(a, b)]
    means = []
    for _ in range(resamples):
        picked = rng.choices(range(n), k=n)
        total = 0.0
        for i in picked:
            total += d[i]
        means.append(total / n)
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(means, [tail, 100 - tail])
    return sum(d) / n, float(low), float(high)


def scores(ev, metric):
    return [q.value(metric) for q in ev.per_question]


def test_the_bootstrap_equals_the_reference_on_two_real_chunkings():
    a = evaluate(SAMPLE, chunker.chunk(SAMPLE, size=40, overlap=0), QS, top_k=2)
    b = evaluate(SAMPLE, chunker.chunk(SAMPLE, strategy="sentence", size=60, overlap=0), QS, top_k=2)
    intervals = compare(a, b)
    assert [iv.metric for iv in intervals] == list(METRICS)
    for iv in intervals:
        expected = reference_interval(scores(a, iv.metric), scores(b, iv.metric))
        assert (iv.difference, iv.low, iv.high) == pytest.approx(expected, abs=1e-12)
        assert iv.difference == pytest.approx(getattr(b, iv.metric) - getattr(a, iv.metric), abs=1e-12)
    some = [iv for iv in intervals if iv.low != iv.high]
    assert some, "two different chunkings differ on some metric"


@given(
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=40),
    st.integers(0, 2**32),
    st.sampled_from([0.8, 0.9, 0.95]),
)
@settings(max_examples=60, deadline=None)
def test_the_bootstrap_equals_the_reference_and_holds_the_observed_difference(pairs, seed, confidence):
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    iv = paired_bootstrap(a, b, seed=seed, resamples=300, confidence=confidence)
    expected = reference_interval(a, b, seed=seed, resamples=300, confidence=confidence)
    assert (iv.difference, iv.low, iv.high) == pytest.approx(expected, abs=1e-12)
    assert iv.low <= iv.high
    assert iv.low - 1e-12 <= iv.difference <= iv.high + 1e-12
    d = [y - x for x, y in pairs]
    assert min(d) - 1e-12 <= iv.low and iv.high <= max(d) + 1e-12


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.integers(0, 1000))
@settings(max_examples=40, deadline=None)
def test_identical_settings_give_a_zero_width_interval_around_zero(values, seed):
    iv = paired_bootstrap(values, list(values), seed=seed, resamples=200)
    assert (iv.difference, iv.low, iv.high) == (0.0, 0.0, 0.0) and not iv.excludes_zero


def test_the_same_chunking_compared_with_itself_is_exactly_zero():
    ev = evaluate(SAMPLE, chunker.chunk(SAMPLE, size=40, overlap=0), QS, top_k=2)
    again = evaluate(chunker.Document(SAMPLE), chunker.chunk(SAMPLE, size=40, overlap=0), QS, top_k=2)
    for iv in compare(ev, again):
        assert (iv.difference, iv.low, iv.high) == (0.0, 0.0, 0.0) and not iv.excludes_zero


def test_the_interval_has_the_width_the_normal_approximation_predicts():
    # Many questions: the bootstrap's 95% interval is close to mean ± 1.96 sd / sqrt(n).
    rng = random.Random(7)
    a = [rng.random() for _ in range(400)]
    b = [min(1.0, x + rng.gauss(0.05, 0.2)) for x in a]
    iv = paired_bootstrap(a, b, metric="recall")
    d = [y - x for x, y in zip(a, b)]
    half = 1.96 * statistics.pstdev(d) / math.sqrt(len(d))
    assert iv.high - iv.low == pytest.approx(2 * half, rel=0.1)
    assert (iv.low + iv.high) / 2 == pytest.approx(iv.difference, abs=half * 0.15)
    assert iv.excludes_zero and iv.low > 0


def test_the_bootstrap_is_reproducible_and_its_seed_matters():
    rng = random.Random(3)
    a, b = [rng.random() for _ in range(30)], [rng.random() for _ in range(30)]
    first = paired_bootstrap(a, b)
    assert paired_bootstrap(a, b) == first
    assert paired_bootstrap(a, b, seed=1) != first
    swapped = paired_bootstrap(b, a)  # b - a, negated: the same draws
    assert (swapped.difference, swapped.low, swapped.high) == pytest.approx((-first.difference, -first.high, -first.low))
    # Draws kept or drawn again from the seed (past the memory bound) are the same draws.
    kept = Resamples(30, resamples=50)
    again = Resamples(30, resamples=50)
    again._kept = None
    assert kept.interval("x", a, b) == again.interval("x", a, b)


def test_bootstrap_arguments_are_checked():
    for kwargs, message in (
        ({"resamples": 0}, "resamples must be a whole number"),
        # 10**20 ran without end; a 5,000-digit one could not even be shown (int to str limit).
        ({"resamples": 10**20}, "resamples must be a whole number from 1 to 1,000,000 .*, got 100000000000000000000$"),
        ({"resamples": 10**5000}, "got an int of 5,001 digits$"),
        ({"confidence": 1.0}, "confidence must be a number between 0 and 1"),
        ({"seed": 1.5}, "seed must be a whole number"),
    ):
        with pytest.raises(chunker.ChunkerError, match=message):
            paired_bootstrap([0.0], [1.0], **kwargs)
    with pytest.raises(chunker.ChunkerError, match="same questions"):
        paired_bootstrap([0.0, 1.0], [1.0])
    with pytest.raises(chunker.ChunkerError, match="at least one question"):
        paired_bootstrap([], [])
    other = evaluate(SAMPLE, chunker.chunk(SAMPLE, size=40, overlap=0), QS[:3])
    with pytest.raises(chunker.ChunkerError, match="different questions"):
        compare(evaluate(SAMPLE, chunker.chunk(SAMPLE, size=40, overlap=0), QS), other)
    with pytest.raises(chunker.ChunkerError, match="two Evaluations"):
        compare(other, "not one")  # type: ignore[arg-type]


def test_the_interval_record():
    iv = Interval("recall", -0.1, -0.2, 0.05)
    assert not iv.excludes_zero and iv.to_dict() == {"difference": -0.1, "low": -0.2, "high": 0.05, "excludes_zero": False}
    assert Interval("iou", 0.1, 0.02, 0.2).excludes_zero and Interval("iou", -0.1, -0.2, -0.01).excludes_zero


# ------------------------------------------------------------------ means and spreads


def test_means_and_standard_deviations_over_the_questions():
    ev = evaluate(SAMPLE, chunker.chunk(SAMPLE, size=40, overlap=0), QS, top_k=2)
    for metric in METRICS:
        values = scores(ev, metric)
        assert getattr(ev, metric) == pytest.approx(statistics.fmean(values), abs=1e-12)
        assert getattr(ev, metric + "_std") == pytest.approx(statistics.pstdev(values), abs=1e-12)
    assert ev.mrr == pytest.approx(sum(1 / q.rank for q in ev.per_question if q.rank) / len(QS))
    assert ev.hit_rate_std > 0 or ev.hit_rate in (0.0, 1.0)
    assert mean_std([]) == (0.0, 0.0) and mean_std([2.0]) == (2.0, 0.0)
    d = ev.to_dict()
    assert list(d)[:6] == ["questions", "top_k", "index", "chunks", "recall", "recall_std"]
    assert {"precision_omega", "precision_omega_std", "warning", "per_question"} <= set(d)
    assert json.loads(json.dumps(d)) == d


# ------------------------------------------------------------------ Precision Ω


def omega_reference(references, chunks):
    """Precision Ω from sets of character positions: |R ∩ T| / |T|, T the characters of the
    chunks that share at least one with R."""
    relevant = set()
    for s, e in references:
        relevant |= set(range(s, e))
    held = set()
    for s, e in chunks:
        mine = set(range(s, e))
        if mine & relevant:
            held |= mine
    return len(relevant & held) / len(held) if held else 0.0


def omega(references, chunks):
    return _Holders(chunks).omega(_union(references))


@pytest.mark.parametrize(
    "refs,chunks,expected",
    [
        # Inside one chunk of ten: three characters of ten.
        ([(12, 15)], [(0, 10), (10, 20), (20, 30)], 3 / 10),
        # Across a boundary: both chunks hold part of it, four characters of twenty.
        ([(8, 12)], [(0, 10), (10, 20), (20, 30)], 4 / 20),
        # Exactly one chunk: all of what must be retrieved is answer.
        ([(10, 20)], [(0, 10), (10, 20), (20, 30)], 1.0),
        # Overlapping chunks: the text they share counts once (fifteen characters, not twenty).
        ([(6, 8)], [(0, 10), (5, 15)], 2 / 15),
        # A gap between chunks that the answer crosses: the gap is held by no chunk
        # (Chroma's code would count it in the denominator: 2 / 20).
        ([(9, 13)], [(0, 10), (12, 20)], 2 / 18),
        # Two references in two chunks, a chunk between them that holds neither.
        ([(0, 5), (25, 30)], [(0, 10), (10, 20), (20, 30)], 10 / 20),
        # A chunk that only touches the answer holds none of it; no chunk at all holds nothing.
        ([(10, 12)], [(0, 10), (10, 20)], 2 / 10),
        ([(0, 5)], [], 0.0),
        ([(40, 45)], [(0, 10)], 0.0),
    ],
)
def test_precision_omega_on_hand_worked_cases(refs, chunks, expected):
    assert omega(refs, chunks) == pytest.approx(expected)
    assert omega_reference(refs, chunks) == pytest.approx(expected)


spans = st.tuples(st.integers(0, 80), st.integers(1, 30)).map(lambda p: (p[0], p[0] + p[1]))


@given(st.lists(spans, min_size=1, max_size=4), st.lists(spans, max_size=10))
@settings(max_examples=400, deadline=None)
def test_precision_omega_equals_the_set_definition(refs, chunks):
    assert omega(refs, chunks) == pytest.approx(omega_reference(refs, chunks), abs=1e-12)


@given(st.lists(st.integers(1, 12), min_size=1, max_size=12), st.data())
@settings(max_examples=200, deadline=None)
def test_an_answer_made_of_whole_chunks_has_precision_omega_one(lengths, data):
    # Chunks side by side; an answer that is a run of whole chunks needs nothing else.
    bounds = [0]
    for n in lengths:
        bounds.append(bounds[-1] + n)
    chunks = list(zip(bounds, bounds[1:]))
    i = data.draw(st.integers(0, len(chunks) - 1))
    j = data.draw(st.integers(i, len(chunks) - 1))
    assert omega([(chunks[i][0], chunks[j][1])], chunks) == 1.0


def test_precision_omega_is_the_chunkings_not_the_retrievers():
    res = chunker.chunk(SAMPLE, size=40, overlap="20%")
    chunks = [(c.start_char, c.end_char) for c in res.chunks]
    evaluations = [evaluate(SAMPLE, res, QS, top_k=k) for k in (1, 3, 8)]
    evaluations.append(evaluate(SAMPLE, res, QS, top_k=3, with_headings=True, k1=0.5))
    for q, *same in zip(QS, *(e.per_question for e in evaluations)):
        expected = omega_reference([(r.start_index, r.end_index) for r in q.references], chunks)
        assert all(x.precision_omega == pytest.approx(expected, abs=1e-12) for x in same)
    assert len({e.precision_omega for e in evaluations}) == 1
    # Smaller chunks follow the answers' edges more closely.
    coarse = evaluate(SAMPLE, chunker.chunk(SAMPLE, size=400, overlap=0), QS)
    assert coarse.precision_omega < evaluate(SAMPLE, chunker.chunk(SAMPLE, size=30, overlap=0), QS).precision_omega


# ------------------------------------------------------------------ the warning, and the sweep's best

FIVE = "\n\n".join(
    [
        "Deploys take twelve minutes from merge to production.",
        "Rollbacks take one minute with the previous image.",
        "Backups run nightly at two and are kept for thirty days.",
        "Alerts page the on-call engineer after five minutes.",
        "Dashboards show latency, errors and saturation per service.",
    ]
)


def _answer(text: str) -> list[Reference]:
    at = FIVE.index(text)
    return [Reference(at, at + len(text), text)]


FIVE_QS = [
    Question("How long does a rollback take?", _answer("one minute")),
    Question("When do backups run?", _answer("nightly")),
]


def test_the_top_5_over_5_chunks_is_warned():
    res = chunker.chunk(FIVE, strategy="paragraph", size=0)
    assert len(res.chunks) == 5
    ev = evaluate(FIVE, res, FIVE_QS, top_k=5)
    assert ev.chunks == 5 and ev.recall == 1.0
    assert ev.warning == coverage_warning(5, 5)
    assert ev.warning.startswith("the top 5 retrieve all 5 chunks: ") and ev.to_dict()["warning"] == ev.warning
    assert evaluate(FIVE, res, FIVE_QS, top_k=3).warning.startswith("the top 3 retrieve 3 of the 5 chunks")
    assert evaluate(FIVE, res, FIVE_QS, top_k=2).warning is None  # 2 of 5: under half
    assert coverage_warning(5, 0) is None  # no chunks: every metric is 0 already
    assert coverage_warning(1, 2) is not None and coverage_warning(4, 9) is None


def test_the_sweep_never_marks_a_setting_whose_top_k_holds_most_chunks_best():
    doc = chunker.Document(SAMPLE)
    rows = mark_best(sweep(doc, QS, strategies=["recursive"], sizes=[30, 60, 2000], top_k=3))
    one = rows[-1]
    assert one.chunks == 1 and one.recall == 1.0 and one.warning
    assert one.best == ()  # the most recall, but only because it is the whole document
    top = max(r.recall for r in rows if not r.warning)
    assert all("recall" in r.best for r in rows if r.recall == top and not r.warning)
    # By hand: a warned row with the highest means is passed over; if every row is warned, none is best.
    plain = SweepRow("a", 100, "tokens", "10%", "approx", (), 5, 30, 0.6, 0.1, 0.2, 1.0, 1.0)
    covered = SweepRow("b", 900, "tokens", "10%", "approx", (), 5, 2, 1.0, 0.1, 0.3, 1.0, 1.0, warning="w")
    assert [r.best for r in mark_best([plain, covered])] == [("recall", "iou"), ()]
    assert [r.best for r in mark_best([covered])] == [()]


def test_each_sweep_row_gets_its_interval_against_the_best_row():
    doc = chunker.Document(SAMPLE)
    rows = mark_best(sweep(doc, QS, strategies=["recursive", "sentence"], sizes=[30, 60], top_k=2))
    for metric in ("recall", "iou"):
        best = next(r for r in rows if metric in r.best)
        for r in rows:
            iv = next(iv for iv in r.versus_best if iv.metric == metric)
            expected = reference_interval(scores(best, metric), scores(r, metric))
            assert (iv.difference, iv.low, iv.high) == pytest.approx(expected, abs=1e-12)
            assert iv.difference == pytest.approx(getattr(r, metric) - getattr(best, metric), abs=1e-12)
            if r is best:
                assert (iv.low, iv.high) == (0.0, 0.0)
    d = rows[0].to_dict()
    assert set(d["versus_best"]) == {"recall", "iou"} and "per_question" not in d
    assert set(d["versus_best"]["recall"]) == {"difference", "low", "high", "excludes_zero"}


# ------------------------------------------------------------------ the command line


def test_cli_eval_prints_spreads_omega_and_the_warning(tmp_path):
    doc, qs = sample_files(tmp_path)
    code, out, err = cli(eval_cli, doc, qs, "--size", "40", "--overlap", "0", "--top-k", "2")
    assert code == 0 and err == ""
    expected = evaluate(SAMPLE, chunker.chunk(SAMPLE, size=40, overlap=0), QS, top_k=2)
    assert json.loads(out) == expected.to_dict()
    assert json.loads(out)["precision_omega_std"] == expected.precision_omega_std
    # Five chunks and the top 5: the warning is in the object and on stderr, and the run succeeds.
    five = tmp_path / "five.md"
    five.write_bytes(FIVE.encode("utf-8"))
    fq = tmp_path / "five.jsonl"
    fq.write_text(chunker.dump_questions(FIVE_QS), encoding="utf-8")
    code, out, err = cli(eval_cli, str(five), str(fq), "--strategy", "paragraph", "--size", "0")
    assert code == 0 and json.loads(out)["warning"] == coverage_warning(5, 5)
    assert err == f"chunker: warning: {coverage_warning(5, 5)}\n"


def test_cli_compare_prints_both_evaluations_and_the_intervals(tmp_path):
    doc, qs = sample_files(tmp_path)
    code, out, err = cli(
        eval_cli, doc, qs, "--size", "40", "--overlap", "0", "--top-k", "2", "--compare", "--strategy sentence --size 60"
    )
    assert code == 0 and err == "" and out.count("\n") == 1
    got = json.loads(out)
    a = evaluate(SAMPLE, chunker.chunk(SAMPLE, size=40, overlap=0), QS, top_k=2)
    b = evaluate(SAMPLE, chunker.chunk(SAMPLE, strategy="sentence", size=60, overlap=0), QS, top_k=2)
    assert got["a"] == {"settings": chunker.Settings(size=40, overlap=0).to_dict(), **a.to_dict()}
    assert got["b"] == {"settings": chunker.Settings(strategy="sentence", size=60, overlap=0).to_dict(), **b.to_dict()}
    assert got["difference"] == {iv.metric: iv.to_dict() for iv in compare(a, b)}
    assert (got["questions"], got["confidence"], got["resamples"], got["seed"]) == (len(QS), 0.95, 2000, 0)
    # The retrieval options can differ too; the same setting twice is exactly no difference.
    for second in ("--top-k 1", "--top-k=1"):
        code, out, _ = cli(eval_cli, doc, qs, "--size", "40", "--overlap", "0", "--compare", second)
        got = json.loads(out)
        assert code == 0 and (got["a"]["top_k"], got["b"]["top_k"]) == (5, 1)
    code, out, _ = cli(eval_cli, doc, qs, "--size", "40", "--overlap", "0", "--compare", "--size 40")
    assert all(
        d == {"difference": 0.0, "low": 0.0, "high": 0.0, "excludes_zero": False} for d in json.loads(out)["difference"].values()
    )


def test_cli_compare_on_a_terminal_is_a_table(tmp_path):
    doc, qs = sample_files(tmp_path)
    code, out, err = cli(eval_cli, doc, qs, "--size", "30", "--overlap", "0", "--top-k", "2", "--compare", "--size 400", tty=True)
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:3] == ["metric", "a", "b"]
    intervals = compare(
        evaluate(SAMPLE, chunker.chunk(SAMPLE, size=30, overlap=0), QS, top_k=2),
        evaluate(SAMPLE, chunker.chunk(SAMPLE, size=400, overlap=0), QS, top_k=2),
    )
    for line, iv in zip(lines[1:], intervals):
        assert f"{iv.difference:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]" in line
        said = ("b higher" if iv.low > 0 else "b lower") if iv.excludes_zero else "no real difference"
        assert said in line
    assert any(line.startswith("a: recursive, size 30 tokens") for line in lines)
    assert any(line.startswith("warning (b): the top 2 retrieve") for line in lines)
    assert "chunker: warning: b: the top 2 retrieve" in err


@pytest.mark.parametrize(
    "args,message",
    [
        (["--sweep", "--compare", "--size 40"], "--compare does not go with --sweep"),
        (["--overlap", "0", "--compare", ""], "names no option"),
        (["--compare", "--sise 40"], "--compare: unrecognized arguments: --sise 40"),
        (["--compare", "--size ten"], "--size must be a whole number"),
        (["--compare", "--strategy 'sentence"], "quote it as one shell word"),
        (["--compare", "--top-k 0"], "--top-k must be a whole number of at least 1"),
    ],
)
def test_cli_compare_errors_are_one_line_and_exit_2(tmp_path, args, message):
    doc, qs = sample_files(tmp_path)
    code, out, err = cli(eval_cli, doc, qs, *args)
    assert (code, out) == (2, "") and err.startswith("chunker: error: ") and err.count("\n") == 1
    assert message in err


def test_cli_sweep_prints_the_intervals_and_marks_what_is_not_ranked(tmp_path):
    doc, qs = sample_files(tmp_path)
    args = [doc, qs, "--sweep", "--strategies", "recursive,sentence", "--sizes", "30,2000", "--top-k", "3"]
    code, out, err = cli(eval_cli, *args)
    rows = [json.loads(x) for x in out.splitlines()]
    expected = mark_best(sweep(SAMPLE, QS, strategies=["recursive", "sentence"], sizes=[30, 2000], top_k=3))
    assert code == 0 and rows == [r.to_dict() for r in expected]
    assert [bool(r["warning"]) for r in rows] == [False, True, False, True]
    assert all(not r["best"] for r in rows if r["warning"])
    code, table, _ = cli(eval_cli, *args, tty=True)
    lines = table.splitlines()
    assert "recall vs best" in lines[0] and "IoU vs best" in lines[0]
    for line, r in zip(lines[1:5], expected):
        assert ("not ranked" in line) == bool(r.warning)
        for iv in r.versus_best:
            if iv.metric not in r.best:
                assert f"{iv.difference:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]" in line
    assert any(line.startswith("*: the top k is half the chunks or more") for line in lines)
    assert not any(line.startswith("no setting can be ranked") for line in lines)
    code, table, _ = cli(eval_cli, doc, qs, "--sweep", "--strategies", "recursive", "--sizes", "2000", tty=True)
    assert table.splitlines()[-1] == "no setting can be ranked: lower --top-k, or use smaller --sizes"


# ------------------------------------------------------------------ the page's panel, in CPython


@pytest.mark.parametrize("payload", INJECTIONS)
def test_the_panel_escapes_every_question_and_shows_the_warning(payload):
    from app import questions as panel

    doc = FIVE + "\n\n" + payload
    qs = [Question(payload + " rollback?", _answer("one minute")), *FIVE_QS]
    res = chunker.chunk(doc, strategy="paragraph", size=0)
    ev = evaluate(doc, res, qs, top_k=5)
    made = panel.evaluation_html(ev, res.settings)
    allowed = {"div", "span", "p", "strong", "details", "summary", "table", "thead", "tbody", "tr", "th", "td"}
    assert harmless(made, allowed)
    tree = Tree(made)
    assert payload + " rollback?" in tree.joined() and "Warning: The top 5 retrieve 5 of the 6 chunks" in tree.joined()
    assert [a.get("data-metric") for t, a in tree.tags if t == "div" and "data-metric" in a] == list(panel._SHOWN)


def test_the_sweep_chart_draws_each_rows_interval_from_the_best_level():
    from app import questions as panel

    rows = mark_best(sweep(SAMPLE, QS, strategies=["recursive", "sentence"], sizes=[30, 60, 2000], top_k=2))
    made = panel.sweep_html(rows, ["recursive", "sentence"], [30, 60, 2000])
    tree = Tree(made)
    bars = [a for t, a in tree.tags if t == "path" and a.get("class") == "ci"]
    assert len(bars) == 2 * len(rows) and {a["data-metric"] for a in bars} == {"recall", "iou"}
    levels = {a["data-metric"]: float(a["y1"]) for t, a in tree.tags if t == "line" and a.get("class") == "best-level"}
    assert set(levels) == {"recall", "iou"}
    covered = [a for t, a in tree.tags if t == "tr" and a.get("class") == "covered"]
    assert len(covered) == sum(bool(r.warning) for r in rows) == 2  # the one-chunk settings
    assert "never marked best" in tree.joined()
    titles = [a["title"] for t, a in tree.tags if t == "td" and "standard deviation" in a.get("title", "")]
    assert len(titles) == 5 * len(rows) and f"±{100 * rows[0].recall_std:.1f} standard deviation" in titles[0]
    # A row with an IoU interval and none for recall: its one bar is IoU's, at IoU's bounds,
    # beside the point (x + 4), not in recall's place.
    import dataclasses

    first = rows[0]
    iv = next(iv for iv in first.versus_best if iv.metric == "iou")
    lone = [dataclasses.replace(first, versus_best=(iv,))]
    only = [a for t, a in Tree(panel.sweep_html(lone, [first.strategy], [first.size])).tags if a.get("class") == "ci"]
    assert [a["data-metric"] for a in only] == ["iou"]
    level = first.iou - iv.difference
    y = [12 + (1 - min(1.0, max(0.0, v))) * 198 for v in (level + iv.low, level + iv.high)]
    assert only[0]["d"].startswith(f"M48.0,{y[0]:.1f}V{y[1]:.1f}")
    # Rows still to come: no interval yet, no bar, no level.
    partial = Tree(
        panel.sweep_html(list(sweep(SAMPLE, QS, strategies=["recursive"], sizes=[30], top_k=2)), ["recursive"], [30, 60])
    )
    assert not [a for t, a in partial.tags if a.get("class") in ("ci", "best-level")]
    assert "computing…" in partial.joined() and "No setting can be ranked" not in partial.joined()
    everything = mark_best(sweep(SAMPLE, QS, strategies=["recursive"], sizes=[2000], top_k=2))
    assert "No setting can be ranked" in Tree(panel.sweep_html(everything, ["recursive"], [2000])).joined()
    assert "No setting can be ranked" not in tree.joined()
