"""Spark: `chunker.spark` on a real local Spark (``local[2]``: pyspark from PyPI, Java from
Debian, installed by tests/run.py) gives `chunker.chunk`'s records, and docs/pipelines.md's
recipe runs as written.

One session for the module (a JVM takes tens of seconds to start), bound to the loopback
interface with its web UI off; executors run this interpreter and import `chunker` from the
repository through PYTHONPATH, as a cluster's executors import the installed package.
"""

from __future__ import annotations

import os
import re
import runpy
import sys
from pathlib import Path

import pytest

import chunker
from tests.documents import corpus_cli, corpus_tree

pyspark = pytest.importorskip("pyspark")

ROOT = Path(__file__).resolve().parent.parent
PIPELINES = (ROOT / "docs" / "pipelines.md").read_text(encoding="utf-8")

# pyspark 4.3 warns that it does not fully support pandas 3 (which Ray brings); mapInArrow
# passes Arrow batches, and pandas is only checked for.
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")

DOCUMENTS = [
    (ROOT / "README.md").read_text(encoding="utf-8"),
    "",
    "  \n\n ",
    "Emoji 👋🏽 and CJK 日本語。\r\nSecond line.\r\n\r\n" * 30,
    "The cat sat. " * 200,
    None,  # one bad row: its error, and the job goes on
]
SETTINGS = [
    {},
    {"strategy": "fixed", "unit": "tokens", "size": 64, "overlap": "25%", "tokenizer": "cl100k"},
]


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYSPARK_PYTHON", sys.executable)
        mp.setenv("PYSPARK_DRIVER_PYTHON", sys.executable)
        mp.setenv("SPARK_LOCAL_IP", "127.0.0.1")
        mp.setenv("PYTHONPATH", str(ROOT))
        session = (
            SparkSession.builder.master("local[2]")
            .appName("chunker-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.ui.showConsoleProgress", "false")
            # Small Arrow batches: every executor call sees several.
            .config("spark.sql.execution.arrow.maxRecordsPerBatch", "2")
            .getOrCreate()
        )
        session.sparkContext.setLogLevel("ERROR")
        try:
            yield session
        finally:
            session.stop()


def _plain(row):
    """A Spark row as a record: lists as lists, and the fields a record leaves out when empty."""
    d = row.asDict()
    optional = ("page_start", "page_end", "error", "source", "embed_text", "embed_tokens")
    return {k: v for k, v in d.items() if not (v is None and k in optional)}


@pytest.mark.parametrize("options", SETTINGS, ids=lambda o: ",".join(map(str, o.values())) or "defaults")
def test_chunk_dataframe_rows_are_chunk_records(spark, options):
    from chunker.spark import chunk_dataframe

    df = spark.createDataFrame([(i, t) for i, t in enumerate(DOCUMENTS)], "doc_id long, text string").repartition(2)
    rows = sorted((r.asDict() for r in chunk_dataframe(df, **options).collect()), key=lambda r: (r["doc_id"], r["index"] or 0))
    errors = [r for r in rows if r["error"] is not None]
    assert [(r["doc_id"], r["error"]) for r in errors] == [
        (5, "a row: column 'text' holds null, not text: give text or a file's bytes")
    ]
    optional = ("page_start", "page_end", "embed_text", "embed_tokens")
    got = [
        {k: v for k, v in r.items() if k not in ("source", "error") and not (v is None and k in optional)}
        for r in rows
        if not r["error"]
    ]
    want = [
        {"doc_id": i, **c.to_dict()}
        for i, text in enumerate(DOCUMENTS)
        if text is not None
        for c in chunker.chunk(text, **options).chunks
    ]
    assert got == want  # offsets into the source column included
    for r in got:
        assert DOCUMENTS[r["doc_id"]][r["start_char"] : r["end_char"]] == r["text"]


