"""Memory per chunk, beyond the text: what a result costs as its chunks grow in number.

    python bench/memory.py                     # 1 MB of the Python docs, every setting below
    python bench/memory.py --mb 5 --only chars1
    python bench/memory.py --text FILE --all-traced

Every figure comes from a fresh process, with the text read, the `Document` made and its token
measure built and kept (the exact tokenizer's encoding of the whole text, the estimate's
running sums: what any chunking of the text costs, whatever the settings), as the page keeps
them between runs, and the same settings run once already (what a first run builds lazily for
the text, such as the estimate's index, stays built); then the measured run:

- **rss**: the peak resident memory of ``Document.run(settings)`` plus writing its JSON Lines
  to /dev/null (as the CLI streams them), minus the resident memory just before (the kernel's
  peak mark is reset through /proc/self/clear_refs). Noisy by a megabyte or two: it means
  something where chunks are counted in hundreds of thousands;
- **traced**: tracemalloc's peak of Python's own allocations during the same call, from the
  same start (several times slower: by default only for the settings that make fewer chunks).

B/chunk is that extra peak divided by the chunks: what a chunk costs beyond the text and its
measure, everything the call makes on the way included (pieces, packing, counts, flags,
records written one at a time).
The target is 250 bytes a chunk at ``--unit chars --size 1 --overlap 0`` on 1 MB and on a
realistic setting. Printed, never asserted (the tests hold no timing or memory thresholds).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1_000_000

SETTINGS: dict[str, list[str]] = {
    "chars1": ["--unit", "chars", "--size", "1", "--overlap", "0"],
    "fixed-chars1": ["--strategy", "fixed", "--unit", "chars", "--size", "1", "--overlap", "0"],
    "words1": ["--unit", "words", "--size", "1", "--overlap", "0"],
    "sentence0": ["--strategy", "sentence", "--size", "0"],
    "recursive-200": ["--size", "200", "--overlap", "20"],
    "sentence-cl100k-64": ["--strategy", "sentence", "--tokenizer", "cl100k", "--size", "64", "--overlap", "8"],
    "fixed-cl100k-16": ["--strategy", "fixed", "--tokenizer", "cl100k", "--size", "16", "--overlap", "4"],
    "markdown-chars-300": ["--strategy", "markdown", "--unit", "chars", "--size", "300", "--overlap", "30"],
}
"""Settings measured: the first three make about a chunk per character or word, the rest are
what a pipeline uses."""

BIG = {"chars1", "fixed-chars1", "words1"}
"""Settings traced only with --all-traced (minutes each under tracemalloc)."""


def _status(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return -1


def _settings(argv: list[str]):
    from chunker.cli._main import _parser, settings_from

    return settings_from(_parser().parse_args(argv))


def worker(path: str, argv: list[str], trace: bool) -> dict:
    """In this process: the call's peak beyond the document and its measure."""
    sys.path.insert(0, str(ROOT))
    import chunker
    from chunker.results._export import jsonl_pieces
    from chunker.tokens._tokenizers import get_tokenizer

    settings = _settings(argv)
    text = Path(path).read_text(encoding="utf-8")
    chunker.chunk(text[:20000], **{k: v for k, v in settings.to_dict().items() if k != "model_max"})  # imports
    doc = chunker.Document(text)
    doc._token_measure(get_tokenizer(settings.tokenizer))  # kept, as the page keeps it
    doc.run(settings)  # once before: what the first run builds lazily for the text stays built
    with open(os.devnull, "w", encoding="utf-8") as sink:
        if trace:
            import tracemalloc

            tracemalloc.start()
        else:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
        before = _status("VmRSS")
        t0 = time.perf_counter()
        res = doc.run(settings)
        for piece in jsonl_pieces(res):
            sink.write(piece)
        seconds = time.perf_counter() - t0
        extra = tracemalloc.get_traced_memory()[1] if trace else _status("VmHWM") - before
    return {"chunks": len(res.chunks), "extra": extra, "seconds": seconds}


def _run_worker(path: Path, argv: list[str], trace: bool) -> dict:
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", str(path), json.dumps(argv)] + (["--traced"] if trace else []),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        print(json.dumps(worker(argv[1], json.loads(argv[2]), "--traced" in argv)))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=float, default=1.0, help="size of the Python docs text in MB (default 1)")
    p.add_argument("--text", help="measure this UTF-8 file instead")
    p.add_argument("--only", help=f"comma-separated settings: {', '.join(SETTINGS)}")
    p.add_argument("--all-traced", action="store_true", help=f"trace {', '.join(sorted(BIG))} too (slow)")
    args = p.parse_args(argv)
    if args.text:
        path = Path(args.text)
    else:
        sys.path.insert(0, str(ROOT))
        from bench import corpus

        path = ROOT / ".cache" / "bench" / f"memory-{args.mb:g}mb.md"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(corpus.sized(corpus.python_docs_markdown(), int(args.mb * MB)), encoding="utf-8")
    names = args.only.split(",") if args.only else list(SETTINGS)
    print(f"text: {path} ({path.stat().st_size:,} bytes); extra peak in MB beyond the text and its measure, and that per chunk")
    print(f"{'setting':20s} {'chunks':>9s} {'seconds':>8s} | {'rss MB':>7s} {'B/chunk':>8s} | {'traced MB':>9s} {'B/chunk':>8s}")
    for name in names:
        cells = []
        r = _run_worker(path, SETTINGS[name], False)
        if "error" in r:
            print(f"{name:20s} error: {r['error']}")
            continue
        head = f"{name:20s} {r['chunks']:9,d} {r['seconds']:8.2f} | "
        cells.append(f"{r['extra'] / MB:7.1f} {r['extra'] / max(1, r['chunks']):8,.0f}")
        if name not in BIG or args.all_traced:
            t = _run_worker(path, SETTINGS[name], True)
            cells.append(
                f"{t['extra'] / MB:9.1f} {t['extra'] / max(1, t['chunks']):8,.0f}" if "extra" in t else f"error: {t['error']}"
            )
        print(head + " | ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
