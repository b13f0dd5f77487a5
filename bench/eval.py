"""How long a retrieval check takes next to the chunking it checks, on 1 MB of real text.

    python bench/eval.py                 # 1 MB, 100 questions, 7 repeats (~4 minutes)
    python bench/eval.py --mb 0.25 --repeats 3 --questions 50

The text is the Python 3.11 documentation as Markdown (bench/corpus.py, from Debian's
python3.11-doc), cut to the size at a paragraph boundary. Questions are made from the text
itself, reproducibly: a sentence picked at random, a few of its longer words as the
question, the sentence as the reference (see `make_questions`).

Targets (printed, never asserted):

- evaluating 100 questions on 1 MB takes at most 2x the time of chunking it (recursive,
  tokens, size 256, approx and estimate tokenizers);
- a sweep of 3 strategies x 4 sizes on 1 MB takes at most 15x one such chunking.

Times are median CPU times (process_time): the machine is shared, and a busy neighbour
stretches wall time more than CPU time. Chunking and evaluating run alternately and the
ratio is the median of the per-pair ratios, so that a drift in the machine's speed falls on
both. The sweep is timed as `sweep()` runs it, and the chunk() calls inside it apart in
the same run, so that the part the evaluation adds shows; once as is, once with the token measure
kept between sweeps (a `chunker.Document`, as the CLI and the page's worker hold one).

>>> doc = "Intro. The quick brown fox jumps over the lazy dog by the river every morning.\\n"
>>> q = make_questions(doc, 1, seed=1)[0]
>>> doc[q.references[0].start_index:q.references[0].end_index]
'The quick brown fox jumps over the lazy dog by the river every morning.'
>>> set(q.question.rstrip("?").split()) <= set(q.references[0].content.split())
True
"""

from __future__ import annotations

import argparse
import platform
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` and `chunker` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chunker
from chunker.retrieval._bm25 import BM25Index, _DocumentTerms
from chunker.retrieval._eval import _measure, _spans_and_headings, evaluate, mark_best, sweep
from chunker.retrieval._questions import Question, Reference

MB = 1_000_000
# A prose sentence: a capital, 60 to 300 characters on one line, a full stop.
_SENTENCE = re.compile(r"(?<![^\s])[A-Z][^\n.!?`|*#]{60,300}[.!?](?=\s)")
_WORD = re.compile(r"[A-Za-z]{4,}")


def make_questions(text: str, n: int, *, seed: int = 0) -> list[Question]:
    """`n` questions: each a random sentence's longer words (3 to 6 of them, in order)."""
    rng = random.Random(seed)
    sentences = [m for m in _SENTENCE.finditer(text) if len(_WORD.findall(m.group())) >= 3]
    out = []
    for m in rng.sample(sentences, min(n, len(sentences))):
        words = _WORD.findall(m.group())
        keep = sorted(rng.sample(range(len(words)), min(len(words), rng.randint(3, 6))))
        out.append(Question(" ".join(words[i] for i in keep) + "?", (Reference(m.start(), m.end(), m.group()),)))
    return out


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def paired(base: Callable[[], object], other: Callable[[], object], repeats: int) -> tuple[float, float, float]:
    """Median CPU seconds of `base` and `other`, run alternately after a warm-up of each, and
    the median of their per-pair ratios (a drift in the machine's speed falls on both)."""
    base(), other()
    pairs = [(cpu(base), cpu(other)) for _ in range(repeats)]
    return (
        statistics.median(b for b, _ in pairs),
        statistics.median(o for _, o in pairs),
        statistics.median(o / b for b, o in pairs),
    )


def timed_sweep(doc: chunker.Document, questions: list[Question], tokenizer: str) -> tuple[float, float]:
    """CPU seconds of a 3 x 4 sweep of `doc`, and of the chunkings inside it (in the same run)."""
    inner = [0.0]
    real_run = doc.run

    def run_timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return real_run(*args, **kwargs)
        finally:
            inner[0] += time.process_time() - start

    doc.run = run_timed  # type: ignore[method-assign]
    try:
        total = cpu(lambda: list(sweep(doc, questions, tokenizer=tokenizer)))
    finally:
        del doc.run
    return total, inner[0]


def _verdict(ratio: float, target: float) -> str:
    return f"{'PASS' if ratio <= target else 'FAIL'} (target <= {target:g}x)"