def test_a_tokenizer_json_and_a_model_reach_the_executors_by_their_paths(spark, tmp_path):
    # The checked settings name a tokenizer.json or a model by its content (hf:..., m2v:...),
    # which only the driver had loaded: every executor's batch failed "... is not loaded in
    # this process". The executors are handed the paths.
    import numpy as np

    from chunker.spark import chunk_dataframe
    from tests import embedding_fixtures as fx
    from tests import hf_fixtures

    tok = hf_fixtures.wordpiece(True)
    (tmp_path / "tok.json").write_text(tok, encoding="utf-8")
    rng = np.random.default_rng(0)
    fx.save(tmp_path / "m", rng.standard_normal((fx.vocab_size(tok), 8)).astype("float32"), tok, normalize=True)
    text = "The harbour opens at six. The tide is low. Boats moor at the east quay."
    df = spark.createDataFrame([(text,)], "text string")
    for options in (
        {"tokenizer": str(tmp_path / "tok.json"), "size": 8, "overlap": 0},
        {"strategy": "semantic", "embedding_model": str(tmp_path / "m"), "size": 10, "overlap": 0},
    ):
        rows = sorted((r.asDict() for r in chunk_dataframe(df, **options).collect()), key=lambda r: r["index"])
        assert [r["error"] for r in rows] == [None] * len(rows)
        assert [r["id"] for r in rows] == [c.id for c in chunker.chunk(text, **options).chunks]
    with pytest.raises(chunker.ChunkerError, match="^skip_sources must be a collection of sources, got str"):
        chunk_dataframe(df, skip_sources="docs/a.md")


def test_the_schema_is_the_record_table(spark):
    from chunker.results._schema import FIELDS
    from chunker.spark import chunk_dataframe, schema

    df = spark.createDataFrame([("a", "One. Two.")], "name string, text string")
    out = chunk_dataframe(df, strategy="fixed", size=5, overlap=0)
    assert out.columns == ["name", *[f.name for f in FIELDS if not f.embed]]
    assert out.schema.fields[1:] == schema(strategy="fixed").fields == schema(embed=False).fields
    # The settings decide the columns: a context setting adds the embed text's, in the table's
    # order, and every row holds them.
    embedded = chunk_dataframe(df, strategy="fixed", size=5, overlap=0, context="[{source}] ")
    assert embedded.columns == ["name", *[f.name for f in FIELDS]]
    assert embedded.schema.fields[1:] == schema(embed=True).fields == schema(strategy="fixed", context="headings").fields
    rows = embedded.collect()
    assert rows and all(r["embed_text"] == "[] " + r["text"] for r in rows)
    # So does a strategy whose chunks may carry a context of their own (recursive: a split
    # table's header rows), null where the JSON record has none.
    own = chunk_dataframe(df, size=5, overlap=0)
    assert own.schema.fields[1:] == schema().fields == schema(embed=True).fields
    assert [(r["text"], r["embed_text"]) for r in own.collect()] == [
        (c.text, None) for c in chunker.chunk("One. Two.", size=5, overlap=0)
    ]
    with pytest.raises(chunker.ChunkerError, match="input column 'index' has the name of a record field"):
        chunk_dataframe(spark.createDataFrame([("a", 1)], "text string, index long"))
    with pytest.raises(chunker.ChunkerError, match="overlap 10 must be smaller than the size 10"):
        chunk_dataframe(df, size=10, overlap=10)


def test_chunk_files_reads_a_tree_as_the_command_line_does(spark, tmp_path):
    from chunker.spark import chunk_files

    corpus_tree(tmp_path)
    status, want, err = corpus_cli([".", "-r", "--keep-going", "--strategy", "markdown", "--size", "100"], tmp_path)
    assert status == 1 and "legacy.txt" in err
    out = chunk_files(spark, [str(tmp_path)], root=str(tmp_path), strategy="markdown", size=100).collect()
    rows = [_plain(r) for r in out]
    assert [r["source"] for r in rows if "error" in r] == ["legacy.txt"]
    got = sorted((r for r in rows if "error" not in r), key=lambda r: (r["source"], r["index"]))
    assert any("embed_text" in r for r in want)  # README.md's table, split: its later parts' header rows
    assert got == sorted(want, key=lambda r: (r["source"], r["index"]))  # ids and pages included
    assert {"_top.md", "pkg/__init__.py", "pkg/_private.md", "notes/50%.md", "docs/handbook.pdf"} <= {r["source"] for r in got}


def _recipe(title: str, index: int = 0) -> str:
    section = PIPELINES.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)[index]


