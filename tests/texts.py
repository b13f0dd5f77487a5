"""Real documents for the tests, written by no one on this team.

- the five competitor pages in ../shared/seeds (English and Dutch), when that folder is there;
- the Python documentation, German/Dutch/CJK manual pages and stdlib code, through
  bench/corpus.py, when tests/run.py has installed their Debian packages;
- module sources of this interpreter's standard library, which are always there.
"""

from __future__ import annotations

import functools
import inspect
import sys
from pathlib import Path
from typing import List, Tuple

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"


def seed_document(name_prefix: str) -> str:
    path = next(SEEDS.glob(name_prefix + "*.txt"))
    return path.read_text(encoding="utf-8")


@functools.lru_cache(maxsize=None)
def real_documents() -> Tuple[Tuple[str, str], ...]:
    docs: List[Tuple[str, str]] = []
    if SEEDS.is_dir():
        for p in sorted(SEEDS.glob("*.txt")):
            docs.append((p.name, p.read_text(encoding="utf-8")))
    import argparse
    import textwrap

    for mod in (argparse, textwrap, inspect):
        docs.append((mod.__name__ + ".py", inspect.getsource(mod)[:40000]))
    try:
        sys.path.insert(0, str(ROOT))
        from bench import corpus

        md = corpus.python_docs_markdown()
        for i in range(3):
            start = md.find("\n# ", i * len(md) // 3)
            docs.append((f"python-docs-{i}.md", md[start:start + 30000]))
        for kind in ("german", "dutch", "cjk"):
            samples = corpus.samples(kind)
            if samples:
                docs.append((kind, "\n\n".join(samples[:6])[:20000]))
    except Exception:  # noqa: BLE001 - the Debian corpora are optional outside tests/run.py
        pass
    return tuple(docs)


# Seed 000's sample document, rebuilt from its text: four paragraphs, eleven sentences, 801
# characters. Its figures fix the paragraphing: by paragraph the seed reports 43 to 59 tokens,
# which only s1-2 / s3-5 / s6-8 / s9-11 gives.
SEED000_SENTENCES = [
    "Retrieval-augmented generation (RAG) grounds a language model in your own data.",
    "Before a model can retrieve a document, the document must be split into chunks and embedded.",
    "Chunk size is a balance.",
    "Large chunks preserve context but dilute relevance and burn context tokens at query time.",
    "Small chunks are precise but can lose the surrounding meaning a passage depends on.",
    "Overlap repeats a little text across chunk boundaries.",
    "Without it, a sentence split across two chunks may become unretrievable for either one.",
    "A typical starting point is a few hundred tokens per chunk with ten to twenty percent overlap.",
    "The right strategy depends on your content.",
    "Prose benefits from sentence or paragraph splitting; code or logs often suit fixed-size windows.",
    "Try a few here and watch how the chunks change.",
]
_S = SEED000_SENTENCES
SEED000 = "\n\n".join(" ".join(p) for p in (_S[0:2], _S[2:5], _S[5:8], _S[8:11]))
