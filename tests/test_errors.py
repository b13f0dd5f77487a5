"""Bad input and broken surroundings: the library raises `ChunkerError` (one line, naming the
value and what to pass instead), the command line says one line and exits non-zero. Each case
here once escaped as a raw exception, a traceback or a silent success."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import chunker
from chunker import ChunkerError
from tests.texts import ROOT

SURROGATE = "Some text \ud800 and more. Another sentence."


# --- library ------------------------------------------------------------------------------


@pytest.mark.parametrize("tokenizer", ["o200k", "cl100k", "estimate", "approx"])
def test_a_lone_surrogate_is_refused_by_name(tokenizer):
    # It used to be chunked, and then .words and to_json failed with UnicodeEncodeError.
    with pytest.raises(ChunkerError, match=r"lone surrogate \(U\+D800\) at offset 10.*errors='replace'"):
        chunker.chunk(SURROGATE, tokenizer=tokenizer)
    with pytest.raises(ChunkerError, match="lone surrogate"):
        chunker.Document(SURROGATE)
    with pytest.raises(ChunkerError, match="lone surrogate"):
        chunker.count_tokens(SURROGATE, tokenizer)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(pages=(0, 2.5)), "pages must be whole-number start offsets, got 2.5 in (0, 2.5)"),
        (dict(pages=(0, True)), "pages must be whole-number start offsets, got True"),
        (dict(pages=None), "pages must be a sequence of start offsets, got NoneType: give () for a text without pages"),
        (dict(pages=(5, 2)), "pages must be ascending start offsets from 0 within the text"),
        (dict(source=5), "source must be text or None, got int 5: give it as a str"),
        (dict(title=b"T"), "title must be text or None, got bytes b'T'"),
        (dict(source="a\udcffb.md"), "source holds a lone surrogate (U+DCFF) at offset 1"),
        (dict(title="\ud800"), "title holds a lone surrogate (U+D800) at offset 0"),
        (dict(name=["x.py"]), "name must be text or None, got list"),
    ],
)
def test_a_documents_pages_source_title_and_name_are_checked_where_given(kwargs, message):
    # Each escaped before: TypeError for pages=(0, 2.5) or None; source=5 an AttributeError once
    # a context read {source}; a surrogate in a source or title reached every embed_text, which
    # the JSON Lines writer cannot encode. (Found by a sweep.)
    with pytest.raises(ChunkerError) as raised:
        chunker.Document("One sentence. Another one.", **kwargs)
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert chunker.Document("One. Two.", source="a.md", title="T", pages=[0, 5]).pages == (0, 5)


@pytest.mark.parametrize("value", [None, b"bytes", 42])
def test_count_tokens_of_something_not_text(value):
    with pytest.raises(ChunkerError, match=f"text must be a str, got {type(value).__name__}"):
        chunker.count_tokens(value)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(strategy="sentence", breaks=None), "breaks is None: name at least one of paragraph"),
        (dict(strategy=["recursive"]), "strategy must be a name, got list ['recursive']: choose one of recursive"),
        (dict(unit=["chars"]), "unit must be a name, got list"),
        (dict(tokenizer=["o200k"]), "tokenizer must be a name, a tokenizer.json path or a loaded tokenizer, got list"),
        (dict(max_chunk_chars="x"), "max_chunk_chars must be a whole number in digits 0-9, got 'x'"),
        (dict(max_chunk_chars=-1), "max_chunk_chars must be 0 (no limit) or more, got -1"),
        (dict(size=10**400, overlap="50%"), "size 10^400 is too large: at most 1,000,000,000"),
        (dict(size="５００"), "size must be a whole number in digits 0-9, got '５００'"),
        (dict(size="1_000"), "size must be a whole number in digits 0-9, got '1_000'"),
    ],
)
def test_bad_settings_are_one_line_chunker_errors(kwargs, message):
    with pytest.raises(ChunkerError) as raised:
        chunker.chunk("One sentence. Another one.", **kwargs)
    assert message in str(raised.value) and "\n" not in str(raised.value)


# --- command line: one line on stderr, and the exit status says what happened ---------------


def _sh(script, tmp_path, **kw):
    """Run `script` in bash with `$PY` this interpreter, in `tmp_path`, with the checkout's chunker."""
    env = {**os.environ, "PY": sys.executable, "PYTHONPATH": str(ROOT)}
    return subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, **kw)