def test_the_docs_recipe_runs_as_written(spark, tmp_path):
    """docs/pipelines.md's Spark job, run on a nested folder with names starting with "_"."""
    corpus_tree(tmp_path / "docs")
    script = tmp_path / "chunk_job.py"
    script.write_text(_recipe("Spark"), encoding="utf-8")
    argv, here = sys.argv, os.getcwd()
    os.chdir(tmp_path)
    sys.argv = [str(script), "docs", str(tmp_path / "chunks")]
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = argv
        os.chdir(here)
    import pyarrow.parquet as pq

    written = pq.read_table(tmp_path / "chunks").to_pylist()
    status, want, _ = corpus_cli(
        ["docs", "-r", "--keep-going", "--strategy", "markdown", "--size", "512", "--overlap", "10%"], tmp_path
    )
    good = [{k: v for k, v in r.items() if v is not None} for r in written if r["error"] is None]
    assert sorted(good, key=lambda r: (r["source"], r["index"])) == sorted(want, key=lambda r: (r["source"], r["index"]))
    assert [r["source"] for r in written if r["error"] is not None] == ["docs/legacy.txt"]


def _resumable_job(gate: Path) -> str:
    """docs/pipelines.md's resumable Spark job, its write held while `gate` exists for the
    tasks of partitions 4 and on: a job killed then has written partitions 0-3 and nothing of
    the rest, mid-corpus every time, not by luck of timing."""
    job = _recipe("Spark", 1)
    hold = f"""
def hold(batches, gate={str(gate)!r}):
    import os, time
    from pyspark import TaskContext

    part = TaskContext.get().partitionId()
    for batch in batches:
        while part >= 4 and os.path.exists(gate):
            time.sleep(0.05)
        yield batch
"""
    assert job.count("\nchunks.write.") == 1
    return hold + job.replace("\nchunks.write.", "\nchunks.mapInArrow(hold, chunks.schema).write.")


def _group_alive(pgid: int) -> bool:
    """Whether a process of the process group `pgid` is still there (zombies aside)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def test_a_killed_spark_job_resumed_gives_the_records_of_one_that_was_not(spark, tmp_path):
    import signal
    import subprocess
    import time

    import pyarrow.parquet as pq

    from chunker.spark import complete_files, completed_sources
    from tests.texts import real_documents

    corpus = tmp_path / "docs"
    corpus.mkdir()
    texts = [text for _, text in real_documents()]
    for k in range(40):
        (corpus / f"d{k:03d}.md").write_text(texts[k % len(texts)][:6000] + f"\n\nFile {k}.\n", encoding="utf-8")
    status, want, _ = corpus_cli(["docs", "-r", "--strategy", "markdown", "--size", "512", "--overlap", "10%"], tmp_path)
    assert status == 0
    out, gate, script = tmp_path / "chunks", tmp_path / "gate", tmp_path / "resumable_job.py"
    gate.touch()
    script.write_text(_resumable_job(gate), encoding="utf-8")
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    env.update(SPARK_LOCAL_IP="127.0.0.1", PYTHONPATH=str(ROOT), PYSPARK_SUBMIT_ARGS="--master local[2] pyspark-shell")
    # In a process group of its own: the driver, its JVM and the JVM's Python workers die at
    # once, as they do when the machine goes, with no clean-up of any kind.
    killed = subprocess.Popen(
        [sys.executable, str(script), "docs", str(out)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while killed.poll() is None and len(complete_files(out)) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert killed.poll() is None, killed.stderr.read().decode(errors="replace")[-3000:]
        time.sleep(1)  # the held tasks run on: nothing more may land
        os.killpg(killed.pid, signal.SIGKILL)
    finally:
        killed.wait()
        killed.stderr.close()
        while _group_alive(killed.pid):
            time.sleep(0.05)
    done = completed_sources(out)
    assert len(complete_files(out)) == 4 and 4 <= len(done) < 40  # partitions 0-3, none of the rest
    assert (out / "run0" / "_temporary").is_dir()  # the held tasks' attempts, where the kill left them
    # Run again as it is, the gate open, here in the tests' session: the rest, in a folder of its own.
    gate.unlink()
    argv, here = sys.argv, os.getcwd()
    os.chdir(tmp_path)
    sys.argv = [str(script), "docs", str(out)]  # the JVM's paths are its own folder's: absolute
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = argv
        os.chdir(here)
    assert sorted(p.name for p in out.iterdir()) == ["run0", "run1"]
    rows = [{k: v for k, v in r.items() if v is not None} for r in pq.read_table(complete_files(out)).to_pylist()]
    assert sorted(rows, key=lambda r: (r["source"], r["index"])) == sorted(want, key=lambda r: (r["source"], r["index"]))
    assert len({r["id"] for r in rows}) == len(want)  # each chunk once, none lost
