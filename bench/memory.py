"""Memory per chunk, beyond the text: what a result costs as its chunks grow in number.

    python bench/memory.py                     # 1 MB of the Python docs, every setting below
    python bench/memory.py --mb 5 --only chars1
    python bench/memory.py --text FILE --tracemalloc

Each figure is a peak beyond the text, less the same peak for settings that make one chunk of
the same file in the same unit and tokenizer (which read and measure the text alike), divided
by the chunks; each run is a fresh process:

- **call**: the peak resident memory of ``Document.run(settings)`` plus writing its JSON Lines
  to /dev/null (as the CLI streams them), minus the resident memory just before, with the text
  read and the document made (the kernel's peak mark is reset through /proc/self/clear_refs);
- **cli**: the peak resident memory of ``python -m chunker FILE ... > /dev/null`` (ru_maxrss of
  the child);
- **tracemalloc** (``--tracemalloc``, slow: several times the run): the peak of Python's own
  allocations during the call.

The target is 250 bytes a chunk at
``--unit chars --size 1 --overlap 0`` on 1 MB and on a realistic setting. Printed, never
asserted (the tests hold no timing or memory thresholds).
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

ONE_CHUNK = ["--strategy", "fixed", "--unit", "chars", "--size", "1000000000", "--overlap", "0"]


def _status(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return -1


def _settings(argv: list[str]):
    from chunker._cli import _parser, settings_from

    return settings_from(_parser().parse_args(argv))


def worker(path: str, argv: list[str], trace: bool) -> dict:
    """In this process: the call's peak beyond the document (see the module's docstring)."""
    sys.path.insert(0, str(ROOT))
    import chunker
    from chunker._export import jsonl_pieces

    settings = _settings(argv)
    text = Path(path).read_text(encoding="utf-8")
    chunker.chunk(text[:20000], **{k: v for k, v in settings.to_dict().items() if k != "model_max"})  # imports
    doc = chunker.Document(text)
    doc._keep = False  # as chunk() and the CLI: the measure goes once the chunks are counted
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
        if trace:
            _, peak = tracemalloc.get_traced_memory()
            extra = peak
        else:
            extra = _status("VmHWM") - before
    return {"chunks": len(res.chunks), "extra": extra, "seconds": seconds}


def _run_worker(path: Path, argv: list[str], trace: bool) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--worker", str(path), json.dumps(argv)]
                          + (["--tracemalloc"] if trace else []), capture_output=True, text=True, cwd=ROOT)
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.splitlines()[-1])


def _cli_peak(path: Path, argv: list[str]) -> tuple[int, float, int]:
    """ru_maxrss of `python -m chunker FILE argv > /dev/null`, its seconds and exit status."""
    code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
            "r = subprocess.run([sys.executable, '-m', 'chunker', *sys.argv[1:]], stdout=subprocess.DEVNULL, "
            "stderr=subprocess.PIPE); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, time.perf_counter() - t, r.returncode)")
    out = subprocess.run([sys.executable, "-c", code, str(path), *argv], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.split()
    return int(out[0]), float(out[1]), int(out[2])


def one_chunk(argv: list[str]) -> list[str]:
    """Settings that make one chunk of any file, in the same unit and tokenizer as `argv`: their
    run reads the text and measures it as `argv`'s does, and makes no chunks to speak of."""
    out = list(ONE_CHUNK)
    for flag in ("--unit", "--tokenizer"):
        if flag not in argv:
            continue
        value = argv[argv.index(flag) + 1]
        if flag in out:
            out[out.index(flag) + 1] = value
        else:
            out += [flag, value]
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        print(json.dumps(worker(argv[1], json.loads(argv[2]), "--tracemalloc" in argv)))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=float, default=1.0, help="size of the Python docs text in MB (default 1)")
    p.add_argument("--text", help="measure this UTF-8 file instead")
    p.add_argument("--only", help=f"comma-separated settings: {', '.join(SETTINGS)}")
    p.add_argument("--tracemalloc", action="store_true", help="also tracemalloc's peak (slow)")
    p.add_argument("--no-cli", action="store_true", help="skip the whole-CLI figure")
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
    size = path.stat().st_size
    names = args.only.split(",") if args.only else list(SETTINGS)
    print(f"text: {path} ({size:,} bytes). Peaks in MB; B/chunk = (peak - the peak of a one-chunk run in "
          "the same unit and tokenizer) / chunks: what the chunks cost beyond reading and measuring the text.")
    header = f"{'setting':20s} {'chunks':>9s} {'call MB':>8s} {'call B/chunk':>13s} {'call s':>7s}"
    header += "" if args.no_cli else f" {'cli MB':>7s} {'cli B/chunk':>12s} {'cli s':>6s}"
    header += f" {'traced MB':>10s} {'traced B/chunk':>15s}" if args.tracemalloc else ""
    print(header)
    bases: dict[tuple[str, ...], tuple[dict, tuple[int, float, int] | None, dict | None]] = {}
    for name in names:
        key = tuple(one_chunk(SETTINGS[name]))
        if key not in bases:
            bases[key] = (_run_worker(path, list(key), False),
                          None if args.no_cli else _cli_peak(path, list(key)),
                          _run_worker(path, list(key), True) if args.tracemalloc else None)
        base_call, base_cli, base_trace = bases[key]
        r = _run_worker(path, SETTINGS[name], False)
        if "error" in r or "error" in base_call:
            print(f"{name:20s} error: {r.get('error') or base_call.get('error')}")
            continue
        n = max(1, r["chunks"] - 1)
        line = (f"{name:20s} {r['chunks']:9,d} {r['extra'] / MB:8.1f} {(r['extra'] - base_call['extra']) / n:13,.0f}"
                f" {r['seconds']:7.2f}")
        if base_cli is not None:
            peak, seconds, code = _cli_peak(path, SETTINGS[name])
            line += f" {peak / MB:7.1f} {(peak - base_cli[0]) / n:12,.0f} {seconds:6.2f}" + (
                "" if code == 0 else f" exit {code}")
        if base_trace is not None:
            t = _run_worker(path, SETTINGS[name], True)
            line += (f" {t['extra'] / MB:10.1f} {(t['extra'] - base_trace['extra']) / n:15,.0f}" if "extra" in t
                     else f" error: {t['error']}")
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
