"""Speed of chunker.tokens._hf (pure Python) beside Hugging Face's Rust `tokenizers`, same text.

    python bench/hf_tokenizer.py [--sizes 1,8] [--repeat 3] [--pyodide [DIR]] [family ...]

Families come from tests/hf_fixtures.py (trained on the machine, or real files from pinned
packages). Text: the Python docs as Markdown (bench/corpus.py), cut to 1 and 8 MB, plus 1 MB
of German, Dutch and CJK man pages ("multi"). Each timing uses a fresh tokenizer, so its
caches start empty (the cold cost): `count` and `offsets` (what the chunker calls once per
document) each on its own tokenizer; HF's `encode` gives ids and offsets in one call. Each
time is the process's CPU time (on a shared machine wall time counts the neighbours too),
the best of --repeat runs. MB/s counts 10^6 UTF-8 bytes.
"load" is load_tokenizer's time on a fresh process's first load. On the 1 MB texts the ids
must equal HF's and the offsets HF's token starts ("same"). t(8MB)/t(1MB) is 8 when linear:
the sizes are timed alternately, round after round, and the median of the rounds' ratios is
printed, HF's beside it (on a busy machine larger working sets slow down everyone's). As the
larger text is not the smaller one repeated, it is also timed in parts of the smaller size,
fed in turn to one tokenizer: whole / parts is 1 when the cost grows linearly with length.
Nothing is asserted.

--pyodide runs the same count/offsets timings in Pyodide under Node (the WebAssembly CPython
the playground's worker runs, in the same V8 as Chromium) from DIR (default: the vendored
static/vendor/pyodide), and prints them beside CPython's, taken in the same run.
The header prints the load average: on a shared machine, compare ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import hf_fixtures as F  # noqa: E402 - found through the path set above

from bench import corpus  # noqa: E402
from chunker.tokens._hf import load_tokenizer  # noqa: E402

OUT = ROOT / ".cache" / "bench" / "hf"


def _mb(text: str) -> float:
    return len(text.encode("utf-8")) / 1e6


REPEAT = 3


# CPU time of this process: on a shared machine, wall time counts the neighbours' work too.
_clock = time.process_time


def _once(fn, text: str) -> float:
    t = _clock()
    fn(text)
    return _clock() - t


def _time(make, text: str) -> float:
    """Best of REPEAT runs of make()(text), make() outside the clock."""
    best = float("inf")
    for _ in range(REPEAT):
        fn = make()
        t = _clock()
        fn(text)
        best = min(best, _clock() - t)
    return best


def _texts(sizes: list[int]) -> dict[str, str]:
    docs = corpus.python_docs_markdown()
    texts = {f"docs {s}MB": corpus.sized(docs, s * 1_000_000) for s in sizes}
    multi = "\n\n".join(p for k in ("german", "dutch", "cjk") for p in F.passages()[k])
    texts["multi 1MB"] = corpus.sized(multi, 1_000_000)
    return texts


def _slices(text: str, n: int) -> list[str]:
    """`text` in `n` parts of about equal size, cut where a blank line starts."""
    out, start = [], 0
    for k in range(1, n):
        cut = text.find("\n\n", max(start, k * len(text) // n))
        cut = len(text) if cut == -1 else cut
        out.append(text[start:cut])
        start = cut
    out.append(text[start:])
    return out


def _in_turn(fn, parts: list[str]) -> float:
    t = _clock()
    for part in parts:
        fn(part)
    return _clock() - t


def _ours(js: str, text: str) -> tuple[float, float]:
    return _time(lambda: load_tokenizer(js).count, text), _time(lambda: load_tokenizer(js).offsets, text)


def _first_load(js: str) -> float:
    """load_tokenizer's time in a fresh process (no regex or class cached yet)."""
    path = OUT / "load.json"
    OUT.mkdir(parents=True, exist_ok=True)
    path.write_text(js, encoding="utf-8")
    code = (
        "import sys, time; sys.path.insert(0, sys.argv[1]); from chunker.tokens._hf import load_tokenizer; "
        "t = time.process_time(); load_tokenizer(sys.argv[2]); print(time.process_time() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(ROOT), str(path)], capture_output=True, text=True, check=True)
    return float(out.stdout)


def _same(js: str, ref, text: str) -> bool:
    enc = ref.encode(text)
    tok = load_tokenizer(js)
    return tok.encode(text) == enc.ids and list(tok.offsets(text)) == F.starts(enc)


_PYODIDE_RUNNER = """
import { loadPyodide } from %(mjs)s;
const py = await loadPyodide({ indexURL: %(index)s });
py.FS.mkdirTree("/repo"); py.FS.mkdirTree("/data");
py.FS.mount(py.FS.filesystems.NODEFS, { root: %(root)s }, "/repo");
py.FS.mount(py.FS.filesystems.NODEFS, { root: %(data)s }, "/data");
await py.runPythonAsync(`
import json, sys, time
sys.path.insert(0, "/repo")
from chunker.tokens._hf import load_tokenizer
jobs = json.load(open("/data/jobs.json"))
out = []
for family, label, repeat in jobs:
    js = open(f"/data/{family}.json", encoding="utf-8").read()
    text = open(f"/data/{label}.txt", encoding="utf-8").read()
    row = []
    for what in ("count", "offsets"):
        best = 1e9
        for _ in range(repeat):
            fn = getattr(load_tokenizer(js), what)
            t = time.perf_counter()
            fn(text)
            best = min(best, time.perf_counter() - t)
        row.append(best)
    out.append(row)
json.dump(out, open("/data/result.json", "w"))
`);
"""


def _pyodide(pyodide_dir: Path, jobs: list[tuple[str, str]], texts: dict[str, str]) -> list[list[float]]:
    """(count s, offsets s) per job, timed inside Pyodide under Node."""
    node = shutil.which("node")
    if node is None or not (pyodide_dir / "pyodide.mjs").is_file():
        raise SystemExit(f"--pyodide needs node and {pyodide_dir}/pyodide.mjs (run the set-up, or pass DIR)")
    data = OUT / "pyodide"
    data.mkdir(parents=True, exist_ok=True)
    for family in {f for f, _ in jobs}:
        (data / f"{family}.json").write_text(F.FAMILIES[family](), encoding="utf-8")
    for label, text in texts.items():
        (data / f"{label}.txt").write_text(text, encoding="utf-8")
    (data / "jobs.json").write_text(json.dumps([[f, label, REPEAT] for f, label in jobs]))
    runner = data / "run.mjs"
    runner.write_text(
        _PYODIDE_RUNNER
        % {
            "mjs": json.dumps((pyodide_dir / "pyodide.mjs").as_uri()),
            "index": json.dumps(str(pyodide_dir) + "/"),
            "root": json.dumps(str(ROOT)),
            "data": json.dumps(str(data)),
        }
    )
    subprocess.run([node, str(runner)], check=True)
    return json.loads((data / "result.json").read_text())


def main() -> None:
    global REPEAT
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,8")
    ap.add_argument("--repeat", type=int, default=REPEAT)
    ap.add_argument("--pyodide", nargs="?", const=str(ROOT / "static" / "vendor" / "pyodide"), default=None)
    ap.add_argument("families", nargs="*")
    args = ap.parse_args()
    REPEAT = args.repeat
    sizes = [int(s) for s in args.sizes.split(",")]
    families = args.families or list(F.FAMILIES)
    texts = _texts(sizes)
    print(
        f"python {sys.version.split()[0]}, tokenizers {F.hf().__version__}, load average "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    if args.pyodide:
        _compare_pyodide(Path(args.pyodide), families, texts)
        return
    print(f"{'family':30} {'load s':>6} {'text':10} {'count MB/s':>10} {'offsets MB/s':>12} {'HF MB/s':>8} {'same':>5}")
    lo, hi = f"docs {min(sizes)}MB", f"docs {max(sizes)}MB"
    for name in families:
        js = F.FAMILIES[name]()
        ref = F.reference(js)
        load = _first_load(js)
        # Sizes alternate within each round, so a neighbour's burst of work does not land on
        # one size only; a ratio is taken per round and the median reported.
        runs: dict[tuple[str, str], list[float]] = {}
        parts = _slices(texts[hi], max(sizes) // min(sizes)) if len(sizes) > 1 else []
        for _ in range(REPEAT):
            for label, text in texts.items():
                for what in ("count", "offsets"):
                    runs.setdefault((label, what), []).append(_once(getattr(load_tokenizer(js), what), text))
                runs.setdefault((label, "hf"), []).append(_once(ref.encode, text))
            for what in ("count", "offsets"):  # the large text's own parts, one tokenizer, in turn
                runs.setdefault(("parts", what), []).append(_in_turn(getattr(load_tokenizer(js), what), parts))
            runs.setdefault(("parts", "hf"), []).append(_in_turn(ref.encode, parts))
        for label, text in texts.items():
            same = _same(js, ref, text) if label != hi or len(sizes) == 1 else "-"
            mb = _mb(text)
            c, o, h = (min(runs[label, w]) for w in ("count", "offsets", "hf"))
            print(f"{name:30} {load:6.2f} {label:10} {mb / c:10.2f} {mb / o:12.2f} {mb / h:8.2f} {same!s:>5}", flush=True)
        if len(sizes) > 1:
            ratio = {w: statistics.median(b / a for a, b in zip(runs[lo, w], runs[hi, w])) for w in ("count", "offsets", "hf")}
            print(
                f"{name:30} t({max(sizes)}MB)/t({min(sizes)}MB): count {ratio['count']:.1f}, "
                f"offsets {ratio['offsets']:.1f} (HF {ratio['hf']:.1f})"
            )
            # The first MB is not the other seven (the docs' later parts hold more distinct
            # words): the same text in parts of that size, fed in turn, isolates the length.
            whole = {
                w: statistics.median(b / a for a, b in zip(runs["parts", w], runs[hi, w])) for w in ("count", "offsets", "hf")
            }
            print(
                f"{name:30} t({max(sizes)}MB whole)/t(its {len(parts)} parts in turn): count "
                f"{whole['count']:.2f}, offsets {whole['offsets']:.2f} (HF {whole['hf']:.2f}); 1 = linear"
            )


def _compare_pyodide(pyodide_dir: Path, families: list[str], texts: dict[str, str]) -> None:
    global _clock
    _clock = time.perf_counter
    jobs = [(f, label) for f in families for label in texts]
    cpython = [_ours(F.FAMILIES[f](), texts[label]) for f, label in jobs]
    browser = _pyodide(pyodide_dir, jobs, texts)
    print(f"{'family':30} {'text':10} {'CPython count/offsets MB/s':>27} {'Pyodide count/offsets MB/s':>27} {'ratio':>9}")
    for (f, label), (cc, co), (pc, po) in zip(jobs, cpython, browser):
        mb = _mb(texts[label])
        print(f"{f:30} {label:10} {mb / cc:13.2f} {mb / co:13.2f} {mb / pc:13.2f} {mb / po:13.2f} {pc / cc:4.1f} {po / co:4.1f}")


if __name__ == "__main__":
    main()
