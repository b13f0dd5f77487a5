"""Speed of chunker._hf (pure Python) beside Hugging Face's Rust `tokenizers`, same text.

    python bench/hf_tokenizer.py [--sizes 1,8] [family ...]

Families come from tests/hf_fixtures.py (trained on the machine, or real files from pinned
packages). Text: the Python docs as Markdown (bench/corpus.py), cut to 1 and 8 MB, plus 1 MB
of German, Dutch and CJK man pages ("multi"). Each timing uses a fresh tokenizer, so its
word cache starts empty (the cold cost). MB/s counts 10^6 UTF-8 bytes. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import hf_fixtures as F  # noqa: E402

from bench import corpus  # noqa: E402
from chunker._hf import load_tokenizer  # noqa: E402

DEFAULT = ["wordpiece-lower", "real-minilm", "bytelevel-bpe", "real-claude-bpe",
           "unigram-metaspace", "unigram-precompiled", "byte-fallback-bpe-metaspace"]


def _mb(text: str) -> float:
    return len(text.encode("utf-8")) / 1e6


def _time(fn, text: str) -> float:
    t = time.perf_counter()
    fn(text)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,8")
    ap.add_argument("families", nargs="*")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    docs = corpus.python_docs_markdown()
    texts = {f"docs {s}MB": corpus.sized(docs, s * 1_000_000) for s in sizes}
    multi = "\n\n".join(p for k in ("german", "dutch", "cjk") for p in F.passages()[k])
    texts["multi 1MB"] = corpus.sized(multi, 1_000_000)
    print(f"python {sys.version.split()[0]}, tokenizers {F.hf().__version__}")
    print(f"{'family':30} {'text':10} {'ours MB/s':>10} {'offsets MB/s':>12} {'HF MB/s':>9} {'ids equal':>9}")
    for name in args.families or DEFAULT:
        js = F.FAMILIES[name]()
        ref = F.reference(js)
        times = {}
        for label, text in texts.items():
            ours = load_tokenizer(js)
            t_count = _time(ours.count, text)
            t_offs = _time(load_tokenizer(js).offsets, text)
            t_hf = _time(ref.encode, text)
            same = ours.encode(text) == ref.encode(text).ids if label != f"docs {max(sizes)}MB" or len(sizes) == 1 else "-"
            mb = _mb(text)
            times[label] = t_count
            print(f"{name:30} {label:10} {mb / t_count:10.2f} {mb / t_offs:12.2f} {mb / t_hf:9.2f} {same!s:>9}")
        if len(sizes) > 1:
            lo, hi = f"docs {min(sizes)}MB", f"docs {max(sizes)}MB"
            print(f"{name:30} scaling t({max(sizes)}MB)/t({min(sizes)}MB) = {times[hi] / times[lo]:.1f}")


if __name__ == "__main__":
    main()
