"""Ray Data on a real cluster: a head node and a worker node started with ``ray start`` on this
machine, each with its own CPU (bench/_raycluster.py), and `chunk_dataset` across both gives
`chunker.chunk`'s records per row; docs/pipelines.md's job-submission recipe runs as written.

The cluster is started once for this module and kept on the loopback interface (every node's
address is 127.0.0.1, its cloud-metadata probes go to a closed loopback port, usage statistics
are off), with Ray's authentication mode set outright (off) for every node and client. The nodes' workers
import `chunker` from the repository through PYTHONPATH, as a cluster's workers import the
installed package. Each node is a `ray start --block` process of this one, ended by its id.
"""

from __future__ import annotations

import logging
import os
import pickle
import re
import subprocess
import warnings
from pathlib import Path

import pyarrow as pa
import pytest

import chunker
from bench._raycluster import Cluster
from chunker.arrow import CHUNK_SCHEMA, EMBED_SCHEMA, chunk_table, schema_for
from chunker.ray import chunk_dataset, chunk_files, completed_sources
from tests.documents import corpus_cli, corpus_tree

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PIPELINES = (ROOT / "docs" / "pipelines.md").read_text(encoding="utf-8")
RECORD = [f.name for f in EMBED_SCHEMA]
EMBEDS = ("embed_text", "embed_tokens")

# Real text and the edges: the README, this interpreter's textwrap source, nothing, blank
# lines, CR LF with astral characters, and a passage repeated over and over.
DOCUMENTS = [
    README,
    Path(pytest.__file__).parent.parent.joinpath("_pytest", "python.py").read_text(encoding="utf-8")[:30000],
    "",
    "  \n\n ",
    "Emoji 👋🏽 and CJK 日本語。\r\nSecond line.\r\n\r\n" * 30,
    "The cat sat. " * 200,
]

SETTINGS = [
    {},
    {"strategy": "markdown", "unit": "chars", "size": 400, "overlap": 0},
    {"strategy": "fixed", "unit": "tokens", "size": 64, "overlap": "25%", "tokenizer": "cl100k"},
    {"strategy": "sentence", "unit": "words", "size": 40, "overlap": 5, "tokenizer": "estimate"},
]


@pytest.fixture(scope="module")
def cluster():
    with Cluster(cpus=(1, 1)) as c:
        yield c


@pytest.fixture(scope="module")
def ray_cluster(cluster):
    import ray

    with pytest.MonkeyPatch.context() as mp:
        for name, value in cluster.env.items():
            if os.environ.get(name) != value:
                mp.setenv(name, value)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Ray's own deprecations are not ours to fail on
            ray.init(address=cluster.address, log_to_driver=False, logging_level=logging.ERROR)
            ray.data.DataContext.get_current().enable_progress_bars = False
        try:
            assert sorted(n["Resources"].get("CPU") for n in ray.nodes() if n["Alive"]) == [1.0, 1.0]
            yield ray
        finally:
            ray.shutdown()


def _rows():
    return [{"doc_id": i, "text": text, "lang": "en", "tags": ["t", str(i)]} for i, text in enumerate(DOCUMENTS)]


def _expected(options):
    """What chunk() gives each row: its records plus the row's other columns."""
    out = []
    for row in _rows():
        others = {k: v for k, v in row.items() if k != "text"}
        # The JSON record's rule: every record embedded with a context setting, otherwise those
        # whose embedded text is not their text (a split table's later parts); the table's
        # columns are there whenever the settings can give one (null on the other rows).
        embed = True if options.get("context", "none") != "none" else None
        out += [{**others, **c.to_dict(embed=embed)} for c in chunker.chunk(row["text"], **options).chunks]
    return out


def _ordered(rows):
    return sorted(rows, key=lambda r: (r["doc_id"], r["index"]))


