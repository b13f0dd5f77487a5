"""The markdown strategy's block scanner next to a CommonMark parser (markdown-it-py): speed, and
whether the two find the same headings (docs/markdown.md holds the numbers and the choice).

    python bench/markdown_parse.py                  # Python docs (10 MB) and real READMEs
    python bench/markdown_parse.py --mb 1 --show 5  # 1 MB of the docs; 5 disagreements shown

markdown-it-py is not a dependency: install it where this runs (``pip install
markdown-it-py==4.3.0``), or point ``--path`` at a folder holding it (``pip install --target``).
The READMEs are the Markdown long descriptions of the packages installed in this interpreter
(their METADATA), plus this repository's own Markdown files. Times are the best of
``--repeats`` runs, in CPU seconds. Headings are compared as (level, title) in document order:
CommonMark's ATX and setext headings; the scanner's ALL-CAPS headings (not CommonMark) are
counted apart.
"""

from __future__ import annotations

import argparse
import difflib
import email.parser
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chunker.strategies.markdown import blocks  # noqa: E402


def readmes() -> list[tuple[str, str]]:
    """Markdown long descriptions of the installed packages, and this repository's .md files."""
    out = []
    for dist in metadata.distributions():
        raw = dist.read_text("METADATA")
        if not raw or "text/markdown" not in raw:
            continue
        msg = email.parser.Parser().parsestr(raw)
        body = msg.get_payload()
        if isinstance(body, str) and len(body) > 500:
            out.append((f"{msg['Name']} {msg['Version']}", body))
    for path in sorted(ROOT.glob("*.md")) + sorted((ROOT / "docs").glob("*.md")) + [ROOT / "app" / "sample.md"]:
        out.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    return sorted(out)


def parser():
    from markdown_it import MarkdownIt  # optional

    md = MarkdownIt("commonmark")
    md.disable("inline")  # blocks and their line ranges are all the strategy needs
    return md


def it_headings(md, text: str) -> list[tuple[int, str]]:
    tokens = md.parse(text)
    out = []
    for k, t in enumerate(tokens):
        if t.type == "heading_open":
            out.append((int(t.tag[1]), " ".join(tokens[k + 1].content.split())))
    return out


def our_headings(text: str) -> tuple[list[tuple[int, str]], int]:
    """(ATX and setext headings, ALL-CAPS headings counted)."""
    found, caps = [], 0
    for b in blocks(text):
        if b.kind != "heading":
            continue
        line = text[b.start : b.end]
        if line.lstrip("\ufeff").startswith("#") or "\n" in line:
            found.append((b.level, " ".join(b.title.split())))
        else:
            caps += 1
    return found, caps


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=float, default=0, help="cut the Python docs to this many MB (default: all of it)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--show", type=int, default=3, help="disagreements to print per text kind")
    p.add_argument("--path", help="a folder to import markdown-it-py from")
    args = p.parse_args(argv)
    if args.path:
        sys.path.insert(0, args.path)
    import markdown_it

    from bench import corpus

    docs = corpus.python_docs_markdown()
    if args.mb:
        docs = corpus.sized(docs, int(args.mb * 1_000_000))
    md = parser()
    print(f"markdown-it-py {markdown_it.__version__} (CommonMark preset, inline rules off); Python {sys.version.split()[0]}")
    print(f"Python docs: {len(docs.encode()):,} bytes")
    ours = best(lambda: blocks(docs), args.repeats)
    theirs = best(lambda: md.parse(docs), args.repeats)
    print(
        f"  scanner {ours:.2f} s ({len(docs.encode()) / 1e6 / ours:.1f} MB/s), markdown-it-py {theirs:.2f} s "
        f"({len(docs.encode()) / 1e6 / theirs:.1f} MB/s): {theirs / ours:.1f}x"
    )
    report("Python docs", [("docs", docs)], md, args.show)
    texts = readmes()
    total = sum(len(t.encode()) for _, t in texts)
    ours = best(lambda: [blocks(t) for _, t in texts], args.repeats)
    theirs = best(lambda: [md.parse(t) for _, t in texts], args.repeats)
    print(f"READMEs: {len(texts)} files, {total:,} bytes")
    print(f"  scanner {ours:.3f} s, markdown-it-py {theirs:.3f} s: {theirs / ours:.1f}x")
    report("READMEs", texts, md, args.show)
    return 0


def report(kind: str, texts: list[tuple[str, str]], md, show: int) -> None:
    same = files = ours_n = theirs_n = caps_n = 0
    shown = 0
    for name, text in texts:
        ours, caps = our_headings(text)
        theirs = it_headings(md, text)
        ours_n += len(ours)
        theirs_n += len(theirs)
        caps_n += caps
        files += ours == theirs
        sm = difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False)
        same += sum(b.size for b in sm.get_matching_blocks())
        if ours != theirs and shown < show:
            for op, a0, a1, b0, b1 in sm.get_opcodes():
                if op != "equal" and shown < show:
                    print(f"    {name}: scanner {ours[a0:a1][:3]} | markdown-it {theirs[b0:b1][:3]}")
                    shown += 1
    print(
        f"  headings: scanner {ours_n:,} (and {caps_n:,} ALL-CAPS), markdown-it-py {theirs_n:,}; "
        f"{same:,} in common, in order; {files} of {len(texts)} files agree on every heading"
    )


if __name__ == "__main__":
    raise SystemExit(main())
