"""Throughput of `chunker.ray.chunk_dataset` on a local Ray cluster against plain `chunker.chunk`.

    python bench/ray_bench.py                      # 200 pages of the Python docs, 512/50 cl100k
    python bench/ray_bench.py --docs 50 --tokenizer approx --runs 5
    python bench/ray_bench.py --nodes              # a real cluster: one node, then two

Needs ray[data] where it runs (``pip install -r requirements-test.txt``, or ``pip install
'.[ray,exact]'``); nothing is installed here. The documents are real text: pages of the Python
3.11 documentation from Debian's python3.11-doc, converted to Markdown by bench/corpus.py
(cached under .cache/, never committed), spread evenly over the whole set. 1 MB = 10^6 UTF-8
bytes of input text.

Printed, as docs/s and MB/s:
- sequential: ``chunker.chunk`` on each document in turn, in this process (tokenizer loaded
  first, as a long-running pipeline would have it);
- cli: ``python -m chunker`` over the same documents as files, one process;
- ray cold: the first ``chunk_dataset(...).materialize()`` on a fresh cluster (workers start,
  import chunker and load the tokenizer), and ray warm: the median of the next runs.
The cluster's own start-up is printed separately. Ray runs on the loopback interface only, as
in tests/test_ray.py. Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))


def documents(n: int) -> list[tuple[str, str]]:
    """`n` pages of the Python docs as (name, Markdown), evenly spread over all pages."""
    from bench import corpus

    missing = corpus.ensure_debian_packages()
    if missing:
        sys.exit(f"ray_bench: needs Debian's {' '.join(missing)} for its text")
    pages = [(name, "\n\n".join(t for _, t in blocks)) for name, blocks in corpus.python_docs_blocks()]
    step = max(1, len(pages) // n)
    return pages[::step][:n]


def rate(seconds: float, docs: list[tuple[str, str]]) -> str:
    mb = sum(len(t.encode("utf-8")) for _, t in docs) / 1e6
    return f"{seconds:7.2f} s  {len(docs) / seconds:8.1f} docs/s  {mb / seconds:6.2f} MB/s"


def run_sequential(docs, options) -> float:
    import chunker

    chunker.chunk("warm up the tokenizer.", **options)
    start = time.perf_counter()
    for _, text in docs:
        chunker.chunk(text, **options)
    return time.perf_counter() - start


def cli_supports_jobs() -> bool:
    out = subprocess.run(
        [sys.executable, "-m", "chunker", "--help"], cwd=str(ROOT), capture_output=True, text=True, check=False
    ).stdout
    return "--jobs" in out


def run_cli(docs, options, jobs: int | None = None) -> float:
    """`python -m chunker` over the documents as files, its output thrown away.

    HOOK: `--jobs N` (worker processes) is passed when `jobs` is given; this bench's own
    --cli-jobs option asks for it once the CLI has the flag (cli_supports_jobs).
    """
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for i, (_, text) in enumerate(docs):
            path = Path(folder) / f"doc{i:03d}.md"
            path.write_text(text, encoding="utf-8", newline="")
            files.append(str(path))
        cmd = [
            sys.executable,
            "-m",
            "chunker",
            *files,
            "--strategy",
            options["strategy"],
            "--unit",
            options["unit"],
            "--size",
            str(options["size"]),
            "--overlap",
            str(options["overlap"]),
            "--tokenizer",
            options["tokenizer"],
            "--max-chunk-chars",
            "0",
        ]
        if jobs is not None:
            cmd += ["--jobs", str(jobs)]
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"ray_bench: the CLI failed: {done.stderr.strip()}")
    return elapsed


def run_ray(docs, options, *, cpus: int, blocks: int, runs: int):
    from bench._raycluster import LOOPBACK_ONLY

    # Before Ray is imported: its node address on loopback, no usage report, and its head's
    # cloud-metadata probes sent to a closed loopback port.
    os.environ.update(LOOPBACK_ONLY)
    try:
        import ray
    except ImportError:
        sys.exit("ray_bench: needs ray[data]: pip install -r requirements-test.txt")

    start = time.perf_counter()
    logging.getLogger("ray").setLevel(logging.ERROR)
    temp_dir = tempfile.mkdtemp(prefix="ray")  # short: Ray's socket paths must fit in 107 bytes
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, _temp_dir=temp_dir)
    ray.data.DataContext.get_current().enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # no per-run execution log
    startup = time.perf_counter() - start
    try:
        times, chunks = _timed_runs(ray, docs, options, blocks=blocks, runs=runs)
    finally:
        ray.shutdown()
        shutil.rmtree(temp_dir, ignore_errors=True)
    return startup, times[0], times[1:], chunks


def _timed_runs(ray, docs, options, *, blocks: int, runs: int) -> tuple[list[float], int]:
    """`chunk_dataset` over `docs` on the connected Ray, `runs` + 1 times (the first is the
    cold run): each run's seconds, and the chunks made."""
    from chunker.ray import chunk_dataset

    rows = [{"doc_id": i, "name": name, "text": text} for i, (name, text) in enumerate(docs)]
    times, chunks = [], 0
    for _ in range(runs + 1):
        ds = ray.data.from_items(rows, override_num_blocks=blocks)
        start = time.perf_counter()
        done = chunk_dataset(ds, **options).materialize()
        times.append(time.perf_counter() - start)
        chunks = done.count()
    return times, chunks


