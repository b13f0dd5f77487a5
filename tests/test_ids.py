"""Records at corpus scale: one reading path for every engine, stable ids, canonical sources,
bad rows that never stop a job, and --resume after a real kill.

The engines themselves (Spark, a Ray cluster) are run by tests/test_spark.py and
tests/test_ray.py; here `chunker.arrow.chunk_table`, the function every engine runs on its
batches, is held to the command line on a folder of real files.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.arrow import CHUNK_SCHEMA, EMBED_SCHEMA, chunk_table, schema_for
from chunker.cli._inputs import find_inputs
from chunker.cli._main import run
from chunker.documents import source_of
from chunker.results._records import chunk_id, id_base
from chunker.results._schema import FIELDS, RECORD_FIELDS, embeds
from chunker.strategies import STRATEGIES
from tests.documents import corpus_cli, corpus_tree
from tests.test_tables import markdown_with_tables
from tests.texts import ROOT, real_documents

SETTINGS = ["--strategy", "markdown", "--size", "120", "--overlap", "10%", "--tokenizer", "cl100k"]
OPTIONS = {"strategy": "markdown", "size": 120, "overlap": "10%", "tokenizer": "cl100k"}


def cli(args, cwd):
    """`python -m chunker ARGS` in `cwd`, in this process: (status, records, stderr lines)."""
    status, records, err = corpus_cli(args, cwd)
    return status, records, err.splitlines()


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpus")
    corpus_tree(folder)
    return folder


# ------------------------------------------------------------------ one reading path


def files_table(folder: Path) -> pa.Table:
    """What Ray's read_binary_files and Spark's binaryFile hand an engine: (path, bytes) rows,
    the paths absolute (Spark's as file: URLs), for the files the command line finds."""
    found, _ = find_inputs([str(folder)], recursive=True)
    paths = [os.path.abspath(i.path) for i in found]
    spark_style = ["file:" + p if k % 2 else p for k, p in enumerate(paths)]
    return pa.table({"path": spark_style, "bytes": [Path(p).read_bytes() for p in paths], "size": [len(p) for p in paths]})


def test_an_engine_reads_every_file_as_the_command_line_does(tree):
    status, want, errors = cli([".", "-r", "--keep-going", *SETTINGS], tree)
    assert status == 1 and len(errors) == 1 and "legacy.txt: not UTF-8" in errors[0]
    kinds = {r["source"].rsplit(".", 1)[-1] for r in want}
    assert kinds == {"md", "py", "html", "pdf", "docx"}  # every reader, extraction included
    sources = {r["source"] for r in want}
    assert {"pkg/__init__.py", "_top.md", "notes/a b.md", "notes/50%.md", "guide/deep/er/textwrap.py"} <= sources
    assert not any(s.startswith(".") or "/." in s for s in sources)
    assert any("page_start" in r for r in want)  # a PDF's pages
    out = chunk_table(files_table(tree), text_column="bytes", source_column="path", root=str(tree), **OPTIONS)
    rows = out.to_pylist()
    failed = [r for r in rows if r["error"] is not None]
    assert [(r["source"], r["index"]) for r in failed] == [("legacy.txt", None)]
    assert "not UTF-8" in failed[0]["error"]
    # The settings decide the table's columns (markdown: a split table's later parts carry its
    # header rows, so the embed text's columns are there); a row holds a null where the JSON
    # record leaves a field out.
    assert out.schema.names == ["size", *EMBED_SCHEMA.names]
    optional = ("page_start", "page_end", "embed_text", "embed_tokens")
    got = [{k: v for k, v in r.items() if k not in ("size", "error") and not (v is None and k in optional)} for r in rows]
    got = [r for r, full in zip(got, rows) if full["error"] is None]
    assert any("embed_text" in r for r in want)  # README.md's table, split
    assert got == want  # every field, ids, offsets, pages and embed texts included, in the same order


def test_a_cut_chunk_indexes_the_extracted_text(tree):
    out = chunk_table(files_table(tree), text_column="bytes", source_column="path", root=str(tree), **OPTIONS)
    texts = {}
    for r in out.to_pylist():
        if r["error"] is None:
            if r["source"] not in texts:
                texts[r["source"]] = chunker.Document.open(tree / r["source"]).text
            assert texts[r["source"]][r["start_char"] : r["end_char"]] == r["text"]


# ------------------------------------------------------------------ sources and ids


def test_source_is_the_same_however_the_path_is_typed(tree):
    target = tree / "guide" / "sample.md"
    seen = set()
    for typed in ["guide/sample.md", "./guide/sample.md", "guide/../guide/./sample.md", str(target)]:
        status, records, _ = cli([typed, *SETTINGS], tree)
        assert status == 0 and records
        seen.add(json.dumps(records))
    assert len(seen) == 1
    assert {r["source"] for r in records} == {"guide/sample.md"}  # a single file has its source too
    # From another folder the path is another one, and so are the ids; outside it, absolute.
    status, records, _ = cli(["sample.md", *SETTINGS], tree / "guide")
    assert {r["source"] for r in records} == {"sample.md"}
    status, records, _ = cli([str(target), *SETTINGS], tree / "notes")
    assert {r["source"] for r in records} == {target.as_posix()}


def test_source_of_rules():
    assert source_of("a/b.md", "/w") == source_of("./a/b.md", "/w") == source_of("/w/a/b.md", "/w") == "a/b.md"
    assert source_of("file:/w/a/b.md", "/w") == source_of("file:///w/a/b.md", "/w") == "a/b.md"
    assert source_of("file:/w/a b%20.md", "/w") == "a b%20.md"  # Spark's (Hadoop's) paths are not escaped
    assert source_of("/elsewhere/x.md", "/w") == "/elsewhere/x.md"
    assert source_of("s3://bucket/k.md", "/w") == "s3://bucket/k.md"
    assert source_of(source_of("x/./y.md", "/w"), "/w") == "x/y.md"  # canonical: made once, kept


def test_standard_input_has_no_source(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    stdin = io.StringIO("Some text. More text.")
    assert run(["--size", "5", "--overlap", "0"], stdin, out, io.StringIO()) == 0
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert records and all("source" not in r and len(r["id"]) == 32 for r in records)
    assert [r["id"] for r in records] == chunker.chunk("Some text. More text.", size=5, overlap=0).chunks.ids()


def test_record_fields_are_the_one_table(tree):
    _, records, _ = cli(["docs/handbook.pdf", "web/page.html", *SETTINGS], tree)
    order = [f.name for f in RECORD_FIELDS]
    for r in records:
        assert list(r) == [k for k in order if k in r]
        assert {k for k in order if k not in r} <= {f.name for f in FIELDS if f.optional}
    assert EMBED_SCHEMA.names == [f.name for f in FIELDS]
    assert CHUNK_SCHEMA.names == [f.name for f in FIELDS if not f.embed]
    done = subprocess.run(
        [sys.executable, "-m", "chunker", "web/page.html", "--format", "json", *SETTINGS],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [r for r in records if r["source"] == "web/page.html"]


def _ids(args, cwd, *, hashseed):
    done = subprocess.run(
        [sys.executable, "-m", "chunker", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": str(hashseed)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr  # legacy.txt
    return [(r["source"], r["index"], r["id"]) for r in map(json.loads, done.stdout.splitlines())]


def test_ids_are_stable_across_runs_processes_and_jobs(tree):
    """Two fresh interpreters (other string hash seeds), one process and four workers."""
    args = [".", "-r", "--keep-going", *SETTINGS]
    one = _ids([*args, "--jobs", "1"], tree, hashseed=1)
    four = _ids([*args, "--jobs", "4"], tree, hashseed=2)
    assert one == four and len(one) > 50
    ids = [i for _, _, i in one]
    assert len(set(ids)) == len(ids)
    # The same ids the library gives, recomputed from their parts.
    source, index, ident = one[0]
    doc = chunker.Document.open(tree / source)
    doc.source = source
    c = doc.chunk(**OPTIONS).chunks[index]
    assert ident == c.id == chunk_id(id_base(source, chunker.Settings(**OPTIONS)), c.start_char, c.end_char, c.text)


@settings(max_examples=60)
@given(
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=300),
    st.sampled_from(["recursive", "fixed", "sentence", "paragraph"]),
    st.integers(1, 40),
)
def test_two_different_chunks_never_share_an_id(text, strategy, size):
    ids = {}
    for source in (None, "a.md", "b.md"):
        for unit in ("chars", "words"):
            res = chunker.chunk(text, source=source, strategy=strategy, unit=unit, size=size, overlap=0)
            for c in res.chunks:
                key = (source, unit, c.start_char, c.end_char, c.text)
                assert ids.setdefault(c.id, key) == key
                assert c.to_dict()["id"] == c.id and len(c.id) == 32
    # The same chunk of the same source under the same settings: the same id.
    again = chunker.chunk(text, source="a.md", strategy=strategy, unit="chars", size=size, overlap=0)
    assert [ids[c.id] for c in again.chunks] == [("a.md", "chars", c.start_char, c.end_char, c.text) for c in again.chunks]


def test_equal_settings_written_two_ways_give_one_id():
    text = real_documents()[0][1]
    a = chunker.chunk(text, size=100, overlap="10%").chunks.ids()
    b = chunker.chunk(text, size=100, overlap=10).chunks.ids()
    c = chunker.chunk(text, size=100, overlap=11).chunks.ids()
    assert a == b and set(a).isdisjoint(c)


def test_ids_hash_the_options_that_cut_and_no_other(tmp_path):
    """An id hashes the settings that decide a chunk or what is embedded for it, drawn from
    the table of options (`Option.cuts`): a model limit or a retriever keeps every id."""
    import shutil

    from chunker.settings._options import OPTIONS
    from tests.embedding_fixtures import trained

    text = real_documents()[0][1]
    model = trained()
    given = {"size": 100, "overlap": 10, "embedding_model": model}
    base = chunker.chunk(text, **given).chunks.ids()
    assert len(base) > 5
    # Only ranked or judged by these: the same chunks, the same ids.
    assert chunker.chunk(text, **given, retriever="dense").chunks.ids() == base
    assert chunker.chunk(text, **given, retriever="hybrid", model_max=40).chunks.ids() == base
    limited = chunker.chunk(text, **given, model_max=40)
    assert any("truncated" in c.flags for c in limited.chunks) and limited.chunks.ids() == base
    # The model known by its content, not its folder: a copy gives the same ids.
    shutil.copytree(model, tmp_path / "copy")
    assert chunker.chunk(text, **{**given, "embedding_model": tmp_path / "copy"}).chunks.ids() == base
    # What cuts: another id for every chunk.
    for other in ({"size": 120}, {"overlap": 0}, {"min_size": 20}, {"context": "headings"}, {"unit": "chars"}):
        assert set(base).isdisjoint(chunker.chunk(text, **{**given, **other}).chunks.ids()), other
    assert {o.name for o in OPTIONS.values() if not o.cuts} == {"model_max", "retriever"}
    # From the table: an option declared with cuts=False leaves the ids as they were, one that
    # cuts (the default) is part of them.
    for cuts in (False, True):
        chunker.register_option(
            chunker.Option("throwaway", 0, lambda v, so_far: int(v), help=lambda: "", description="", cuts=cuts)
        )
        try:
            ids = chunker.chunk(text, **given).chunks.ids()
        finally:
            chunker.unregister_option("throwaway")
        assert (ids == base) is not cuts


def test_langchain_and_llama_index_carry_the_records_ids(tree, monkeypatch):
    monkeypatch.chdir(tree)  # the documents' sources are relative to it, as the records'
    from langchain_core.documents import Document
    from llama_index.core import Document as LlamaDocument

    from chunker.langchain import ChunkerSplitter
    from chunker.llama_index import ChunkerNodeParser

    _, records, _ = cli(["guide/sample.md", *SETTINGS], tree)
    text = (tree / "guide" / "sample.md").read_text(encoding="utf-8")
    want = [r["id"] for r in records]
    lc = ChunkerSplitter(**OPTIONS).split_documents([Document(page_content=text, metadata={"source": "./guide/sample.md"})])
    assert [d.id for d in lc] == want
    parser = ChunkerNodeParser(**OPTIONS)

    def document(path):
        # The path kept out of the embedded and LLM texts: the parser sizes chunks for the metadata
        # they carry, as SentenceSplitter does, and then they are the command line's chunks.
        hidden = ["file_path"]
        return LlamaDocument(
            text=text, metadata={"file_path": path}, excluded_embed_metadata_keys=hidden, excluded_llm_metadata_keys=hidden
        )

    nodes = parser.get_nodes_from_documents([document(str(tree / "guide" / "sample.md"))])
    assert [n.node_id for n in nodes] == want
    again = parser.get_nodes_from_documents([document("guide/sample.md")])
    assert [n.node_id for n in again] == want  # not random: the same on every run
    own = ChunkerNodeParser(**OPTIONS, id_func=lambda i, node: f"mine-{i}")
    assert own.get_nodes_from_documents([LlamaDocument(text=text)])[0].node_id == "mine-0"


# ------------------------------------------------------------------ bad rows never stop a job


def test_a_bad_row_is_one_error_row_and_the_rest_are_chunked():
    table = pa.table(
        {
            "doc": [1, 2, 3, 4, 5],
            "text": pa.array(["Fine text.", None, "", "Other text.", "x"], pa.string()),
        }
    )
    out = chunk_table(table, size=10, overlap=0).to_pylist()
    assert [(r["doc"], r["error"] is None) for r in out] == [(1, True), (2, False), (4, True), (5, True)]
    assert out[1]["error"] == "a row: column 'text' holds null, not text: give text or a file's bytes"
    assert all(out[1][k] is None for k in ("id", "index", "text", "start_char"))
    numbers = chunk_table(pa.table({"text": [1, 2]}), size=10, overlap=0).column("error").to_pylist()
    assert numbers == ["a row: column 'text' holds int, not text: give text or a file's bytes"] * 2
    files = pa.table({"path": ["ok.md", "bad.pdf", "latin.txt"], "content": [b"# Ok\n\nFine.", b"%PDF-1.7 broken", b"caf\xe9"]})
    rows = chunk_table(files, text_column="content", source_column="path", root="/w", size=10, overlap=0).to_pylist()
    assert [(r["source"], r["error"] is None) for r in rows] == [("ok.md", True), ("bad.pdf", False), ("latin.txt", False)]
    assert rows[1]["error"].startswith("bad.pdf") and "UTF-8" in rows[2]["error"]
    latin = chunk_table(files.slice(2), text_column="content", source_column="path", encoding="latin-1", size=10, overlap=0)
    assert latin.column("text").to_pylist() == ["café"]
    with pytest.raises(chunker.ChunkerError, match="encoding 'rot13' is not a text encoding"):
        chunk_table(files, text_column="content", encoding="rot13")
    # A binary source column: its UTF-8 is the source (it was "b'docs/a.md'"); other bytes are
    # the row's error, and the rest are chunked.
    binary = pa.table({"path": pa.array([b"docs/./a.md", b"\xffb.md", b"c.md"], pa.binary()), "text": ["A.", "B.", "C."]})
    rows = chunk_table(binary, source_column="path", root="/w", size=10, overlap=0).to_pylist()
    assert [(r["source"], r["text"]) for r in rows] == [("docs/a.md", "A."), (None, None), ("c.md", "C.")]
    assert rows[1]["error"] == "a row: its source b'\\xffb.md' is not UTF-8 (bad byte at offset 0): give sources as text"
    assert (
        rows[0]["id"]
        == chunk_table(pa.table({"path": ["docs/a.md"], "text": ["A."]}), source_column="path", root="/w", size=10, overlap=0)
        .column("id")[0]
        .as_py()
    )


@settings(max_examples=80, deadline=None)
@given(
    doc=markdown_with_tables,
    strategy=st.sampled_from(sorted(STRATEGIES)),
    size=st.integers(8, 300),
    context=st.sampled_from(["none", "none", "headings"]),
    splitter=st.sampled_from([None, None, None, "RecursiveCharacterTextSplitter(chunk_size=60, chunk_overlap=10)"]),
)
def test_a_table_row_holds_its_json_record(doc, strategy, size, context, splitter):
    """The settings decide a table's columns (`schema_for`), and each row holds exactly its
    JSON record: the embed text's columns wherever a record can carry them (a context asked
    for, a split table's header rows, a framework's own text), a null where it leaves one out."""
    options = {"strategy": strategy, "unit": "chars", "size": size, "overlap": 0, "context": context, "splitter": splitter}
    table = chunk_table(pa.table({"text": [doc]}), **options)
    assert table.schema == schema_for(**options)
    try:
        res = chunker.chunk(doc, **options)
    except chunker.ChunkerError as e:
        # Settings this text cannot take (a heading's context longer than the size): the
        # table holds one row, its error, and nothing else.
        assert [r["error"] for r in table.to_pylist()] == [f"a row: {e}"]
        assert all(v is None for k, v in table.to_pylist()[0].items() if k != "error")
        return
    want = chunker.records(res)
    assert all(set(r) <= set(table.schema.names) for r in want)  # nothing a record has is lost
    if not embeds(res.settings):
        assert not any("embed_text" in r for r in want)
    if context != "none":
        assert all("embed_text" in r for r in want)
    optional = {f.name for f in FIELDS if f.optional}
    got = [{k: v for k, v in r.items() if not (v is None and k in optional)} for r in table.to_pylist()]
    assert got == want


def test_skipped_sources_are_left_out():
    table = pa.table({"path": ["a.md", "./b.md", "c.md"], "text": ["A.", "B.", "C."]})
    out = chunk_table(table, source_column="path", root="/w", skip_sources={"b.md"}, size=10, overlap=0)
    assert out.column("source").to_pylist() == ["a.md", "c.md"]


# ------------------------------------------------------------------ --resume


def _corpus(folder: Path, n: int) -> None:
    docs = [text for _, text in real_documents()]
    for k in range(n):
        (folder / f"d{k:03d}.md").write_text(docs[k % len(docs)] + f"\n\nFile {k}.\n", encoding="utf-8")


def _journal(out: Path) -> list[str]:
    try:
        return (out.parent / f".{out.name}.chunker-resume").read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_killed_run_resumed_gives_the_output_of_one_that_was_not(tmp_path, jobs):
    """Killed three times (SIGKILL) once the journal shows 8 more inputs done, then resumed to
    the end: the bytes of one uninterrupted run (in one process), with one process or two
    workers (their parent killed: the workers see it gone and stop)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _corpus(corpus, 60)
    args = [sys.executable, "-m", "chunker", "corpus", "-r", "--tokenizer", "cl100k", "--size", "200"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    whole = subprocess.run([*args, "-o", "whole.jsonl"], cwd=tmp_path, env=env, capture_output=True, timeout=600)
    assert whole.returncode == 0, whole.stderr
    args += ["--jobs", jobs]
    out = tmp_path / "resumed.jsonl"
    kills = 0
    for _attempt in range(3):
        proc = subprocess.Popen([*args, "--resume", "-o", out.name], cwd=tmp_path, env=env, stderr=subprocess.PIPE)
        before = len(_journal(out))
        deadline = time.monotonic() + 300
        # Killed (SIGKILL: no clean-up of any kind) once it has written a few more files.
        while proc.poll() is None and len(_journal(out)) < before + 8 and time.monotonic() < deadline:
            time.sleep(0.005)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
        proc.stderr.close()
    assert not any('"complete"' in line for line in _journal(out))
    last = subprocess.run([*args, "--resume", "-o", out.name], cwd=tmp_path, env=env, capture_output=True, timeout=600)
    assert last.returncode == 0, last.stderr
    assert kills == 3  # really killed mid-corpus, three times
    assert out.read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    # Once complete, resuming does nothing; other settings are refused.
    again = subprocess.run([*args, "--resume", "-o", out.name], cwd=tmp_path, env=env, capture_output=True)
    assert again.returncode == 0 and out.read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    other = subprocess.run([*args, "--size", "100", "--resume", "-o", out.name], cwd=tmp_path, env=env, capture_output=True)
    assert other.returncode == 2 and b"begun with other settings" in other.stderr


@pytest.mark.parametrize("fmt", ["jsonl", "json", "txt"])
def test_a_half_written_input_is_cut_off_on_resume(tmp_path, monkeypatch, fmt):
    """A kill between an input's records and its journal line leaves them half written: the
    resumed run cuts them off and writes them again, whole."""
    (tmp_path / "c").mkdir()
    _corpus(tmp_path / "c", 4)
    monkeypatch.chdir(tmp_path)
    base = ["c", "-r", "--format", fmt, "--size", "60", "--overlap", "5", "--keep-going"]
    assert run([*base, "-o", "whole.out"], None, None, io.StringIO()) == 0
    assert run([*base, "--resume", "-o", "part.out"], None, None, io.StringIO()) == 0
    journal = tmp_path / ".part.out.chunker-resume"
    lines = journal.read_text().splitlines()
    second = json.loads(lines[2])
    journal.write_text("\n".join(lines[:3]) + "\n" + lines[3][:7])  # two inputs done, the third's line cut short
    with open("part.out", "r+b") as f:
        f.truncate(second["end"] + 1000)  # and the third's records half written
    assert run([*base, "--resume", "-o", "part.out"], None, None, io.StringIO()) == 0
    assert Path("part.out").read_bytes() == Path("whole.out").read_bytes()


def test_resume_refuses_what_it_cannot_resume(tmp_path, monkeypatch):
    (tmp_path / "a.md").write_text("Some text.", encoding="utf-8")
    (tmp_path / "old.jsonl").write_text("not ours\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    assert run(["a.md", "--resume"], None, io.StringIO(), err) == 2
    assert "--resume needs --output FILE" in err.getvalue()
    err = io.StringIO()
    assert run(["a.md", "--resume", "-o", "old.jsonl"], None, None, err) == 2
    assert "old.jsonl: exists and was not written by --resume" in err.getvalue()
    assert (tmp_path / "old.jsonl").read_text() == "not ours\n"
    (tmp_path / "b.md").write_text("More text.", encoding="utf-8")
    assert run(["a.md", "b.md", "--resume", "-o", "new.jsonl"], None, None, io.StringIO()) == 0
    err = io.StringIO()
    assert run(["b.md", "a.md", "--resume", "-o", "new.jsonl"], None, None, err) == 2
    assert "begun with other inputs" in err.getvalue()


# ------------------------------------------------------------------ datasets and Parquet


def test_parquet_out_holds_the_jsonl_records(tree, monkeypatch):
    import pyarrow.parquet as pq

    monkeypatch.chdir(tree)  # both runs read "." from it

    status, want, _ = cli([".", "-r", "--keep-going", *SETTINGS], tree)
    out = tree.parent / f"{tree.name}.parquet"
    assert run([".", "-r", "--keep-going", *SETTINGS, "--format", "parquet", "-o", str(out)], None, None, io.StringIO()) == 1
    table = pq.read_table(out)
    assert table.schema == EMBED_SCHEMA.remove(EMBED_SCHEMA.get_field_index("error"))  # one table of fields
    assert any("embed_text" in r for r in want)  # markdown: a split table's later parts
    got = [{k: v for k, v in r.items() if not (v is None and k.startswith(("page_", "embed_")))} for r in table.to_pylist()]
    assert got == want
    # Each input is a row group of its own.
    assert pq.ParquetFile(out).num_row_groups == len({r["source"] for r in want})


def test_a_dataset_in_jsonl_or_parquet_is_a_document_a_row(tmp_path):
    import pyarrow.parquet as pq

    texts = [text for _, text in real_documents()[:4]]
    rows = [{"doc": f"d{k}", "body": t, "n": k} for k, t in enumerate(texts)]
    rows.insert(2, {"doc": "bad", "body": None, "n": 99})
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "docs.parquet")
    args = ["--text-column", "body", "--id-column", "doc", "--keep-going", *SETTINGS]
    status, from_lines, errors = cli(["docs.jsonl", *args], tmp_path)
    assert status == 1 and errors == [
        "chunker: error: docs.jsonl#2 (bad): column 'body' holds null, not text: give every row text, or filter such rows out"
    ]
    status, from_parquet, _ = cli(["docs.parquet", *args], tmp_path)
    assert status == 1 and from_parquet == from_lines
    results = [chunker.chunk(t, source=f"d{k}", **OPTIONS) for k, t in enumerate(texts)]
    want = chunker.records(results)
    assert from_lines == [{"id": w["id"], **w} for w in want]
    # Without an id column a row is FILE#ROW.
    _, numbered, _ = cli(["docs.jsonl", "--text-column", "body", "--keep-going", *SETTINGS], tmp_path)
    assert {r["source"] for r in numbered} == {"docs.jsonl#0", "docs.jsonl#1", "docs.jsonl#3", "docs.jsonl#4"}


@pytest.mark.parametrize(
    "args, message",
    [
        (["a.md", "--id-column", "x"], "--id-column names a column of a dataset: give --text-column too"),
        (["a.md", "--text-column", "t"], "a.md: --text-column reads Parquet (.parquet) and JSON Lines (.jsonl) files"),
        (["d.jsonl", "--text-column", "body"], "d.jsonl: line 1 has no 'body' (it has text)"),
        (["a.md", "--format", "parquet", "--resume", "-o", "x.parquet"], "--resume writes jsonl, json or txt"),
        (["a.md", "--format", "csv"], "unknown format 'csv': choose one of jsonl, json, txt, chonkie, parquet"),
    ],
)
def test_dataset_and_parquet_mistakes_are_one_line(tmp_path, monkeypatch, args, message):
    (tmp_path / "a.md").write_text("Text.", encoding="utf-8")
    (tmp_path / "d.jsonl").write_text('{"text": "x"}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    assert run(args, None, io.StringIO(), err) == 2
    assert message in err.getvalue() and err.getvalue().count("\n") == 1