def bench_tokenizer(text: str, questions: list[Question], tokenizer: str, repeats: int) -> None:
    opts: dict[str, Any] = {"strategy": "recursive", "unit": "tokens", "size": 256, "tokenizer": tokenizer}
    result = chunker.chunk(text, **opts)
    print(f"recursive, tokens, size 256, overlap 50, {tokenizer}: {len(result.chunks)} chunks")

    def chunk_once() -> object:
        return chunker.chunk(text, **opts)

    c, e, ratio = paired(chunk_once, lambda: evaluate(text, result, questions), repeats)
    print(f"  chunk                         {c:7.3f} s")
    print(f"  evaluate {len(questions)} questions, top 5  {e:7.3f} s  {ratio:5.2f}x chunking  {_verdict(ratio, 2)}")
    _, h, ratio = paired(chunk_once, lambda: evaluate(text, result, questions, with_headings=True), repeats)
    print(f"    with headings               {h:7.3f} s  {ratio:5.2f}x")
    kept = chunker.Document(text)  # the page's worker: a slider move re-chunks the same document
    _, w, ratio = paired(chunk_once, lambda: evaluate(kept, result, questions), repeats)
    print(f"    the document's terms kept    {w:7.3f} s  {ratio:5.2f}x  {_verdict(ratio, 2)}")
    # Where the time goes: the document's terms (once per document; a sweep pays it once),
    # then what each chunking pays: the index, the statistics of the questions' terms, the
    # searches and the metrics.
    spans, _ = _spans_and_headings(text, result, False)
    doc = _DocumentTerms(text)
    tokenise = statistics.median(cpu(lambda: _DocumentTerms(text)) for _ in range(repeats))

    def per_chunking() -> object:
        return _measure(BM25Index._of_document(doc, spans, None, 1.5, 0.75), spans, questions, 5)

    per = statistics.median(cpu(per_chunking) for _ in range(repeats))
    print(
        f"    of which the document's terms {tokenise:7.3f} s, the rest (index, statistics, "
        f"searches, metrics) {per:7.3f} s = {per / c:.2f}x chunking"
    )
    # The road not taken: every chunk's own text tokenised.
    texts = [ch.text for ch in result.chunks]
    own = statistics.median(cpu(lambda: BM25Index(texts).prepare(q.question for q in questions)) for _ in range(repeats))
    once = statistics.median(
        cpu(lambda: BM25Index.from_result(result).prepare(q.question for q in questions)) for _ in range(repeats)
    )
    print(f"    index + statistics: from the document once {once:7.3f} s, from each chunk's text {own:7.3f} s")
    ev = evaluate(text, result, questions)
    print(
        f"    (recall {ev.recall:.3f}, precision {ev.precision:.3f}, IoU {ev.iou:.3f}, "
        f"hit rate {ev.hit_rate:.2f}, MRR {ev.mrr:.3f})"
    )

    for keep in (False, True):
        held = chunker.Document(text)
        if keep:
            list(sweep(held, questions, tokenizer=tokenizer))  # its measure and terms, kept
        runs = [timed_sweep(held if keep else chunker.Document(text), questions, tokenizer) for _ in range(max(1, repeats // 2))]
        s = statistics.median(total for total, _ in runs)
        k = statistics.median(chunking for _, chunking in runs)
        label = "a second sweep of a kept Document (as the page)" if keep else "a fresh Document"
        print(f"  sweep 3 x 4, {label}: {s:7.3f} s  {s / c:5.2f}x chunking  {_verdict(s / c, 15)}")
        print(f"    of which its 12 chunkings {k:7.3f} s ({k / c:.1f}x), the evaluation {s - k:7.3f} s ({(s - k) / c:.1f}x)")
    # The intervals against the best row (2,000 paired resamples, pure Python), as the CLI and
    # the page add them once every row is in.
    rows = list(sweep(held, questions, tokenizer=tokenizer))
    marked = statistics.median(cpu(lambda: mark_best(rows)) for _ in range(max(1, repeats // 2)))
    print(f"  mark_best, each row's interval against the best: {marked:7.3f} s ({marked / c:.2f}x chunking)")
    print()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=1.0, help="document size in MB (default 1)")
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args(argv)

    from bench import corpus

    text = corpus.sized(corpus.python_docs_markdown(), int(args.mb * MB))
    questions = make_questions(text, args.questions)
    print(
        f"# bench/eval.py: {len(text.encode()):,} bytes ({len(text):,} characters) of the Python docs, "
        f"{len(questions)} questions; Python {platform.python_version()}; median CPU seconds of "
        f"{args.repeats} runs (sweeps: {max(1, args.repeats // 2)})\n"
    )
    for tokenizer in ("approx", "estimate"):
        bench_tokenizer(text, questions, tokenizer, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