@pytest.mark.parametrize("options", SETTINGS, ids=lambda o: ",".join(map(str, o.values())) or "defaults")
def test_chunk_dataset_gives_chunk_records_for_every_row(ray_cluster, options):
    ds = ray_cluster.data.from_items(_rows(), override_num_blocks=3)  # several blocks, several tasks
    got = _ordered(chunk_dataset(ds, **options).take_all())
    want = _expected(options)
    assert [(r["doc_id"], r["index"]) for r in got] == [(r["doc_id"], r["index"]) for r in want]
    for g, w in zip(got, want):
        assert list(g) == ["doc_id", "lang", "tags", *schema_for(**options).names]
        g = {k: v for k, v in g.items() if not (v is None and k in ("source", "page_start", "page_end", "error", *EMBEDS))}
        assert {k: (list(v) if k in ("tags", "flags", "headings") else v) for k, v in g.items()} == w
        assert DOCUMENTS[g["doc_id"]][g["start_char"] : g["end_char"]] == g["text"]


def test_chunk_dataset_runs_on_both_nodes(ray_cluster):
    def _on_node(block):
        """The node this block was cut on (fused with chunk_table: the same task). Defined
        here, so that it is shipped by value: the nodes cannot import this test module."""
        import pyarrow as pa
        import ray

        return block.append_column("node", pa.array([ray.get_runtime_context().get_node_id()] * block.num_rows, pa.string()))

    rows = [{"doc_id": k, "text": DOCUMENTS[k % 2]} for k in range(12)]
    ds = ray_cluster.data.from_items(rows, override_num_blocks=12)
    got = chunk_dataset(ds, size=200, overlap=0).map_batches(_on_node, batch_format="pyarrow", batch_size=None).take_all()
    nodes = {n["NodeID"] for n in ray_cluster.nodes() if n["Alive"]}
    assert {r["node"] for r in got} == nodes and len(nodes) == 2
    want = [c.id for r in rows for c in chunker.chunk(r["text"], size=200, overlap=0).chunks]
    assert sorted(r["id"] for r in got) == sorted(want)


def _record(row):
    return {
        k: list(v) if isinstance(v, tuple) or hasattr(v, "tolist") else v
        for k, v in row.items()
        if k in RECORD and not (v is None and k in ("page_start", "page_end", "error", *EMBEDS))
    }


def _key(r):
    return (r["source"], r["index"])


def test_chunk_files_reads_files_as_the_command_line_does_and_resumes(ray_cluster, tmp_path):
    corpus = tmp_path / "corpus"
    corpus_tree(corpus)
    status, want, err = corpus_cli([".", "-r", "--keep-going", "--strategy", "markdown", "--size", "100"], corpus)
    assert status == 1 and "legacy.txt" in err
    assert any("embed_text" in r for r in want)  # README.md's split table: its later parts' header rows
    got = chunk_files([str(corpus)], root=str(corpus), strategy="markdown", size=100, override_num_blocks=4).take_all()
    assert [r["source"] for r in got if r["error"] is not None] == ["legacy.txt"]
    assert sorted((_record(r) for r in got if r["error"] is None), key=_key) == sorted(want, key=_key)
    # Resumed: a first run that wrote part of the corpus, then the rest, skipping what is done.
    first = chunk_files([str(corpus / "guide"), str(corpus / "pkg")], root=str(corpus), strategy="markdown", size=100)
    first.write_parquet(str(tmp_path / "out" / "first"))
    done = completed_sources(str(tmp_path / "out"))
    assert done == {"guide/sample.md", "guide/deep/er/textwrap.py", "pkg/__init__.py", "pkg/_private.md"}
    rest = chunk_files([str(corpus)], root=str(corpus), skip_sources=done, strategy="markdown", size=100)
    rest.write_parquet(str(tmp_path / "out" / "rest"))
    import pyarrow.parquet as pq

    both = pq.read_table(tmp_path / "out").to_pylist()
    assert sorted((_record(r) for r in both if r["error"] is None), key=_key) == sorted(want, key=_key)


# A driver of its own, as a user's job is: it resumes what `out` holds (completed_sources) into a
# new folder beside it. While `gate` exists, the blocks that hold a source from "d020" on wait
# before they are written, so a run killed then has written the first half and nothing of the
# second: killed mid-corpus every time, not by luck of timing.
_DRIVER = """
import logging, os, sys, warnings
warnings.simplefilter("ignore")
import ray
address, corpus, out, gate = sys.argv[1:5]
ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
ray.data.DataContext.get_current().enable_progress_bars = False
from chunker.ray import chunk_files, completed_sources

def hold(block):
    import os, time
    while os.path.exists(gate) and any(s >= "d020" for s in block.column("source").to_pylist() if s):
        time.sleep(0.05)
    return block

os.makedirs(out, exist_ok=True)
done = completed_sources(out)
chunks = chunk_files([corpus], root=corpus, skip_sources=done, strategy="markdown", size=200, override_num_blocks=8)
chunks.map_batches(hold, batch_format="pyarrow", batch_size=None).write_parquet(os.path.join(out, f"run{len(os.listdir(out))}"))
"""


