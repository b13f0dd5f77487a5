"""`python -m chunker DIR -r --jobs 1` against `--jobs 2`, end to end, on 200 pages of real text.

    python bench/jobs.py                       # 200 pages, o200k and the default tokenizer, 5 rounds
    python bench/jobs.py --rounds 9 --jobs 1 2 4 --tokenizers o200k

The documents are pages of the Python 3.11 documentation from Debian's python3.11-doc, converted
to Markdown by bench/corpus.py (cached under .cache/, never committed), spread evenly over the
whole set (the same 200 as bench/ray_bench.py), written as files to a temporary folder. Every
run is a fresh `python -m chunker` process timed from start to exit, so interpreter start-up,
imports and loading the tokenizer count; its output goes to a file, and every run's output
must be byte-identical to the first one's (else the bench stops). 1 MB = 10^6 bytes of input.

The machine is shared: the job counts are timed in turn within each round, and medians over
the rounds are printed, with the CPU time the runs used (user + system of the child processes)
and the load average. Three figures put the speed-up in context:
- fixed: the same command with --jobs 2 on two empty files: start-up, imports, the tokenizer
  with its tables (built before forking) and the forks, the part no number of workers
  shortens; "bound" is the speed-up Amdahl's law leaves for N workers,
  (t1) / (fixed + (t1 - fixed) / N);
- machine: a pure-Python loop run twice in one process against once in each of two processes,
  timed in the same rounds: what two processes can gain on this machine at that moment;
- idle cores: the speed-up the CPU times predict on cores with nothing else to do, the fixed
  CPU paid once and the rest shared: cpu(1) / (fixed cpu + (cpu(N) - fixed cpu) / N). A model,
  not a measurement: it leaves out waiting (on the disk, on each other).
Nothing here asserts a speed; the target (--jobs 2 at least 1.7 times --jobs 1) prints
PASS/FAIL next to the numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))

TARGET = 1.7


def run_cli(folder: Path, out: Path, tokenizer: str, jobs: int, extra: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds of the process and its workers, sha256 of the output."""
    cmd = [sys.executable, "-m", "chunker", str(folder), "--recursive", "--tokenizer", tokenizer, "--jobs", str(jobs), *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(out, "wb") as f:
        done = subprocess.run(cmd, cwd=str(ROOT), stdout=f, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"jobs bench: {' '.join(cmd)} failed: {done.stderr.decode(errors='replace').strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, hashlib.sha256(out.read_bytes()).hexdigest()


_BURN = "import sys\nn = int(sys.argv[1])\ns = 0\nfor i in range(n):\n    s += i\n"


def machine_speedup(n: int = 6_000_000) -> float:
    """Two loops of n in one process, over one loop in each of two processes at once."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _BURN, str(2 * n)], check=True)
    one = time.perf_counter() - start
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", _BURN, str(n)]) for _ in range(2)]
    for p in procs:
        p.wait()
    two = time.perf_counter() - start
    return one / two


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--docs", type=int, default=200)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="job counts to time (default 1 2)")
    p.add_argument(
        "--tokenizers", nargs="+", default=["o200k", "estimate"], help="default: o200k (exact) and estimate (the CLI's default)"
    )
    p.add_argument("--format", default="jsonl")
    args = p.parse_args()
    from bench.ray_bench import documents

    docs = documents(args.docs)
    mb = sum(len(t.encode("utf-8")) for _, t in docs) / 1e6
    cpus = os.cpu_count()
    print(
        f"{len(docs)} documents (Python 3.11 docs pages), {mb:.2f} MB; recursive 500/50 tokens, --format "
        f"{args.format}; {args.rounds} rounds, medians"
    )
    print(f"machine: {cpus} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; Python {sys.version.split()[0]}")
    extra = ["--format", args.format]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        for i, (_, text) in enumerate(docs):
            (folder / f"doc{i:03d}.md").write_text(text, encoding="utf-8", newline="")
        empty = Path(tmp) / "empty"
        empty.mkdir()
        for name in ("a.md", "b.md"):
            (empty / name).write_text("", encoding="utf-8")
        out = Path(tmp) / "out"
        machine: list[float] = []
        for tok in args.tokenizers:
            walls: dict[int, list[float]] = {j: [] for j in args.jobs}
            cpu: dict[int, list[float]] = {j: [] for j in args.jobs}
            fixed: list[float] = []
            fixed_cpu: list[float] = []
            digest = None
            run_cli(folder, out, tok, 1, extra)  # warm the file cache and the bytecode
            for _ in range(args.rounds):
                for j in args.jobs:
                    wall, used, h = run_cli(folder, out, tok, j, extra)
                    if digest is None:
                        digest = h
                    elif h != digest:
                        sys.exit(f"jobs bench: --jobs {j} wrote other bytes than --jobs {args.jobs[0]}")
                    walls[j].append(wall)
                    cpu[j].append(used)
                wall, used, _ = run_cli(empty, out, tok, 2, extra)
                fixed.append(wall)
                fixed_cpu.append(used)
                machine.append(machine_speedup())
            f, fc = statistics.median(fixed), statistics.median(fixed_cpu)
            base = statistics.median(walls[args.jobs[0]])
            base_cpu = statistics.median(cpu[args.jobs[0]])
            print(
                f"\ntokenizer {tok}: fixed cost (--jobs 2, two empty files) {f:.2f} s, cpu {fc:.2f} s; output sha256 "
                f"{digest[:16]} (the same for every run)"
            )
            for j in args.jobs:
                w, c = statistics.median(walls[j]), statistics.median(cpu[j])
                speedup = base / w
                bound = base / (f + (base - f) / j) if j > 1 else 1.0
                # On idle cores: the fixed CPU once, the rest (with whatever the workers add) shared.
                idle = base_cpu / (fc + (c - fc) / j)
                verdict = ""
                if j == 2 and args.jobs[0] == 1:
                    verdict = f"  target {TARGET}x: {'PASS' if speedup >= TARGET else 'FAIL'}"
                print(
                    f"  --jobs {j}: {w:6.2f} s  {len(docs) / w:7.1f} docs/s  {mb / w:5.2f} MB/s  "
                    f"cpu {c:5.2f} s  speed-up {speedup:4.2f}x (bound {bound:4.2f}x, idle cores "
                    f"{idle:4.2f}x){verdict}"
                )
                print(f"             runs: {', '.join(f'{x:.2f}' for x in walls[j])} s")
        print(
            f"\nmachine: two processes ran {statistics.median(machine):.2f}x one (median of "
            f"{len(machine)}: {', '.join(f'{x:.2f}' for x in machine)})"
        )
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