def _one_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8")
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text


def test_standard_input_closed(tmp_path):
    p = _sh('"$PY" -m chunker <&-', tmp_path)
    assert p.returncode == 2 and "standard input is closed: give a file name instead" in _one_line(p.stderr)


def test_standard_output_closed(tmp_path):
    p = _sh('echo "Some text." | "$PY" -m chunker >&-', tmp_path)
    assert p.returncode == 1 and "standard output is closed: give --output FILE" in _one_line(p.stderr)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_device(tmp_path):
    p = _sh('echo "Some text." | "$PY" -m chunker > /dev/full', tmp_path)
    assert p.returncode == 1 and "cannot write the output (No space left on device)" in _one_line(p.stderr)


def test_a_file_size_limit_is_an_error_not_a_short_output(tmp_path):
    # A full disk as a shell makes one: the output stops at 200 KB; it used to exit 0 there.
    (tmp_path / "big.txt").write_text("Some words here. " * 60_000, encoding="utf-8")
    p = _sh("""ulimit -f 200; trap '' XFSZ; "$PY" -m chunker big.txt --unit chars --size 50 --overlap 0 > out.jsonl""", tmp_path)
    assert p.returncode == 1 and "cannot write the output (File too large)" in _one_line(p.stderr)


def test_stderr_closed_still_exits_2_on_a_bad_argument(tmp_path):
    p = _sh('"$PY" -m chunker --bogus 2>&-', tmp_path)
    assert p.returncode == 2 and p.stdout == b""


@pytest.mark.parametrize(
    "args,message",
    [
        (["--size", "1" + "0" * 309], "--size 10000000000000000000… is too large: at most 1,000,000,000"),
        (["--overlap", "-5%"], "overlap '-5%' must be a percentage from 0% to under 100%"),
        # float() read them as 15%, 10% and a percentage: digits only, as for whole numbers.
        (["--overlap", "1_5%"], "overlap '1_5%' is not a percentage: write it like 15%"),
        (["--overlap", "1e1%"], "overlap '1e1%' is not a percentage"),
        (["--overlap", "１５%"], "overlap '１５%' is not a percentage"),
        (["-", "-"], "'-' is given more than once: standard input can be read only once"),
        (["--size", "５００"], "--size must be a whole number in digits 0-9, got '５００'"),
        (["--size", "1_000"], "--size must be a whole number in digits 0-9, got '1_000'"),
        (["--size", "+500"], "--size must be a whole number in digits 0-9, got '+500'"),
    ],
)
def test_bad_numbers_and_inputs_on_the_command_line(tmp_path, args, message):
    p = subprocess.run([sys.executable, "-m", "chunker", *args], cwd=ROOT, input=b"Some text.", capture_output=True)
    assert p.returncode == 2 and p.stdout == b"" and message in _one_line(p.stderr)


def test_a_file_name_that_is_not_utf8_among_several(tmp_path):
    good, odd = tmp_path / "a.txt", os.path.join(os.fsencode(tmp_path), b"caf\xe9.txt")
    good.write_text("Alpha text.", encoding="utf-8")
    with open(odd, "wb") as f:
        f.write(b"Beta text.")
    p = subprocess.run([sys.executable, "-m", "chunker", str(good), odd], cwd=ROOT, capture_output=True)
    records = [json.loads(line) for line in p.stdout.decode("utf-8").splitlines()]
    assert p.returncode == 0 and [os.path.basename(r["source"]) for r in records] == ["a.txt", "caf\ufffd.txt"]
    # An error about such a file names it readably too (it was shown as \udce9).
    with open(odd, "wb") as f:
        f.write(b"\xff\xfe not UTF-8")
    p = subprocess.run([sys.executable, "-m", "chunker", str(good), odd], cwd=ROOT, capture_output=True)
    assert p.returncode == 2 and "caf\ufffd.txt: not UTF-8 text" in _one_line(p.stderr)