def test_a_killed_ray_job_resumed_gives_the_records_of_one_that_was_not(cluster, ray_cluster, tmp_path):
    import signal
    import sys
    import time

    import pyarrow.parquet as pq

    from chunker.arrow import complete_files
    from tests.texts import real_documents

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    docs = [text for _, text in real_documents()]
    for k in range(40):
        (corpus / f"d{k:03d}.md").write_text(docs[k % len(docs)][:6000] + f"\n\nFile {k}.\n", encoding="utf-8")
    status, want, _ = corpus_cli([".", "-r", "--strategy", "markdown", "--size", "200"], corpus)
    assert status == 0
    out, gate = tmp_path / "out", tmp_path / "gate"
    gate.touch()
    (tmp_path / "driver.py").write_text(_DRIVER, encoding="utf-8")
    args = [sys.executable, str(tmp_path / "driver.py"), cluster.address, str(corpus), str(out)]
    killed = subprocess.Popen([*args, str(gate)], env=cluster.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while killed.poll() is None and len(completed_sources(out)) < 10 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert killed.poll() is None, killed.stderr.read().decode(errors="replace")[-3000:]
        killed.send_signal(signal.SIGKILL)  # no clean-up of any kind
    finally:
        killed.wait()
        killed.stderr.close()
    done = completed_sources(out)
    assert 10 <= len(done) <= 20 and max(done) < "d020"  # the first half, in part, and none of the rest
    # Resumed with the gate open (a path that does not exist): the rest, into a folder of its own.
    resumed = subprocess.run([*args, str(tmp_path / "open")], env=cluster.env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    gate.unlink()
    rows = pq.read_table(complete_files(out)).to_pylist()
    assert sorted(r["source"] for r in rows if r["error"] is not None) == []
    assert sorted((_record(r) for r in rows), key=_key) == sorted(want, key=_key)  # each chunk once, none lost
    assert {r["id"] for r in rows} == {r["id"] for r in want}


def _recipe(heading: str, lang: str) -> str:
    section = PIPELINES.split(heading, 1)[1]
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)[0]


def test_the_job_submission_recipe_runs_as_written(cluster, ray_cluster, tmp_path):
    """docs/pipelines.md's chunk_job.py and its `ray job submit` line, on the two nodes."""
    corpus_tree(tmp_path / "docs")
    (tmp_path / "chunk_job.py").write_text(_recipe("### On a cluster", "python"), encoding="utf-8")
    command = _recipe("Submitted from the folder", "").strip()
    assert command.startswith("ray job submit --address http://<head node>:8265 ")
    command = command.replace("<head node>:8265", cluster.dashboard.removeprefix("http://"))
    # Run by a shell, as typed; `ray` is this environment's (the cluster's PATH has it first).
    done = subprocess.run(["sh", "-c", command], cwd=tmp_path, env=cluster.env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    import pyarrow.parquet as pq

    written = pq.read_table(tmp_path / "chunks").to_pylist()
    status, want, _ = corpus_cli(
        ["docs", "-r", "--keep-going", "--strategy", "markdown", "--size", "512", "--overlap", "10%"], tmp_path
    )
    assert sorted((_record(r) for r in written if r["error"] is None), key=_key) == sorted(want, key=_key)
    assert [r["source"] for r in written if r["error"] is not None] == ["docs/legacy.txt"]


def test_chunk_dataset_reads_another_column_and_keeps_the_schema(ray_cluster):
    ds = ray_cluster.data.from_items([{"body": "Short.", "n": 1}, {"body": "", "n": 2}])
    out = chunk_dataset(ds, text_column="body", size=10, overlap=0)
    rows = out.take_all()
    assert [(r["n"], r["text"], r["start_char"]) for r in rows] == [(1, "Short.", 0)]
    assert out.schema().names == ["n", *EMBED_SCHEMA.names]  # recursive: a table's parts may carry its header
    plain = chunk_dataset(ds, text_column="body", strategy="fixed", size=10, overlap=0)
    assert plain.schema().names == ["n", *CHUNK_SCHEMA.names]
    assert [(r["n"], r["text"]) for r in plain.take_all()] == [(1, "Short.")]


def test_a_bad_row_is_its_error_and_the_job_goes_on(ray_cluster):
    ds = ray_cluster.data.from_items([{"n": 1, "text": "fine"}, {"n": 2, "text": None}], override_num_blocks=1)
    rows = sorted(chunk_dataset(ds, size=10, overlap=0).take_all(), key=lambda r: r["n"])
    assert [(r["n"], r["text"], r["error"]) for r in rows] == [
        (1, "fine", None),
        (2, None, "a row: column 'text' holds null, not text: give text or a file's bytes"),
    ]


# ------------------------------------------------------------- checked before anything runs


def test_bad_settings_and_columns_fail_on_the_driver(ray_cluster):
    ds = ray_cluster.data.from_items([{"text": "a", "index": 3}])
    with pytest.raises(chunker.ChunkerError, match="overlap 10 must be smaller than the size 10"):
        chunk_dataset(ds, size=10, overlap=10)
    with pytest.raises(chunker.ChunkerError, match="input column 'index' has the name of a record field"):
        chunk_dataset(ds, size=10, overlap=0)
    with pytest.raises(chunker.ChunkerError, match="no column 'body'"):
        chunk_dataset(ds.drop_columns(["index"]), text_column="body")
    with pytest.raises(chunker.ChunkerError, match="chunk_dataset has no setting 'chunk_size'"):
        chunk_dataset(ds, chunk_size=10)


# ------------------------------------------------------------- the function the workers run


def test_the_block_function_is_plain_and_ships_by_reference():
    """What Ray sends a worker is the module function's name, no state of the driver's."""
    import cloudpickle

    shipped = cloudpickle.dumps(chunk_table)
    assert b"chunker.arrow" in shipped and len(shipped) < 200
    assert pickle.loads(shipped) is chunk_table


def test_chunk_table_alone():
    block = pa.table({"text": ["One. Two.", "", "Three."], "doc": pa.array([7, 8, 9], pa.int8())})
    out = chunk_table(block, strategy="sentence", size=0)
    assert out.schema == pa.schema([("doc", pa.int8()), *CHUNK_SCHEMA])
    assert out.column("doc").to_pylist() == [7, 7, 9] and out.column("text").to_pylist() == ["One.", "Two.", "Three."]
    batch = pa.RecordBatch.from_pydict({"body": ["A b."]})  # what Spark's mapInArrow hands out
    only_text = chunk_table(batch, text_column="body", size=5, overlap=0)
    assert only_text.num_rows == 1 and only_text.schema == EMBED_SCHEMA  # recursive: see schema_for
    assert only_text.column("embed_text").to_pylist() == [None]  # as the JSON record leaves it out
    nothing = chunk_table(pa.table({"text": pa.array([], pa.string())}), strategy="fixed")
    assert nothing.num_rows == 0 and nothing.schema == CHUNK_SCHEMA
    assert chunk_table(pa.table({}), strategy="fixed").schema == CHUNK_SCHEMA  # an empty block without columns
    assert chunk_table(pa.table({}), strategy="fixed", context="headings").schema == EMBED_SCHEMA
    no_flags = chunk_table(pa.table({"text": ["Done."]}), size=5, overlap=0)
    assert no_flags.schema.field("flags").type == pa.list_(pa.string())  # not list<null>
    with pytest.raises(chunker.ChunkerError, match="no column 'text'"):
        chunk_table(pa.table({"body": ["x"]}))
    # Bytes are a file's, read as the command line reads one; a number is an error row.
    assert chunk_table(pa.table({"text": [b"x"]})).column("text").to_pylist() == ["x"]
    assert chunk_table(pa.table({"text": [3]})).column("error").to_pylist() == [
        "a row: column 'text' holds int, not text: give text or a file's bytes"
    ]


@pytest.mark.parametrize("names", [["text", "doc", "doc"], ["text", "text"]])
def test_chunk_table_with_two_columns_of_one_name_is_one_line(names):
    # Arrow allows the duplicate; selecting by name raised pyarrow's KeyError.
    block = pa.Table.from_arrays([pa.array(["One. Two."])] + [pa.array([1])] * (len(names) - 1), names=names)
    dup = names[-1]
    with pytest.raises(chunker.ChunkerError, match=f"^the data has two columns named '{dup}': rename one"):
        chunk_table(block)


class _Dataset:
    """Just what `chunk_dataset` asks of a dataset on the driver, keeping what it would ship."""

    def __init__(self, columns):
        self._columns, self.shipped = columns, None

    def columns(self, fetch_if_missing=True):
        return self._columns

    def map_batches(self, fn, **kwargs):
        self.shipped = (fn, kwargs["fn_kwargs"])
        return self


def test_a_tokenizer_json_and_a_model_reach_the_workers_by_their_paths(tmp_path):
    # The settings name a tokenizer.json or a model by its content (hf:..., m2v:...), which only
    # the driver had loaded: every worker block failed "... is not loaded in this process", and
    # the whole job with it.
    import json as _json
    import sys

    import numpy as np

    from tests import embedding_fixtures as fx
    from tests import hf_fixtures

    tok = hf_fixtures.wordpiece(True)
    (tmp_path / "tok.json").write_text(tok, encoding="utf-8")
    rng = np.random.default_rng(0)
    fx.save(tmp_path / "m", rng.standard_normal((fx.vocab_size(tok), 8)).astype("float32"), tok, normalize=True)
    text = "The harbour opens at six. The tide is low. Boats moor at the east quay."
    cases = [
        {"tokenizer": str(tmp_path / "tok.json"), "size": 8, "overlap": 0},
        {"strategy": "semantic", "embedding_model": str(tmp_path / "m"), "size": 10, "overlap": 0},
    ]
    for options in cases:
        ds = _Dataset(["text"])
        chunk_dataset(ds, **options)
        fn, kwargs = ds.shipped
        assert fn is chunk_table
        # A fresh process, as a worker is: it has loaded nothing.
        script = (
            "import json, sys, pickle, pyarrow as pa\n"
            "from chunker.arrow import chunk_table\n"
            "kwargs = pickle.loads(sys.stdin.buffer.read())\n"
            f"rows = chunk_table(pa.table({{'text': [{text!r}]}}), **kwargs).to_pylist()\n"
            "print(json.dumps([(r['error'], r['id']) for r in rows]))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script], input=pickle.dumps(kwargs), capture_output=True, cwd=ROOT, timeout=120
        )
        assert done.returncode == 0, done.stderr.decode()[-500:]
        rows = _json.loads(done.stdout)
        assert [e for e, _ in rows] == [None] * len(rows)
        assert [i for _, i in rows] == [c.id for c in chunker.chunk(text, **options).chunks]
    loaded = chunker.Settings(tokenizer=str(tmp_path / "tok.json")).tokenizer  # hf:...: no path behind it
    with pytest.raises(chunker.ChunkerError, match=r"^chunk_dataset cuts in worker processes, which cannot use tokenizer hf:"):
        chunk_dataset(_Dataset(["text"]), tokenizer=loaded)


def test_chunk_table_refuses_what_is_no_collection_no_root_or_no_path():
    block = pa.table({"text": ["One.", "Two."], "src": ["ab", "a"]})
    # A str was taken as the set of its characters: "ab" skipped the source "a", and not "ab".
    with pytest.raises(chunker.ChunkerError, match="^skip_sources must be a collection of sources, got str"):
        chunk_table(block, source_column="src", skip_sources="ab")
    with pytest.raises(chunker.ChunkerError, match="^skip_sources must be a collection of sources, got NoneType"):
        chunk_table(block, source_column="src", skip_sources=None)
    assert chunk_table(block, source_column="src", skip_sources=["ab"]).column("source").to_pylist() == ["a"]
    with pytest.raises(chunker.ChunkerError, match="^root must be a folder's path, got int"):
        chunk_table(block, root=5)
    # A null path was looked for as a file named "None".
    out = chunk_table(pa.table({"path": [None]}), file_column="path")
    assert out.column("error").to_pylist() == ["a row: column 'path' holds null, not a file's path"]
