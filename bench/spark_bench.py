"""Throughput of `chunker.spark.chunk_files` on a local Spark against `python -m chunker` on the same files.

    python bench/spark_bench.py                    # 200 pages of the Python docs, 512/50 cl100k, local[2]
    python bench/spark_bench.py --docs 60 --runs 1 --tokenizer approx

Needs pyspark with pyarrow and Java 17 where it runs (the tests' environment: tests/run.py
installs Java); nothing is installed here. The documents are the 200 pages bench/jobs.py and
bench/ray_bench.py use (Python 3.11 docs from Debian's python3.11-doc as Markdown), written as
files to a temporary folder. 1 MB = 10^6 UTF-8 bytes of input.

Printed, as docs/s and MB/s, on the same files with the same settings:
- cli: ``python -m chunker DIR -r``, a fresh process, one process and ``--jobs N``;
- spark start-up: the session's (a JVM, local[N], loopback only, web UI off);
- spark cold: the first ``chunk_files(...)`` written to Parquet (Python workers start and
  import chunker), spark warm: the median of the next runs;
and every Spark run's rows are checked against the CLI's records (the same ids). The ratio
printed is Spark warm over the CLI with one process. Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))


def rate(seconds: float, n: int, mb: float) -> str:
    return f"{seconds:7.2f} s  {n / seconds:8.1f} docs/s  {mb / seconds:6.2f} MB/s"


def cli(folder: Path, out: Path, settings: list[str], jobs: int) -> tuple[float, list[str]]:
    """Wall seconds of a fresh `python -m chunker` over `folder`, and its records' ids."""
    cmd = [sys.executable, "-m", "chunker", ".", "-r", *settings, "--jobs", str(jobs), "-o", str(out)]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=folder, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"spark_bench: the CLI failed: {done.stderr.strip()}")
    return wall, sorted(json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines())


def session(cpus: int):
    # Before the JVM starts: loopback only, this interpreter on both sides.
    os.environ.update(
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        SPARK_LOCAL_IP="127.0.0.1",
        PYTHONPATH=str(ROOT),
    )
    # pyspark 4.3 warns that it does not fully support pandas 3 (which Ray brings); mapInArrow
    # hands over Arrow batches, and pandas is only checked for.
    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        sys.exit("spark_bench: needs pyspark and pyarrow: pip install -r requirements-test.txt")
    spark = (
        SparkSession.builder.master(f"local[{cpus}]")
        .appName("chunker-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--docs", type=int, default=200)
    p.add_argument("--strategy", default="recursive")
    p.add_argument("--size", type=int, default=512)
    p.add_argument("--overlap", default="50")
    p.add_argument("--tokenizer", default="cl100k")
    p.add_argument("--cpus", type=int, default=2, help="local[N] and the CLI's --jobs N (default 2)")
    p.add_argument("--runs", type=int, default=3, help="warm Spark runs after the cold one")
    args = p.parse_args()
    from bench.ray_bench import documents

    docs = documents(args.docs)
    mb = sum(len(t.encode("utf-8")) for _, t in docs) / 1e6
    overlap: int | str = args.overlap if args.overlap.endswith("%") else int(args.overlap)
    options = {"strategy": args.strategy, "size": args.size, "overlap": overlap, "tokenizer": args.tokenizer}
    flags = ["--strategy", args.strategy, "--size", str(args.size), "--overlap", str(overlap), "--tokenizer", args.tokenizer]
    print(f"{len(docs)} documents (Python 3.11 docs pages), {mb:.2f} MB; settings {options}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; Python {sys.version.split()[0]}")
    tmp = Path(tempfile.mkdtemp(prefix="spark-bench"))
    try:
        folder = tmp / "docs"
        folder.mkdir()
        for i, (_, text) in enumerate(docs):
            (folder / f"doc{i:03d}.md").write_text(text, encoding="utf-8", newline="")
        cli(folder, tmp / "warm.jsonl", flags, 1)  # the file cache and the bytecode
        one, want = cli(folder, tmp / "one.jsonl", flags, 1)
        many, ids = cli(folder, tmp / "many.jsonl", flags, args.cpus)
        assert ids == want, "--jobs wrote other records"
        print(f"cli, one process        {rate(one, len(docs), mb)}")
        print(f"cli --jobs {args.cpus:<13d}{rate(many, len(docs), mb)}")

        start = time.perf_counter()
        spark = session(args.cpus)
        print(f"spark start-up          {time.perf_counter() - start:7.2f} s (local[{args.cpus}])")
        from chunker.spark import chunk_files

        times = []
        try:
            for k in range(args.runs + 1):
                target = tmp / f"out{k}"
                start = time.perf_counter()
                chunks = chunk_files(spark, [str(folder)], root=str(folder), **options)
                chunks.write.parquet(str(target))
                times.append(time.perf_counter() - start)
                got = sorted(r.id for r in spark.read.parquet(str(target)).select("id").collect())
                if got != want:
                    sys.exit("spark_bench: Spark's rows are not the CLI's records")
        finally:
            spark.stop()
        warm = statistics.median(times[1:]) if times[1:] else times[0]
        print(f"spark cold              {rate(times[0], len(docs), mb)}")
        print(
            f"spark warm              {rate(warm, len(docs), mb)}  (median of {len(times) - 1}: "
            f"{', '.join(f'{t:.2f}' for t in times[1:])} s; {len(want)} chunks, the CLI's ids)"
        )
        print(f"spark warm / cli one process: {one / warm:.2f}x the CLI's throughput; cli --jobs {args.cpus}: {one / many:.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
