"""cProfile of our chunker's workloads: where the time goes, for whoever optimises the core.

    python bench/run.py --profile [--sizes 1] [--top 15]

Runs inside .venv-bench (bench/run.py re-executes there first). Each profile is one run after a
warm-up, in a fresh process (bench/_worker.py, mode "profile"), so the tokenizer backend is the
one the environment picks. The full stats are saved as .cache/bench/profile-<name>.pstats (open
with ``python -m pstats``); the top functions by own time, and our functions by cumulative time,
are printed and written to .cache/bench/profile.md. cProfile slows Python-heavy code more than
compiled code: read the shares, not the absolute seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import run as bench  # noqa: E402  (bench/run.py: texts, tools, output folder)

PROFILES = [
    ("recursive-chars", bench.OURS_REC_CHARS),
    ("langchain-chars", bench.OURS_LC_CHARS),
    ("recursive-tokens-pure", bench.OURS_REC_PURE),
    ("recursive-tokens-tiktoken", bench.OURS_REC_TIK),
    ("sentence-tokens-tiktoken", bench.OURS_SENT_TIK),
    ("markdown-chars", bench._ours("ours markdown, chars", strategy="markdown", **bench.CHARS)),
    ("sentence-chars", bench._ours("ours sentence, chars", strategy="sentence", **bench.CHARS)),
    ("paragraph-chars", bench._ours("ours paragraph, chars", strategy="paragraph", **bench.CHARS)),
]


def _worker(tool, extra: dict, text: Path) -> dict:
    spec = {"tool": tool.tool, "args": tool.spec_args(), "text": str(text), **extra}
    env = dict(os.environ)
    env.pop("CHUNKER_TIKTOKEN", None)
    env.update(dict(tool.env))
    proc = subprocess.run(
        [sys.executable, str(BENCH / "_worker.py"), json.dumps(spec)],
        env=env,
        capture_output=True,
        text=True,
        cwd=str(bench.ROOT),
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    return json.loads(lines[-1][7:]) if lines else {"error": proc.stderr.strip()[-300:]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="cProfile our chunker's workloads.")
    p.add_argument("--sizes", default="1", help="text size in MB (the first of a list is used; default 1)")
    p.add_argument("--quick", action="store_true", help="0.2 MB and only the first three profiles")
    p.add_argument("--top", type=int, default=12, help="rows per table (default 12)")
    p.add_argument("--only", help="comma-separated profile names: " + ",".join(n for n, _ in PROFILES))
    args = p.parse_args(argv)
    mb = 0.2 if args.quick else float(args.sizes.split(",")[0])
    chosen = PROFILES[:3] if args.quick else PROFILES
    if args.only:
        chosen = [(n, t) for n, t in PROFILES if n in args.only.split(",")]
    text = bench.build_texts([mb])[mb]
    load = os.getloadavg()
    md = [f"## Profiles of our chunker ({bench._mb(mb)}, load {load[0]:.2f})", ""]

    # Stage timings first: no profiler overhead, so these are the real shares.
    stages = ["measure (encode once)", "split", "records (per-chunk fields)", "stats", "other", "total"]
    rows = []
    for name, tool in chosen:
        r = _worker(tool, {"mode": "phases", "repeats": 3}, text)
        if "error" in r:
            rows.append([name, "error: " + r["error"][:100]] + [""] * (len(stages) - 1))
            continue
        ph = r["phases"]
        total = ph.get("total") or 1.0
        rows.append(
            [name, r.get("backend") or "-"]
            + [f"{ph.get(k, 0.0):.3f} ({100 * ph.get(k, 0.0) / total:.0f}%)" if k != "total" else f"{total:.3f}" for k in stages]
        )
    hdr = ["workload", "backend"] + [f"{k} s" for k in stages]
    print(f"Stages of chunk(), seconds (share), median of 3, {bench._mb(mb)}:")
    print("\n".join(bench.text_table(hdr, rows)))
    print()
    md += ["### Stages of chunk() (median of 3, no profiler)", "", *bench.md_table(hdr, rows), ""]

    for name, tool in chosen:
        out = bench.OUT / f"profile-{name}.pstats"
        r = _worker(tool, {"mode": "profile", "out": str(out), "top": args.top}, text)
        if "error" in r:
            print(f"{name}: error {r['error']}")
            md += [f"### {name}: error", "", r["error"], ""]
            continue
        total = r["total_tt"] or 1.0
        title = (
            f"{name} ({tool.label}; backend {r.get('backend') or '-'}): {r['profiled_wall']:.3f} s "
            f"under cProfile, {r['chunks']} chunks"
        )
        tot_rows = [
            [x["func"], str(x["calls"]), f"{x['tottime']:.3f}", f"{100 * x['tottime'] / total:.0f}%", f"{x['cumtime']:.3f}"]
            for x in r["by_tottime"]
        ]
        cum_rows = [
            [x["func"], str(x["calls"]), f"{x['cumtime']:.3f}", f"{100 * x['cumtime'] / total:.0f}%"]
            for x in r["ours_by_cumtime"]
        ]
        print(title)
        print("  by own time:")
        print("\n".join("    " + ln for ln in bench.text_table(["function", "calls", "own s", "share", "cum s"], tot_rows)))
        print("  ours by cumulative time:")
        print("\n".join("    " + ln for ln in bench.text_table(["function", "calls", "cum s", "share"], cum_rows)))
        print()
        md += [
            f"### {title}",
            "",
            "By own time:",
            "",
            *bench.md_table(["function", "calls", "own s", "share", "cum s"], tot_rows),
            "",
            "Ours by cumulative time:",
            "",
            *bench.md_table(["function", "calls", "cum s", "share"], cum_rows),
            "",
        ]
    (bench.OUT / "profile.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    print(f"profiles: {bench.OUT.relative_to(bench.ROOT)}/profile-*.pstats and profile.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