def run_nodes(docs, options, *, nodes: int, blocks: int, runs: int):
    """`chunk_dataset` on a real cluster of `nodes` nodes of one CPU each (``ray start``, as
    tests/test_ray.py starts them): (start-up, cold run, warm runs, chunks)."""
    import ray

    from bench._raycluster import Cluster

    start = time.perf_counter()
    cluster = Cluster(cpus=(1,) * nodes, dashboard=False).start()
    saved = dict(os.environ)
    os.environ.update(cluster.env)
    try:
        ray.init(address=cluster.address, log_to_driver=False, logging_level=logging.ERROR)
        ray.data.DataContext.get_current().enable_progress_bars = False
        logging.getLogger("ray.data").setLevel(logging.WARNING)
        startup = time.perf_counter() - start
        times, chunks = _timed_runs(ray, docs, options, blocks=blocks, runs=runs)
    finally:
        ray.shutdown()
        cluster.stop()
        os.environ.clear()
        os.environ.update(saved)
    return startup, times[0], times[1:], chunks


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--docs", type=int, default=200)
    p.add_argument("--strategy", default="recursive")
    p.add_argument("--unit", default="tokens")
    p.add_argument("--size", type=int, default=512)
    p.add_argument("--overlap", default="50")
    p.add_argument("--tokenizer", default="cl100k")
    p.add_argument("--cpus", type=int, default=2, help="the local cluster's CPUs (default 2)")
    p.add_argument("--blocks", type=int, default=0, help="dataset blocks (default: 4 per CPU)")
    p.add_argument("--runs", type=int, default=3, help="warm Ray runs after the cold one")
    p.add_argument("--cli-jobs", type=int, default=None, help="also time python -m chunker --jobs N")
    p.add_argument(
        "--nodes",
        action="store_true",
        help="instead of the local Ray: a real cluster (ray start) of one node, then of two, one CPU each",
    )
    args = p.parse_args()
    options = {
        "strategy": args.strategy,
        "unit": args.unit,
        "size": args.size,
        "overlap": args.overlap if args.overlap.endswith("%") else int(args.overlap),
        "tokenizer": args.tokenizer,
    }

    docs = documents(args.docs)
    mb = sum(len(t.encode("utf-8")) for _, t in docs) / 1e6
    print(f"{len(docs)} documents (Python 3.11 docs pages), {mb:.2f} MB; settings {options}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; Python {sys.version.split()[0]}")

    print(f"sequential chunk()      {rate(run_sequential(docs, options), docs)}")
    cli_time = run_cli(docs, options)
    print(f"cli, one process        {rate(cli_time, docs)}")
    if args.cli_jobs is not None:
        if cli_supports_jobs():
            print(f"cli --jobs {args.cli_jobs:<12d} {rate(run_cli(docs, options, args.cli_jobs), docs)}")
        else:
            print("cli --jobs N            not measured: python -m chunker has no --jobs yet")
    if args.nodes:
        warmest: dict[int, float] = {}
        for nodes in (1, 2):
            startup, cold, warm, chunks = run_nodes(docs, options, nodes=nodes, blocks=args.blocks or 8, runs=args.runs)
            warmest[nodes] = statistics.median(warm)
            print(f"ray {nodes} node{'s' if nodes > 1 else ' '} start-up   {startup:7.2f} s (one CPU a node)")
            print(f"ray {nodes} node{'s' if nodes > 1 else ' '} cold       {rate(cold, docs)}")
            print(
                f"ray {nodes} node{'s' if nodes > 1 else ' '} warm       {rate(statistics.median(warm), docs)}  "
                f"(median of {len(warm)}; {chunks} chunks)"
            )
        print(
            f"two nodes / one node: {warmest[1] / warmest[2]:.2f}x the throughput; against the CLI in one "
            f"process (start-up included): one node {cli_time / warmest[1]:.2f}x, two nodes {cli_time / warmest[2]:.2f}x"
        )
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
        return
    startup, cold, warm, chunks = run_ray(docs, options, cpus=args.cpus, blocks=args.blocks or 4 * args.cpus, runs=args.runs)
    print(f"ray cluster start-up    {startup:7.2f} s ({args.cpus} CPUs)")
    print(f"ray chunk_dataset cold  {rate(cold, docs)}")
    print(
        f"ray chunk_dataset warm  {rate(statistics.median(warm), docs)}  (median of {len(warm)}: "
        f"{', '.join(f'{t:.2f}' for t in warm)} s; {chunks} chunks)"
    )
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
