"""Texts for the tests, all inside the repository or built from what set-up installs.

- `PRIMER`, four paragraphs of eleven sentences written for these tests;
- the playground's sample (app/sample.md) and this project's README;
- module sources of this interpreter's standard library, which are always there;
- the Python documentation and German, Dutch, Japanese and Chinese manual pages, through
  bench/corpus.py, from the Debian packages tests/run.py installs. Without them (a machine
  that never ran set-up) the tests still run on the rest, and say so.
"""

from __future__ import annotations

import functools
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PRIMER_SENTENCES = [
    "Vector search finds passages by meaning rather than by the words they share.",
    "Each passage is embedded as one vector, so whatever sits in a passage is averaged together.",
    "Passage length is a trade-off.",
    "Long passages keep an argument together but blur what the vector says about any one point.",
    "Short passages are sharp, yet a pronoun or a table header may lose what it refers to.",
    "Overlap copies a little text from the end of one passage to the start of the next.",
    "That way a fact which falls across a boundary is still whole on one side of it.",
    "The copies cost storage and embedding calls, which grow with every point of overlap.",
    "No single setting suits every collection.",
    "Manuals reward sections that follow their headings; chat logs are best cut at each turn.",
    "Measure retrieval on your own questions before trusting any of these rules.",
]
"""Eleven sentences for the rule tests: plain prose, no abbreviation, each ending with a full
stop and then a space or a paragraph break."""

_P = PRIMER_SENTENCES
PRIMER = "\n\n".join(" ".join(p) for p in (_P[0:2], _P[2:5], _P[5:8], _P[8:11]))
"""The eleven sentences in four paragraphs (2, 3, 3 and 3 sentences)."""


def sample_document() -> str:
    """The playground's sample document."""
    return (ROOT / "app" / "sample.md").read_text(encoding="utf-8")


@functools.cache
def debian_documents() -> tuple[tuple[str, str], ...]:
    """Real text from the Debian packages set-up installs, or () where they are missing."""
    sys.path.insert(0, str(ROOT))
    from bench import corpus

    docs: list[tuple[str, str]] = []
    try:
        md = corpus.python_docs_markdown()
    except FileNotFoundError:
        md = ""
    for i in range(3 if md else 0):
        start = md.find("\n# ", i * len(md) // 3)
        docs.append((f"python-docs-{i}.md", md[start : start + 30000]))
    for kind in ("german", "dutch", "cjk"):
        try:
            samples = corpus.samples(kind)
        except FileNotFoundError:
            samples = []
        if samples:
            docs.append((kind, "\n\n".join(samples[:6])[:20000]))
    return tuple(docs)


@functools.cache
def real_documents() -> tuple[tuple[str, str], ...]:
    """Documents written by people for people: sample, README, stdlib sources, Debian texts."""
    import argparse
    import textwrap

    docs = [("sample.md", sample_document()), ("README.md", (ROOT / "README.md").read_text(encoding="utf-8"))]
    for mod in (argparse, textwrap, inspect):
        docs.append((mod.__name__ + ".py", inspect.getsource(mod)[:40000]))
    docs.extend(debian_documents())
    return tuple(docs)
