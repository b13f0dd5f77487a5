"""Ray Data: `chunk_dataset` on a local two-CPU cluster gives `chunker.chunk`'s records per row.

The cluster is started once for this module and kept on the loopback interface: Ray would
otherwise find the machine's address by routing towards a public DNS server, and its head
process asks cloud metadata addresses which cloud it runs in (even with usage statistics
off). So the fixture sets RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 (loopback addresses only),
RAY_USAGE_STATS_ENABLED=0, and points HTTP(S)_PROXY at a closed loopback port with NO_PROXY
for loopback, so those probes fail on this machine without a packet leaving it. The workers
import `chunker` from the repository through PYTHONPATH, as a cluster's workers import the
installed package.
"""

from __future__ import annotations

import logging
import pickle
import shutil
import tempfile
import warnings
from pathlib import Path

import pyarrow as pa
import pytest

import chunker
from chunker.arrow import CHUNK_SCHEMA, chunk_table
from chunker.ray import chunk_dataset

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

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
def ray_cluster():
    import ray

    with pytest.MonkeyPatch.context() as mp:
        for name, value in {
            "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # the node's address is 127.0.0.1
            "RAY_USAGE_STATS_ENABLED": "0",
            "http_proxy": "http://127.0.0.1:9",
            "https_proxy": "http://127.0.0.1:9",
            "HTTP_PROXY": "http://127.0.0.1:9",
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "no_proxy": "127.0.0.1,localhost,::1",
            "NO_PROXY": "127.0.0.1,localhost,::1",
            "PYTHONPATH": str(ROOT),
        }.items():
            mp.setenv(name, value)
        # The driver read that variable when Ray was first imported (collecting chunker/ray.py's
        # doctests does it), so its copy of the setting is set here too.
        mp.setattr(ray._private.ray_constants, "ENABLE_RAY_CLUSTER", False)
        # A short folder: Ray's socket paths must fit in 107 bytes.
        temp_dir = tempfile.mkdtemp(prefix="ray")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Ray's own deprecations are not ours to fail on
            ray.init(
                num_cpus=2,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.ERROR,
                object_store_memory=200 * 2**20,
                _temp_dir=temp_dir,
            )
            ray.data.DataContext.get_current().enable_progress_bars = False
        try:
            yield ray
        finally:
            ray.shutdown()
            shutil.rmtree(temp_dir, ignore_errors=True)  # the session's logs and sockets


def _rows():
    return [{"doc_id": i, "text": text, "lang": "en", "tags": ["t", str(i)]} for i, text in enumerate(DOCUMENTS)]


def _expected(options):
    """What chunk() gives each row: its records plus the row's other columns."""
    out = []
    for row in _rows():
        others = {k: v for k, v in row.items() if k != "text"}
        # The table's columns are one schema for every row, so embed_text and embed_tokens come
        # with the context setting only (chunker.arrow), not with a table part's own context.
        embed = options.get("context", "none") != "none"
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
        assert {k: (list(v) if k in ("tags", "flags", "headings") else v) for k, v in g.items()} == w
        assert DOCUMENTS[g["doc_id"]][g["start_char"] : g["end_char"]] == g["text"]


def test_chunk_dataset_reads_another_column_and_keeps_the_schema(ray_cluster):
    ds = ray_cluster.data.from_items([{"body": "Short.", "n": 1}, {"body": "", "n": 2}])
    out = chunk_dataset(ds, text_column="body", size=10, overlap=0)
    rows = out.take_all()
    assert [(r["n"], r["text"], r["start_char"]) for r in rows] == [(1, "Short.", 0)]
    assert out.schema().names == ["n", *CHUNK_SCHEMA.names]


def test_a_worker_error_reaches_the_driver_with_its_message(ray_cluster):
    ds = ray_cluster.data.from_items([{"text": "fine"}, {"text": None}], override_num_blocks=1)
    with pytest.raises(Exception, match="column 'text' holds NoneType in a row, not text"):
        chunk_dataset(ds, size=10, overlap=0).take_all()


# ------------------------------------------------------------- checked before anything runs


def test_bad_settings_and_columns_fail_on_the_driver(ray_cluster):
    ds = ray_cluster.data.from_items([{"text": "a", "index": 3}])
    with pytest.raises(chunker.ChunkerError, match="overlap 10 must be smaller than the size 10"):
        chunk_dataset(ds, size=10, overlap=10)
    with pytest.raises(chunker.ChunkerError, match="input column 'index' has the name of a chunk field"):
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
    block = pa.table({"text": ["One. Two.", "", "Three."], "id": pa.array([7, 8, 9], pa.int8())})
    out = chunk_table(block, strategy="sentence", size=0)
    assert out.schema == pa.schema([("id", pa.int8()), *CHUNK_SCHEMA])
    assert out.column("id").to_pylist() == [7, 7, 9] and out.column("text").to_pylist() == ["One.", "Two.", "Three."]
    batch = pa.RecordBatch.from_pydict({"body": ["A b."]})  # what Spark's mapInArrow hands out
    only_text = chunk_table(batch, text_column="body", size=5, overlap=0)
    assert only_text.num_rows == 1 and only_text.schema == CHUNK_SCHEMA
    nothing = chunk_table(pa.table({"text": pa.array([], pa.string())}))
    assert nothing.num_rows == 0 and nothing.schema == CHUNK_SCHEMA
    assert chunk_table(pa.table({})).schema == CHUNK_SCHEMA  # an empty block without columns
    no_flags = chunk_table(pa.table({"text": ["Done."]}), size=5, overlap=0)
    assert no_flags.schema.field("flags").type == pa.list_(pa.string())  # not list<null>
    with pytest.raises(chunker.ChunkerError, match="no column 'text'"):
        chunk_table(pa.table({"body": ["x"]}))
    with pytest.raises(chunker.ChunkerError, match="column 'text' holds bytes in a row"):
        chunk_table(pa.table({"text": [b"x"]}))


@pytest.mark.parametrize("names", [["text", "id", "id"], ["text", "text"]])
def test_chunk_table_with_two_columns_of_one_name_is_one_line(names):
    # Arrow allows the duplicate; selecting by name raised pyarrow's KeyError.
    block = pa.Table.from_arrays([pa.array(["One. Two."])] + [pa.array([1])] * (len(names) - 1), names=names)
    dup = names[-1]
    with pytest.raises(chunker.ChunkerError, match=f"^the data has two columns named '{dup}': rename one"):
        chunk_table(block)
