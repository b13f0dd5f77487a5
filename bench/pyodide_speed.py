"""The same work in CPython and in the page's Python (the vendored Pyodide, run under the pinned
Node.js with the app's own files, as the page's worker has them): a model's tokenizer.json on
1 MB of real text, and PDF pages read per second.

    .venv/bin/python bench/pyodide_speed.py [--mb 1]

Prints seconds in each and the ratio (target: the page at most 3x CPython). Node.js runs the
same V8 as Chromium, without the page's other work; bench/browser.py times the page itself.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import corpus  # noqa: E402
from tools import runtime  # noqa: E402

WORK = r"""
import json, os, time
import chunker
text = open(os.environ["BENCH_TEXT"], encoding="utf-8").read()
out = {}
for name in json.loads(os.environ["BENCH_TOKENIZERS"]):
    path = os.environ["BENCH_TOK_" + name]
    tok = chunker.load_tokenizer(open(path, encoding="utf-8").read(), name=name)
    t = time.perf_counter(); n = tok.count(text); out[name + " count"] = time.perf_counter() - t
    t = time.perf_counter(); offs = tok.offsets(text); out[name + " offsets"] = time.perf_counter() - t
    t = time.perf_counter()
    res = chunker.chunk(text, tokenizer=name, size=256, overlap=25)
    out[name + " chunk"] = time.perf_counter() - t
pdf = os.environ.get("BENCH_PDF")
try:
    import pypdf  # noqa: F401 - the page vendors it; without it, no PDF row
except ImportError:
    pdf = None
if pdf:
    data = open(pdf, "rb").read()
    t = time.perf_counter()
    doc = chunker.Document.from_bytes(data, name="bench.pdf")
    out["pdf pages"] = time.perf_counter() - t
    out["pdf page count"] = len(doc.pages)
print("RESULT " + json.dumps(out))
"""


def run_cpython(env: dict[str, str], script: Path) -> dict:
    done = subprocess.run(
        [sys.executable, str(script)],
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))[7:])


def run_pyodide(env: dict[str, str], script: Path, wheels: list[str]) -> dict:
    node = runtime.find_node(ROOT, quiet=True)
    vendor = ROOT / runtime.VENDOR
    done = subprocess.run(
        [
            node,
            str(ROOT / "bench" / "pyodide_speed.mjs"),
            str(vendor / "pyodide"),
            str(vendor / runtime.APP_ZIP),
            str(script),
            *wheels,
        ],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))[7:])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=float, default=1.0)
    p.add_argument("--pages", type=int, default=100)
    args = p.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    import hf_fixtures as F

    runtime.ensure_runtime(ROOT, quiet=True)
    runtime.build_app_zip(ROOT)
    text = corpus.sized(corpus.python_docs_markdown(), int(args.mb * 1_000_000))
    tokenizers = {"minilm (WordPiece)": str(F.minilm_path()), "bpe (byte-level)": str(F.claude_path())}
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        (tmp_path / "text.md").write_text(text, encoding="utf-8")
        from tests.documents import sentences_for, typeset

        sections = [(f"Part {i}", sentences_for(i, 40)) for i in range(1, args.pages + 1)]
        (tmp_path / "bench.pdf").write_bytes(typeset(sections).pdf)
        script = tmp_path / "work.py"
        script.write_text(WORK, encoding="utf-8")
        env = {
            "BENCH_TEXT": str(tmp_path / "text.md"),
            "BENCH_PDF": str(tmp_path / "bench.pdf"),
            "BENCH_TOKENIZERS": json.dumps(list(tokenizers)),
        }
        env.update({"BENCH_TOK_" + k: v for k, v in tokenizers.items()})
        wheels = [str(w) for w in (ROOT / runtime.VENDOR).glob("*.whl")]
        t0 = time.perf_counter()
        cpy = run_cpython(env, script)
        pyo = run_pyodide(env, script, wheels)
        elapsed = time.perf_counter() - t0
    print(
        f"{len(text) / 1e6:.2f} MB of the Python docs; a {int(cpy.get('pdf page count', 0))}-page PDF "
        f"(bench took {elapsed:.0f} s)"
    )
    print(f"{'work':32s} {'CPython':>9s} {'Pyodide':>9s} {'ratio':>6s}")
    for key, seconds in cpy.items():
        if key == "pdf page count" or key not in pyo:
            continue
        ratio = pyo[key] / seconds if seconds else float("nan")
        rate = (
            f"  {len(text) / 1e6 / seconds:.2f} / {len(text) / 1e6 / pyo[key]:.2f} MB/s"
            if "pdf" not in key
            else f"  {cpy['pdf page count'] / seconds:.0f} / {cpy['pdf page count'] / pyo[key]:.0f} pages/s"
        )
        print(f"{key:32s} {seconds:9.2f} {pyo[key]:9.2f} {ratio:5.1f}x{rate}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