def test_jsonl_escapes_the_line_separators_splitlines_knows():
    text = "One\u2028two\u2029three\x85four. And a second sentence here."
    p = subprocess.run(
        [sys.executable, "-m", "chunker", "--strategy", "sentence", "--size", "0"],
        cwd=ROOT,
        input=text.encode("utf-8"),
        capture_output=True,
    )
    out = p.stdout.decode("utf-8")
    assert p.returncode == 0 and len(out.splitlines()) == 2
    assert "\\u2028" in out and "\\u2029" in out and "\\u0085" in out
    assert [json.loads(line)["text"] for line in out.splitlines()][0] == "One\u2028two\u2029three\x85four."
    assert len(chunker.to_jsonl(chunker.chunk(text, strategy="sentence", size=0)).splitlines()) == 2


def test_running_out_of_memory_is_one_line(tmp_path):
    # The address space is capped just above what the interpreter holds once chunker is loaded,
    # so chunking five megabytes into single characters cannot finish.
    big = tmp_path / "big.txt"
    big.write_text("Some words here. " * 300_000, encoding="utf-8")
    code = textwrap.dedent("""
        import resource, sys
        from chunker.cli._main import main
        import chunker.session._api, chunker.results._export, chunker.strategies.recursive
        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + (60 << 20), vm + (60 << 20)))
        sys.exit(main([sys.argv[1], "--unit", "chars", "--size", "1", "--overlap", "0", "--tokenizer", "approx"]))
    """)
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs /proc to size the cap")
    p = subprocess.run([sys.executable, "-c", code, str(big)], cwd=ROOT, capture_output=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 1 and p.stdout == b""
    assert "out of memory: chunk fewer or smaller files at a time" in _one_line(p.stderr)


def test_the_library_and_the_command_line_read_files_alike(tmp_path):
    """One reader of files: the same mistake is the same line from Document.open and the CLI."""
    import io

    from chunker.cli._main import run

    for path in (tmp_path / "missing.md", tmp_path / "caf\udce9.md"):
        with pytest.raises(ChunkerError) as library:
            chunker.Document.open(path)
        err = io.StringIO()
        assert run([str(path)], None, io.StringIO(), err) == 2
        assert err.getvalue() == f"chunker: error: {library.value}\n"
        assert "\udce9" not in str(library.value)  # printable: the undecodable byte is U+FFFD
    with pytest.raises(ChunkerError, match="is a directory: give the files inside it"):
        chunker.Document.open(tmp_path)


# --- wrong objects to the public calls --------------------------------------------------------

_DOC = "Deploys take twelve minutes. Rollbacks take one minute."


class _Int64:
    """An int-like offset as numpy's int64 is one: a repr of its own and no JSON (json.dumps
    raised TypeError making the message)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"np.int64({self.value})"


def _question():
    at = _DOC.index("one minute")
    return chunker.Question("How long is a rollback?", [chunker.Reference(at, at + 10, "one minute")])


class _CountOnly:
    """A tokenizer with a name and a count, but no `exact` (chunker.TokenizerLike has one)."""

    name = "count-only"

    def count(self, text):
        return len(text.split())


@pytest.mark.parametrize(
    "call,message",
    [
        # Each raised TypeError, AttributeError, OverflowError or decimal.InvalidOperation.
        (lambda: chunker.BM25Index(None), "texts must be a list of str, got NoneType"),
        (lambda: chunker.BM25Index(["a"], k1=10**400), "k1 must be a finite number, got an int of 401 digits"),
        (lambda: chunker.BM25Index.from_spans("abc", [(0,)]), r"span 0 must be a \(start, end\) pair"),
        (lambda: chunker.BM25Index.from_spans("abc def", [(0.5, 2)]), r"span 0 must be .* got \(0.5, 2\)"),
        (lambda: chunker.BM25Index.from_spans("abc", None), "spans must be a list of"),
        (lambda: chunker.BM25Index.from_spans("abc", [(0, 3)], headings=[[1]]), r"headings\[0\] must hold only str"),
        (lambda: chunker.BM25Index.from_result("abc"), "from_result takes the ChunkResult of chunk"),
        (lambda: chunker.BM25Index(["a"]).prepare(None), "queries must be a list of str"),
        (lambda: chunker.evaluate(_DOC, chunker.chunk(_DOC), None), "questions must be a list of Question"),
        (lambda: chunker.evaluate(_DOC, chunker.chunk(_DOC), [_question()], b=-(10**400)), "b must be a finite number"),
        (lambda: list(chunker.sweep(_DOC, [_question()], sizes=None)), "sizes must be a list, got NoneType"),
        (lambda: list(chunker.sweep(_DOC, [_question()], strategies=5.0)), "strategies must be a list, got float 5.0"),
        (lambda: chunker.mark_best(None), "mark_best takes the rows of sweep"),
        (lambda: chunker.mark_best([1]), r"mark_best takes the rows of sweep\(\) \(SweepRow records\), got a int"),
        (lambda: chunker.Question("q", None), "question 'q' needs at least one Reference"),
        (lambda: chunker.dump_questions(None), "dump_questions takes a list of Question records"),
        (lambda: chunker.records(None), r"expected the ChunkResult of chunk\(\) or a list of them, got NoneType"),
        (lambda: chunker.to_json(list(chunker.chunk(_DOC).chunks)), "got a Chunk at 0: give the result itself"),
        (lambda: chunker.to_text(5), "got int"),
        (lambda: chunker.advise(chunker.chunk(_DOC), _DOC), "advise takes the document"),
        (lambda: chunker.advise(_DOC, None), "advise takes the ChunkResult"),
        (lambda: chunker.Document(_DOC).advise(None), "advise takes the ChunkResult"),
        (lambda: chunker.Document(_DOC).run(None), r"Document.run\(\) takes a Settings, got NoneType"),
        (lambda: chunker.Document(_DOC).compare(None), r"Document.compare\(\) takes a Settings, got NoneType"),
        (lambda: chunker.load_tokenizer(None), "load_tokenizer takes a tokenizer.json's path, text or bytes, got NoneType"),
        (lambda: chunker.tokenizer_label(5), "tokenizer must be a name or a loaded tokenizer, got int"),
        (lambda: chunker.chunk(_DOC, tokenizer=_CountOnly()), r"tokenizer 'count-only' \(_CountOnly\) lacks exact"),
        (lambda: chunker.detect_kind(None), r"detect_kind\(\) takes the file's bytes, got NoneType"),
        (lambda: chunker.detect_kind("text"), r"detect_kind\(\) takes the file's bytes, got str"),
        (lambda: chunker.extract(b"hi", name=5), "name must be the file's name as a str"),
        (lambda: chunker.extract(b"hi", max_bytes="x"), "max_bytes must be a number of bytes"),
        (lambda: chunker.Document.open(None), "Document.open takes a file's path, got NoneType"),
        (lambda: chunker.Document.from_bytes("abc", raw=True), "from_bytes takes the file's bytes, got str"),
        (lambda: chunker.register_strategy("mine"), "register_strategy takes a Strategy, got str"),
        (lambda: chunker.register_splitter(None), "register_splitter takes a SplitterClass, got NoneType"),
        (lambda: chunker.chunk(_DOC, breaks=type("R", (), {"__repr__": lambda s: "R" * 10_000})()), r"got R RRRR"),
        # A value's repr made in full before it was cut: Python's 4,300-digit limit raised
        # ValueError, a repr that fails raised its error, and a repr of many lines broke the line.
        (lambda: chunker.chunk(_DOC, context=10**5000), "context must be text .* got int an int of 5,001 digits$"),
        (lambda: chunker.chunk(_DOC, breaks=10**5000), "got int an int of 5,001 digits$"),
        (lambda: chunker.BM25Index(["a"], k1=10**5000), "k1 must be a finite number, got an int of 5,001 digits$"),
        (lambda: chunker.BM25Index.from_spans("hello", [10**5000]), "span 0 must be .* got an int of 5,001 digits$"),
        (lambda: chunker.Question(10**5000, ()), "a question must be a non-empty str, got an int of 5,001 digits$"),
        (lambda: chunker.extract(b"hi", name=10**5000), "got int an int of 5,001 digits$"),
        (lambda: chunker.chunk(_DOC, context=type("F", (), {"__repr__": lambda s: 1 / 0})()), "got F F$"),
        (lambda: chunker.chunk(_DOC, context=[[0.0] * 3] * 40), r"got list \[\[0.0, 0.0"),
        (lambda: chunker.Reference(_Int64(0), 5, "x"), r"whole-number offsets .* got \(np.int64\(0\), 5, str\)"),
        (lambda: chunker.chunk(_DOC, context="{tit\rle}"), r"unknown field \{tit\\rle\}"),
        (lambda: chunker.chunk(_DOC, context="{a\u2028b}"), r"unknown field \{a\\u2028b\}"),
    ],
)
def test_a_wrong_object_gets_a_one_line_chunker_error(call, message):
    with pytest.raises(ChunkerError, match=message) as caught:
        call()
    text = str(caught.value)
    assert len(text.splitlines()) == 1 and len(text) < 300
    text.encode("utf-8")  # no lone surrogate either


def test_bm25_and_the_adapters_refuse_a_str_for_a_list_of_texts():
    # Indexed or split as a list, a str was one text per character, silently.
    from chunker.langchain import ChunkerSplitter

    with pytest.raises(ChunkerError, match=r"texts must be a list of str, got str: give \[text\]"):
        chunker.BM25Index("hello")
    with pytest.raises(ChunkerError, match="texts must be a list of str, got str"):
        ChunkerSplitter().create_documents("hello")
    with pytest.raises(ChunkerError, match=r"headings\[0\] must be a list of str \(a heading path\), got str"):
        chunker.BM25Index.from_spans("abc", [(0, 3)], headings=["xyz"])
    # A None path is no heading path, as before.
    assert chunker.BM25Index.from_spans("abc", [(0, 3)], headings=[None]).search("abc") == [0]


def test_advice_on_another_documents_result_is_refused():
    # It used to read this text at the other document's offsets: advice about neither.
    res = chunker.chunk(_DOC, strategy="sentence", size=0)
    with pytest.raises(ChunkerError, match="the result is of another document"):
        chunker.advise(_DOC + " Backups run nightly.", res)
    assert chunker.advise(chunker.Document(_DOC), res).tips is not None


def test_a_source_with_a_lone_surrogate_from_a_loader_is_a_replacement_character():
    # A loader's metadata "source" went through os.fsencode, which raised UnicodeEncodeError;
    # it is U+FFFD now, as a file name's undecodable bytes are (documents.shown_name).
    from chunker.documents import shown_name
    from chunker.langchain import ChunkerSplitter

    assert shown_name("notes\ud800.md") == "notes\ufffd.md"
    docs = ChunkerSplitter().create_documents(["Some text."], [{"source": "notes\ud800.md"}])
    assert [d.page_content for d in docs] == ["Some text."] and docs[0].metadata == {"source": "notes\ud800.md"}
    assert docs[0].id == chunker.chunk("Some text.", source="notes\ufffd.md").chunks[0].id


def test_an_export_of_a_list_holding_a_wrong_item_writes_nothing():
    # The list was checked as it was written: a streamed export gave the first results'
    # records, then failed at the chunk among them.
    res = chunker.chunk("Some text here. More text there.", unit="words", size=3, overlap=0)
    pieces = chunker.FORMATS["jsonl"].pieces([res, res, res.chunks[0]])
    with pytest.raises(chunker.ChunkerError, match="got a Chunk at 2: give the result itself"):
        next(iter(pieces))
