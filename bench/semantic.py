"""The semantic strategy and dense retrieval: time beside the recursive strategy, same text, same run.

    python bench/run.py --semantic            # 1 MB, 3 interleaved rounds
    python bench/run.py --semantic --quick    # 0.2 MB, 1 round

Runs in the tests' environment (.venv, from requirements-test.lock): the model is the one the
tests train (tests/embedding_fixtures.py: PPMI vectors over a trained WordPiece vocabulary, 64
dimensions, model2vec's format), made once and cached under .cache/. Every timing is a fresh
process with numpy made unimportable, as in the page's Pyodide: the CPU time of its first run
(the model and the tokenizer's words still to learn) and the median of two runs after it.
The processes of the tools are interleaved (recursive, semantic, ...), so a drift in the
machine's speed falls on all alike. Ratios are semantic time / recursive time.
Printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, sys, time
sys.modules["numpy"] = None  # as in the page: the standard library only
sys.path.insert(0, sys.argv[1])
import chunker
text = open(sys.argv[2], encoding="utf-8").read()
kind, model, repeats = sys.argv[3], sys.argv[4], int(sys.argv[5])
settings = dict(strategy="recursive") if kind == "recursive" else dict(strategy="semantic")
if kind == "semantic-model":
    settings["embedding_model"] = model
if kind.startswith("eval"):
    from chunker.retrieval._questions import load_questions
    questions = load_questions(open(sys.argv[6], encoding="utf-8").read(), text)
    doc = chunker.Document(text)
    res = doc.chunk(strategy="recursive")
    extra = {"embedding_model": model} if kind != "eval-bm25" else {}
    run = lambda: chunker.evaluate(doc, res, questions, retriever=kind[5:], **extra)
else:
    run = lambda: chunker.chunk(text, **settings)
t = time.process_time()
run()  # the first run: the model's rows and the tokenizer's words are read and learnt
first = time.process_time() - t
times = []
for _ in range(repeats):
    t = time.process_time()
    out = run()
    times.append(time.process_time() - t)
print(json.dumps({"cpu": times, "first": first}))
"""


def _questions(text: str, path: Path, n: int = 40) -> None:
    """n questions with one reference each: a sentence of the text, asked by its own words."""
    import random

    import chunker

    sentences = [c for c in chunker.chunk(text, strategy="sentence", size=0).chunks if 60 < len(c.text) < 300]
    rng = random.Random(0)
    with path.open("w", encoding="utf-8") as f:
        for c in rng.sample(sentences, min(n, len(sentences))):
            words = c.text.split()
            q = " ".join(words[: max(4, len(words) // 2)])
            f.write(json.dumps({"question": q, "references": [{"start_index": c.start_char, "end_index": c.end_char}]}) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--mb", type=float, default=None)
    p.add_argument("--rounds", type=int, default=None)
    args = p.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from bench import corpus
    from tests import embedding_fixtures

    mb = args.mb or (0.2 if args.quick else 1.0)
    rounds = args.rounds or (1 if args.quick else 3)
    out = ROOT / ".cache" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    text_path = out / f"semantic-{mb}.md"
    text_path.write_text(corpus.sized(corpus.python_docs_markdown(), int(mb * 1_000_000)), encoding="utf-8")
    questions_path = out / f"semantic-{mb}.jsonl"
    _questions(text_path.read_text(encoding="utf-8"), questions_path)
    model = embedding_fixtures.trained()
    kinds = ["recursive", "semantic-model", "semantic-words", "eval-bm25", "eval-dense", "eval-hybrid"]
    times: dict[str, list[float]] = {k: [] for k in kinds}
    firsts: dict[str, list[float]] = {k: [] for k in kinds}
    t0 = time.time()
    for _ in range(rounds):
        for kind in kinds:
            proc = subprocess.run(
                [sys.executable, "-c", WORKER, str(ROOT), str(text_path), kind, str(model), "2", str(questions_path)],
                capture_output=True,
                text=True,
            )
            if proc.returncode:
                print(f"{kind}: failed: {proc.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                continue
            got = json.loads(proc.stdout)
            times[kind] += got["cpu"]
            firsts[kind].append(got["first"])
    base = statistics.median(times["recursive"]) if times["recursive"] else float("nan")
    base_first = statistics.median(firsts["recursive"]) if firsts["recursive"] else float("nan")
    took = time.time() - t0
    print(f"semantic bench: {mb:g} MB of the Python docs, 64-dimension model, no numpy; {rounds} rounds; {took:.0f} s")
    print(f"{'workload':<34} {'first run s':>12} {'/ recursive':>12} {'again s':>8} {'/ recursive':>12}")
    labels = {
        "recursive": "recursive (default settings)",
        "semantic-model": "semantic, 64-dim model",
        "semantic-words": "semantic, words (no model)",
        "eval-bm25": "eval 40 questions, bm25",
        "eval-dense": "eval 40 questions, dense",
        "eval-hybrid": "eval 40 questions, hybrid",
    }
    for kind in kinds:
        if times[kind]:
            m, f = statistics.median(times[kind]), statistics.median(firsts[kind])
            print(f"{labels[kind]:<34} {f:>12.2f} {f / base_first:>11.2f}x {m:>8.2f} {m / base:>11.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
